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

import logging

from preemptible_sched import objects
from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import cpu
from preemptible_sched.scheduler.weighers import ram
from tests import base


class FixedWeigher(weighers.BaseHostWeigher):
    """Raw weight looked up by host name."""

    def __init__(self, name, weights, minval=None, maxval=None):
        self.name = name
        self.weights = weights
        self.minval = minval
        self.maxval = maxval

    def _weigh_object(self, host_view, spec):
        return self.weights[host_view.name]


class TestNormalize(base.TestCase):

    def test_empty(self):
        self.assertEqual([], weighers.normalize([]))

    def test_observed_bounds(self):
        self.assertEqual([0.5, 0.0, 1.0, 0.25],
                         weighers.normalize([3, 1, 5, 2]))

    def test_negative_weights(self):
        self.assertEqual([1.0, 0.0, 0.75],
                         weighers.normalize([0, -4, -1]))

    def test_all_equal_is_zero(self):
        self.assertEqual([0.0, 0.0], weighers.normalize([7, 7]))
        self.assertEqual([0.0], weighers.normalize([7]))

    def test_fixed_bounds(self):
        self.assertEqual([0.25, 0.75], weighers.normalize([2.5, 7.5], 0, 10))

    def test_fixed_bounds_clamp(self):
        self.assertEqual([0.0, 0.5, 1.0],
                         weighers.normalize([-3, 5, 12], 0, 10))

    def test_only_minval(self):
        # The maximum is the largest weight seen.
        self.assertEqual([0.0, 0.5, 1.0],
                         weighers.normalize([-2, 2, 4], minval=0))

    def test_only_maxval(self):
        self.assertEqual([0.0, 0.5, 1.0],
                         weighers.normalize([2, 4, 9], maxval=6))

    def test_equal_fixed_bounds_is_zero(self):
        self.assertEqual([0.0, 0.0], weighers.normalize([1, 9], 5, 5))


class TestWeightHandler(base.TestCase):
    """ram and cpu weighers on three 8 vCPU / 16384 MB hosts.

    Free (vCPUs, MB): a (6, 12384), b (4, 8384), c (8, 16384); both
    weighers normalise to a 0.5, b 0.0, c 1.0.
    """

    def setUp(self):
        super().setUp()
        self.spec = base.make_spec()

    def _views(self, c_aggregates=()):
        medium = base.make_instance
        return [
            base.make_host_state('a', instances=[medium('a1')]).full,
            base.make_host_state('b', instances=[
                medium('b1'), medium('b2', preemptible=True)]).full,
            base.make_host_state('c', aggregates=c_aggregates).full]

    def _rank(self, views=None, names=('ram', 'cpu')):
        handler = weighers.WeightHandler.from_names(list(names))
        weighed = handler.get_weighed_objects(views or self._views(),
                                              self.spec)
        return [(item.view.name, item.weight) for item in weighed]

    def test_from_names(self):
        handler = weighers.WeightHandler.from_names(['cpu', 'ram'])
        self.assertEqual([cpu.CPUWeigher, ram.RAMWeigher],
                         [type(w) for w in handler.weighers])
        self.assertEqual(['cpu', 'ram'], [w.name for w in handler.weighers])

    def test_default_multipliers_sum(self):
        self.assertEqual([('c', 2.0), ('a', 1.0), ('b', 0.0)], self._rank())

    def test_config_multiplier(self):
        self.flags(group='filter_scheduler', cpu_weight_multiplier=-3.0)
        # a: 0.5 - 1.5, b: 0 - 0, c: 1 - 3.
        self.assertEqual([('b', 0.0), ('a', -1.0), ('c', -2.0)],
                         self._rank())

    def test_aggregate_overrides_multiplier(self):
        views = self._views([objects.Aggregate(
            'stack', {'ram_weight_multiplier': '-5'})])
        # c: -5 * 1.0 (ram) + 1.0 (cpu).
        self.assertEqual([('a', 1.0), ('b', 0.0), ('c', -4.0)],
                         self._rank(views))

    def test_smallest_aggregate_override_wins(self):
        views = self._views([
            objects.Aggregate('x', {'ram_weight_multiplier': '2'}),
            objects.Aggregate('y', {'ram_weight_multiplier': '0.5'})])
        self.assertEqual([('c', 1.5), ('a', 1.0), ('b', 0.0)],
                         self._rank(views))

    def test_non_numeric_override_uses_config(self):
        self.flags(group='filter_scheduler', ram_weight_multiplier=3.0)
        views = self._views([objects.Aggregate(
            'bad', {'ram_weight_multiplier': 'lots'})])
        self.assertEqual([('c', 4.0), ('a', 2.0), ('b', 0.0)],
                         self._rank(views))

    def test_override_of_other_weigher_ignored(self):
        views = self._views([objects.Aggregate(
            'agg', {'disk_weight_multiplier': '-100'})])
        self.assertEqual([('c', 2.0), ('a', 1.0), ('b', 0.0)],
                         self._rank(views))

    def test_undeclared_multiplier_defaults_to_one(self):
        weigher = FixedWeigher('fixed', {})
        self.assertEqual('fixed_weight_multiplier',
                         weigher.multiplier_option())
        self.assertEqual(1.0, weigher.default_multiplier())

    def test_minval_maxval_clamp(self):
        views = self._views()
        weigher = FixedWeigher('fixed', {'a': -3, 'b': 5, 'c': 12}, 0, 10)
        weighed = weighers.WeightHandler([weigher]).get_weighed_objects(
            views, self.spec)
        self.assertEqual([('c', 1.0), ('b', 0.5), ('a', 0.0)],
                         [(i.view.name, i.weight) for i in weighed])

    def test_ties_keep_input_order(self):
        views = self._views()
        weigher = FixedWeigher('fixed', {'a': 1, 'b': 2, 'c': 2})
        handler = weighers.WeightHandler([weigher])
        self.assertEqual(
            ['b', 'c', 'a'],
            [i.view.name for i in handler.get_weighed_objects(views,
                                                              self.spec)])
        self.assertEqual(
            ['c', 'b', 'a'],
            [i.view.name for i in handler.get_weighed_objects(views[::-1],
                                                              self.spec)])

    def test_explain_details(self):
        handler = weighers.WeightHandler.from_names(['ram'])
        weighed = handler.get_weighed_objects(self._views(), self.spec)
        by_name = {item.view.name: item.details for item in weighed}
        self.assertEqual(
            {'ram': {'raw': 12384.0, 'normalized': 0.5, 'multiplier': 1.0}},
            by_name['a'])

    def test_debug_log_per_host(self):
        handler = weighers.WeightHandler.from_names(['ram'])
        with self.assertLogs('preemptible_sched.scheduler.weighers',
                             logging.DEBUG) as logs:
            handler.get_weighed_objects(self._views(), self.spec)
        self.assertEqual(3, len(logs.records))
        self.assertIn('Weigher ram on host b: raw 8384.0, normalized 0.0, '
                      'multiplier 1.0', logs.output[1])


class TestOneSidedBounds(base.TestCase):

    def test_weights_below_a_lone_minval_all_normalise_to_zero(self):
        self.assertEqual([0.0, 0.0], weighers.normalize([-5, -3], minval=0))

    def test_weights_above_a_lone_maxval_all_normalise_to_zero(self):
        self.assertEqual([0.0, 0.0], weighers.normalize([5, 7], maxval=3))

    def test_lone_minval_spans_to_the_observed_max(self):
        self.assertEqual([0.0, 0.5, 1.0],
                         weighers.normalize([-1, 5, 10], minval=0))


class TestRankLast(base.TestCase):

    def test_host_that_cannot_take_the_request_ranks_last(self):
        class Picky(weighers.BaseHostWeigher):
            name = 'picky'

            def _weigh_object(self, host_view, spec):
                return {'a': -3.0, 'b': None, 'c': 0.0}[host_view.name]

        handler = weighers.WeightHandler([Picky()])
        views = [base.make_host_state(name).full for name in 'abc']
        weighed = handler.get_weighed_objects(views, base.make_spec())
        self.assertEqual(['c', 'a', 'b'], [w.view.name for w in weighed])
        self.assertEqual(0.0, weighed[-1].weight)
        self.assertIsNone(weighed[-1].details['picky']['raw'])
