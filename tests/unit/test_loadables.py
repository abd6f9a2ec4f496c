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

import importlib.metadata
from unittest import mock

import stevedore
from stevedore import extension as stevedore_extension

from preemptible_sched.conf import plugins
from preemptible_sched import exception
from preemptible_sched import loadables
from preemptible_sched.scheduler.termination_costs import billing_period
from preemptible_sched.scheduler import weighers
from preemptible_sched.scheduler.weighers import cpu
from preemptible_sched.scheduler.weighers import ram
from tests import base

WEIGHERS = 'preemptible_sched.weighers'
OPTION = ('filter_scheduler', 'weighers')
DISTRIBUTION = 'preemptible-sched'


def entry_points():
    """``{namespace: [entry points]}`` of every ``preemptible_sched.*``
    namespace, from the installed distribution's metadata.
    """
    found = {}
    for entry_point in importlib.metadata.distribution(
            DISTRIBUTION).entry_points:
        if entry_point.group.startswith('preemptible_sched.'):
            found.setdefault(entry_point.group, []).append(entry_point)
    return found


def registered(namespace):
    """The entry-point names of ``namespace``, sorted."""
    return sorted(entry_point.name
                  for entry_point in entry_points()[namespace])


def misnamed(manager):
    """One line for each extension of ``manager`` whose class does not
    declare its entry-point name.
    """
    return ['%s %s: %s.%s has name = %r' % (
        manager.namespace, extension.name, extension.plugin.__module__,
        extension.plugin.__qualname__, getattr(extension.plugin, 'name', None))
        for extension in manager.extensions
        if getattr(extension.plugin, 'name', None) != extension.name]


def extension(name, plugin_class, obj=None):
    return stevedore_extension.Extension(name, None, plugin_class, obj)


class Forgetful(weighers.BaseHostWeigher):
    """A weigher that declares no name."""


class Misspelt(weighers.BaseHostWeigher):
    """A weigher whose name is not its entry point's."""

    name = 'mispelt'


class BiggerRAM(ram.RAMWeigher):
    """A subclass of a built-in weigher that declares no name."""


class TestDeclaredNames(base.TestCase):

    def test_every_plugin_declares_its_entry_point_name(self):
        found = entry_points()
        self.assertLessEqual(
            {plugins.FILTERS, plugins.WEIGHERS, plugins.TERMINATION_COSTS,
             plugins.QUEUE_POLICIES, plugins.PREEMPTION_STRATEGIES,
             plugins.SLA_PRICES, 'preemptible_sched.compute_drivers',
             'preemptible_sched.load_sources'}, set(found))
        problems = []
        for namespace, points in sorted(found.items()):
            manager = stevedore.ExtensionManager.make_test_instance(
                [extension(point.name, point.load()) for point in points],
                namespace)
            problems += misnamed(manager)
        self.assertEqual([], problems)

    def test_a_forgotten_or_misspelt_name_is_caught(self):
        manager = stevedore.ExtensionManager.make_test_instance(
            [extension('ram', ram.RAMWeigher),
             extension('forgetful', Forgetful),
             extension('misspelt', Misspelt),
             extension('bigger_ram', BiggerRAM)], WEIGHERS)
        prefix = WEIGHERS + ' %s: ' + __name__ + '.%s has name = %s'
        self.assertEqual([prefix % ('forgetful', 'Forgetful', None),
                          prefix % ('misspelt', 'Misspelt', "'mispelt'"),
                          prefix % ('bigger_ram', 'BiggerRAM', "'ram'")],
                         misnamed(manager))


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

    def test_declared_name_is_not_set_again(self):
        plugin, = loadables.load_plugins(WEIGHERS, ['ram'], *OPTION)
        self.assertEqual('ram', plugin.name)
        self.assertNotIn('name', vars(plugin))

    def _load_installed(self, extensions):
        """``load_plugins`` of every one of ``extensions``, as if they were
        the ones installed in the namespace.
        """
        names = [item.name for item in extensions]
        manager = stevedore.NamedExtensionManager.make_test_instance(
            extensions, WEIGHERS)
        with mock.patch.object(plugins, 'names', return_value=names), \
                mock.patch.object(stevedore, 'NamedExtensionManager',
                                  return_value=manager):
            return loadables.load_plugins(WEIGHERS, names, *OPTION)

    def test_third_party_plugin_answers_to_its_entry_point(self):
        # A class that declares no name, or another one (a subclass of a
        # built-in, an alias), answers to the name the operator configured
        # (its multiplier option is generated under that name); the class
        # is left alone.
        loaded = self._load_installed(
            [extension('forgetful', Forgetful, Forgetful()),
             extension('bigger_ram', BiggerRAM, BiggerRAM()),
             extension('misspelt', Misspelt, Misspelt())])
        self.assertEqual(['forgetful', 'bigger_ram', 'misspelt'],
                         [plugin.name for plugin in loaded])
        self.assertEqual((None, 'ram', 'mispelt'),
                         (Forgetful.name, BiggerRAM.name, Misspelt.name))
        self.assertEqual('forgetful_weight_multiplier',
                         loaded[0].multiplier_option())

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
        self.assertEqual(registered(WEIGHERS), error.valid)
        message = str(error)
        self.assertTrue(
            message.startswith('[filter_scheduler] weighers: '), message)
        self.assertIn("'rma'", message)
        self.assertIn('(valid: %s)' % ', '.join(registered(WEIGHERS)),
                      message)

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
