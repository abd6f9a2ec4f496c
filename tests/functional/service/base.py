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

"""The scheduler service and four compute agents, in one process.

Everything talks over ``fake://``, oslo.messaging's in-process driver, on
a control exchange of the test's own (the driver's queues are shared by
the whole process, per exchange); the state is a SQLite file, so a test can
restart the scheduler on it. Each
component runs its clock in a thread of its own, as it runs in the main
thread of its process in production. Clocks run ``TIME_SCALE`` times
faster than the wall clock; every wait is bounded by ``WAIT`` seconds.
"""

import os
import threading
import time
import uuid

import fixtures
import oslo_messaging

from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
from preemptible_sched import service
from preemptible_sched.service import compute_agent
from preemptible_sched.service import rpcapi
from preemptible_sched.service import scheduler_service
from tests import base

MEDIUM = {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40}


class Runner(threading.Thread):
    """Runs ``component.run()`` and keeps the exception it ended on."""

    def __init__(self, component, name):
        super().__init__(name=name, daemon=True)
        self.component = component
        self.error = None

    def run(self):
        try:
            self.component.run()
        except BaseException as error:
            self.error = error


class NotificationCapture:
    """A notification listener recording every notification it gets."""

    def __init__(self, transport):
        self.received = []
        self._lock = threading.Lock()
        target = oslo_messaging.Target(topic='notifications')
        self.listener = oslo_messaging.get_notification_listener(
            transport, [target], [self])

    def _record(self, priority, publisher_id, event_type, payload):
        with self._lock:
            self.received.append({'priority': priority,
                                  'publisher_id': publisher_id,
                                  'event_type': event_type,
                                  'payload': payload})

    def info(self, ctxt, publisher_id, event_type, payload, metadata):
        self._record('INFO', publisher_id, event_type, payload)

    def warn(self, ctxt, publisher_id, event_type, payload, metadata):
        self._record('WARN', publisher_id, event_type, payload)

    def error(self, ctxt, publisher_id, event_type, payload, metadata):
        self._record('ERROR', publisher_id, event_type, payload)

    def of_type(self, event_type):
        with self._lock:
            return [n for n in self.received if n['event_type'] == event_type]


class ServiceTestCase(base.TestCase):
    """Scheduler service + agents ``HOSTS`` on fake:// and SQLite."""

    HOSTS = ('host-A', 'host-B', 'host-C', 'host-D')
    TIME_SCALE = 10.0
    WAIT = 60.0

    def setUp(self):
        super().setUp()
        self.flags(group='service', time_scale=self.TIME_SCALE,
                   heartbeat_interval=0.5, rpc_timeout=20.0,
                   host_wait_seconds=20.0)
        self.flags(group='scheduler', watchdog_interval=5.0)
        service.register_messaging_opts(CONF)
        self.flags(control_exchange='test-%s' % uuid.uuid4().hex)
        tmp = self.useFixture(fixtures.TempDir()).path
        self.db_url = 'sqlite:///' + os.path.join(tmp, 'state.sqlite')
        self.transport = service.get_rpc_transport(CONF)
        self.addCleanup(self.transport.cleanup)
        self.notification_transport = service.get_notification_transport(
            CONF)
        self.addCleanup(self.notification_transport.cleanup)
        self.notifications = NotificationCapture(self.notification_transport)
        self.notifications.listener.start()
        self.addCleanup(self._stop_listener)
        self.store = db_api.Store(self.db_url)
        self.addCleanup(self.store.dispose)
        self.store.upgrade()
        self.agents = {name: self.start_agent(name) for name in self.HOSTS}
        self.scheduler = self.start_scheduler()
        self.api = rpcapi.SchedulerAPI(self.transport, CONF)
        self.wait_for(lambda: sorted(h.name for h in self.store.hosts()
                                     if h.up) == sorted(self.HOSTS),
                      'every agent registered')
        self.wait_for(lambda: self.scheduler.ready, 'the scheduler ready')

    def _stop_listener(self):
        self.notifications.listener.stop()
        self.notifications.listener.wait()

    # -- components ----------------------------------------------------------

    def _start(self, component, name, stop):
        runner = Runner(component, name)
        runner.start()

        def cleanup():
            stop(component, runner)
            self.assertIsNone(runner.error, '%s failed' % name)

        self.addCleanup(cleanup)
        return runner

    def start_agent(self, name):
        agent = compute_agent.ComputeAgent(
            CONF, compute_agent.blade(name, CONF), transport=self.transport)
        agent.runner = self._start(agent, 'agent-%s' % name, self._stop)
        return agent

    def start_scheduler(self):
        """A scheduler service on this test's database and transport."""
        scheduler = scheduler_service.SchedulerService(
            CONF, transport=self.transport,
            notification_transport=self.notification_transport,
            store=db_api.Store(self.db_url))
        self.addCleanup(scheduler.store.dispose)
        scheduler.runner = self._start(scheduler, 'scheduler', self._stop)
        return scheduler

    def _stop(self, component, runner):
        if runner.is_alive():
            component.stop()
            runner.join(self.WAIT)
            self.assertFalse(runner.is_alive(), '%s did not stop'
                             % runner.name)

    def crash_scheduler(self):
        """Stop the scheduler's clock where it is, like a killed process:
        nothing of the loop runs after this, the journal stays as it is.
        """
        self.scheduler.clock.stop()
        self.scheduler.runner.join(self.WAIT)
        self.assertFalse(self.scheduler.runner.is_alive())

    # -- helpers -------------------------------------------------------------

    def wait_for(self, predicate, what):
        """Poll ``predicate`` until true; fail after ``WAIT`` seconds."""
        deadline = time.monotonic() + self.WAIT
        while not predicate():
            for component in [self.scheduler] if hasattr(
                    self, 'scheduler') else []:
                if component.runner.error is not None:
                    raise component.runner.error
            if time.monotonic() > deadline:
                self.fail('timed out after %g s waiting for: %s'
                          % (self.WAIT, what))
            time.sleep(0.05)

    def submit(self, request_id, preemptible=False, resources=MEDIUM,
               **spec):
        spec.update(id=request_id, resources=dict(resources),
                    preemptible=preemptible)
        return self.api.submit(spec)

    def instances(self, **filters):
        return {row.id: row for row in self.store.list_instances(**filters)}

    def wait_running(self, *instance_ids):
        def running():
            rows = self.instances()
            return all(rows[i].state == 'running' for i in instance_ids)
        self.wait_for(running, 'instances %s running' % ', '.join(
            instance_ids))

    def agent_instances(self):
        """``{host: {instance id: state}}`` as the agents report them."""
        compute_api = rpcapi.ComputeAPI(self.transport, CONF)
        return {host: {report['id']: report['state'] for report in
                       compute_api.list_instances(host)['instances']}
                for host in self.HOSTS}

    def assertStoreAgreesWithAgents(self):
        reported = self.agent_instances()
        stored = {host: {} for host in self.HOSTS}
        for row in self.store.list_instances(
                states=('building', 'running', 'terminating')):
            stored[row.host][row.id] = row.state
        self.assertEqual(
            {host: sorted(ids) for host, ids in reported.items()},
            {host: sorted(ids) for host, ids in stored.items()})
