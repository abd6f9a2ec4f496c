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

"""``preemptible-scheduler`` reading a hostile load watcher (issue 26 item
4), as a process over the local RabbitMQ.

The watcher at ``[load_watcher] url`` answers one byte at a time, with
JSON nested 100,000 levels deep, or with a 400-digit window end. Before,
the first made every submit wait for ever and SIGTERM go unheeded (the
loop's thread read the watcher byte by byte, each byte well within the
socket timeout), and the two others made the scheduler exit 1
(RecursionError, OverflowError). Now the scheduler keeps placing
requests, by best fit, and stops within 10 s of SIGTERM.

The run has a control exchange and topics of its own on RabbitMQ (the
scheduler on ``fake://`` could not be reached from this process); the
test is skipped when nothing listens at the broker's address.
"""

import configparser
import os
import subprocess
import sys
import time
import uuid

import oslo_messaging

from preemptible_sched.conf import CONF
from preemptible_sched import service
from preemptible_sched.service import rpcapi
from tests.functional.loadwatcher import test_hostile_watcher
from tests.unit.loadwatcher import hostile

RABBIT_URL = os.environ.get('PSCHED_TEST_RABBIT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')
MEDIUM = {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40}
#: Bound of every wait: the test fails instead of hanging.
WAIT = 60.0

#: The three answers of the issue, in turn.
HOSTILE = {
    'one_byte_at_a_time': [hostile.Answer(hostile.watcher_payload(),
                                          mode=hostile.DRIP, delay=0.05)],
    'deep_nesting': [hostile.Answer(hostile.WATCHER_BODIES['deep_nesting'])],
    'window_end_400_digits': [hostile.Answer(
        hostile.WATCHER_BODIES['end_400_digits'])],
}


class TestSchedulerWithAHostileWatcher(
        test_hostile_watcher.ProcessTestCase):

    def setUp(self):
        super().setUp()
        service.register_messaging_opts(CONF)
        why = hostile.broker_unreachable(
            oslo_messaging.TransportURL.parse(CONF, RABBIT_URL))
        if why:
            self.skipTest('RabbitMQ not reachable at %s' % why)
        run_id = 'psched-watcher-%s' % uuid.uuid4().hex[:8]
        self.options = {
            'DEFAULT': {'transport_url': RABBIT_URL,
                        'control_exchange': run_id},
            'database': {'connection': 'sqlite:///' + os.path.join(
                self.tmp, 'state.sqlite')},
            'service': {'compute_driver': 'fake',
                        'scheduler_topic': run_id + '-scheduler',
                        'compute_topic': run_id + '-compute',
                        'time_scale': 10.0, 'rpc_timeout': 20.0},
            'filter_scheduler': {'weighers': 'target_load_packing'},
            'oslo_messaging_rabbit': {'amqp_auto_delete': True,
                                      'rabbit_transient_queues_ttl': 60},
            'oslo_messaging_notifications': {'driver': 'noop'},
        }
        for group, values in self.options.items():
            if group != 'filter_scheduler':
                self.flags(group=None if group == 'DEFAULT' else group,
                           **values)
        self.transport = service.get_rpc_transport(CONF)
        self.addCleanup(self.transport.cleanup)
        self.api = rpcapi.SchedulerAPI(self.transport, CONF)

    def start(self, answers):
        server = hostile.HostileServer(answers)
        self.addCleanup(server.close)
        options = dict(self.options, load_watcher={
            'url': server.url, 'cache_seconds': 0.0, 'url_timeout': 1.0})
        path = os.path.join(self.tmp, 'scheduler.conf')
        parser = configparser.ConfigParser()
        for group, values in options.items():
            parser[group] = {name: str(value)
                             for name, value in values.items()}
        with open(path, 'w') as stream:
            parser.write(stream)
        subprocess.run([sys.executable, '-m', 'preemptible_sched.cmd.manage',
                        '--config-file', path, 'db', 'sync'], check=True,
                       capture_output=True, timeout=WAIT)
        with open(self.log_path, 'w') as log:
            process = subprocess.Popen(
                [sys.executable, '-m', 'preemptible_sched.cmd.scheduler',
                 '--config-file', path], stdout=log, stderr=log)
        self.addCleanup(self._kill, process)
        deadline = time.monotonic() + WAIT
        while 'Scheduler service ready' not in self.log():
            if process.poll() is not None or time.monotonic() > deadline:
                self.fail('the scheduler did not start: %s'
                          % self.log()[-3000:])
            time.sleep(0.1)
        return process, server

    @staticmethod
    def _kill(process):
        if process.poll() is None:
            process.kill()
            process.wait(WAIT)

    def submit_and_place(self, process, request_id):
        """Submit; the answer and the placement come within bounds."""
        started = time.monotonic()
        try:
            self.api.submit({'id': request_id, 'resources': MEDIUM})
        except rpcapi.ServiceTimeout:
            if process.poll() is not None:
                self.fail('the scheduler exited %s: %s'
                          % (process.returncode, self.log()[-3000:]))
            raise
        self.assertLess(time.monotonic() - started, 15.0)
        deadline = time.monotonic() + WAIT
        while self.api.show(request_id)['status'] != 'placed':
            self.assertIsNone(process.poll(), self.log()[-3000:])
            self.assertLess(time.monotonic(), deadline,
                            '%s not placed' % request_id)
            time.sleep(0.1)

    def _wait_for_reads(self, server, count):
        hostile.wait_until(lambda: len(server.requests) >= count, WAIT,
                           '%d reads of the watcher' % count)

    def check(self, name):
        process, server = self.start(HOSTILE[name])
        self._wait_for_reads(server, 1)
        for number in range(3):
            self.submit_and_place(process, '%s-%d' % (name, number))
        # A failed read is tried again by a later pass. Passes that come
        # while a read is still under way start none (one read at a
        # time), so on a fast machine all three may have come during the
        # first: place more until a pass comes after it (bounded).
        number = 3
        deadline = time.monotonic() + WAIT
        while len(server.requests) < 2:
            self.assertLess(time.monotonic(), deadline,
                            'the watcher was never read again')
            self.assertLess(number, 12, 'the watcher was never read again')
            time.sleep(1.5)         # the read's deadline is 1 s
            self.submit_and_place(process, '%s-%d' % (name, number))
            number += 1
        self._wait_for_reads(server, 2)
        log = self.assertStopsOnSigterm(process)
        # One warning, however many reads failed.
        self.assertEqual(1, log.count('cannot be read'), log[-3000:])

    def test_one_byte_at_a_time(self):
        self.check('one_byte_at_a_time')

    def test_deep_nesting(self):
        self.check('deep_nesting')

    def test_window_end_of_400_digits(self):
        self.check('window_end_400_digits')

    def test_sigterm_while_a_read_drips(self):
        # A watcher that never ends its answer: the scheduler is stopped
        # in the middle of reading it.
        process, server = self.start([hostile.Answer(
            hostile.watcher_payload(), mode=hostile.DRIP, delay=1.0)])
        self.submit_and_place(process, 'r0')
        self._wait_for_reads(server, 1)
        self.assertStopsOnSigterm(process)
