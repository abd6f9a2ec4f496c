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

"""The scheduler service: its clock, driver loading, and the service itself
with the in-process ``fake`` driver."""

import threading
import time
import uuid

import fixtures

from preemptible_sched.compute import fake
from preemptible_sched.compute import fake_config
from preemptible_sched.compute import rpc
from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched import service
from preemptible_sched.service import policy
from preemptible_sched.service import rpcapi
from preemptible_sched.service import scheduler_service
from tests import base

MEDIUM = {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40}


class TestClockAndStore(base.TestCase):

    def test_service_clock_resumes_the_timeline(self):
        future = time.time() + 10000.0
        clock = scheduler_service.ServiceClock(10.0, not_before=future)
        self.assertGreaterEqual(clock.now(), future)
        self.assertEqual(10.0, clock.time_scale)

    def test_service_clock_never_goes_back_to_the_past(self):
        clock = scheduler_service.ServiceClock(not_before=5.0)
        self.assertGreater(clock.now(), 1e9)

    def test_latest_time(self):
        store = db_api.Store('sqlite://')
        store.upgrade()
        self.assertIsNone(store.latest_time())
        spec = objects.RequestSpec(id='r', resources=objects.Resources(1, 1))
        store.add_request(spec, 10.0)
        store.record_event('x', 42.0)
        self.assertEqual(42.0, store.latest_time())

    def test_load_driver_class(self):
        self.assertIs(fake.FakeDriver,
                      scheduler_service.load_driver_class('fake'))
        self.assertIs(rpc.RPCComputeDriver,
                      scheduler_service.load_driver_class('rpc'))
        error = self.assertRaises(exception.UnknownPlugin,
                                  scheduler_service.load_driver_class,
                                  'libvirt')
        self.assertIn('[service] compute_driver', str(error))
        self.assertIn('fake, rpc', str(error))


class ServiceTestCase(base.TestCase):
    """A service with the ``fake`` driver on ``fake://``."""

    RPC_TIMEOUT = 30.0

    def setUp(self):
        super().setUp()
        self.flags(group='service', compute_driver='fake', time_scale=20.0,
                   rpc_timeout=self.RPC_TIMEOUT)
        service.register_messaging_opts(CONF)
        # fake:// queues are shared by the process, per exchange.
        self.flags(control_exchange='test-%s' % uuid.uuid4().hex)
        self.addCleanup(policy.reset)
        self.transport = service.get_rpc_transport(CONF)
        self.addCleanup(self.transport.cleanup)
        self.notification_transport = service.get_notification_transport(
            CONF)
        self.addCleanup(self.notification_transport.cleanup)
        self.store = self.make_service_store()
        self.scheduler = self.start_scheduler()
        self.api = rpcapi.SchedulerAPI(self.transport, CONF)

    def make_service_store(self):
        """The store of the service (tests/functional/db: on servers)."""
        return db_api.Store('sqlite://')

    def start_scheduler(self):
        scheduler = scheduler_service.SchedulerService(
            CONF, transport=self.transport,
            notification_transport=self.notification_transport,
            store=self.store)
        self.assertFalse(scheduler.remote)
        thread = threading.Thread(target=scheduler.run, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 30)
        self.addCleanup(scheduler.stop)
        scheduler.thread = thread
        return scheduler

    def api_of(self, project_id, *roles):
        return rpcapi.SchedulerAPI(
            self.transport, CONF,
            context={'project_id': project_id, 'roles': list(roles)})

    def wait_running(self, request_id, api=None):
        api = api or self.api
        deadline = time.monotonic() + 30
        while any(i['state'] != 'running'
                  for i in api.show(request_id)['instances']):
            if time.monotonic() > deadline:
                self.fail('%s is not running after 30 s' % request_id)
            time.sleep(0.05)


class TestFakeDriverService(ServiceTestCase):
    """``[service] compute_driver = fake``: the blades live in-process."""

    def test_submit_and_run(self):
        request = self.api.submit({'id': 'r', 'resources': MEDIUM})
        self.assertEqual('r', request['id'])
        deadline = time.monotonic() + 30
        while self.api.show('r')['instances'][0]['state'] != 'running':
            if time.monotonic() > deadline:
                self.fail('r is not running after 30 s')
            time.sleep(0.05)
        self.assertIn(self.api.show('r')['instances'][0]['host'],
                      [fake_config.blade_name(i) for i in range(4)])


class TestSubmitResponse(ServiceTestCase):

    def test_a_new_request_is_described_as_submitted(self):
        """The pass the submit asks for may place the request before the
        reply is sent: the reply still says ``pending``, as submitted.
        """
        bridge = self.scheduler.bridge
        call = bridge.call

        def call_then_let_the_pass_run(*args):
            result = call(*args)
            deadline = time.monotonic() + 30
            while self.store.get_request('r').status != 'placed':
                if time.monotonic() > deadline:
                    self.fail('r is not placed after 30 s')
                time.sleep(0.02)
            return result

        self.useFixture(fixtures.MockPatchObject(
            bridge, 'call', side_effect=call_then_let_the_pass_run))
        submitted = self.api.submit({'id': 'r', 'resources': MEDIUM})
        self.assertEqual('pending', submitted['status'])
        self.assertEqual('placed', self.api.show('r')['status'])


class TestIdempotentSubmit(ServiceTestCase):

    def test_same_id_and_request_returns_the_stored_one(self):
        first = self.api.submit({'id': 'r', 'resources': MEDIUM,
                                 'num_instances': 2}, 60.0, 'img')
        again = self.api.submit({'id': 'r', 'resources': MEDIUM,
                                 'num_instances': 2}, 60.0, 'img')
        self.assertEqual(first['submitted_at'], again['submitted_at'])
        self.assertEqual(['r-0', 'r-1'],
                         [i['id'] for i in again['instances']])
        self.assertEqual(['r'], [r['id'] for r in self.api.list()])
        self.assertEqual(2, len(self.store.list_instances()))

    def test_same_id_with_another_request_names_the_conflict(self):
        self.api.submit({'id': 'r', 'resources': MEDIUM})
        error = self.assertRaises(
            rpcapi.BadRequest, self.api.submit,
            {'id': 'r', 'resources': MEDIUM, 'preemptible': True}, 30.0)
        self.assertEqual('request r: exists already with a different '
                         'preemptible, duration', str(error))
        # Taken by another project: refused, nothing disclosed.
        error = self.assertRaises(rpcapi.BadRequest,
                                  self.api_of('other').submit,
                                  {'id': 'r', 'resources': MEDIUM})
        self.assertEqual('request r: id: taken by a request of another '
                         'project', str(error))
        # An instance id taken by another request.
        self.api.submit({'id': 'two', 'resources': MEDIUM,
                         'num_instances': 2})
        self.assertRaises(rpcapi.BadRequest, self.api.submit,
                          {'id': 'two-1', 'resources': MEDIUM})
        self.assertEqual(['r', 'two'], [r['id'] for r in self.api.list()])


class TestHostileSubmits(ServiceTestCase):
    """Regression tests: each was fatal, or reached the database."""

    def assertServes(self):
        request_id = 'good-%s' % uuid.uuid4().hex[:6]
        self.api.submit({'id': request_id, 'resources': MEDIUM})
        self.wait_running(request_id)

    def test_priority_list_is_refused_and_the_service_keeps_running(self):
        # On MariaDB this request was stored, and every restart died
        # loading it (a crash loop).
        error = self.assertRaises(
            rpcapi.BadRequest, self.api.submit,
            {'id': 'bad', 'resources': MEDIUM, 'priority': [1]})
        self.assertEqual('request bad: priority: expected number, got '
                         'list', str(error))
        self.assertEqual([], self.store.list_requests())
        self.assertServes()
        # A restart on the same database is ready again.
        self.scheduler.stop()
        self.scheduler.thread.join(30)
        self.scheduler = self.start_scheduler()
        self.assertServes()

    def test_nan_and_infinite_values_are_bad_requests(self):
        # They reached the database: the client got its SQL error.
        for spec, duration in (
                ({'resources': dict(MEDIUM, vcpus=float('nan'))}, None),
                ({'resources': dict(MEDIUM, memory_mb=float('inf'))}, None),
                ({'resources': MEDIUM, 'priority': float('-inf')}, None),
                ({'resources': MEDIUM}, float('nan')),
                ({'resources': MEDIUM}, float('inf'))):
            error = self.assertRaises(rpcapi.BadRequest, self.api.submit,
                                      dict(spec, id='x'), duration)
            self.assertRegex(str(error),
                             r'^(request x|submit): [a-z_.]+: expected a '
                             r'finite number')
            self.assertNotIn('SQL', str(error))
        self.assertEqual([], self.store.list_requests())
        self.assertServes()

    def test_num_instances_100000_is_refused_at_once(self):
        # It blocked the service for minutes.
        start = time.monotonic()
        error = self.assertRaises(
            rpcapi.BadRequest, self.api.submit,
            {'id': 'many', 'resources': MEDIUM, 'num_instances': 100000})
        # Refused before anything is built (it took minutes): generous
        # bound for a loaded machine.
        self.assertLess(time.monotonic() - start, 30.0)
        self.assertIn('num_instances', str(error))
        self.assertEqual([], self.store.list_instances())
        self.assertServes()


class TestGhostRequests(ServiceTestCase):
    """A submit the client saw time out is never placed later."""

    def test_submit_the_caller_gave_up_on_is_not_placed(self):
        self.api.submit({'id': 'warm-up', 'resources': MEDIUM})
        # The clock's thread is busy for longer than the call may wait
        # (1 s for this call only: the others have the default 30 s, so
        # that a loaded machine does not time them out).
        self.scheduler.bridge.timeout = 1.0
        self.scheduler.clock.call_soon(time.sleep, 2.5)
        self.assertRaises(rpcapi.ServiceUnavailable, self.api.submit,
                          {'id': 'ghost', 'resources': MEDIUM})
        self.scheduler.bridge.timeout = self.RPC_TIMEOUT
        # Past the ghost's turn in the clock's thread (first in, first out).
        handled = threading.Event()
        self.scheduler.clock.call_soon(handled.set)
        self.assertTrue(handled.wait(60))
        self.assertRaises(rpcapi.RequestNotFound, self.api.show, 'ghost')
        # Retried with the same id: placed once.
        self.api.submit({'id': 'ghost', 'resources': MEDIUM})
        self.api.submit({'id': 'ghost', 'resources': MEDIUM})
        self.assertEqual(['ghost'], [
            row.id for row in self.store.list_instances()
            if row.request_id == 'ghost'])


class TestProjects(ServiceTestCase):
    """A project sees and deletes only its own requests; an admin all."""

    def setUp(self):
        super().setUp()
        self.alice = self.api_of('alice')
        self.bob = self.api_of('bob', 'member')
        self.admin = self.api_of('ops', 'admin')
        self.alice.submit({'id': 'a1', 'resources': MEDIUM})
        self.bob.submit({'id': 'b1', 'resources': MEDIUM})
        self.api.submit({'id': 'd1', 'resources': MEDIUM})

    def test_requests_carry_the_project_of_the_caller(self):
        self.assertEqual('alice', self.store.get_request('a1').project_id)
        self.assertEqual('alice', self.alice.show('a1')['project_id'])
        # No project in the context: the project "default".
        self.assertEqual('default', self.store.get_request('d1').project_id)

    def test_another_projects_request_is_not_found(self):
        for api, request_id in ((self.bob, 'a1'), (self.alice, 'b1'),
                                (self.api, 'a1')):
            for call in (api.show, api.delete):
                error = self.assertRaises(rpcapi.RequestNotFound, call,
                                          request_id)
                # As for a request that does not exist at all.
                self.assertEqual("request '%s' not found" % request_id,
                                 str(error))
        self.assertNotEqual('deleted', self.store.get_request('a1').status)
        self.assertNotEqual('deleted', self.store.get_request('b1').status)

    def test_list_shows_the_callers_project_only(self):
        self.assertEqual(['a1'], [r['id'] for r in self.alice.list()])
        self.assertEqual(['b1'], [r['id'] for r in self.bob.list()])
        self.assertEqual(['d1'], [r['id'] for r in self.api.list()])
        self.assertEqual(['a1', 'b1', 'd1'],
                         [r['id'] for r in self.admin.list()])

    def test_an_admin_shows_and_deletes_any_request(self):
        self.assertEqual('alice', self.admin.show('a1')['project_id'])
        self.assertEqual('deleted', self.admin.delete('b1')['status'])
        self.assertEqual('deleted', self.alice.delete('a1')['status'])

    def test_the_policy_file_decides(self):
        policy.reset()
        policy.init(CONF, rules={
            'preemptible_sched:request:submit': 'role:creator',
            'preemptible_sched:request:show': '@'})
        error = self.assertRaises(rpcapi.Forbidden, self.alice.submit,
                                  {'id': 'a2', 'resources': MEDIUM})
        self.assertIn('preemptible_sched:request:submit', str(error))
        self.api_of('alice', 'creator').submit(
            {'id': 'a2', 'resources': MEDIUM})
        # Anyone may show now; delete still needs the owner.
        self.assertEqual('alice', self.bob.show('a1')['project_id'])
        self.assertRaises(rpcapi.RequestNotFound, self.bob.delete, 'a1')


class TestDeposed(ServiceTestCase):
    """A scheduler that lost the lead stops acting at once: its store
    refuses writes, nothing is sent to an agent, the service stops and
    says why; one that cannot stop (a call that never returns) is ended
    within the lease by the command's hook.
    """

    def test_depose_stops_the_service_and_its_writes(self):
        self.api.submit({'id': 'before', 'resources': MEDIUM})
        self.wait_running('before')
        self.scheduler.depose('a test took the lead')
        self.scheduler.thread.join(30)
        self.assertFalse(self.scheduler.thread.is_alive())
        self.assertEqual('a test took the lead', self.scheduler.deposed)
        self.assertRaises(exception.Deposed, self.store.set_request_status,
                          'before', 'deleted', 1.0)
        self.assertEqual('placed', self.store.get_request('before').status)

    def test_a_stuck_deposed_service_is_ended_within_the_lease(self):
        self.flags(group='service', leader_lease_seconds=2.0)
        ended = threading.Event()
        whys = []

        def exit_when_stuck(why):
            whys.append(why)
            ended.set()
        self.scheduler.exit_when_stuck = exit_when_stuck
        # The clock's thread blocked in a call that never returns.
        release = threading.Event()
        self.addCleanup(release.set)
        self.scheduler.clock.call_soon(release.wait, 60)
        started = time.monotonic()
        self.scheduler.depose('the lock is gone')
        self.assertTrue(ended.wait(30))
        self.assertGreaterEqual(time.monotonic() - started, 2.0)
        self.assertEqual(['the lock is gone'], whys)
