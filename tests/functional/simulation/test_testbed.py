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

"""The testbed procedure: the victims are the cheapest set on the testbed.

For many seeds, with same-size and mixed flavors, the emulated evaluation
runs until the first normal request that needs a termination; an
independent oracle then tries every subset of preemptible instances on every
blade of the reported snapshot and checks that nothing cheaper would have
made room.
"""

import itertools

from preemptible_sched.conf import CONF
from preemptible_sched import objects
from preemptible_sched.simulation import testbed
from tests import base

PERIOD = 3600.0
SIZES = {name: tuple(f.resources) for name, f in objects.FLAVORS.items()}


def cheapest_on_testbed(report):
    """(cost, host) of the cheapest termination set anywhere."""
    request = SIZES[report['request']['flavor']]
    best = None
    for host in report['hosts']:
        capacity = (host['vcpus'], host['memory_mb'], host['disk_gb'])
        used = [sum(i[key] for i in host['instances'])
                for key in ('vcpus', 'memory_mb', 'disk_gb')]
        candidates = [i for i in host['instances'] if i['preemptible']]
        for size in range(len(candidates) + 1):
            for subset in itertools.combinations(candidates, size):
                freed = [sum(i[key] for i in subset)
                         for key in ('vcpus', 'memory_mb', 'disk_gb')]
                if all(used[d] - freed[d] + request[d] <= capacity[d] + 1e-6
                       for d in range(3)):
                    cost = sum(i['runtime_s'] % PERIOD for i in subset)
                    if best is None or cost < best[0] - 1e-6:
                        best = (cost, host['name'])
    return best


class TestTestbedProcedure(base.TestCase):

    def setUp(self):
        super().setUp()
        # The config fixture resets these defaults after the test.
        testbed.set_paper_defaults(CONF)

    def check(self, seed, flavors):
        report = testbed.Testbed(seed=seed, flavors=flavors).run()
        self.assertIsNotNone(report, 'seed %d never needed a termination'
                             % seed)
        victims = {v['id'] for v in report['terminated']}
        self.assertTrue(victims)
        by_id = {i['id']: (h['name'], i) for h in report['hosts']
                 for i in h['instances']}
        for victim in victims:
            host, instance = by_id[victim]
            self.assertTrue(instance['preemptible'], victim)
            self.assertEqual(report['placed_on'], host)
        cost = sum(by_id[v][1]['runtime_s'] % PERIOD for v in victims)
        best_cost, _ = cheapest_on_testbed(report)
        self.assertAlmostEqual(best_cost, cost, places=6,
                               msg='seed %d %s' % (seed, flavors))
        self.assertAlmostEqual(cost, sum(v['cost']
                                         for v in report['terminated']),
                               places=6)
        # The decision completed: victims gone, new instance running.
        self.assertEqual('running', report['new_instance_state'])
        self.assertEqual({v: 'terminated' for v in victims},
                         report['victim_states'])

    def test_same_size_flavors(self):
        for seed in range(1, 11):
            self.check(seed, 'medium')

    def test_mixed_flavors(self):
        for seed in range(1, 11):
            self.check(seed, 'mixed')


class TestTestbedTable(base.TestCase):

    def setUp(self):
        super().setUp()
        testbed.set_paper_defaults(CONF)

    def test_table_says_what_the_cost_is(self):
        report = testbed.Testbed(seed=1).run()
        text = testbed.to_table(report)
        lines = text.splitlines()
        header = next(line for line in lines if line.startswith('Host'))
        self.assertEqual(['Host', 'Instance', 'Flavor', 'Kind',
                          'Run time (min)', 'Terminated'],
                         [cell.strip() for cell in header.split('  ')
                          if cell.strip()])
        victim = report['terminated'][0]
        # The cost has its unit: seconds of the billing period forfeited.
        self.assertIn('%s (ran %.1f min, cost %.1f s)' % (
            victim['id'], victim['runtime_min'], victim['cost']), text)
        explanation = ' '.join(lines[lines.index(next(
            line for line in lines if line.startswith('Termination cost'))):])
        self.assertIn('Termination cost (billing_period): seconds of its '
                      'current 60-min billing period an instance forfeits',
                      explanation)
        self.assertTrue(all(len(line) <= 79 for line in lines
                            if not line.startswith(('Emulated', 'After'))))

    def report(self, costs):
        return {'termination_costs': costs, 'billing_period_s': 1800}

    def test_cost_units(self):
        self.assertEqual('s', testbed.cost_unit(
            self.report(['runtime']))[0])
        self.assertIn('seconds an instance had run', testbed.cost_unit(
            self.report(['runtime']))[1])
        self.assertEqual('instances', testbed.cost_unit(
            self.report(['count']))[0])
        self.assertIn('30-min billing period', testbed.cost_unit(
            self.report(['billing_period']))[1])

    def test_weighted_costs_have_no_single_unit(self):
        self.flags(group='preemptible', count_cost_multiplier=0.5)
        unit, sentence = testbed.cost_unit(
            self.report(['billing_period', 'count']))
        self.assertEqual('', unit)
        self.assertIn('a weighted sum with no single unit', sentence)
        self.assertIn('1 × billing_period', sentence)
        self.assertIn('0.5 × count: one per instance terminated', sentence)
        unit, sentence = testbed.cost_unit(self.report(['count']))
        self.assertEqual('', unit)
        self.assertIn('0.5 × count', sentence)
