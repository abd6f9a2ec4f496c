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

"""Start-up checks: deprecated options, contradictions, every problem."""

import subprocess
import sys

import fixtures

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from preemptible_sched.driver import scheduler
from preemptible_sched import exception
from tests import base


class ConfigFileTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        # Other tests in this process may have left defaults behind
        # (set_default survives CONF.reset()).
        for group, name in (('scheduler', 'preemption_strategy'),
                            ('scheduler', 'preemption_policy'),
                            ('preemptible', 'mode')):
            CONF.clear_default(name, group=group)
            CONF.clear_override(name, group=group)

    def load(self, text):
        path = self.useFixture(fixtures.TempDir()).join('test.conf')
        with open(path, 'w') as stream:
            stream.write(text)
        CONF(['--config-file', path], project='preemptible-sched')
        self.addCleanup(CONF.reset)
        return path


class TestStrategyName(ConfigFileTestCase):

    def test_default_is_dual_state(self):
        CONF([], project='preemptible-sched')
        self.addCleanup(CONF.reset)
        self.assertEqual(('dual_state', []), checks.strategy_name(CONF))

    def test_old_mode_is_the_strategy(self):
        self.load('[preemptible]\nmode = retry\n')
        self.assertEqual(('retry', []), checks.strategy_name(CONF))
        self.assertEqual('retry',
                         scheduler.FilterScheduler().strategy.name)

    def test_old_policies_translate(self):
        for policy, mode, expected in (('none', None, 'plain'),
                                       ('billing', None, 'dual_state'),
                                       ('billing', 'retry', 'retry'),
                                       ('qos', None, 'qos'),
                                       ('priority', None, 'priority')):
            text = '[scheduler]\npreemption_policy = %s\n' % policy
            if mode:
                text += '[preemptible]\nmode = %s\n' % mode
            self.load(text)
            self.assertEqual((expected, []), checks.strategy_name(CONF),
                             (policy, mode))
            CONF.reset()

    def test_none_with_a_mode_is_a_contradiction_not_an_override(self):
        self.load('[scheduler]\npreemption_policy = none\n'
                  '[preemptible]\nmode = retry\n')
        name, problems = checks.strategy_name(CONF)
        self.assertEqual(1, len(problems))
        self.assertIn('preemption_policy = none contradicts', problems[0])
        self.assertRaises(exception.ConfigProblems,
                          scheduler.FilterScheduler)

    def test_new_and_old_disagreeing_in_one_file(self):
        self.load('[scheduler]\npreemption_strategy = qos\n'
                  '[preemptible]\nmode = retry\n')
        self.assertIn('contradicts the deprecated [preemptible] mode',
                      checks.strategy_name(CONF)[1][0])

    def test_old_on_preempt_sets_on_victim(self):
        self.load('[preemptible]\non_preempt = requeue\n')
        self.assertEqual('requeue', CONF.scheduler.on_victim)

    def test_deprecated_option_warns_once(self):
        # oslo.config warns once per process: look at a fresh one.
        path = self.useFixture(fixtures.TempDir()).join('old.conf')
        with open(path, 'w') as stream:
            stream.write('[preemptible]\nmode = plain\n')
        script = (
            'import logging, sys\n'
            'logging.basicConfig(stream=sys.stderr)\n'
            'from preemptible_sched.conf import CONF, checks\n'
            'CONF(["--config-file", sys.argv[1]])\n'
            'for _ in range(3):\n'
            '    name = checks.strategy_name(CONF)[0]\n'
            '    print(name, CONF.preemptible.mode)\n')
        result = subprocess.run([sys.executable, '-c', script, path],
                                capture_output=True, text=True, check=True)
        self.assertEqual(['plain plain'] * 3, result.stdout.split('\n')[:3])
        self.assertEqual(1, result.stderr.count('"mode"'), result.stderr)


class TestProblems(ConfigFileTestCase):

    def test_every_problem_at_once_naming_the_file(self):
        path = self.load(
            '[filter_scheduler]\nenabled_filters = compute,bogus\n'
            'weighers = ram,nope\nram_weight_multiplier = nan\n'
            '[preemptible]\ntermination_costs = billing_period,never\n'
            '[scheduler]\nqueue_policy = lifo\n')
        problems = checks.problems(CONF)
        self.assertEqual(5, len(problems), problems)
        for problem in problems:
            self.assertTrue(problem.startswith(path + ': ['), problem)
        joined = '\n'.join(problems)
        for fragment in ("enabled_filters: unknown name 'bogus'",
                         "weighers: unknown name 'nope'",
                         'ram_weight_multiplier: must be a finite number',
                         "termination_costs: unknown name 'never'",
                         "queue_policy: unknown name 'lifo'"):
            self.assertIn(fragment, joined)

    def test_a_bad_value_in_a_group_nobody_reads_is_reported(self):
        path = self.load('[scheduler]\non_victim = sometimes\n')
        problems = checks.problems(CONF)
        self.assertEqual(1, len(problems))
        self.assertTrue(problems[0].startswith(
            path + ': [scheduler] on_victim: '), problems[0])

    def test_class_strategy_never_terminates_normal_instances(self):
        self.load('[scheduler]\npreemption_strategy = qos\n'
                  'on_victim = terminate\n')
        problems = checks.problems(CONF)
        self.assertEqual(1, len(problems))
        self.assertIn('on_victim = terminate contradicts', problems[0])

    def test_shipped_defaults_have_no_problem(self):
        CONF([], project='preemptible-sched')
        self.addCleanup(CONF.reset)
        self.assertEqual([], checks.problems(CONF))
        checks.require_valid(CONF)


class TestPluginOptions(base.TestCase):

    def test_every_weigher_has_its_multiplier(self):

        for name in plugins.names(plugins.WEIGHERS):
            self.assertIn('%s_weight_multiplier' % name,
                          CONF.filter_scheduler)
        self.assertEqual(10.0, CONF.filter_scheduler.
                         termination_cost_weight_multiplier)
        self.assertEqual(-1.0, CONF.filter_scheduler.
                         num_instances_weight_multiplier)

    def test_every_cost_has_its_multiplier(self):

        for name in plugins.names(plugins.TERMINATION_COSTS):
            self.assertEqual(1.0, CONF.preemptible['%s_cost_multiplier'
                                                   % name])

    def test_help_lists_the_registered_names(self):
        opt = CONF.scheduler._group._opts['preemption_strategy']['opt']
        for name in ('dual_state', 'retry', 'plain', 'qos', 'priority'):
            self.assertIn('``%s``' % name, opt.help)
