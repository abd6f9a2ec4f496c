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

from unittest import mock

from preemptible_sched import exception
from preemptible_sched import loadables
from preemptible_sched.termination import billing_period
from preemptible_sched.weighers import cpu
from preemptible_sched.weighers import ram
from tests import base

WEIGHERS = 'preemptible_sched.weighers'
OPTION = ('filter_scheduler', 'weighers')


class TestLoadPlugins(base.TestCase):

    def test_configured_order_kept(self):
        for names, types in ((['ram', 'cpu'], [ram.RAMWeigher,
                                               cpu.CPUWeigher]),
                             (['cpu', 'ram'], [cpu.CPUWeigher,
                                               ram.RAMWeigher])):
            plugins = loadables.load_plugins(WEIGHERS, names, *OPTION)
            self.assertEqual(types, [type(plugin) for plugin in plugins])
            self.assertEqual(names, [plugin.name for plugin in plugins])

    def test_blank_names_ignored(self):
        plugins = loadables.load_plugins(WEIGHERS, [' ram ', '', ' '],
                                         *OPTION)
        self.assertEqual(['ram'], [plugin.name for plugin in plugins])

    def test_no_names(self):
        self.assertEqual([], loadables.load_plugins(WEIGHERS, [], *OPTION))

    def test_each_load_is_a_new_object(self):
        first, = loadables.load_plugins(WEIGHERS, ['ram'], *OPTION)
        second, = loadables.load_plugins(WEIGHERS, ['ram'], *OPTION)
        self.assertIsNot(first, second)

    def test_unknown_name_lists_valid_names(self):
        error = self.assertRaises(exception.UnknownPlugin,
                                  loadables.load_plugins, WEIGHERS,
                                  ['ram', 'rma', 'cpus'], *OPTION)
        self.assertIsInstance(error, exception.InvalidInput)
        self.assertEqual(OPTION, (error.group, error.option))
        self.assertEqual(WEIGHERS, error.namespace)
        self.assertEqual(['cpus', 'rma'], error.names)
        self.assertEqual(
            ['allocation_score', 'balanced_allocation', 'best_fit', 'cpu',
             'disk', 'first_fit', 'least_requested',
             'load_variation_risk_balancing', 'num_instances',
             'preemptible_count', 'ram', 'target_load_packing',
             'termination_cost', 'worst_fit'], error.valid)
        message = str(error)
        self.assertTrue(
            message.startswith('[filter_scheduler] weighers: '), message)
        self.assertIn("'rma'", message)
        self.assertIn('valid: allocation_score, balanced_allocation, '
                      'best_fit, cpu', message)

    def test_unknown_namespace(self):
        error = self.assertRaises(exception.UnknownPlugin,
                                  loadables.load_plugins,
                                  'preemptible_sched.nothing', ['x'],
                                  *OPTION)
        self.assertEqual([], error.valid)

    def test_load_failure_is_invalid_input(self):
        with mock.patch.object(billing_period.BillingPeriodCost, '__init__',
                               side_effect=RuntimeError('boom')):
            error = self.assertRaises(
                exception.InvalidInput, loadables.load_plugins,
                'preemptible_sched.termination_costs', ['billing_period'],
                'preemptible', 'termination_costs')
        self.assertEqual('preemptible_sched.termination_costs',
                         error.source)
        self.assertEqual('billing_period', error.field)
        self.assertIn('boom', error.message)
