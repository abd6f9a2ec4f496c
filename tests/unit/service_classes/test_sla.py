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

import collections
import dataclasses
import random

from preemptible_sched import exception
from preemptible_sched.hosts import batch as host_batch
from preemptible_sched import objects
from preemptible_sched.service_classes import sla
from tests import base


def levels(satisfaction, reputation, resources, replicas):
    return objects.SLALevels(satisfaction, reputation, resources, replicas)


def moldable(spec_id, resources_level, reputation='premium'):
    return base.make_spec(
        (0, 0, 0), spec_id=spec_id, sequential_s=300.0,
        sla=levels('best_effort', reputation, resources_level,
                   'best_effort'))


def host(name, cores, used=0, category='high'):
    instances = [base.make_instance(name + '-used', (used, 0, 0))] \
        if used else ()
    return base.make_host_state(name, vcpus=cores, memory_mb=1024,
                                instances=instances,
                                attributes={'reputation': category})


class TestPromethee(base.TestCase):

    def test_published_example(self):
        # §8: a = (3,1,2,1), b = (2,2,2,2), c = (1,3,1,3), equal weights.
        flows = sla.promethee([(3, 1, 2, 1), (2, 2, 2, 2), (1, 3, 1, 3)],
                              (1, 1, 1, 1))
        self.assertEqual([-0.125, 0.125, 0.0],
                         [round(f.net, 12) for f in flows])
        # a beats b on 1/4, c on 2/4: phi+ = 3/8; beaten 2/4 by each.
        self.assertAlmostEqual(0.375, flows[0].plus)
        self.assertAlmostEqual(0.5, flows[0].minus)
        self.assertAlmostEqual(0.5, flows[1].plus)
        self.assertAlmostEqual(0.375, flows[1].minus)

    def test_weights_change_the_winner(self):
        # All the weight on satisfaction: a (3) > b (2) > c (1).
        flows = sla.promethee([(3, 1, 2, 1), (2, 2, 2, 2), (1, 3, 1, 3)],
                              (1, 0, 0, 0))
        self.assertEqual([1.0, 0.0, -1.0], [f.net for f in flows])

    def test_alone_and_empty(self):
        self.assertEqual([(0.0, 0.0, 0.0)], sla.promethee([(3, 3, 3, 3)],
                                                          (1, 1, 1, 1)))
        self.assertEqual([], sla.promethee([], (1, 1, 1, 1)))

    def test_net_flows_sum_to_zero(self):
        rows = [(3, 3, 3, 3), (1, 2, 3, 1), (2, 2, 2, 2), (1, 1, 1, 1)]
        flows = sla.promethee(rows, (1, 2, 3, 4))
        self.assertAlmostEqual(0.0, sum(f.net for f in flows))
        self.assertEqual(max(f.net for f in flows), flows[0].net)

    def test_equal_to_every_pair_compared(self):
        # Duplicates counted once per occurrence, as a pairwise sum does.
        rows = [(3, 1, 2, 1), (2, 2, 2, 2), (3, 1, 2, 1), (1, 3, 1, 3),
                (2, 2, 2, 2), (3, 3, 3, 3), (3, 1, 2, 1)]
        weights = (1, 2, 3, 4)
        n = len(rows)

        def pi(a, b):
            return sum(w for x, y, w in zip(a, b, weights) if x > y) / 10.0
        expected = [(sum(pi(a, b) for b in rows) / (n - 1),
                     sum(pi(b, a) for b in rows) / (n - 1)) for a in rows]
        got = sla.promethee(rows, weights)
        for (plus, minus), flows in zip(expected, got):
            self.assertAlmostEqual(plus, flows.plus)
            self.assertAlmostEqual(minus, flows.minus)
            self.assertAlmostEqual(plus - minus, flows.net)

    def test_net_flows_of_counted_criteria_are_those_of_every_row(self):
        # To the last bit: the queue's order (and its ties) comes from
        # them.
        rng = random.Random(4)
        for count in (2, 3, 17, 500):
            rows = [tuple(rng.choice((1, 2, 3)) for _ in range(4))
                    for _ in range(count)]
            weights = (1.0, 0.3, 2.0, 0.7)
            net = sla.net_flows(collections.Counter(rows), weights)
            self.assertEqual([flows.net for flows in
                              sla.promethee(rows, weights)],
                             [net[row] for row in rows])

    def test_net_flows_alone_and_empty(self):
        self.assertEqual({(3, 3, 3, 3): 0.0},
                         sla.net_flows({(3, 3, 3, 3): 1}, (1, 1, 1, 1)))
        self.assertEqual({}, sla.net_flows({}, (1, 1, 1, 1)))

    def test_weights_from_the_options(self):
        self.flags(group='sla', resources_weight=5.0)
        self.assertEqual((1.0, 1.0, 5.0, 1.0), sla.weights())


class TestBands(base.TestCase):

    def test_thirty_two_cores(self):
        self.assertEqual({'best_effort': (1, 10), 'advanced': (11, 21),
                          'premium': (22, 32)}, sla.bands(32))

    def test_nine_cores(self):
        self.assertEqual({'best_effort': (1, 3), 'advanced': (4, 6),
                          'premium': (7, 9)}, sla.bands(9))

    def test_three_cores_one_each(self):
        self.assertEqual({'best_effort': (1, 1), 'advanced': (2, 2),
                          'premium': (3, 3)}, sla.bands(3))

    def test_fewer_than_three_cores_collapse(self):
        # Issue 26: a 2-vCPU blade crash-looped the scheduler.
        self.assertEqual({'best_effort': (1, 1), 'advanced': (1, 1),
                          'premium': (2, 2)}, sla.bands(2))
        self.assertEqual({'best_effort': (1, 1), 'advanced': (1, 1),
                          'premium': (1, 1)}, sla.bands(1))
        self.assertRaises(ValueError, sla.bands, 0)
        for cores in range(1, 40):
            for band in sla.bands(cores).values():
                self.assertLessEqual(1, band.low)
                self.assertLessEqual(band.low, band.high)
                self.assertLessEqual(band.high, cores)


class TestSizing(base.TestCase):

    def test_published_example(self):
        # Three premium-reputation hosts of 9 cores with 9, 6, 6 idle:
        # wc = 21, N = 9; resources premium, advanced, best effort.
        states = [host('a', 9), host('b', 9, used=3), host('c', 9, used=3)]
        queue = [moldable('c1', 'premium'), moldable('c2', 'advanced'),
                 moldable('c3', 'best_effort')]
        got = []
        for index, spec in enumerate(queue):
            sizing = sla.size(spec, states, queue[index:])
            got.append((sizing.idle, sizing.total_priority, sizing.raw,
                        sizing.cores))
            # Allocated one after another: wc shrinks with each one.
            for state in states:
                if state.full.free_vcpus >= sizing.cores:
                    state.consume(base.make_instance(
                        spec.id, (sizing.cores, 0, 0)))
                    break
        self.assertEqual([(21, 6, 10, 9), (12, 3, 8, 6), (6, 1, 6, 3)], got)

    def test_clamped_up_to_the_low_edge(self):
        # 30 premium requests on 5 idle hosts of 32: 3*160/90 = 5 -> 22.
        states = [host('h%d' % i, 32) for i in range(5)]
        queue = [moldable('p%d' % i, 'premium') for i in range(30)]
        sizing = sla.size(queue[0], states, queue)
        self.assertEqual((5, 22, (22, 32)), (sizing.raw, sizing.cores,
                                             sizing.band))

    def test_clamped_down_to_the_high_edge(self):
        states = [host('h%d' % i, 32, category='low') for i in range(5)]
        queue = [moldable('b', 'best_effort', reputation='best_effort')]
        sizing = sla.size(queue[0], states, queue)
        self.assertEqual((160, 10), (sizing.raw, sizing.cores))

    def test_two_core_hosts_size_within_them(self):
        # Issue 26: N = 2 raised, and every pass crashed the scheduler.
        states = [host('h%d' % i, 2) for i in range(3)]
        queue = [moldable('p', 'premium'), moldable('b', 'best_effort')]
        self.assertEqual((2, (2, 2)), (sla.size(queue[0], states,
                                                queue).cores,
                                       sla.size(queue[0], states,
                                                queue).band))
        self.assertEqual(1, sla.size(queue[1], states, queue[1:]).cores)

    def test_a_host_without_a_whole_core_sets_no_reference(self):
        states = [host('tiny', 0.5), host('h', 9)]
        queue = [moldable('p', 'premium')]
        self.assertEqual(9, sla.size(queue[0], states, queue).reference_cores)

    def test_inside_the_band(self):
        states = [host('h%d' % i, 32, category='low') for i in range(5)]
        queue = [moldable('b%d' % i, 'best_effort',
                          reputation='best_effort') for i in range(30)]
        self.assertEqual(5, sla.size(queue[0], states, queue).cores)

    def test_only_the_same_reputation_shares(self):
        # Other categories' requests and hosts are not counted.
        states = [host('h', 9), host('l', 90, category='low')]
        queue = [moldable('c1', 'advanced'),
                 moldable('other', 'premium', reputation='best_effort')]
        sizing = sla.size(queue[0], states, queue)
        self.assertEqual((9, 2, 9, 6), (sizing.idle, sizing.total_priority,
                                        sizing.raw, sizing.cores))

    def test_down_hosts_do_not_count(self):
        states = [host('a', 9), host('b', 12)]
        states[1].up = False
        sizing = sla.size(moldable('c', 'premium'), states,
                          [moldable('c', 'premium')])
        self.assertEqual((9, 9), (sizing.idle, sizing.reference_cores))

    def test_reference_cores_per_category_or_configured(self):
        states = [host('a', 12), host('l', 6, category='low')]
        spec = moldable('c', 'premium')
        self.assertEqual(6, sla.size(spec, states, [spec]).reference_cores)
        self.flags(group='sla', reference_cores='per_category')
        self.assertEqual(12, sla.size(spec, states, [spec]).reference_cores)
        self.flags(group='sla', reference_cores='configured',
                   reference_cores_value=30)
        sizing = sla.size(spec, states, [spec])
        self.assertEqual((30, (21, 30)), (sizing.reference_cores,
                                          sizing.band))

    def test_no_host_of_the_category(self):
        states = [host('l', 6, category='low')]
        self.flags(group='sla', reference_cores='per_category')
        spec = moldable('c', 'premium')
        self.assertIsNone(sla.size(spec, states, [spec]))

    def test_sized_spec_runs_sequential_over_cores(self):
        spec = sla.sized(moldable('c', 'premium'),
                         sla.Sizing('high', 32, sla.Band(22, 32), 160, 90,
                                    3, 5, 24))
        self.assertEqual(24.0, spec.resources.vcpus)
        self.assertFalse(spec.moldable)
        self.assertEqual(12.5, sla.run_time(spec))


class TestCopies(base.TestCase):

    def test_default_totals(self):
        spec = moldable('c', 'premium')
        for replicas, count in (('premium', 3), ('advanced', 2),
                                ('best_effort', 1)):
            copied = sla.with_copies(dataclasses.replace(
                spec, sla=spec.sla._replace(replicas=replicas)))
            self.assertEqual(count, copied.num_instances)
            if count > 1:
                self.assertEqual(('c', 'anti-affinity'),
                                 (copied.group, copied.group_policy))
            else:
                self.assertIsNone(copied.group)

    def test_extra_copies(self):
        self.flags(group='sla', replicas_count='extra', premium_replicas=1)
        spec = moldable('c', 'premium')
        spec = dataclasses.replace(spec, sla=spec.sla._replace(
            replicas='premium'))
        self.assertEqual(2, sla.with_copies(spec).num_instances)

    def test_no_sla_is_left_alone(self):
        spec = base.make_spec()
        self.assertIs(spec, sla.with_copies(spec))


class TestCopiesApart(base.TestCase):

    def test_only_without_anti_affinity(self):
        self.assertEqual([], sla.copies_filters(['compute',
                                                 'anti_affinity']))
        added = sla.copies_filters(['compute', 'reputation'])
        self.assertEqual(['sla_copies'], [item.name for item in added])

    def test_rejects_the_hosts_of_other_copies(self):
        copied = sla.with_copies(dataclasses.replace(
            moldable('c', 'premium'),
            sla=levels('premium', 'premium', 'premium', 'premium')))
        member = base.make_instance('c-0', (1, 0, 0), group='c')
        states = [base.make_host_state('h1', instances=[member]),
                  base.make_host_state('h2'), base.make_host_state('h3')]
        batch = host_batch.HostBatch.of_views([s.full for s in states])
        apart = sla.CopiesApart()
        self.assertTrue(apart.applies_to(copied))
        # h1 holds copy c-0; h3 was taken earlier in this decision.
        copied = dataclasses.replace(copied, group_hosts=frozenset(['h3']))
        self.assertEqual([False, True, False],
                         apart.filter_all(batch, copied).tolist())

    def test_other_requests_pass(self):
        apart = sla.CopiesApart()
        self.assertFalse(apart.applies_to(base.make_spec(
            group='g', group_policy='anti-affinity')))
        self.assertFalse(apart.applies_to(moldable('c', 'premium')))


class TestNoHostUp(base.TestCase):

    def test_categories_of_the_up_hosts(self):
        self.assertEqual(frozenset(['high', None]), sla.up_categories(
            ['high', 'low', None, 'high'], [True, False, True, False]))

    def test_says_why_only_when_its_category_is_down(self):
        spec = moldable('c', 'premium', reputation='advanced')
        self.assertEqual(
            'no host of reputation category average is up (its advanced '
            'reputation runs only there)',
            sla.no_host_up(spec, frozenset(['high', 'low'])))
        self.assertIsNone(sla.no_host_up(spec, frozenset(['average'])))
        self.assertIsNone(sla.no_host_up(base.make_spec(), frozenset()))


class TestLevels(base.TestCase):

    def field(self, service):
        return 'field ' + service

    def test_parsed(self):
        self.assertEqual(
            levels('premium', 'advanced', 'best_effort', 'premium'),
            sla.levels({'satisfaction_time': 'premium',
                        'reputation': 'Advanced', 'resources': 'best-effort',
                        'replicas': 'premium'}, 'f.csv', self.field))

    def test_none_given(self):
        self.assertIsNone(sla.levels({'reputation': ''}, 'f.csv',
                                     self.field))

    def test_every_problem_at_once(self):
        error = self.assertRaises(
            exception.InvalidInput, sla.levels,
            {'satisfaction_time': 'gold', 'reputation': 'premium',
             'resources': 'premium'}, 'f.csv', self.field)
        self.assertIn("field satisfaction_time: expected one of premium, "
                      "advanced, best_effort, got 'gold'", str(error))
        self.assertIn('field replicas: missing', str(error))
        self.assertTrue(str(error).startswith('f.csv: '))
