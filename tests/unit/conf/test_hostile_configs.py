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

"""Hostile configuration files: each is refused with one line per problem
naming the file (or accepted when it is fine), never a traceback.

:func:`hostile_configs` is the campaign (``tests/functional/service/
test_commands.py`` runs part of it through the real commands).
"""

import fixtures
from oslo_config import cfg
from oslo_log import log

from preemptible_sched import clock
from preemptible_sched.compute import fake
from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched.scheduler import filter_scheduler as scheduler
from preemptible_sched import service
from tests import base

BAD, OK = 'bad', 'ok'

#: Float options, one of each group (every float option is walked by
#: tests.unit.conf.test_checks).
FLOATS = (
    ('scheduler', 'watchdog_interval'),
    ('scheduler', 'compute_deadline'),
    ('preemptible', 'termination_grace_seconds'),
    ('filter_scheduler', 'ram_weight_multiplier'),
    ('filter_scheduler', 'termination_cost_weight_multiplier'),
    ('preemptible', 'billing_period_cost_multiplier'),
    ('fake_driver', 'termination_seconds'),
    ('fake_driver', 'utilization_share'),
    ('compute', 'cpu_allocation_ratio'),
    ('compute', 'reserved_host_memory_mb'),
    ('service', 'time_scale'),
    ('service', 'rpc_timeout'),
    ('service', 'heartbeat_interval'),
    ('service', 'host_wait_seconds'),
    ('service', 'startup_timeout'),
    ('qos', 'preempt_exempt_seconds'),
    ('service_class_gold', 'priority'),
    ('service_class_silver', 'safety_margin'),
    ('service_class_bronze', 'overhead_threshold_extra'),
    ('oslo_messaging_rabbit', 'kombu_reconnect_delay'),
)

INTEGERS = (
    ('scheduler', 'max_attempts'),
    ('fake_driver', 'host_count'),
    ('fake_driver', 'vcpus'),
    ('preemptible', 'billing_period_seconds'),
    ('filter_scheduler', 'host_subset_size'),
    ('service_class_gold', 'importance'),
)


def hostile_configs():
    """``[(name, text, expectation)]``: BAD must be refused, OK accepted."""
    found = []

    def add(name, text, expect=BAD):
        found.append((name, text, expect))

    for group, name in FLOATS:
        for value in ('nan', 'inf', '-inf', 'NaN', '-nan', 'infinity',
                      '1e309', 'fast', '0x10', ''):
            add('[%s] %s = %r' % (group, name, value),
                '[%s]\n%s = %s\n' % (group, name, value))
    for value in ('nan', 'inf', '1.5,nan', '2,-inf', 'x', '-1', '1e300'):
        add('boot_times_hot = %s' % value,
            '[fake_driver]\nboot_times_hot = %s\n' % value)
    add('boot_times_cold empty', '[fake_driver]\nboot_times_cold =\n')
    for group, name in INTEGERS:
        for value in ('-1', '0', '1.5', 'many', ''):
            add('[%s] %s = %r' % (group, name, value),
                '[%s]\n%s = %s\n' % (group, name, value),
                OK if value == '0' and name == 'disk_gb' else BAD)
    add('host_count huge', '[fake_driver]\nhost_count = 100000000\n')
    add('max_attempts huge', '[scheduler]\nmax_attempts = 10**9\n')
    # Misspelt and unknown names.
    for text in ('[scheduler]\nwatchdog_intervall = 5\n',
                 '[schedular]\nwatchdog_interval = 5\n',
                 '[DEFAULT]\nstate_pth = /tmp\n',
                 '[DEFAULT]\nmax_attempts = 2\n',
                 '[default]\nstate_path = /tmp\n',
                 '[filter_scheduler]\nram_weigth_multiplier = 2\n',
                 '[nothing_here]\nx = 1\n',
                 '[service_class_gould]\nslo = 0.5\n',
                 '[oslo_messaging_rabit]\nssl = true\n',
                 '[oslo_messaging_rabbit]\nrabbit_retry_intervall = 1\n',
                 '[database]\nconection = sqlite://\n',
                 '[preemptible]\non_preemt = requeue\n'):
        add('unknown: %s' % text.replace('\n', ' '), text)
    # Booleans and choices.
    for value in ('maybe', '2', 'yes please', ''):
        add('debug = %r' % value, '[DEFAULT]\ndebug = %s\n' % value)
        add('auto_migrate = %r' % value,
            '[database]\nauto_migrate = %s\n' % value)
    add('use_stderr = maybe', '[DEFAULT]\nuse_stderr = maybe\n')
    add('on_victim = sometimes', '[scheduler]\non_victim = sometimes\n')
    add('on_preempt = sometimes', '[preemptible]\non_preempt = sometimes\n')
    add('on_no_valid_host = retry',
        '[scheduler]\non_no_valid_host = retry\n')
    add('utilization_model = x', '[fake_driver]\nutilization_model = x\n')
    add('unknown strategy', '[scheduler]\npreemption_strategy = lifo\n')
    add('unknown filter',
        '[filter_scheduler]\nenabled_filters = compute,nope\n')
    add('unknown weigher', '[filter_scheduler]\nweighers = nope\n')
    add('unknown cost', '[preemptible]\ntermination_costs = never\n')
    add('unknown queue policy', '[scheduler]\nqueue_policy = lifo\n')
    # Contradictions.
    for strategy in ('qos', 'priority'):
        add('%s + on_victim terminate' % strategy,
            '[scheduler]\npreemption_strategy = %s\non_victim = terminate\n'
            % strategy)
        add('%s + on_preempt terminate' % strategy,
            '[scheduler]\npreemption_strategy = %s\n[preemptible]\n'
            'on_preempt = terminate\n' % strategy)
        add('policy %s + on_preempt terminate' % strategy,
            '[scheduler]\npreemption_policy = %s\n[preemptible]\n'
            'on_preempt = terminate\n' % strategy)
        add('%s + requeue' % strategy,
            '[scheduler]\npreemption_strategy = %s\non_victim = requeue\n'
            % strategy, OK)
    add('policy none + mode retry',
        '[scheduler]\npreemption_policy = none\n[preemptible]\nmode = retry\n')
    add('strategy against mode',
        '[scheduler]\npreemption_strategy = qos\n'
        '[preemptible]\nmode = retry\n')
    add('no service class', '[qos]\nservice_classes = ,\n')
    add('unknown default class', '[qos]\ndefault_service_class = platinum\n')
    add('class without slo', '[qos]\nservice_classes = gold,tin\n')
    add('class twice', '[qos]\nservice_classes = gold,gold\n')
    add('300 classes without options', '[qos]\nservice_classes = %s\n'
        % ','.join('c%d' % number for number in range(300)))
    add('same topics', '[service]\nscheduler_topic = t\ncompute_topic = t\n')
    add('topic clash with reports',
        '[service]\ncompute_topic = preemptible-scheduler_reports\n')
    add('empty topic', '[service]\nscheduler_topic =\n')
    add('replay without trace', '[fake_driver]\nutilization_model = replay\n')
    add('replay with missing trace',
        '[fake_driver]\nutilization_model = replay\n'
        'utilization_trace = /nonexistent.csv\n')
    # URLs.
    for url in ('mysql+pymysql://[', 'nosuchdriver://x', 'not a url',
                'mysql+pymysql://u:p@h:notaport/db', '://', 'sqlite:////',
                'postgresql+psycopg2://u:secret@[::1/db',
                'mysql+pymysql://u:p@h:0/db', 'mysql://u:p@h/db',
                'sqlite:////nonexistent/dir/x.db', '$nothing'):
        add('connection = %s' % url, '[database]\nconnection = %s\n' % url)
    for url in ('rabbit://a:b@:notaport/', 'nosuchdriver://x', 'rabbit://[',
                'not a url', 'rabbit://u:p@h:99999/', '://',
                'rabbit://u:p@bad host/'):
        add('transport_url = %s' % url,
            '[DEFAULT]\ntransport_url = %s\n' % url)
    add('notifications transport_url',
        '[oslo_messaging_notifications]\ntransport_url = nosuch://x\n')
    # References, syntax, encodings.
    add('undefined reference', '[DEFAULT]\nstate_path = $nothing/x\n')
    add('endless reference', '[DEFAULT]\nstate_path = $state_path/x\n')
    add('escaped dollar', '[service]\nscheduler_topic = a$$b\n', OK)
    add('no section', 'watchdog_interval = 5\n')
    add('unclosed section', '[scheduler\nwatchdog_interval = 5\n')
    add('binary', '\x00\x01\x02garbage\n')
    add('continuation only', '   indented = 1\n')
    add('not UTF-8', b'[scheduler]\nwatchdog_interval = \xff\xfe\n')
    add('UTF-16', '[scheduler]\nmax_attempts = 2\n'.encode('utf-16'))
    add('empty file', '', OK)
    add('comments only', '# nothing\n; nothing\n', OK)
    add('duplicate option', '[scheduler]\nmax_attempts = 2\n'
        'max_attempts = 3\n', OK)
    add('state_path is a file', '[DEFAULT]\nstate_path = /etc/passwd\n')
    add('log_file in a missing directory',
        '[DEFAULT]\nlog_file = /nonexistent/dir/x.log\n')
    add('log_dir missing', '[DEFAULT]\nlog_dir = /nonexistent/dir\n')
    add('log_config_append missing',
        '[DEFAULT]\nlog_config_append = /nonexistent.ini\n')
    add('very long value', '[service]\nscheduler_topic = %s\n' % ('x' * 10000),
        OK)
    add('very long name', '[scheduler]\n%s = 1\n' % ('x' * 10000))
    add('library options', '[DEFAULT]\ndebug = true\n'
        'transport_url = rabbit://guest:guest@127.0.0.1:5672/\n'
        '[oslo_messaging_rabbit]\nssl = false\n'
        '[oslo_policy]\npolicy_file = policy.yaml\n'
        '[database]\nmax_pool_size = 5\n', OK)
    add('deprecated names agreeing', '[preemptible]\non_preempt = requeue\n'
        'mode = retry\n', OK)
    add('class of its own', '[qos]\nservice_classes = gold,tin\n'
        '[service_class_tin]\nslo = 0.5\nimportance = 2\n', OK)
    return found


class TestHostileConfigs(base.TestCase):

    def setUp(self):
        super().setUp()
        log.register_options(CONF)
        service.register_messaging_opts(CONF)
        self.directory = self.useFixture(fixtures.TempDir()).path

    def outcome(self, path):
        """The problems (one line each) of the file at ``path``."""
        self.addCleanup(CONF.reset)
        try:
            CONF(['--config-file', path], project='preemptible-sched',
                 default_config_files=[], default_config_dirs=[])
        except parsing.BadValues as error:
            return error.problems
        except cfg.Error as error:
            return [str(error)]
        found = checks.problems(CONF)
        if not found:
            # What reads the options first must take them as they are.
            scheduler.FilterScheduler()
            fake.FakeDriver(clock.VirtualClock())
        return found

    def test_each_is_refused_in_lines_naming_the_file_or_accepted(self):
        configs = hostile_configs()
        self.assertGreaterEqual(len(configs), 150)
        for number, (name, text, expect) in enumerate(configs):
            path = '%s/%d.conf' % (self.directory, number)
            with open(path, 'wb' if isinstance(text, bytes) else 'w') as f:
                f.write(text)
            problems = self.outcome(path)
            CONF.reset()
            if expect == OK:
                self.assertEqual([], problems, name)
                continue
            self.assertNotEqual([], problems, name)
            for problem in problems:
                self.assertNotIn('\n', problem, name)
                self.assertNotIn('Traceback', problem, name)
            # Every problem says which file it is in.
            for problem in problems:
                self.assertIn(path, problem, name)
