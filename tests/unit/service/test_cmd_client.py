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

"""``preemptible-sched submit|list|show|delete``: arguments and refusals.

Talking to a running service is tested in ``tests/functional/service``.
"""

import io
from unittest import mock

from preemptible_sched.cmd.client import output
from preemptible_sched.cmd.client import submit_args
from preemptible_sched.cmd import sched
from preemptible_sched import exception
from tests import base


#: The SLA options of ``submit``, not given.
NO_SLA = dict({'sla_' + service: None for service in submit_args.SLA_OPTIONS},
              sequential_s=None, user=None, expected_vcpus=None)


def _sizes(**kw):
    """``submit`` arguments of a request of 512 MB and ``kw``."""
    return mock.Mock(**dict(
        NO_SLA, flavor=None, memory_mb=512.0, disk_gb=None,
        preemptible_instances=False, num_instances=1, duration=60.0,
        request_id=None, priority=0.0, service_class=None, constraint=[],
        availability_zone=None, group=None, group_policy=None, **kw))


class CLITestCase(base.TestCase):

    def run_cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            code = sched.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def assertRefused(self, code, fragments, argv):
        result, out, err = self.run_cli(*argv)
        self.assertEqual(code, result, err)
        self.assertEqual('', out)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, err)


class TestSubmitArguments(CLITestCase):

    def test_needs_a_size(self):
        self.assertRefused(2, ['--flavor', '--vcpus'], ['submit'])
        self.assertRefused(2, ['--memory-mb'], ['submit', '--vcpus', '2'])

    def test_flavor_or_sizes(self):
        self.assertRefused(2, ['not both', '--vcpus'],
                           ['submit', '--flavor', 'medium', '--vcpus', '2'])

    def test_bad_values(self):
        self.assertRefused(2, ['--num-instances', '0'],
                           ['submit', '--flavor', 'small',
                            '--num-instances', '0'])
        self.assertRefused(2, ['--duration'],
                           ['submit', '--flavor', 'small', '--duration',
                            '-3'])
        self.assertRefused(2, ['--memory-mb', '>= 0'],
                           ['submit', '--vcpus', '1', '--memory-mb', '-1'])
        self.assertRefused(2, ['asks for nothing'],
                           ['submit', '--vcpus', '0', '--memory-mb', '0'])
        self.assertRefused(2, ['--id'],
                           ['submit', '--flavor', 'small', '--id', ' '])

    def test_request_from_a_flavor(self):
        args = mock.Mock(flavor='large', vcpus=None, memory_mb=None,
                         disk_gb=None, preemptible_instances=True,
                         num_instances=3, duration=None, request_id='r',
                         priority=1.0, service_class='gold',
                         constraint=['rack=r1', 'gpu = yes'],
                         availability_zone='az1', group='g',
                         group_policy=None, **NO_SLA)
        self.assertEqual(
            {'id': 'r', 'resources': {'vcpus': 4, 'memory_mb': 8000,
                                      'disk_gb': 80},
             'preemptible': True, 'num_instances': 3, 'flavor': 'large',
             'priority': 1.0, 'service_class': 'gold',
             'constraints': {'rack': 'r1', 'gpu': 'yes'},
             'availability_zone': 'az1', 'group': 'g',
             'group_policy': 'anti-affinity'},
            submit_args.request_spec(args))

    def test_request_from_sizes(self):
        spec = submit_args.request_spec(_sizes(vcpus=0.5))
        self.assertEqual({'vcpus': 0.5, 'memory_mb': 512.0, 'disk_gb': 0.0},
                         spec['resources'])
        self.assertIsNone(spec['id'])
        self.assertIsNone(spec['flavor'])
        self.assertNotIn('expected_vcpus', spec)

    def test_declared_use(self):
        # Issue 29 item 6: --expected-vcpus goes with the request, at most
        # its vCPUs.
        args = _sizes(vcpus=2.0, expected_vcpus=1.5)
        self.assertEqual(1.5, submit_args.request_spec(args)['expected_vcpus'])
        for value, fragment in ((2.5, 'must be <= 2'), (0.0, 'must be > 0'),
                                (float('nan'), 'finite')):
            args.expected_vcpus = value
            error = self.assertRaises(exception.InvalidInput,
                                      submit_args.request_spec, args)
            self.assertIn('--expected-vcpus', str(error))
            self.assertIn(fragment, str(error))


class TestTransport(CLITestCase):

    def test_fake_transport_is_refused(self):
        for argv in (['list'], ['show', 'r'], ['delete', 'r'],
                     ['submit', '--flavor', 'small']):
            self.assertRefused(2, ['[DEFAULT] transport_url', 'fake://'],
                               argv)

    def test_unreachable_broker(self):
        with mock.patch('preemptible_sched.service.broker_addresses',
                        return_value=[('127.0.0.1', 9)]):
            self.assertRefused(1, ['cannot reach the message broker',
                                   '127.0.0.1:9'], ['list'])


class TestTable(base.TestCase):

    def test_request_table(self):
        request = {'id': 'r1', 'status': 'placed', 'spec': {
            'resources': {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40},
            'preemptible': True, 'flavor': None, 'num_instances': 2},
            'instances': [{'id': 'r1-0', 'state': 'running',
                           'host': 'host-A'},
                          {'id': 'r1-1', 'state': 'pending', 'host': None}]}
        self.assertEqual(
            'ID  STATUS  REQUEST                          INSTANCES\n'
            'r1  placed  preemptible 2cpu/4000MB/40GB x2  '
            'r1-0 running@host-A, r1-1 pending',
            output.request_table([request]))
