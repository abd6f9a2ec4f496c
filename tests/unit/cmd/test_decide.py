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

"""``preemptible-sched decide``: output, exit codes and bad input."""

import copy
import io
import json
import logging
import os
import shutil
import tempfile
from unittest import mock

import fixtures

from preemptible_sched.cmd import sched
from tests import base

SCENARIO = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'etc',
                        'preemptible-sched', 'scenarios',
                        'paper-snapshot-1.json')


class DecideTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(lambda: [os.unlink(os.path.join(self.tmp, f))
                                 for f in os.listdir(self.tmp)])
        with open(SCENARIO) as stream:
            self.data = json.load(stream)

    def write(self, data, name='scenario.json'):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as stream:
            stream.write(data if isinstance(data, str) else json.dumps(data))
        return path

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            code = sched.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def decide(self, data, *extra):
        return self.run_cli('decide', '--scenario', self.write(data), *extra)

    def assertBadInput(self, result, *fragments):
        code, out, err = result
        self.assertEqual(2, code)
        self.assertEqual('', out)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, err)


class TestDecide(DecideTestCase):

    def test_paper_snapshot_json(self):
        code, out, err = self.run_cli('decide', '--scenario', SCENARIO)
        self.assertEqual(0, code, err)
        result = json.loads(out)
        self.assertEqual('placed', result['result'])
        self.assertEqual([{'instance': 'new', 'host': 'host-B',
                           'terminate': ['BP1'],
                           'termination_cost': 660.0}], result['selected'])
        by_name = {host['name']: host for host in result['hosts']}
        # Raw weight = minus the cheapest partial period on each host.
        self.assertEqual(
            {'host-A': -1620.0, 'host-B': -660.0, 'host-C': -1800.0,
             'host-D': -1140.0},
            {name: host['weights']['termination_cost']['raw']
             for name, host in by_name.items()})
        self.assertEqual(['AP2'], by_name['host-A']['terminate'])
        self.assertEqual(1.0, by_name['host-B']['weights'][
            'termination_cost']['normalized'])
        self.assertEqual(0.0, by_name['host-C']['weights'][
            'termination_cost']['normalized'])

    def test_no_load_talk_without_a_load_aware_plugin(self):
        # The paper's snapshot has no metrics and its scheduler reads
        # none: no load section, and no warning about missing metrics.
        logger = self.useFixture(fixtures.FakeLogger(
            name='preemptible_sched.hosts.load', level=logging.INFO))
        code, out, err = self.run_cli('decide', '--scenario', SCENARIO)
        self.assertEqual(0, code, err)
        self.assertNotIn('load', json.loads(out))
        self.assertEqual('', logger.output)

    def test_paper_snapshot_table(self):
        code, out, err = self.run_cli('decide', '--scenario', SCENARIO,
                                      '--format', 'table')
        self.assertEqual(0, code, err)
        self.assertIn('new -> host-B, terminate: BP1', out)
        self.assertRegex(out, r'host-C +normal +yes +-1800/0 +0 +CP1')

    def test_the_strategy_s_action_on_victims_is_shown(self):
        # A requeued victim used to be shown as terminated.
        self.data['config']['scheduler']['on_victim'] = 'requeue'
        code, out, err = self.decide(self.data, '--format', 'table')
        self.assertEqual(0, code, err)
        self.assertIn('new -> host-B, requeue: BP1', out)
        self.assertNotIn('terminate', out)
        self.assertRegex(out, r'total +requeue')
        code, out, err = self.decide(self.data)
        result = json.loads(out)
        self.assertEqual('requeue', result['on_victim'])
        self.assertEqual(['BP1'], result['selected'][0]['terminate'])

    def test_terminated_victims_are_said_so(self):
        code, out, err = self.run_cli('decide', '--scenario', SCENARIO)
        self.assertEqual('terminate', json.loads(out)['on_victim'])

    def test_no_valid_host_exits_1(self):
        self.data['request']['preemptible'] = True
        code, out, err = self.decide(self.data)
        self.assertEqual(1, code, err)
        result = json.loads(out)
        self.assertEqual('no_valid_host', result['result'])
        self.assertEqual([], result['selected'])

    def test_config_file_overrides_scenario_config(self):
        conf = self.write('[preemptible]\nmode = plain\n', 'plain.conf')
        code, out, _ = self.run_cli('decide', '--scenario', SCENARIO,
                                    '--config-file', conf)
        self.assertEqual(1, code)

    def test_failed_filter_is_reported(self):
        self.data['hosts'][0]['enabled'] = False
        code, out, _ = self.decide(self.data)
        host_a = json.loads(out)['hosts'][0]
        self.assertEqual((False, 'compute'),
                         (host_a['passed'], host_a['failed_filter']))

    def test_multi_instance_lists_every_pass(self):
        self.data['request']['num_instances'] = 2
        code, out, _ = self.decide(self.data)
        result = json.loads(out)
        self.assertEqual([('host-B', ['BP1']), ('host-D', ['DP2'])],
                         [(s['host'], s['terminate'])
                          for s in result['selected']])
        self.assertEqual(2, len(result['passes']))

    def test_yaml_scenario(self):
        import yaml
        code, out, _ = self.run_cli(
            'decide', '--scenario', self.write(yaml.safe_dump(self.data),
                                               'scenario.yaml'))
        self.assertEqual('host-B', json.loads(out)['selected'][0]['host'])


class TestBadInput(DecideTestCase):

    def test_malformed_json(self):
        path = self.write('{"hosts": [\n  {"name": }\n]}')
        self.assertBadInput(self.run_cli('decide', '--scenario', path),
                            path, 'line 2 column 12', 'malformed JSON')

    def test_unreadable_file(self):
        path = os.path.join(self.tmp, 'missing.json')
        self.assertBadInput(self.run_cli('decide', '--scenario', path),
                            path, 'cannot read file')

    def test_unknown_flavor(self):
        self.data['hosts'][2]['instances'][1]['flavor'] = 'huge'
        self.assertBadInput(self.decide(self.data), 'scenario.json',
                            'hosts[2].instances[1].flavor',
                            "unknown flavor 'huge'")

    def test_unknown_request_flavor(self):
        self.data['request']['flavor'] = 'xl'
        self.assertBadInput(self.decide(self.data), 'request.flavor',
                            "unknown flavor 'xl'")

    def test_negative_size(self):
        self.data['hosts'][1]['vcpus'] = -8
        self.assertBadInput(self.decide(self.data), 'scenario.json',
                            'hosts[1].vcpus', 'less than the minimum of 0')

    def test_negative_runtime(self):
        self.data['hosts'][0]['instances'][0]['runtime_s'] = -1
        self.assertBadInput(self.decide(self.data),
                            'hosts[0].instances[0].runtime_s')

    def test_missing_field(self):
        del self.data['hosts'][3]['memory_mb']
        self.assertBadInput(self.decide(self.data), 'scenario.json',
                            'hosts[3].memory_mb', 'missing required field')

    def test_missing_request(self):
        del self.data['request']
        self.assertBadInput(self.decide(self.data), 'request',
                            'missing required field')

    def test_instance_without_size(self):
        del self.data['hosts'][0]['instances'][0]['flavor']
        self.assertBadInput(self.decide(self.data), 'hosts[0].instances[0]',
                            'needs a "flavor"')

    def test_wrong_type(self):
        self.data['hosts'][0]['instances'][0]['preemptible'] = 'yes'
        self.assertBadInput(self.decide(self.data),
                            'hosts[0].instances[0].preemptible',
                            "'yes' is not of type 'boolean'")

    def test_unknown_field(self):
        self.data['hosts'][0]['cpus'] = 8
        self.assertBadInput(self.decide(self.data), 'hosts[0]',
                            "unknown field(s): 'cpus'")

    def test_duplicate_instance_id(self):
        self.data['hosts'][1]['instances'][0]['id'] = 'A1'
        self.assertBadInput(self.decide(self.data),
                            'hosts[1].instances[0].id', 'duplicate')

    def test_unknown_plugin_in_scenario_config(self):
        self.data['config']['filter_scheduler']['enabled_filters'] = [
            'compute', 'ressources']
        self.assertBadInput(self.decide(self.data), 'scenario.json',
                            'config.filter_scheduler.enabled_filters',
                            "'ressources'", 'valid: affinity')

    def test_unknown_plugin_in_config_file(self):
        data = copy.deepcopy(self.data)
        del data['config']['preemptible']
        conf = self.write('[preemptible]\ntermination_costs = bogus\n',
                          'bad.conf')
        self.assertBadInput(self.decide(data, '--config-file', conf),
                            conf, "'bogus'", 'valid: billing_period')

    def test_bad_option_value_in_scenario(self):
        self.data['config']['filter_scheduler']['host_subset_size'] = 'many'
        self.assertBadInput(self.decide(self.data),
                            'config.filter_scheduler.host_subset_size',
                            'bad value')

    def test_unknown_option_in_scenario(self):
        self.data['config']['preemptible']['billing_period'] = 60
        self.assertBadInput(self.decide(self.data),
                            'config.preemptible.billing_period',
                            'unknown option')

    def test_bad_option_value_in_config_file(self):
        conf = self.write('[scheduler]\non_victim = eager\n', 'bad.conf')
        self.assertBadInput(self.decide(self.data, '--config-file', conf),
                            conf + ': [scheduler] on_victim:', "'eager'")

    def test_unknown_strategy_in_config_file(self):
        conf = self.write('[scheduler]\npreemption_strategy = eager\n',
                          'bad.conf')
        self.assertBadInput(self.decide(self.data, '--config-file', conf),
                            conf + ': [scheduler] preemption_strategy:',
                            "'eager'")

    def test_malformed_config_file(self):
        conf = self.write('[preemptible\nmode = plain\n', 'broken.conf')
        self.assertBadInput(self.run_cli('decide', '--scenario', SCENARIO,
                                         '--config-file', conf), conf)


class TestDecideHostileInput(DecideTestCase):
    """Regressions of issue 11: hostile scenario files end in exit 2 with
    one line naming the file and the field, never a traceback or a hang.
    """

    def setUp(self):
        super().setUp()
        self.special = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.special, True)

    def write_raw(self, data, name='scenario.json'):
        path = os.path.join(self.tmp, name)
        with open(path, 'wb') as stream:
            stream.write(data)
        return path

    def raw(self, data, name='scenario.json'):
        return self.run_cli('decide', '--scenario',
                            self.write_raw(data, name))

    def test_integer_too_large_for_a_float_is_refused(self):
        text = json.dumps(self.data).replace(
            '"vcpus": 8', '"vcpus": 1' + '0' * 400, 1)
        self.assertBadInput(self.raw(text.encode()), 'scenario.json',
                            'hosts[0].vcpus', 'too large')

    def test_integer_with_too_many_digits_is_refused(self):
        text = json.dumps(self.data).replace(
            '"vcpus": 8', '"vcpus": 1' + '0' * 5000, 1)
        self.assertBadInput(self.raw(text.encode()), 'scenario.json',
                            'malformed JSON')

    def test_non_utf8_file_is_refused(self):
        text = json.dumps(self.data).encode().replace(b'host-A',
                                                      b'h\xf4te-A', 1)
        self.assertBadInput(self.raw(text), 'scenario.json',
                            'not UTF-8 text: byte 0xf4')

    def test_deeply_nested_json_is_refused(self):
        self.assertBadInput(self.raw(b'[' * 100000 + b']' * 100000),
                            'scenario.json', 'nested too deeply')
        self.assertBadInput(self.raw(b'{"a":' * 50 + b'1' + b'}' * 50),
                            'scenario.json', 'nested too deeply')

    def test_deeply_nested_yaml_is_refused(self):
        self.assertBadInput(
            self.raw(b'[' * 100000 + b']' * 100000, 'scenario.yaml'),
            'scenario.yaml', 'nested too deeply')

    def test_yaml_alias_bomb_is_refused(self):
        lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]']
        for level in range(1, 8):
            lines.append('a%d: &a%d [%s]' % (level, level, ', '.join(
                ['*a%d' % (level - 1)] * 10)))
        self.assertBadInput(
            self.raw('\n'.join(lines).encode(), 'scenario.yaml'),
            'scenario.yaml', 'document too large')

    def test_num_instances_2_0_is_refused(self):
        self.data['request']['num_instances'] = 2.0
        self.assertBadInput(self.decide(self.data),
                            'request.num_instances',
                            'expected an integer, got 2.0')

    def test_num_instances_true_is_refused(self):
        self.data['request']['num_instances'] = True
        self.assertBadInput(self.decide(self.data), 'request.num_instances')

    def test_num_instances_beyond_the_bound_is_refused(self):
        self.data['request']['num_instances'] = 100000
        self.assertBadInput(self.decide(self.data), 'request.num_instances',
                            '1000')

    def test_request_id_equal_to_an_instance_id_is_refused(self):
        self.data['request']['id'] = 'A1'
        self.assertBadInput(self.decide(self.data), 'scenario.json',
                            'request.id', "'A1'",
                            'hosts[0].instances[0]')

    def test_request_instance_id_equal_to_an_instance_id_is_refused(self):
        # Two instances of request "A" are "A-0" and "A-1".
        self.data['hosts'][0]['instances'][0]['id'] = 'A-1'
        self.data['request'].update(id='A', num_instances=2)
        self.assertBadInput(self.decide(self.data), 'request.id', "'A-1'")

    def test_infinite_size_is_refused(self):
        self.data['hosts'][1]['vcpus'] = float('inf')
        self.assertBadInput(self.decide(self.data), 'scenario.json',
                            'hosts[1].vcpus', 'finite')

    def test_nan_and_infinity_literals_name_the_field(self):
        self.data['hosts'][0]['instances'][0]['runtime_s'] = 12345.5
        for literal in ('NaN', 'Infinity', '-Infinity', '1e400'):
            text = json.dumps(self.data).replace('12345.5', literal)
            self.assertBadInput(self.raw(text.encode()), 'scenario.json',
                                'hosts[0].instances[0].runtime_s')

    def test_nan_cost_is_refused(self):
        self.data['hosts'][0]['instances'][0]['runtime_s'] = float('nan')
        self.assertBadInput(self.decide(self.data),
                            'hosts[0].instances[0].runtime_s', 'nan')

    def test_nan_priority_in_yaml_is_refused(self):
        import yaml
        self.data['request']['priority'] = 1.0
        text = yaml.safe_dump(self.data).replace('priority: 1.0',
                                                 'priority: .nan')
        self.assertBadInput(self.raw(text.encode(), 'scenario.yaml'),
                            'scenario.yaml', 'request.priority')

    def test_nan_multiplier_in_scenario_config_is_refused(self):
        self.data['config']['preemptible'][
            'billing_period_cost_multiplier'] = 'nan'
        self.assertBadInput(
            self.decide(self.data),
            'config.preemptible.billing_period_cost_multiplier',
            'not a finite number')

    def test_absurd_sizes_are_refused(self):
        for field, value in (('vcpus', -1), ('vcpus', 1e10),
                             ('memory_mb', 1e300)):
            data = copy.deepcopy(self.data)
            data['hosts'][0][field] = value
            self.assertBadInput(self.decide(data), 'hosts[0].%s' % field)

    def test_fifo_is_refused_without_blocking(self):
        path = os.path.join(self.special, 'scenario.json')
        os.mkfifo(path)
        self.assertBadInput(self.run_cli('decide', '--scenario', path),
                            path, 'not a regular file (a FIFO)')

    def test_dev_zero_is_refused_without_reading(self):
        self.assertBadInput(self.run_cli('decide', '--scenario',
                                         '/dev/zero'),
                            '/dev/zero', 'a character device')

    def test_directory_is_refused(self):
        self.assertBadInput(self.run_cli('decide', '--scenario',
                                         self.special),
                            self.special, 'a directory')

    def test_file_beyond_the_size_bound_is_refused_before_reading(self):
        path = os.path.join(self.special, 'huge.json')
        with open(path, 'wb') as stream:
            stream.truncate(100 * 1000 * 1000)   # sparse: nothing written
        with mock.patch('builtins.open', side_effect=AssertionError):
            self.assertBadInput(self.run_cli('decide', '--scenario', path),
                                path, 'file too large', '67108864')

    def test_lone_surrogate_is_refused(self):
        text = json.dumps(self.data).replace('"host-A"', '"\\ud800"', 1)
        self.assertBadInput(self.raw(text.encode()), 'hosts[0].name',
                            'lone surrogate')


class TestDecideTakesClassPriorities(DecideTestCase):
    """Issue 29 item 11: under ``priority`` a request of a class and the
    instances of a lower class, none with a priority of its own, take the
    priorities of their classes (gold 3, bronze 1 by default) in
    ``decide`` as in the loop; a gold request then displaces a bronze
    instance on the one full host.
    """

    def scenario(self):
        return {
            'now': 0,
            'hosts': [{'name': 'h', 'vcpus': 2, 'memory_mb': 2048,
                       'disk_gb': 20, 'instances': [
                           {'id': 'b%d' % index, 'vcpus': 1,
                            'memory_mb': 1024, 'disk_gb': 10,
                            'service_class': 'bronze', 'runtime_s': 60}
                           for index in (1, 2)]}],
            'request': {'vcpus': 1, 'memory_mb': 1024, 'disk_gb': 10,
                        'service_class': 'gold'},
            'config': {'scheduler': {'preemption_strategy': 'priority'}}}

    def test_gold_displaces_bronze(self):
        code, out, err = self.decide(self.scenario())
        self.assertEqual(0, code, err)
        [selected] = json.loads(out)['selected']
        self.assertEqual('h', selected['host'])
        self.assertEqual(1, len(selected['terminate']))

    def test_a_class_of_its_own_priority_wins(self):
        # Bronze instances that say priority 5 outrank the gold request.
        data = self.scenario()
        for instance in data['hosts'][0]['instances']:
            instance['priority'] = 5
        code, out, err = self.decide(data)
        self.assertEqual(1, code, err)
        self.assertEqual('no_valid_host', json.loads(out)['result'])

    def test_an_unknown_class_is_refused(self):
        data = self.scenario()
        data['request']['service_class'] = 'platinum'
        self.assertBadInput(self.decide(data), 'request.service_class',
                            'platinum')
