# Copyright 2026 The preemptible_sched developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""What a decision says about itself (the journal's explanation and the
per-host reports of ``explain=True``), the order candidates are tried in,
and what a placed instance carries.

8 vCPU / 16384 MB / 500 GB blades; filters compute and resources; weigher
termination_cost (multiplier 10) on billing-period costs unless told
otherwise. Run times are in minutes before t = 0; the billing cost of a
preemptible instance is its partial hour in seconds.
"""

import random

from preemptible_sched.loop import timing
from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler
from preemptible_sched.scheduler.preemption_strategies import priority
from tests import base
from tests.unit.scheduler import test_filter_scheduler as test_scheduler
from tests.unit.scheduler.test_filter_scheduler import build
from tests.unit.scheduler.test_filter_scheduler import inst
from tests.unit.scheduler.test_filter_scheduler import MEDIUM
from tests.unit.scheduler.test_filter_scheduler import SMALL
from tests.unit.scheduler.test_filter_scheduler import spec

WHOLE = objects.Resources(8, 16000, 400)


class ExplainTestCase(test_scheduler.SchedulerTestCase):

    def hosts(self):
        """h1: p1 (partial hour 1 min), h2: q1 (15 min), h3: normal only;
        each blade full.
        """
        return [
            ('h1', [inst('a1'), inst('a2'), inst('a3'),
                    inst('p1', MEDIUM, True, 61)]),
            ('h2', [inst('b1'), inst('b2'), inst('b3'),
                    inst('q1', MEDIUM, True, 75)]),
            ('h3', [inst('c%d' % i) for i in range(4)]),
        ]


class TestExplanation(ExplainTestCase):

    def test_explanation_of_a_displacing_decision(self):
        decision = build(hosts=self.hosts()).select_destinations(spec(),
                                                                 now=0)
        selection = decision.selections[0]
        # h3's normal view is full: the resources filter rejects it. The
        # termination costs, -60 s on h1 and -900 s on h2, normalise to 1
        # and 0 (multiplier 10).
        self.assertEqual({
            'hosts': 3, 'passed': 2, 'rejected_by': {'resources': 1},
            'weights': {'termination_cost': {
                'raw': -60.0, 'normalized': 1.0, 'multiplier': 10.0}},
            'victims': [{'id': 'p1', 'cost': 60.0}],
            'reason': selection.plan.reason}, selection.explanation())
        self.assertIn('60', selection.plan.reason)
        self.assertEqual(['p1'], selection.terminate)
        self.assertEqual({'h3': 'resources'}, selection.verdicts.as_dict())
        self.assertEqual(3, selection.hosts)

    def test_explanation_without_victims(self):
        hosts = self.hosts() + [('h4', [])]
        selection = build(hosts=hosts).select_destinations(
            spec(preemptible=True), now=0).selections[0]
        explanation = selection.explanation()
        self.assertEqual(('h4', 4, 1, {'resources': 3}, [], None),
                         (selection.host, explanation['hosts'],
                          explanation['passed'], explanation['rejected_by'],
                          explanation['victims'], explanation['reason']))

    def test_passed_counts_only_hosts_that_passed_the_filters(self):
        # retry, three blades: h1 full of normal instances, h2 full of
        # preemptible ones, h3 with one of each. The displace phase skips
        # h1 (nothing to displace): it did not pass.
        hosts = [('h1', [inst('n%d' % i) for i in range(4)]),
                 ('h2', [inst('p%d' % i, preemptible=True, minutes=10 + i)
                         for i in range(4)]),
                 ('h3', [inst('a', minutes=5),
                         inst('b', preemptible=True, minutes=20),
                         inst('c', objects.Resources(4, 8000, 80))])]
        selection = build('retry', hosts=hosts).select_destinations(
            spec(), now=0).selections[0]
        self.assertEqual((3, 2), (selection.explanation()['hosts'],
                                  selection.explanation()['passed']))

    def test_bare_selection_explains_itself(self):
        selection = scheduler.Selection(
            base.make_instance('i'), 'h', objects.TerminationPlan('h'))
        self.assertEqual({'hosts': 0, 'passed': 0, 'rejected_by': {},
                          'weights': {}, 'victims': [], 'reason': None},
                         selection.explanation())


class TestReports(ExplainTestCase):

    def test_displace_phase_reports_every_host(self):
        decision = build(hosts=self.hosts()).select_destinations(
            spec(), now=0, explain=True)
        (report,) = decision.reports
        self.assertEqual(
            [('h1', 'normal', True, None, 10.0, ['p1']),
             ('h2', 'normal', True, None, 0.0, ['q1']),
             ('h3', 'normal', False, 'resources', None, None)],
            [(r.name, r.view, r.passed, r.failed_filter, r.total_weight,
              r.terminate) for r in report])
        self.assertEqual({'termination_cost': {
            'raw': -900.0, 'normalized': 0.0, 'multiplier': 10.0}},
            report[1].weights)
        self.assertIsNone(report[2].weights)

    def test_fit_phase_reports_the_full_view(self):
        hosts = self.hosts() + [('h4', [inst('d1', WHOLE, True)]),
                                ('h5', [])]
        decision = build(hosts=hosts).select_destinations(
            spec(preemptible=True), now=0, explain=True)
        (report,) = decision.reports
        self.assertEqual(
            [('h1', 'full', False, 'resources', None),
             ('h2', 'full', False, 'resources', None),
             ('h3', 'full', False, 'resources', None),
             ('h4', 'full', False, 'resources', None),
             ('h5', 'full', True, None, ())],
            [(r.name, r.view, r.passed, r.failed_filter, r.terminate)
             for r in report])

    def test_retry_leaves_hosts_with_nothing_to_displace_out(self):
        # The second phase of retry only considers hosts with preemptible
        # instances: h3 is neither filtered nor weighed there.
        decision = build('retry', hosts=self.hosts()).select_destinations(
            spec(), now=0, explain=True)
        (report,) = decision.reports
        self.assertEqual(
            [('h1', 'normal', True, None), ('h2', 'normal', True, None),
             ('h3', 'normal', False, None)],
            [(r.name, r.view, r.passed, r.failed_filter) for r in report])
        self.assertEqual({}, decision.selections[0].verdicts.as_dict())

    def test_one_report_per_instance_and_none_without_explain(self):
        hosts = [('h%d' % i, []) for i in range(2)]
        decision = build(hosts=hosts).select_destinations(spec(num=3))
        self.assertEqual([], decision.reports)
        decision = build(hosts=hosts).select_destinations(
            spec(num=3), explain=True)
        self.assertEqual(3, len(decision.reports))
        self.assertEqual([2, 2, 2], [len(r) for r in decision.reports])

    def test_failed_request_keeps_the_reports_of_its_attempt(self):
        hosts = [('h1', [inst('n1', WHOLE)])]
        decision = build(hosts=hosts).select_destinations(
            spec(num=2), explain=True)
        self.assertFalse(decision.placed)
        self.assertEqual([[('h1', False, 'resources')]],
                         [[(r.name, r.passed, r.failed_filter) for r in rep]
                          for rep in decision.reports])
        self.assertEqual([], decision.selections)


class TestOrder(ExplainTestCase):
    """The draw among the best ``host_subset_size`` and the alternates."""

    def setUp(self):
        super().setUp()
        self.flags(group='filter_scheduler', enabled_filters=['compute'],
                   weighers=['ram'])

    def free_ram_hosts(self):
        # Free RAM decreasing from h0 to h4: h_i holds i small instances.
        return [('h%d' % i, [inst('n%d-%d' % (i, j), SMALL)
                             for j in range(i)]) for i in range(5)]

    def test_pick_is_the_seeded_draw_among_the_best(self):
        for seed in range(8):
            expected = 'h%d' % random.Random(seed).randrange(3)
            sched = build(hosts=self.free_ram_hosts(), seed=seed,
                          host_subset_size=3)
            self.assertEqual(expected, sched.select_destinations(
                spec(SMALL)).selections[0].host, seed)

    def test_no_draw_when_one_host_is_left(self):
        # The first request fits one host only: nothing is drawn, so the
        # second request's pick is the generator's first draw.
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources'])
        for seed in range(8):
            hosts = [('big', []), ('small', [inst('x', objects.Resources(
                6, 1000, 0))])]
            sched = build(hosts=hosts, seed=seed, host_subset_size=2)
            first = sched.select_destinations(
                spec(objects.Resources(4, 1000, 0)))
            self.assertEqual('big', first.selections[0].host)
            # Now 'big' has 4 vCPUs and 15384 MB free, 'small' 2 and
            # 15384: equal RAM, so both are the best two.
            second = sched.select_destinations(objects.RequestSpec(
                'second', SMALL))
            expected = ['big', 'small'][random.Random(seed).randrange(2)]
            self.assertEqual(expected, second.selections[0].host, seed)

    def test_subset_larger_than_the_hosts(self):
        picks = {build(hosts=self.free_ram_hosts(), seed=seed,
                       host_subset_size=50).select_destinations(
                           spec(SMALL)).selections[0].host
                 for seed in range(40)}
        self.assertEqual({'h0', 'h1', 'h2', 'h3', 'h4'}, picks)

    def test_subset_of_one_is_the_best(self):
        for seed in range(5):
            sched = build(hosts=self.free_ram_hosts(), seed=seed,
                          host_subset_size=1)
            self.assertEqual('h0', sched.select_destinations(
                spec(SMALL)).selections[0].host)

    def test_alternates_follow_best_first(self):
        # Only the compute filter: h0 is drawn (subset of one) but cannot
        # hold the request; the others are tried best first, so h1 (the
        # best of them) is skipped only because it is also too full.
        hosts = [('h0', [inst('x', objects.Resources(1, 1000, 490))]),
                 ('h1', [inst('y', objects.Resources(1, 2000, 490))]),
                 ('h2', [inst('z', objects.Resources(1, 3000, 0))]),
                 ('h3', [inst('w', objects.Resources(1, 4000, 0))])]
        decision = build(hosts=hosts, host_subset_size=1).\
            select_destinations(spec(SMALL))
        self.assertEqual('h2', decision.selections[0].host)


class TestStages(ExplainTestCase):

    def test_displacing_decision_times_its_stages(self):
        stats = timing.StageStats()
        stats.begin_pass(1, 0.0)
        context = objects.PassContext(now=0.0, stopwatch=stats.stopwatch)
        decision = build(hosts=self.hosts()).select_destinations(
            spec(), context=context)
        stats.end_pass()
        self.assertEqual(['p1'], decision.selections[0].terminate)
        sizes = {row[2]: (row[3], row[4]) for row in stats.passes}
        # Three hosts filtered on their normal view; h1 and h2 weighed;
        # the preemption stage tried h1 only (it has victims).
        self.assertEqual({'R1': (1, 3), 'R4': (1, 3), 'R5': (1, 2),
                          'T10': (1, 2)}, sizes)


class TestPlacedInstance(ExplainTestCase):

    def test_instance_carries_the_request_account(self):
        pending = objects.PendingRequest(spec(), 42.0, 7, running_s=5.0,
                                         overhead_s=3.0)
        hosts = [('h1', [])]
        decision = build(hosts=hosts).select_destinations(
            spec(), now=100.0, pending=pending)
        instance = decision.selections[0].instance
        self.assertEqual(('req', 42.0, 5.0, 3.0, 100.0),
                         (instance.id, instance.admitted_at,
                          instance.running_s, instance.overhead_s,
                          instance.started_at))

    def test_without_entry_admitted_at_the_decision_time(self):
        hosts = [('h1', [])]
        decision = build(hosts=hosts).select_destinations(spec(num=2),
                                                          now=30.0)
        self.assertEqual([('req-0', 30.0, 0.0), ('req-1', 30.0, 0.0)],
                         [(s.instance.id, s.instance.admitted_at,
                           s.instance.running_s)
                          for s in decision.selections])

    def test_host_manager_claims_the_host_and_drops_the_victims(self):
        sched = build(hosts=self.hosts())
        sched.select_destinations(spec(), now=0)
        self.assertEqual('h1', sched.host_manager.instance_hosts['req'])
        self.assertNotIn('p1', sched.host_manager.instance_hosts)
        state = sched.host_manager.host_states['h1']
        self.assertEqual(['a1', 'a2', 'a3', 'req'], sorted(state.instances))

    def test_failed_multi_instance_request_puts_the_victims_back(self):
        # The first instance displaces p1 on h1, the second q1 on h2, the
        # third finds nothing: p1 and q1 are back where they were.
        sched = build(hosts=self.hosts())
        decision = sched.select_destinations(spec(num=3), now=0)
        self.assertFalse(decision.placed)
        self.assertEqual(
            {'h1': ['a1', 'a2', 'a3', 'p1'], 'h2': ['b1', 'b2', 'b3', 'q1'],
             'h3': ['c0', 'c1', 'c2', 'c3']},
            {name: sorted(state.instances) for name, state in
             sched.host_manager.host_states.items()})
        self.assertEqual('h1', sched.host_manager.instance_hosts['p1'])
        self.assertNotIn('req-0', sched.host_manager.instance_hosts)

    def test_reason_names_the_request_and_the_strategy(self):
        decision = build('plain', hosts=self.hosts()).select_destinations(
            spec(num=2))
        self.assertFalse(decision.placed)
        self.assertEqual([], decision.selections)
        self.assertIn('instance 1 of 2 of request req', decision.reason)
        self.assertIn('plain', decision.reason)


class TestDefaults(base.TestCase):

    def test_strategy_and_weighers_from_the_configuration(self):
        self.flags(group='scheduler', preemption_strategy='priority')
        self.flags(group='filter_scheduler', weighers=None,
                   host_subset_size=3)
        sched = scheduler.FilterScheduler()
        self.assertEqual('priority', sched.strategy.name)
        self.assertEqual(['allocation_score'],
                         [w.name for w in sched.weight_handler.weighers])
        self.assertEqual(3, sched.host_subset_size)

    def test_configured_weighers_win(self):
        self.flags(group='filter_scheduler', weighers=['ram'])
        sched = scheduler.FilterScheduler(strategy='qos')
        self.assertEqual(['ram'],
                         [w.name for w in sched.weight_handler.weighers])

    def test_seed_from_the_configuration(self):
        self.flags(group='scheduler', random_seed=11)
        self.flags(group='filter_scheduler', host_subset_size=5)
        first = scheduler.FilterScheduler(strategy='plain').rng.random()
        self.assertEqual(random.Random(11).random(), first)
        self.assertEqual(random.Random(4).random(), scheduler.FilterScheduler(
            strategy='plain', seed=4).rng.random())


class TestByScore(base.TestCase):
    """The class-based path: hosts ranked by the victims' score."""

    def setUp(self):
        super().setUp()
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources', 'attributes'],
                   weighers=['allocation_score'])

    def hosts(self):
        def prio(instance_id, value):
            return objects.Instance(instance_id, objects.Resources(4, 4000, 0),
                                    priority=value, running_since=0.0)
        # h1: a priority-1 victim; h2: a priority-2 one; h3: nothing lower
        # than the request; h4 lacks the attribute the request wants.
        return [('h1', [prio('k1', 9), prio('v1', 1)], {'ssd': 'true'}),
                ('h2', [prio('k2', 9), prio('v2', 2)], {'ssd': 'true'}),
                ('h3', [prio('k3', 9), prio('v3', 9)], {'ssd': 'true'}),
                ('h4', [prio('k4', 9), prio('v4', 1)], {})]

    def decide(self, **kw):
        sched = scheduler.FilterScheduler(
            strategy=priority.PriorityStrategy(), seed=0)
        for name, instances, attributes in self.hosts():
            sched.host_manager.add_host(objects.Host(
                name, 8, 16384, 500, attributes=attributes))
            for instance in instances:
                sched.host_manager.add_instance(name, instance)
        request = objects.RequestSpec('req', objects.Resources(4, 4000, 0),
                                      priority=5,
                                      constraints={'ssd': 'true'})
        return sched.select_destinations(request, now=10.0, **kw)

    def test_report_of_every_host(self):
        decision = self.decide(explain=True)
        self.assertEqual([('h1', ['v1'])],
                         [(s.host, s.terminate)
                          for s in decision.selections])
        (report,) = decision.reports
        # The FIT phase found no host; the reports are those of the
        # DISPLACE phase, which leaves out h3 (nothing to displace there).
        self.assertEqual(
            [('h1', 'without displaceable', True, None, ['v1']),
             ('h2', 'without displaceable', True, None, ['v2']),
             ('h3', 'without displaceable', False, None, None),
             ('h4', 'without displaceable', False, 'attributes', None)],
            [(r.name, r.view, r.passed, r.failed_filter, r.terminate)
             for r in report])

    def test_preemption_stage_counts_the_candidate_hosts(self):
        stats = timing.StageStats()
        stats.begin_pass(1, 10.0)
        context = objects.PassContext(now=10.0, stopwatch=stats.stopwatch)
        request = objects.RequestSpec('req', objects.Resources(4, 4000, 0),
                                      priority=5,
                                      constraints={'ssd': 'true'})
        sched = scheduler.FilterScheduler(
            strategy=priority.PriorityStrategy(), seed=0)
        for name, instances, attributes in self.hosts():
            sched.host_manager.add_host(objects.Host(
                name, 8, 16384, 500, attributes=attributes))
            for instance in instances:
                sched.host_manager.add_instance(name, instance)
        decision = sched.select_destinations(request, context=context)
        stats.end_pass()
        self.assertTrue(decision.placed)
        sizes = {row[2]: (row[3], row[4]) for row in stats.passes}
        # R1 once; R4 twice (FIT and DISPLACE) over the 4 hosts; T10 over
        # the 2 hosts that passed the filters of the DISPLACE phase (h3
        # has nothing to displace, h4 lacks the attribute).
        self.assertEqual((1, 4), sizes['R1'])
        self.assertEqual((2, 8), sizes['R4'])
        self.assertEqual((1, 2), sizes['T10'])
