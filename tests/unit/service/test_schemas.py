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

"""The schemas of the RPC payloads, checked by their payload checks.

Regression tests for hostile messages: each failure reproduced on the
service (a list as a priority, a string or NaN size in a registration,
NaN and infinite values reaching the database, ``num_instances =
100000``, malformed casts) is refused here by the schemas, before any
loop, driver or database sees it.
"""

from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.service import payload_checks
from preemptible_sched.service import schemas
from preemptible_sched import wire
from tests import base

NAN = float('nan')
INF = float('inf')
MEDIUM = {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40}


def spec(**fields):
    data = {'id': 'r', 'resources': dict(MEDIUM)}
    data.update(fields)
    return data


class TestRequestSpecSchema(base.TestCase):

    def assertRefused(self, data, *fragments):
        error = self.assertRaises(exception.InvalidInput,
                                  payload_checks.check_request_spec, data)
        for fragment in fragments:
            self.assertIn(fragment, str(error))
        self.assertEqual(1, len(str(error).splitlines()))
        return error

    def test_valid_requests(self):
        for data in (spec(), spec(id=None), {'resources': MEDIUM},
                     spec(num_instances=schemas.MAX_INSTANCES_PER_REQUEST,
                          preemptible=True, flavor='medium',
                          constraints={'ssd': 'yes', 'gpus': 2},
                          availability_zone='az1', group='g',
                          group_policy='affinity', service_class='gold',
                          priority=-3.5, group_hosts=['host-A'],
                          instance_ids=None)):
            self.assertEqual(data, payload_checks.check_request_spec(data))

    def test_priority_list_is_refused(self):
        # On MariaDB, this one message put the scheduler in a crash loop.
        error = self.assertRefused(spec(priority=[1]), 'priority',
                                   'expected number, got list')
        self.assertEqual('priority', error.field)

    def test_non_finite_numbers_are_refused(self):
        for value in (NAN, INF, -INF):
            self.assertRefused(spec(priority=value), 'priority', 'finite')
            self.assertRefused(spec(resources=dict(MEDIUM, vcpus=value)),
                               'resources.vcpus')
        self.assertRefused(spec(resources=dict(MEDIUM, disk_gb=10 ** 400)),
                           'resources.disk_gb', 'too large')
        self.assertRefused(spec(resources=dict(MEDIUM, disk_gb=10 ** 5000)),
                           'not plain JSON')

    def test_num_instances_is_bounded(self):
        # 100000 blocked the service for minutes.
        self.assertRefused(spec(num_instances=100000), 'num_instances',
                           'maximum of %d'
                           % schemas.MAX_INSTANCES_PER_REQUEST)
        for value in (0, -1, 2.0, True, '2', None):
            self.assertRefused(spec(num_instances=value), 'num_instances')

    def test_sizes_are_bounded(self):
        self.assertRefused(spec(resources=dict(MEDIUM, vcpus=-1)),
                           'resources.vcpus', 'minimum of 0')
        self.assertRefused(
            spec(resources=dict(MEDIUM, memory_mb=schemas.MAX_RESOURCE * 2)),
            'resources.memory_mb', 'maximum')
        self.assertRefused(spec(resources=dict(MEDIUM, vcpus='lots')),
                           'resources.vcpus', 'expected number, got str')
        self.assertRefused(spec(resources=dict(MEDIUM, gpus=1)), 'gpus')

    def test_ids_and_strings(self):
        for bad_id in ('', 'a b', 'a\nb', '../x', 'x' * 300, 'é', '-x', 5):
            self.assertRefused(spec(id=bad_id), 'id')
        for name in ('flavor', 'service_class', 'availability_zone',
                     'group'):
            self.assertRefused(spec(**{name: 'x' * 256}), name,
                               'length must be <= 255')
            self.assertRefused(spec(**{name: 'a\x00b'}), name)
        self.assertRefused(spec(constraints={'k': 'v' * 300}),
                           'constraints.k')
        self.assertRefused(spec(constraints={'k%d' % i: 'v'
                                             for i in range(300)}),
                           'constraints', 'at most 256 entries')
        self.assertRefused(spec(group_policy='mostly'), 'group_policy')

    def test_every_problem_at_once(self):
        error = self.assertRefused(
            spec(resources={'vcpus': -1, 'memory_mb': 'lots'},
                 num_instances=0, colour='blue'),
            'num_instances', 'resources.vcpus', 'resources.memory_mb',
            'colour')
        self.assertIsNone(error.field)

    def test_not_json(self):
        self.assertRefused([1], 'expected object, got list')
        self.assertRefused(spec(constraints={'k': {1, 2}}), 'not plain JSON')
        self.assertRefused(spec(constraints={'k': b'x'}), 'not plain JSON')
        self.assertRefused(spec(constraints={'k': '\ud800'}), 'Unicode')

    def test_deep_nesting_is_refused_without_recursion(self):
        deep = {}
        node = deep
        for _ in range(100000):
            node['k'] = {}
            node = node['k']
        self.assertRefused(spec(constraints=deep), 'nested too deeply')

    def test_tuples_are_lists(self):
        # fake:// delivers what was sent; a broker delivers JSON.
        checked = payload_checks.check_request_spec(
            spec(group_hosts=('host-A',)))
        self.assertEqual(['host-A'], checked['group_hosts'])


class TestContextSchema(base.TestCase):

    def test_contexts(self):
        self.assertEqual({}, payload_checks.check_context(None))
        context = {'project_id': 'p1', 'user_id': 'u', 'roles': ['admin'],
                   'is_admin': False, 'request_id': 'req-1'}
        self.assertEqual(context, payload_checks.check_context(context))
        for bad in ({'project_id': 'a b'}, {'project_id': 5},
                    {'roles': 'admin'}, {'roles': [1]},
                    {'is_admin': 'yes'}, [], 'ctxt'):
            self.assertRaises(exception.InvalidInput,
                              payload_checks.check_context, bad)


class TestReportSchemas(base.TestCase):

    def host(self, **fields):
        data = wire.host_to_dict(objects.Host(
            'host-A', 8, 16384, 500, attributes={'ssd': 'yes'},
            aggregates=(objects.Aggregate('agg', {'k': 'v'}),),
            metrics={'cpu': 0.5}))
        data.update(fields)
        return data

    def test_a_registration_as_an_agent_sends_it(self):
        kwargs = {'host': self.host(), 'boot_id': 'abc123'}
        checked = payload_checks.check_report('register_host', kwargs)
        self.assertEqual(objects.Host(
            'host-A', 8, 16384, 500, attributes={'ssd': 'yes'},
            aggregates=(objects.Aggregate('agg', {'k': 'v'}),),
            metrics={'cpu': 0.5}), wire.host_from_dict(checked['host']))

    def test_string_or_nan_sizes_are_refused(self):
        # Each of these killed the scheduler.
        for value in ('8', NAN, INF, -1, None, [8]):
            error = self.assertRaises(
                exception.InvalidInput, payload_checks.check_report,
                'register_host', {'host': self.host(vcpus=value),
                                  'boot_id': 'b'})
            self.assertEqual('register_host', error.source)
            self.assertEqual('host.vcpus', error.field)

    def test_events(self):
        self.assertEqual(
            {'host': 'h', 'instance_id': 'i', 'at': 1.5},
            payload_checks.check_report('instance_started',
                                        {'host': 'h', 'instance_id': 'i',
                                         'at': 1.5}))
        payload_checks.check_report('instance_failed', {
            'host': 'h', 'instance_id': 'i', 'reason': 'why', 'at': None})
        payload_checks.check_report('host_down', {'host': 'h'})
        for method, kwargs in (
                ('instance_started', {'host': 'h'}),
                ('instance_started', {'host': 'h', 'instance_id': 'i',
                                      'at': NAN}),
                ('instance_failed', {'host': 'h', 'instance_id': 'i'}),
                ('instance_failed', {'host': 'h', 'instance_id': 'i',
                                     'reason': 'x' * 5000}),
                ('host_up', {'host': ['h']}),
                ('host_up', {'host': 'h', 'extra': 1}),
                ('launch_missiles', {})):
            self.assertRaises(exception.InvalidInput,
                              payload_checks.check_report, method, kwargs)

    def test_list_instances_answer(self):
        answer = {'now': 1.7e9, 'instances': [
            {'id': 'i', 'state': 'running', 'started_at': 1.6e9,
             'cpu_utilization': 0.5},
            {'id': 'j', 'state': 'building', 'started_at': None,
             'cpu_utilization': 0.0, 'a_newer_field': 1}]}
        self.assertEqual(answer,
                         payload_checks.validate_list_instances_answer(answer))
        for bad in (None, [], {'now': 1.0}, {'now': NAN, 'instances': []},
                    {'now': 1.0, 'instances': [{'id': 'i'}]},
                    {'now': 1.0, 'instances': [{'id': 'i', 'state': 'x',
                                                'started_at': INF}]},
                    {'now': 1.0, 'instances': {}}):
            error = self.assertRaises(
                exception.InvalidInput,
                payload_checks.validate_list_instances_answer, bad)
            self.assertEqual('list_instances answer', error.source)

    def test_list_instances_answer_with_finished_instances(self):
        finished = {'id': 'i', 'state': 'ended', 'started_at': 1.0,
                    'ended_at': 2.0, 'boot': 3, 'reason': None}
        answer = {'now': 5.0, 'instances': [], 'finished': [finished]}
        self.assertEqual(answer,
                         payload_checks.validate_list_instances_answer(answer))
        for change in ({'state': 'running'}, {'ended_at': NAN},
                       {'ended_at': None}, {'boot': -1}, {'boot': 'x'},
                       {'reason': 'r' * 5000}, {'id': ''}):
            bad = dict(answer, finished=[dict(finished, **change)])
            self.assertRaises(exception.InvalidInput,
                              payload_checks.validate_list_instances_answer,
                              bad)

    def test_spawn_with_a_nan_size_is_refused(self):
        # It disabled the capacity check of the agent.
        instance = wire.instance_to_dict(
            objects.Instance('i', objects.Resources(NAN, 1, 1)))
        error = self.assertRaises(exception.InvalidInput, payload_checks.check,
                                  'compute.spawn',
                                  {'host': 'h', 'instance': instance})
        self.assertEqual('instance.resources[0]', error.field)
