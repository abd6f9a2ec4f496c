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

import os
import subprocess
import sys

import fixtures
from oslo_config import cfg
from oslo_config import types
from oslo_log import log

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched.conf import plugins
from preemptible_sched.conf import scheduler as scheduler_conf
from preemptible_sched.conf import unknown_names
from preemptible_sched import exception
from preemptible_sched.scheduler import filter_scheduler as scheduler
from preemptible_sched import service
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

    def write(self, text, name='test.conf'):
        path = self.useFixture(fixtures.TempDir()).join(name)
        with open(path, 'wb' if isinstance(text, bytes) else 'w') as stream:
            stream.write(text)
        return path

    def parse(self, *paths):
        self.addCleanup(CONF.reset)
        argv = []
        for path in paths:
            argv += ['--config-file', path]
        CONF(argv, project='preemptible-sched')

    def load(self, text):
        path = self.write(text)
        self.parse(path)
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
            'weighers = ram,nope\n'
            '[preemptible]\ntermination_costs = billing_period,never\n'
            '[scheduler]\nqueue_policy = lifo\n')
        problems = checks.problems(CONF)
        self.assertEqual(4, len(problems), problems)
        for problem in problems:
            self.assertTrue(problem.startswith(path + ': ['), problem)
        joined = '\n'.join(problems)
        for fragment in ("enabled_filters: unknown name 'bogus'",
                         "weighers: unknown name 'nope'",
                         "termination_costs: unknown name 'never'",
                         "queue_policy: unknown name 'lifo'"):
            self.assertIn(fragment, joined)

    def test_user_sampling_needs_a_share(self):
        path = self.load('[replay]\nsample_users = 3\nsample_share = 0\n')
        self.assertEqual(
            ['%s: [replay] sample_share: must be > 0 to sample users '
             '([replay] sample_users = 3)' % path], checks.problems(CONF))
        CONF.reset()
        self.load('[replay]\nsample_share = 0\n')
        self.assertEqual([], checks.problems(CONF))

    def test_several_unknown_names_of_one_option_make_one_line(self):
        self.load('[filter_scheduler]\nweighers = ram,a,b\n')
        problems = checks.problems(CONF)
        self.assertEqual(1, len(problems), problems)
        self.assertIn("weighers: unknown names 'a', 'b' (valid: ",
                      problems[0])

    def test_every_bad_value_at_once_when_the_files_are_read(self):
        path = self.write('[filter_scheduler]\nram_weight_multiplier = nan\n'
                          'host_subset_size = many\n'
                          '[service_class_gold]\npriority = -inf\n')
        error = self.assertRaises(parsing.BadValues, self.parse, path)
        self.assertEqual(
            [path + ': [filter_scheduler] host_subset_size: invalid '
             "literal for int() with base 10: 'many'",
             path + ': [filter_scheduler] ram_weight_multiplier: must be a '
             'finite number, got nan',
             path + ': [service_class_gold] priority: must be a finite '
             'number, got -inf'], error.problems)

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

        # 1.0 unless the plugin declares its own default.
        defaults = {'cost_hint': 600.0}
        for name in plugins.names(plugins.TERMINATION_COSTS):
            self.assertEqual(defaults.get(name, 1.0),
                             CONF.preemptible['%s_cost_multiplier' % name])

    def test_help_lists_the_registered_names(self):
        opt = CONF.scheduler._group._opts['preemption_strategy']['opt']
        for name in ('dual_state', 'retry', 'plain', 'qos', 'priority'):
            self.assertIn('``%s``' % name, opt.help)


def float_options():
    """``(group, opt)`` of every registered option holding floats."""
    for group, opt in parsing.registered(CONF):
        item = opt.type
        if isinstance(item, (types.List, types.Dict)):
            item = getattr(item, 'item_type', None) or getattr(
                item, 'value_type', None)
        if isinstance(item, types.Float) and not isinstance(
                opt, cfg.SubCommandOpt):
            yield group, opt


class TestNonFiniteNumbers(ConfigFileTestCase):
    """Every float option refuses nan, inf and -inf, naming the file."""

    def assertRefused(self, text, *fragments):
        path = self.write(text)
        try:
            self.parse(path)
        except cfg.Error as error:
            problems = getattr(error, 'problems', [str(error)])
        else:
            problems = checks.problems(CONF)
        joined = '\n'.join(problems)
        for fragment in fragments:
            self.assertIn(fragment.replace('PATH', path), joined)
        for problem in problems:
            self.assertNotIn('\n', problem)
        return problems

    def test_every_float_option_refuses_non_finite_values(self):
        service.register_messaging_opts(CONF)
        walked = 0
        for group, opt in sorted(float_options(),
                                 key=lambda item: (item[0], item[1].dest)):
            walked += 1
            for value in ('nan', 'inf', '-inf'):
                text = '[%s]\n%s = %s\n' % (group, opt.dest, value)
                self.assertRefused(text, 'PATH: [%s] %s: ' % (group,
                                                              opt.dest))
                CONF.reset()
        # Ours, the plugins' multipliers and oslo.messaging's.
        self.assertGreater(walked, 50)

    def test_nan_watchdog_interval_is_refused(self):
        self.assertRefused('[scheduler]\nwatchdog_interval = nan\n',
                           'PATH: [scheduler] watchdog_interval: must be a '
                           'finite number, got nan')

    def test_nan_termination_grace_is_refused(self):
        self.assertRefused('[preemptible]\ntermination_grace_seconds = NaN\n',
                           'PATH: [preemptible] termination_grace_seconds: '
                           'must be a finite number, got nan')

    def test_non_finite_multipliers_are_refused(self):
        self.assertRefused(
            '[filter_scheduler]\nram_weight_multiplier = -nan\n'
            'termination_cost_weight_multiplier = inf\n'
            '[preemptible]\nbilling_period_cost_multiplier = nan\n',
            'PATH: [filter_scheduler] ram_weight_multiplier: must be a '
            'finite number, got nan',
            'PATH: [filter_scheduler] termination_cost_weight_multiplier: '
            'must be a finite number, got inf',
            'PATH: [preemptible] billing_period_cost_multiplier: must be a '
            'finite number, got nan')

    def test_nan_boot_times_are_refused(self):
        self.assertRefused('[fake_driver]\nboot_times_hot = 1.5,nan\n'
                           'boot_times_cold = inf\n',
                           'PATH: [fake_driver] boot_times_hot: must be a '
                           'finite number, got 1.5, nan',
                           'PATH: [fake_driver] boot_times_cold: Should be '
                           'less than or equal to 86400')

    def test_max_attempts_minus_one_is_refused(self):
        self.assertRefused('[scheduler]\nmax_attempts = -1\n',
                           'PATH: [scheduler] max_attempts: Should be '
                           'greater than or equal to 1')

    def test_max_attempts_minus_one_from_the_environment_is_refused(self):
        self.useFixture(fixtures.EnvironmentVariable(
            'OS_SCHEDULER__MAX_ATTEMPTS', '-1'))
        error = self.assertRaises(parsing.BadValues, self.parse)
        self.assertEqual(['OS_SCHEDULER__MAX_ATTEMPTS: [scheduler] '
                          'max_attempts: Should be greater than or equal '
                          'to 1'], error.problems)

    def test_absurd_durations_are_refused(self):
        self.assertRefused(
            '[scheduler]\nwatchdog_interval = 1e300\n',
            'PATH: [scheduler] watchdog_interval: Should be less than or '
            'equal to 86400')
        CONF.reset()
        self.assertRefused(
            '[service]\nrpc_timeout = 1e300\n',
            'PATH: [service] rpc_timeout: Should be less than or equal to '
            '3600')
        CONF.reset()
        self.assertRefused(
            '[service]\ntime_scale = 1e300\n',
            'PATH: [service] time_scale: Should be less than or equal to '
            '1000')

    def test_an_empty_number_is_refused(self):
        self.assertRefused('[scheduler]\nwatchdog_interval =\n'
                           '[filter_scheduler]\nram_weight_multiplier =\n',
                           'PATH: [scheduler] watchdog_interval: must not be '
                           'empty (the default is 10.0)',
                           'PATH: [filter_scheduler] ram_weight_multiplier: '
                           'must not be empty (the default is 1.0)')

    def test_an_empty_number_without_default_means_unset(self):
        self.load('[qos]\nservice_classes = gold,tin\n'
                  '[service_class_tin]\nslo = 0.5\nimportance = 2\n'
                  'priority =\n')
        self.assertEqual([], checks.problems(CONF))

    def test_non_finite_scenario_default_names_the_scenario(self):
        CONF([], project='preemptible-sched')
        self.addCleanup(CONF.reset)
        CONF.set_default('priority', float('nan'),
                         group='service_class_gold')
        self.addCleanup(CONF.clear_default, 'priority',
                        group='service_class_gold')
        self.assertEqual(['scenario.json: config.service_class_gold.'
                          'priority: must be a finite number, got nan'],
                         checks.problems(CONF, 'scenario.json'))


class TestValuesWhenRead(ConfigFileTestCase):
    """A value oslo.config would reject only when read (or, for an option
    of the command line set in a file, with exit code 1 and no file name)
    is one line naming the file when the files are parsed.
    """

    def cli_flag(self):
        opt = cfg.BoolOpt('cli_flag_for_test')
        CONF.register_cli_opt(opt)
        self.addCleanup(CONF.unregister_opt, opt)

    def test_bad_boolean_of_a_command_line_option_names_the_file(self):
        self.cli_flag()
        path = self.write('[DEFAULT]\ncli_flag_for_test = maybe\n')
        error = self.assertRaises(parsing.BadValues, self.parse, path)
        self.assertEqual([path + ': [DEFAULT] cli_flag_for_test: '
                          "Unexpected boolean value 'maybe'"],
                         error.problems)

    def test_bad_boolean_read_by_logging_names_the_file(self):
        path = self.write('[database]\nauto_migrate = maybe\n')
        error = self.assertRaises(parsing.BadValues, self.parse, path)
        self.assertEqual([path + ': [database] auto_migrate: '
                          "Unexpected boolean value 'maybe'"],
                         error.problems)

    def test_unknown_reference(self):
        path = self.write('[DEFAULT]\nstate_path = $nothing/x\n')
        error = self.assertRaises(parsing.BadValues, self.parse, path)
        self.assertEqual([path + ': [DEFAULT] state_path: $nothing refers '
                          'to no option (write $$ for a literal $)'],
                         error.problems)

    def test_endless_reference(self):
        path = self.write('[DEFAULT]\nstate_path = $state_path/x\n')
        error = self.assertRaises(parsing.BadValues, self.parse, path)
        self.assertEqual([path + ': [DEFAULT] state_path: its $references '
                          'never end'], error.problems)

    def test_file_that_is_not_utf8(self):
        path = self.write(b'[scheduler]\nwatchdog_interval = \xff\n')
        error = self.assertRaises(cfg.ConfigFileParseError, self.parse,
                                  path)
        self.assertEqual('Failed to parse %s: not UTF-8 text (byte 0xff at '
                         'offset 32)' % path, str(error))

    def test_a_directory_as_configuration_file(self):
        path = self.useFixture(fixtures.TempDir()).path
        error = self.assertRaises(cfg.ConfigFileParseError, self.parse,
                                  path)
        self.assertIn(path, str(error))

    def test_log_file_in_a_missing_directory(self):
        log.register_options(CONF)
        path = self.write('[DEFAULT]\nlog_file = /nonexistent/dir/x.log\n'
                          'log_config_append = /nonexistent.ini\n')
        error = self.assertRaises(parsing.BadValues, self.parse, path)
        self.assertEqual(
            [path + ': [DEFAULT] log_config_append: no readable file '
             '/nonexistent.ini',
             path + ': [DEFAULT] log_file: no directory /nonexistent/dir'],
            error.problems)


class TestUnknownNames(ConfigFileTestCase):
    """Misspelt groups and options are reported, with the closest name."""

    def test_misspelt_option(self):
        path = self.load('[scheduler]\nwatchdog_intervall = 5\n')
        self.assertEqual([path + ': [scheduler] watchdog_intervall: unknown '
                          'option (did you mean watchdog_interval?)'],
                         checks.problems(CONF))

    def test_misspelt_group(self):
        path = self.load('[schedular]\nwatchdog_interval = 5\n')
        self.assertEqual([path + ': [schedular]: unknown group (did you '
                          'mean [scheduler]?)'], checks.problems(CONF))

    def test_lower_case_default_is_not_default(self):
        path = self.load('[default]\nstate_path = /tmp\n')
        self.assertEqual([path + ': [default]: unknown group (did you mean '
                          '[DEFAULT]?)'], checks.problems(CONF))

    def test_option_in_the_wrong_group(self):
        path = self.load('[DEFAULT]\nmax_attempts = 4\n')
        self.assertEqual([path + ': [DEFAULT] max_attempts: unknown option '
                          '(did you mean [scheduler] max_attempts?)'],
                         checks.problems(CONF))

    def test_misspelt_plugin_multiplier(self):
        path = self.load('[filter_scheduler]\nram_weigth_multiplier = 2\n')
        self.assertEqual([path + ': [filter_scheduler] '
                          'ram_weigth_multiplier: unknown option (did you '
                          'mean ram_weight_multiplier?)'],
                         checks.problems(CONF))

    def test_group_of_a_class_not_configured(self):
        path = self.load('[service_class_gould]\nslo = 0.5\n')
        self.assertEqual([path + ': [service_class_gould]: unknown group '
                          '(did you mean [service_class_gold]?)'],
                         checks.problems(CONF))

    def test_group_of_a_configured_class_is_known(self):
        self.load('[qos]\nservice_classes = gold,tin\n'
                  '[service_class_tin]\nslo = 0.5\nimportance = 2\n')
        self.assertEqual([], checks.problems(CONF))

    def test_every_problem_of_every_file(self):
        first = self.write('[schedular]\nx = 1\n', 'a.conf')
        second = self.write('[scheduler]\nmax_attempt = 1\n'
                            '[nothing_like_it]\nx = 1\n', 'b.conf')
        self.parse(first, second)
        self.assertEqual(
            [first + ': [schedular]: unknown group (did you mean '
             '[scheduler]?)',
             second + ': [scheduler] max_attempt: unknown option (did you '
             'mean max_attempts?)',
             second + ': [nothing_like_it]: unknown group'],
            checks.problems(CONF))

    def test_files_of_a_config_dir_are_checked(self):
        directory = self.useFixture(fixtures.TempDir()).path
        with open(os.path.join(directory, '10-x.conf'), 'w') as stream:
            stream.write('[scheduler]\nwatchdog = 1\n')
        self.addCleanup(CONF.reset)
        CONF(['--config-dir', directory], project='preemptible-sched')
        self.assertEqual(
            [os.path.join(directory, '10-x.conf') + ': [scheduler] '
             'watchdog: unknown option (did you mean watchdog_interval?)'],
            checks.problems(CONF))

    def test_library_options_are_known_unregistered(self):
        # This command registered neither oslo.log nor oslo.messaging.
        self.load('[DEFAULT]\ndebug = true\ntransport_url = fake://\n'
                  'log_file = /tmp/x.log\ncontrol_exchange = x\n'
                  '[oslo_messaging_rabbit]\nssl = true\n'
                  '[oslo_messaging_notifications]\ndriver = noop\n'
                  '[oslo_policy]\npolicy_file = p.yaml\n'
                  '[keystone_authtoken]\nauth_url = http://x\n'
                  '[oslo_concurrency]\nlock_path = /tmp\n'
                  '[database]\nmax_pool_size = 5\n'
                  'connection_recycle_time = 60\n')
        self.assertEqual([], checks.problems(CONF))

    def test_misspelt_library_option(self):
        service.register_messaging_opts(CONF)
        path = self.load('[oslo_messaging_rabbit]\n'
                         'rabbit_retry_intervall = 1\n'
                         '[oslo_messaging_rabit]\nssl = true\n')
        self.assertEqual(
            [path + ': [oslo_messaging_rabbit] rabbit_retry_intervall: '
             'unknown option (did you mean rabbit_retry_interval?)',
             path + ': [oslo_messaging_rabit]: unknown group (did you mean '
             '[oslo_messaging_rabbit]?)'],
            checks.problems(CONF))

    def test_library_values_are_checked_though_not_registered(self):
        # A command that registers neither oslo.log's nor oslo.messaging's
        # options (preemptible-sched-manage, say) still refuses their bad
        # values.
        conf = parsing.ConfigOpts()
        scheduler_conf.register_opts(conf)
        path = self.write('[DEFAULT]\ndebug = maybe\n'
                          'transport_url = fake://\n'
                          '[oslo_messaging_rabbit]\n'
                          'kombu_reconnect_delay = nan\n'
                          'rabbit_retry_interval = $x\n'
                          '[scheduler]\nmax_attempts = 2\n')
        conf(['--config-file', path])
        self.assertEqual(
            [path + ": [DEFAULT] debug: Unexpected boolean value 'maybe'",
             path + ': [oslo_messaging_rabbit] kombu_reconnect_delay: '
             'must be a finite number, got nan'],
            unknown_names.unknown_names(conf))

    def test_deprecated_names_are_known(self):
        self.load('[preemptible]\non_preempt = requeue\nmode = retry\n')
        self.assertEqual([], checks.problems(CONF))

    def test_a_nova_conf_is_not_ours_to_check(self):
        self.load('[preemptible_sched]\nservice_classes = gold:3\n'
                  '[filter_scheduler]\navailable_filters = x\n'
                  '[api]\nauth_strategy = keystone\n')
        self.assertEqual([], unknown_names.unknown_names(CONF))


class TestUrls(ConfigFileTestCase):
    """Malformed database and transport URLs: one line, no password."""

    BAD_DATABASE = (
        ('mysql+pymysql://[', "invalid host name '['"),
        ('nosuchdriver://x', "unknown database driver 'nosuchdriver'"),
        ('not a url', 'not a valid SQLAlchemy URL'),
        ('mysql+pymysql://u:secret@h:notaport/db',
         'not a valid SQLAlchemy URL'),
        ('mysql+pymysql://u:secret@h:99999/db', 'port 99999 out of range'),
        ('postgresql+psycopg2://u:secret@[::1/db',
         'not a valid SQLAlchemy URL'),
        ('mysql://u:secret@h/db', "the Python driver of 'mysql' is not "
         'installed'),
        ('sqlite:////nonexistent/dir/x.db', 'no directory /nonexistent/dir'),
        ('sqlite:////', '/ is a directory'),
    )

    BAD_TRANSPORT = (
        ('rabbit://a:secret@:notaport/', 'not a valid transport URL'),
        ('nosuchdriver://x', "unknown transport driver 'nosuchdriver'"),
        ('rabbit://[', 'not a valid transport URL'),
        ('not a url', 'not a valid transport URL'),
        ('rabbit://u:secret@h:99999/', 'port 99999 out of range'),
        ('rabbit://u:secret@bad host/', "invalid host name 'bad host'"),
    )

    def test_malformed_database_connection(self):
        for url, fragment in self.BAD_DATABASE:
            path = self.load('[database]\nconnection = %s\n' % url)
            problems = checks.problems(CONF)
            self.assertEqual(1, len(problems), (url, problems))
            self.assertTrue(problems[0].startswith(
                path + ': [database] connection: '), problems)
            self.assertIn(fragment, problems[0])
            self.assertNotIn('secret', problems[0])
            self.assertEqual(problems, checks.database_problems(CONF))
            CONF.reset()

    def test_malformed_transport_url(self):
        service.register_messaging_opts(CONF)
        for url, fragment in self.BAD_TRANSPORT:
            path = self.load('[DEFAULT]\ntransport_url = %s\n' % url)
            problems = checks.problems(CONF)
            self.assertEqual(1, len(problems), (url, problems))
            self.assertTrue(problems[0].startswith(
                path + ': [DEFAULT] transport_url: '), problems)
            self.assertIn(fragment, problems[0])
            self.assertNotIn('secret', problems[0])
            CONF.reset()

    def test_transport_url_of_a_command_without_messaging(self):
        # preemptible-sched decide registers no oslo.messaging option: the
        # value in the file is checked all the same.
        conf = parsing.ConfigOpts()
        path = self.write('[DEFAULT]\ntransport_url = rabbit://a:secret@'
                          ':notaport/\n')
        conf(['--config-file', path])
        at = checks.where
        self.assertEqual(
            [path + ': [DEFAULT] transport_url: not a valid transport URL '
             "(invalid literal for int() with base 10: 'notaport')"],
            checks._transport_problems(
                conf, lambda group, option: at(conf, group, option)))

    def test_good_urls_pass(self):
        service.register_messaging_opts(CONF)
        directory = self.useFixture(fixtures.TempDir()).path
        for connection, transport in (
                ('mysql+pymysql://root:x@127.0.0.1/test',
                 'rabbit://guest:guest@127.0.0.1:5672/'),
                ('postgresql+psycopg2://u@[::1]:5432/test',
                 'rabbit://a:b@h1:5672,c:d@h2:5673/vhost'),
                ('sqlite:///%s/x.sqlite' % directory, 'fake://'),
                ('sqlite://', '')):
            self.load('[database]\nconnection = %s\n'
                      '[DEFAULT]\ntransport_url = %s\n'
                      % (connection, transport))
            self.assertEqual([], checks.problems(CONF), connection)
            CONF.reset()

    def test_state_path_that_is_a_file(self):
        path = self.load('[DEFAULT]\nstate_path = %s\n' % __file__)
        self.assertEqual(['%s: [DEFAULT] state_path: %s is not a directory'
                          % (path, __file__)], checks.problems(CONF))

    def test_the_connection_is_secret(self):
        opt = CONF.database._group._opts['connection']['opt']
        self.assertTrue(opt.secret)

    def test_mask_passwords(self):
        self.assertEqual(
            "can't reach mysql+pymysql://root:***@h/db and "
            'rabbit://u:***@h:5672/',
            parsing.mask_passwords("can't reach mysql+pymysql://root:pw@h/db"
                                   ' and rabbit://u:p@ss@h:5672/'))


class TestContradictions(ConfigFileTestCase):

    def test_class_strategies_default_to_requeue(self):
        CONF([], project='preemptible-sched')
        self.addCleanup(CONF.reset)
        for name in ('qos', 'priority'):
            cls = plugins.plugin_class(plugins.PREEMPTION_STRATEGIES, name)
            self.assertFalse(cls.spot, name)
            self.assertEqual('requeue', cls.default_on_victim, name)

    def test_class_strategy_with_terminate_is_refused(self):
        # The reproduced failure: qos or priority with on_preempt =
        # terminate terminated normal instances.
        for strategy, text in (
                ('qos', '[scheduler]\npreemption_strategy = qos\n'
                 'on_victim = terminate\n'),
                ('priority', '[scheduler]\npreemption_strategy = priority\n'
                 '[preemptible]\non_preempt = terminate\n'),
                ('qos', '[scheduler]\npreemption_policy = qos\n'
                 '[preemptible]\non_preempt = terminate\n'),
                ('priority', '[preemptible]\non_preempt = terminate\n'
                 '[scheduler]\npreemption_policy = priority\n')):
            path = self.load(text)
            problems = checks.problems(CONF)
            self.assertEqual(1, len(problems), problems)
            self.assertTrue(problems[0].startswith(path + ': ['), problems)
            self.assertIn('= terminate contradicts [scheduler] '
                          'preemption_strategy = %s' % strategy, problems[0])
            self.assertRaises(exception.ConfigProblems,
                              checks.require_valid, CONF)
            CONF.reset()

    def test_spot_strategies_may_terminate(self):
        for strategy in ('dual_state', 'retry', 'plain'):
            self.load('[scheduler]\npreemption_strategy = %s\n'
                      'on_victim = terminate\n' % strategy)
            self.assertEqual([], checks.problems(CONF))
            CONF.reset()

    def test_compute_topic_equal_to_the_scheduler_topic(self):
        path = self.load('[service]\nscheduler_topic = t\ncompute_topic = t\n')
        problems = checks.problems(CONF)
        self.assertEqual(1, len(problems), problems)
        self.assertTrue(problems[0].startswith(
            path + ': [service] compute_topic = t is also the topic'))

    def test_service_classes(self):
        path = self.load('[qos]\nservice_classes = gold,tin,gold\n'
                         'default_service_class = platinum\n')
        self.assertEqual(
            [path + ': [qos] service_classes: names gold more than once',
             path + ": [qos] service_classes: class 'tin' needs "
             '[service_class_tin] slo (only gold, silver, bronze have '
             'defaults)',
             path + ": [qos] service_classes: class 'tin' needs "
             '[service_class_tin] importance (only gold, silver, bronze '
             'have defaults)',
             path + ": [qos] default_service_class: 'platinum' is not one "
             'of the service classes (gold, tin, gold)'],
            checks.problems(CONF))

    def test_no_service_class(self):
        path = self.load('[qos]\nservice_classes = ,\n')
        self.assertEqual([path + ': [qos] service_classes: must name at '
                          'least one class'], checks.problems(CONF))

    def test_fake_driver_needs_boot_times_and_a_trace(self):
        path = self.load('[fake_driver]\nboot_times_hot =\n'
                         'utilization_model = replay\n')
        self.assertEqual(
            [path + ': [fake_driver] boot_times_hot: needs at least one '
             'boot time',
             path + ': [fake_driver] utilization_model = replay needs '
             '[fake_driver] utilization_trace'], checks.problems(CONF))
        CONF.reset()
        path = self.load('[fake_driver]\nutilization_model = replay\n'
                         'utilization_trace = /nonexistent.csv\n')
        self.assertEqual([path + ': [fake_driver] utilization_trace: no file '
                          '/nonexistent.csv'], checks.problems(CONF))
