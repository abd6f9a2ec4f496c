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

"""``preemptible-sched submit``: the placement flags and the request dict.

``--service-class``, ``--constraint KEY=VALUE`` (repeatable),
``--availability-zone``, ``--group`` and ``--group-policy`` end up in the
request dict
:func:`~preemptible_sched.cmd.client.submit_args.request_spec` builds; the
refusals are one line on stderr naming the flag, exit code 2, before any
transport is looked at. Talking to a running service is tested in
``tests/functional/service``.
"""

import argparse
import contextlib
import io
import json
from unittest import mock

from preemptible_sched.cmd import client
from preemptible_sched.cmd.client import service_calls as calls
from preemptible_sched.cmd.client import submit_args
from preemptible_sched.cmd import sched
from preemptible_sched import exception
from tests import base


def parse_submit(*argv):
    """The ``submit`` arguments as the command line parses them."""
    parser = argparse.ArgumentParser()
    client.add_parser(parser.add_subparsers())
    return parser.parse_args(['submit'] + list(argv))


class FakeAPI:
    """Records what ``submit`` sends instead of sending it."""

    def __init__(self):
        self.submitted = []

    def submit(self, spec, duration=None, image=None):
        self.submitted.append((spec, duration, image))
        return {'id': spec['id'] or 'req-generated', 'status': 'pending',
                'reason': None, 'spec': spec, 'instances': []}


class TestRequestSpec(base.TestCase):

    def test_defaults(self):
        spec = submit_args.request_spec(parse_submit('--flavor', 'medium'))
        self.assertEqual(
            {'id': None,
             'resources': {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40},
             'preemptible': False, 'num_instances': 1, 'flavor': 'medium',
             'priority': 0.0, 'service_class': None, 'constraints': {},
             'availability_zone': None, 'group': None,
             'group_policy': None},
            spec)

    def test_every_placement_flag(self):
        spec = submit_args.request_spec(parse_submit(
            '--flavor', 'small', '--id', 'r1', '--service-class', 'gold',
            '--constraint', 'gpu=true', '--constraint', 'rack = r7 ',
            '--availability-zone', 'az2', '--group', 'web',
            '--group-policy', 'affinity'))
        self.assertEqual('r1', spec['id'])
        self.assertEqual('gold', spec['service_class'])
        self.assertEqual({'gpu': 'true', 'rack': 'r7'}, spec['constraints'])
        self.assertEqual('az2', spec['availability_zone'])
        self.assertEqual('web', spec['group'])
        self.assertEqual('affinity', spec['group_policy'])

    def test_service_class_passed_through(self):
        # Unchecked here: the service knows the configured classes.
        for name in ('bronze', 'silver', 'gold', 'platinum'):
            spec = submit_args.request_spec(parse_submit(
                '--flavor', 'small', '--service-class', name))
            self.assertEqual(name, spec['service_class'])
            self.assertEqual(0.0, spec['priority'])
        spec = submit_args.request_spec(parse_submit(
            '--flavor', 'small', '--service-class', 'gold', '--priority',
            '7'))
        self.assertEqual(('gold', 7.0),
                         (spec['service_class'], spec['priority']))

    def test_constraint_values(self):
        spec = submit_args.request_spec(parse_submit(
            '--flavor', 'small', '--constraint', 'k=a=b',
            '--constraint', 'empty=', '--constraint', 'k2=x',
            '--constraint', 'k2=y'))
        # Split at the first '='; an empty value is a value; the last of
        # a repeated key wins.
        self.assertEqual({'k': 'a=b', 'empty': '', 'k2': 'y'},
                         spec['constraints'])

    def test_bad_constraint(self):
        for text in ('gpu', '=true', ' =x', ''):
            error = self.assertRaises(
                exception.InvalidInput, submit_args.request_spec,
                parse_submit('--flavor', 'small', '--constraint', 'ok=1',
                             '--constraint', text))
            self.assertEqual('--constraint', error.field)
            self.assertIn('--constraint', str(error))
            self.assertIn('KEY=VALUE', str(error))
            self.assertIn(repr(text), str(error))

    def test_group_policy_needs_group(self):
        for policy in ('affinity', 'anti-affinity'):
            error = self.assertRaises(
                exception.InvalidInput, submit_args.request_spec,
                parse_submit('--flavor', 'small', '--group-policy', policy))
            self.assertEqual('--group-policy', error.field)
            self.assertIn('needs --group', str(error))

    def test_group_policy_defaults_to_anti_affinity(self):
        spec = submit_args.request_spec(parse_submit('--flavor', 'small',
                                                     '--group', 'g'))
        self.assertEqual(('g', 'anti-affinity'),
                         (spec['group'], spec['group_policy']))

    def test_unknown_group_policy(self):
        with mock.patch('sys.stderr', io.StringIO()) as err:
            self.assertRaises(SystemExit, parse_submit, '--flavor', 'small',
                              '--group', 'g', '--group-policy', 'spread')
        self.assertIn('--group-policy', err.getvalue())


class SubmitCommandCase(base.TestCase):
    """``preemptible-sched submit`` end to end, the service faked."""

    def run_cli(self, *argv, api=None):
        @contextlib.contextmanager
        def scheduler_api(context=None):
            if api is None:
                raise AssertionError('the service must not be asked')
            yield api

        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err), \
                mock.patch.object(calls, 'scheduler_api', scheduler_api):
            code = sched.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def assertRefused(self, fragments, *argv):
        code, out, err = self.run_cli(*argv)
        self.assertEqual(calls.EXIT_BAD_INPUT, code, err)
        self.assertEqual('', out)
        self.assertEqual(1, len(err.splitlines()), err)
        self.assertNotIn('Traceback', err)
        for fragment in fragments:
            self.assertIn(fragment, err)


class TestSubmitCommand(SubmitCommandCase):

    def test_submit_sends_the_placement_flags(self):
        api = FakeAPI()
        code, out, err = self.run_cli(
            'submit', '--vcpus', '1', '--memory-mb', '512', '--id', 'r1',
            '--service-class', 'silver', '--constraint', 'ssd=yes',
            '--constraint', 'rack=r1', '--availability-zone', 'az1',
            '--group', 'db', '--duration', '30', '--image', 'cirros',
            api=api)
        self.assertEqual(0, code, err)
        (spec, duration, image), = api.submitted
        self.assertEqual((30.0, 'cirros'), (duration, image))
        self.assertEqual(
            {'id': 'r1',
             'resources': {'vcpus': 1.0, 'memory_mb': 512.0,
                           'disk_gb': 0.0},
             'preemptible': False, 'num_instances': 1, 'flavor': None,
             'priority': 0.0, 'service_class': 'silver',
             'constraints': {'ssd': 'yes', 'rack': 'r1'},
             'availability_zone': 'az1', 'group': 'db',
             'group_policy': 'anti-affinity'},
            spec)
        self.assertEqual(spec, json.loads(out)['spec'])

    def test_bad_constraint_refused(self):
        self.assertRefused(['--constraint', 'KEY=VALUE', "'gpu'"],
                           'submit', '--flavor', 'small', '--constraint',
                           'gpu')

    def test_group_policy_without_group_refused(self):
        self.assertRefused(['--group-policy', 'needs --group'],
                           'submit', '--flavor', 'small', '--group-policy',
                           'affinity')


class FlakyAPI(FakeAPI):
    """Times out ``failures`` times, then answers."""

    def __init__(self, failures):
        super().__init__()
        self.failures = failures

    def submit(self, spec, duration=None, image=None):
        from preemptible_sched.service import rpcapi

        self.submitted.append((spec, duration, image))
        if len(self.submitted) <= self.failures:
            raise rpcapi.ServiceTimeout('no answer within 30 s')
        return {'id': spec['id'], 'status': 'pending', 'reason': None,
                'spec': spec, 'instances': []}


class TestSubmitRetries(SubmitCommandCase):
    """A submit that timed out is asked again with the same request id,
    which the service takes once: no ghost request.
    """

    def setUp(self):
        super().setUp()
        patcher = mock.patch.object(calls, 'RETRY_PAUSE', 0)
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_the_client_names_the_request(self):
        api = FakeAPI()
        code, out, err = self.run_cli('submit', '--flavor', 'small',
                                      api=api)
        self.assertEqual(0, code, err)
        (spec, _, _), = api.submitted
        self.assertRegex(spec['id'], r'^req-[0-9a-f]{12}$')

    def test_a_timed_out_submit_is_retried_with_the_same_id(self):
        api = FlakyAPI(calls.SUBMIT_ATTEMPTS - 1)
        code, out, err = self.run_cli('submit', '--flavor', 'small',
                                      api=api)
        self.assertEqual(0, code, err)
        ids = {spec['id'] for spec, _, _ in api.submitted}
        self.assertEqual(calls.SUBMIT_ATTEMPTS, len(api.submitted))
        self.assertEqual(1, len(ids))
        self.assertEqual(ids.pop(), json.loads(out)['id'])
        self.assertEqual(calls.SUBMIT_ATTEMPTS - 1, len(err.splitlines()))
        self.assertIn('asking again for request req-', err)

    def test_retries_are_bounded_and_the_failure_names_the_id(self):
        api = FlakyAPI(100)

        @contextlib.contextmanager
        def scheduler_api(context=None):
            from preemptible_sched.service import rpcapi
            try:
                yield api
            except rpcapi.ServiceError as error:
                raise calls._Failed(error, calls.EXIT_FAILED) from None

        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err), \
                mock.patch.object(calls, 'scheduler_api', scheduler_api):
            code = sched.main(['submit', '--flavor', 'small', '--id', 'r7'])
        self.assertEqual(calls.EXIT_FAILED, code)
        self.assertEqual(calls.SUBMIT_ATTEMPTS, len(api.submitted))
        last = err.getvalue().splitlines()[-1]
        self.assertIn('(%d attempts)' % calls.SUBMIT_ATTEMPTS, last)
        self.assertIn('preemptible-sched show r7', last)
        self.assertIn('--id r7 is safe', last)

    def test_non_finite_values_are_refused_before_sending(self):
        for argv in (['--vcpus', 'nan', '--memory-mb', '1'],
                     ['--vcpus', '1', '--memory-mb', 'inf'],
                     ['--flavor', 'small', '--priority', 'nan'],
                     ['--flavor', 'small', '--duration', 'inf'],
                     ['--flavor', 'small', '--num-instances', '100000'],
                     ['--flavor', 'small', '--timeout', 'nan']):
            self.assertRefused([], 'submit', *argv)


class TestCallContext(base.TestCase):

    def parse(self, *argv):
        parser = argparse.ArgumentParser()
        client.add_parser(parser.add_subparsers())
        return parser.parse_args(list(argv))

    def test_defaults(self):
        with mock.patch.dict('os.environ', clear=True):
            self.assertEqual({'project_id': 'default', 'roles': []},
                             calls.call_context(self.parse('list')))

    def test_environment(self):
        with mock.patch.dict('os.environ', {'OS_PROJECT_ID': 'p1',
                                            'OS_ROLES': 'member, admin'}):
            self.assertEqual(
                {'project_id': 'p1', 'roles': ['member', 'admin']},
                calls.call_context(self.parse('show', 'r')))

    def test_options_win(self):
        with mock.patch.dict('os.environ', {'OS_PROJECT_ID': 'p1',
                                            'OS_ROLES': 'admin'}):
            self.assertEqual(
                {'project_id': 'p2', 'roles': []},
                calls.call_context(self.parse(
                    'delete', 'r', '--os-project-id', 'p2',
                    '--os-roles', '')))

    def test_the_context_reaches_the_api(self):
        seen = []

        @contextlib.contextmanager
        def scheduler_api(context=None):
            seen.append(context)
            yield FakeAPI()

        with mock.patch('sys.stdout', io.StringIO()), \
                mock.patch.object(calls, 'scheduler_api', scheduler_api):
            sched.main(['submit', '--flavor', 'small', '--os-project-id',
                        'p3', '--os-roles', 'admin'])
        self.assertEqual([{'project_id': 'p3', 'roles': ['admin']}], seen)
