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

"""The scheduler service: request validation, its clock, driver loading,
and the service itself with the in-process ``fake`` driver."""

import threading
import time
import uuid

from preemptible_sched.compute import fake
from preemptible_sched.compute import rpc
from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched import service
from preemptible_sched.service import rpcapi
from preemptible_sched.service import scheduler_service
from tests import base

MEDIUM = {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40}


class TestRequestSpecFromWire(base.TestCase):

    def test_valid(self):
        spec = scheduler_service.request_spec_from_wire(
            {'id': 'r', 'resources': MEDIUM, 'preemptible': True,
             'num_instances': 2, 'flavor': 'medium'})
        self.assertEqual('r', spec.id)
        self.assertEqual(objects.Resources(2, 4000, 40), spec.resources)
        self.assertTrue(spec.preemptible)
        self.assertEqual(2, spec.num_instances)

    def test_generated_id(self):
        spec = scheduler_service.request_spec_from_wire(
            {'resources': MEDIUM})
        self.assertRegex(spec.id, r'^req-[0-9a-f]{12}$')

    def test_every_problem_at_once(self):
        error = self.assertRaises(
            exception.InvalidInput, scheduler_service.request_spec_from_wire,
            {'id': 'r', 'resources': {'vcpus': -1, 'memory_mb': 'lots'},
             'num_instances': 0})
        for fragment in ('request r', 'num_instances', 'resources.vcpus',
                         'resources.memory_mb'):
            self.assertIn(fragment, str(error))

    def test_nothing_asked(self):
        self.assertRaises(exception.InvalidInput,
                          scheduler_service.request_spec_from_wire,
                          {'id': 'r', 'resources': {}})

    def test_unknown_field(self):
        error = self.assertRaises(
            exception.InvalidInput, scheduler_service.request_spec_from_wire,
            {'id': 'r', 'resources': MEDIUM, 'colour': 'blue'})
        self.assertIn('colour', str(error))

    def test_not_an_object(self):
        self.assertRaises(exception.InvalidInput,
                          scheduler_service.request_spec_from_wire, [1])

    def test_id_too_long(self):
        self.assertRaises(exception.InvalidInput,
                          scheduler_service.request_spec_from_wire,
                          {'id': 'x' * 300, 'resources': MEDIUM})


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


class TestFakeDriverService(base.TestCase):
    """``[service] compute_driver = fake``: the blades live in-process."""

    def setUp(self):
        super().setUp()
        self.flags(group='service', compute_driver='fake', time_scale=20.0)
        service.register_messaging_opts(CONF)
        # fake:// queues are shared by the process, per exchange.
        self.flags(control_exchange='test-%s' % uuid.uuid4().hex)
        transport = service.get_rpc_transport(CONF)
        self.addCleanup(transport.cleanup)
        notification_transport = service.get_notification_transport(CONF)
        self.addCleanup(notification_transport.cleanup)
        self.scheduler = scheduler_service.SchedulerService(
            CONF, transport=transport,
            notification_transport=notification_transport,
            store=db_api.Store('sqlite://'))
        self.assertFalse(self.scheduler.remote)
        thread = threading.Thread(target=self.scheduler.run, daemon=True)
        thread.start()
        self.addCleanup(thread.join, 30)
        self.addCleanup(self.scheduler.stop)
        self.api = rpcapi.SchedulerAPI(transport, CONF)

    def test_submit_and_run(self):
        request = self.api.submit({'id': 'r', 'resources': MEDIUM})
        self.assertEqual('r', request['id'])
        deadline = time.monotonic() + 30
        while self.api.show('r')['instances'][0]['state'] != 'running':
            if time.monotonic() > deadline:
                self.fail('r is not running after 30 s')
            time.sleep(0.05)
        self.assertIn(self.api.show('r')['instances'][0]['host'],
                      [fake.blade_name(i) for i in range(4)])
