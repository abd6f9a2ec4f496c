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

"""select_destinations under the class-based preemption policies.

Hosts are 8 vCPU / 16384 MB / 500 GB blades unless told otherwise;
filters compute, resources and attributes; weigher allocation_score.
Default classes (gold 1.0 / importance 1, silver 0.9 / 2, bronze 0.5 / 3;
margin 10 s). Every decision is at NOW.
"""


from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler
from preemptible_sched.scheduler.preemption_strategies import priority
from preemptible_sched.scheduler.preemption_strategies import qos as qos_policy
from preemptible_sched.service_classes import qos
from tests import base

NOW = 1000.0
MEDIUM = objects.Resources(2, 4000, 40)


def build(policy, hosts, memory_mb=16384):
    """A scheduler holding ``hosts``: [(name, [Instance], attributes)]."""
    sched = scheduler.FilterScheduler(strategy=policy, seed=0)
    for name, instances, attributes in hosts:
        sched.host_manager.add_host(objects.Host(
            name, 8, memory_mb, 500, attributes=attributes))
        for instance in instances:
            sched.host_manager.add_instance(name, instance)
    return sched


def classed(instance_id, cls, admitted_at, running_s=0.0,
            running_since=None, preemptible=False):
    return objects.Instance(instance_id, MEDIUM, preemptible,
                            service_class=cls, admitted_at=admitted_at,
                            running_s=running_s,
                            running_since=running_since)


def gold(instance_id):
    # r = 1000: Q = 1000 - 1000 = 0; gold is never preempted (PO 0 is
    # not below its threshold 0).
    return classed(instance_id, 'gold', 0, 0, 0)


def bronze_at_risk(instance_id='bronze-risk', preemptible=False):
    # r = 500: Q = 1000 - 1000 = 0 < 10; deficit 10.
    return classed(instance_id, 'bronze', 0, 0, 500, preemptible)


def silver_50(instance_id='silver-50', preemptible=False):
    # r = 495: Q = 495 / 0.9 - 500 = 50; slack 40.
    return classed(instance_id, 'silver', 500, 0, 505, preemptible)


def bronze_200(instance_id='bronze-200', preemptible=False):
    # r = 300 + 300 = 600: Q = 1200 - 1000 = 200; slack 190.
    return classed(instance_id, 'bronze', 0, 300, 700, preemptible)


def qos_request(cls, submitted_at, running_s=0.0, num=1, preemptible=False,
                **kw):
    spec = objects.RequestSpec('req', MEDIUM, preemptible, num,
                               service_class=cls, **kw)
    return spec, objects.PendingRequest(spec, submitted_at, 0,
                                        running_s=running_s,
                                        overhead_s=7.0)


class ByClassTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources', 'attributes'],
                   weighers=['allocation_score'])

    def assertPlaced(self, decision, host, victims):
        self.assertTrue(decision.placed, decision.reason)
        self.assertEqual([(host, victims)],
                         [(s.host, sorted(s.terminate))
                          for s in decision.selections])

    def usage(self, sched):
        return {name: sorted(state.instances)
                for name, state in sched.host_manager.host_states.items()}


class TestQoS(ByClassTestCase):

    def setUp(self):
        super().setUp()
        self.policy = qos_policy.QoSStrategy(qos.Classes(), exempt=120)

    def three_full_hosts(self, preemptible=(False, False, False)):
        """Each blade: three gold instances and one other.

        Preemption scores for a gold request of one MEDIUM slot:
        h1 (bronze at risk): (0, 0, 10, 0); h2 (silver, slack 40):
        (0, 0, 0, 1/40); h3 (bronze, slack 190): (0, 0, 0, 1/190).
        """
        return [
            ('h1', [gold('g1a'), gold('g1b'), gold('g1c'),
                    bronze_at_risk(preemptible=preemptible[0])],
             {'ssd': 'true'}),
            ('h2', [gold('g2a'), gold('g2b'), gold('g2c'),
                    silver_50(preemptible=preemptible[1])],
             {'ssd': 'true'}),
            ('h3', [gold('g3a'), gold('g3b'), gold('g3c'),
                    bronze_200(preemptible=preemptible[2])], {}),
        ]

    def test_fits_somewhere_placed_without_victims(self):
        hosts = self.three_full_hosts()
        hosts[1] = ('h2', [gold('g2a'), gold('g2b'), gold('g2c')], {})
        spec, pending = qos_request('gold', 990)
        decision = build(self.policy, hosts).select_destinations(
            spec, NOW, pending=pending)
        self.assertPlaced(decision, 'h2', [])

    def test_request_not_at_risk_placed_when_it_fits(self):
        hosts = self.three_full_hosts()
        hosts[2] = ('h3', [], {})
        # bronze: Q = 100 / 0.5 - 100 = 100, safe
        spec, pending = qos_request('bronze', 900, 100)
        decision = build(self.policy, hosts).select_destinations(
            spec, NOW, pending=pending)
        self.assertPlaced(decision, 'h3', [])

    def test_most_slack_host_wins(self):
        sched = build(self.policy, self.three_full_hosts())
        # gold: Q = 0 - 10 = -10, at risk
        spec, pending = qos_request('gold', 990)
        decision = sched.select_destinations(spec, NOW, pending=pending)
        self.assertPlaced(decision, 'h3', ['bronze-200'])
        self.assertEqual(['g3a', 'g3b', 'g3c', 'req'],
                         self.usage(sched)['h3'])
        self.assertNotIn('bronze-200', sched.host_manager.instance_hosts)

    def test_placed_instance_keeps_the_qos_account(self):
        sched = build(self.policy, self.three_full_hosts())
        spec, pending = qos_request('gold', 990, running_s=3)
        decision = sched.select_destinations(spec, NOW, pending=pending)
        placed = decision.selections[0].instance
        self.assertEqual((990, 3, 7.0, 'gold'),
                         (placed.admitted_at, placed.running_s,
                          placed.overhead_s, placed.service_class))

    def test_safe_victim_beats_an_at_risk_one(self):
        # Without h3: h2 (0, 0, 0, 1/40) < h1 (0, 0, 10, 0).
        hosts = self.three_full_hosts()[:2]
        spec, pending = qos_request('gold', 990)
        decision = build(self.policy, hosts).select_destinations(
            spec, NOW, pending=pending)
        self.assertPlaced(decision, 'h2', ['silver-50'])

    def test_other_filters_still_exclude_hosts(self):
        # h3 lacks ssd=true: h2 is the best of h1 and h2.
        spec, pending = qos_request('gold', 990, constraints={'ssd': 'true'})
        decision = build(self.policy, self.three_full_hosts()).\
            select_destinations(spec, NOW, pending=pending)
        self.assertPlaced(decision, 'h2', ['silver-50'])

    def test_at_risk_victim_only_for_a_more_important_request(self):
        hosts = self.three_full_hosts()[:1]
        # silver request, Q = 0 - 10 = -10: may take the at-risk bronze.
        spec, pending = qos_request('silver', 990)
        decision = build(self.policy, hosts).select_destinations(
            spec, NOW, pending=pending)
        self.assertPlaced(decision, 'h1', ['bronze-risk'])
        # bronze request, Q = 0 - 10 = -10: may not.
        sched = build(self.policy, hosts)
        spec, pending = qos_request('bronze', 990)
        decision = sched.select_destinations(spec, NOW, pending=pending)
        self.assertFalse(decision.placed)
        self.assertEqual(4, len(self.usage(sched)['h1']))

    def test_request_not_at_risk_displaces_nothing(self):
        sched = build(self.policy, self.three_full_hosts())
        before = self.usage(sched)
        # bronze: Q = 100 / 0.5 - 100 = 100 >= 10
        spec, pending = qos_request('bronze', 900, 100)
        decision = sched.select_destinations(spec, NOW, pending=pending)
        self.assertFalse(decision.placed)
        self.assertEqual(before, self.usage(sched))

    def test_gold_instances_only_is_no_room(self):
        hosts = [('h1', [gold('g%d' % i) for i in range(4)], {})]
        spec, pending = qos_request('gold', 990)
        decision = build(self.policy, hosts).select_destinations(
            spec, NOW, pending=pending)
        self.assertFalse(decision.placed)

    def test_no_room_even_without_candidates_is_decided_before_filters(
            self):
        # h1's bronze could go, but a request of 2 slots needs more room
        # than it frees: no host is worth filtering (nor planning).
        hosts = self.three_full_hosts()
        spec = objects.RequestSpec('req', objects.Resources(4, 8000, 80),
                                   service_class='gold')
        pending = objects.PendingRequest(spec, 990, 0)
        sched = build(self.policy, hosts)
        handler = sched.filter_handler
        calls = []
        original = handler.filter_batch

        def counting(batch, *args):
            calls.append(len(batch))
            return original(batch, *args)
        handler.filter_batch = counting
        before = self.usage(sched)
        decision = sched.select_destinations(spec, NOW, pending=pending)
        self.assertFalse(decision.placed)
        self.assertEqual([3], calls)        # the FIT phase only
        self.assertEqual(before, self.usage(sched))
        # Explained, every host is filtered on its displacement view too.
        calls.clear()
        sched.select_destinations(spec, NOW, pending=pending, explain=True)
        self.assertEqual([3, 3], calls)

    def test_exempt_time_protects_a_fresh_run(self):
        # bronze-200 has run 300 s: with 301 s it is exempt and h2 wins.
        policy = qos_policy.QoSStrategy(qos.Classes(), exempt=301)
        spec, pending = qos_request('gold', 990)
        decision = build(policy, self.three_full_hosts()).\
            select_destinations(spec, NOW, pending=pending)
        # silver-50 has run 495 s and still may go.
        self.assertPlaced(decision, 'h2', ['silver-50'])

    def test_preemptible_flag_plays_no_part(self):
        # The same decision with the victims flagged the other way round
        # and a preemptible request.
        hosts = self.three_full_hosts(preemptible=(True, True, False))
        spec, pending = qos_request('gold', 990, preemptible=True)
        decision = build(self.policy, hosts).select_destinations(
            spec, NOW, pending=pending)
        self.assertPlaced(decision, 'h3', ['bronze-200'])

    def test_without_queue_entry_request_counts_as_admitted_now(self):
        # gold: Q = 0 - 0 = 0, at risk.
        spec, _ = qos_request('gold', NOW)
        decision = build(self.policy, self.three_full_hosts()).\
            select_destinations(spec, NOW)
        self.assertPlaced(decision, 'h3', ['bronze-200'])
        self.assertEqual(NOW, decision.selections[0].instance.admitted_at)

    def test_multi_instance_request_sees_earlier_victims_gone(self):
        # First h3 (bronze-200), then h2 (1/40) beats h1 (deficit 10).
        spec, pending = qos_request('gold', 990, num=2)
        decision = build(self.policy, self.three_full_hosts()).\
            select_destinations(spec, NOW, pending=pending)
        self.assertEqual([('req-0', 'h3', ['bronze-200']),
                          ('req-1', 'h2', ['silver-50'])],
                         [(s.instance.id, s.host, s.terminate)
                          for s in decision.selections])

    def test_multi_instance_all_or_nothing(self):
        # The third instance would need the at-risk bronze of h1 and a
        # bronze request may not take it: nothing changes.
        sched = build(self.policy, self.three_full_hosts())
        before = self.usage(sched)
        spec, pending = qos_request('bronze', 990, num=3)
        decision = sched.select_destinations(spec, NOW, pending=pending)
        self.assertFalse(decision.placed)
        self.assertIn('instance 3 of 3', decision.reason)
        self.assertEqual(before, self.usage(sched))

    def test_explain_lists_victims_per_host(self):
        spec, pending = qos_request('gold', 990)
        decision = build(self.policy, self.three_full_hosts()).\
            select_destinations(spec, NOW, explain=True, pending=pending)
        self.assertEqual(
            [('h1', True, ['bronze-risk']), ('h2', True, ['silver-50']),
             ('h3', True, ['bronze-200'])],
            [(r.name, r.passed, r.terminate) for r in decision.reports[0]])


def prioritized(instance_id, prio, vcpus, admitted_at=0.0,
                preemptible=False):
    return objects.Instance(instance_id, objects.Resources(vcpus, 1000, 0),
                            preemptible, priority=prio,
                            admitted_at=admitted_at, running_since=0.0)


class TestPriority(ByClassTestCase):

    def setUp(self):
        super().setUp()
        self.policy = priority.PriorityStrategy()

    def hosts(self):
        """h1: one victim of priority 2; h2: three of priority 1.

        A 3-vCPU request: on h1 'top' (5 vCPUs) + 3 fits once v2 goes
        ([2]); on h2 'top' + 3 fits only once all three 1-vCPU instances
        go ([1, 1, 1]).
        """
        return [
            ('h1', [prioritized('top1', 5, 5), prioritized('v2', 2, 3)],
             {'rack': 'a'}),
            ('h2', [prioritized('top2', 5, 5),
                    prioritized('v1a', 1, 1, 10),
                    prioritized('v1b', 1, 1, 20),
                    prioritized('v1c', 1, 1, 30)], {'rack': 'b'}),
        ]

    def _decide(self, hosts, prio, vcpus=3, **kw):
        spec = objects.RequestSpec('req', objects.Resources(vcpus, 1000, 0),
                                   priority=prio, **kw)
        return build(self.policy, hosts).select_destinations(spec, NOW)

    def test_fits_somewhere_placed_without_victims(self):
        hosts = self.hosts() + [('h3', [prioritized('top3', 5, 5)], {})]
        self.assertPlaced(self._decide(hosts, 3), 'h3', [])

    def test_fewest_of_the_highest_priority(self):
        # (1, 1, 1) < (2,)
        self.assertPlaced(self._decide(self.hosts(), 3), 'h2',
                          ['v1a', 'v1b', 'v1c'])

    def test_only_strictly_lower_priority(self):
        # Priority 2: v2 is not lower, h2 still works.
        self.assertPlaced(self._decide(self.hosts(), 2), 'h2',
                          ['v1a', 'v1b', 'v1c'])
        # Priority 1: nothing is lower.
        self.assertFalse(self._decide(self.hosts(), 1).placed)

    def test_youngest_of_equals_goes_first(self):
        # 1 vCPU needed on h2: v1c (admitted last) goes; on h1 v2 ([2]).
        self.assertPlaced(self._decide(self.hosts(), 3, vcpus=1), 'h2',
                          ['v1c'])

    def test_other_filters_still_exclude_hosts(self):
        decision = self._decide(self.hosts(), 3, constraints={'rack': 'a'})
        self.assertPlaced(decision, 'h1', ['v2'])

    def test_preemptible_flag_plays_no_part(self):
        hosts = self.hosts()
        hosts[0] = ('h1', [prioritized('top1', 5, 5),
                           prioritized('v2', 2, 3, preemptible=True)], {})
        decision = self._decide(hosts, 3, preemptible=True)
        self.assertPlaced(decision, 'h2', ['v1a', 'v1b', 'v1c'])

    def test_tie_broken_by_allocation_score_after_preemption(self):
        def inst(instance_id, prio, vcpus, memory_mb):
            return objects.Instance(
                instance_id, objects.Resources(vcpus, memory_mb, 0),
                priority=prio, running_since=0.0)
        hosts = [('hA', [inst('kA', 5, 4, 4000), inst('vA', 1, 4, 8000)],
                  {}),
                 ('hB', [inst('kB', 5, 6, 2000), inst('vB', 1, 2, 2000)],
                  {})]
        spec = objects.RequestSpec('req', objects.Resources(2, 2000, 0),
                                   priority=3)
        decision = build(self.policy, hosts, memory_mb=16000).\
            select_destinations(spec, NOW)
        self.assertPlaced(decision, 'hA', ['vA'])
