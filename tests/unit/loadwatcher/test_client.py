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


"""Reading a hostile load watcher: never blocking, never crashing
(issue 26 item 4)."""

import logging
import math

import fixtures

from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_reading
from preemptible_sched.loadwatcher import client as client_mod
from preemptible_sched.loadwatcher import payload as payload_mod
from tests import base
from tests.unit.loadwatcher import hostile

END = 1700000900
#: A pass's ``now``: the valid payload's window ended 30 s before.
NOW = END + 30.0
WAIT = 30.0


class TestHostileWatcher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            level=logging.WARNING, name=client_mod.__name__))

    def client(self, *answers, timeout=5.0, max_bytes=1 << 20):
        server = self.server = hostile.HostileServer(answers)
        self.addCleanup(server.close)
        client = client_mod.WatcherClient(server.url, cache_seconds=1.0,
                                          timeout=timeout,
                                          max_bytes=max_bytes)
        # Each test waits for the reads it starts: none outlives it.
        self.addCleanup(client.wait, WAIT)
        return client

    def read(self, client, now=None):
        """One pass's answer after the read it starts is over (each pass
        a second after the one before: the cache is a second long).
        """
        if now is None:
            self.now = now = getattr(self, 'now', NOW - 1.0) + 1.0
        client.latest(now)
        self.assertTrue(client.wait(WAIT))
        return client.latest(now)

    def test_a_dripping_watcher_never_blocks_a_pass(self):
        # It answers one byte every 20 ms: before, every pass waited on
        # it byte by byte (a timeout of each read never tripped), which
        # blocked the submits, and SIGTERM, for ever.
        client = self.client(hostile.Answer(hostile.watcher_payload(),
                                            mode=hostile.DRIP, delay=0.02),
                             timeout=2.0)
        for _ in range(100):
            windows, problem = client.latest(NOW)
        # Every pass was answered while the read was still dripping: none
        # waited for it (the drip, 13 s, outlasts the read's 2 s deadline).
        self.assertFalse(client.wait(0))
        self.assertEqual(({}, 'not read yet'), (windows, problem))
        self.assertTrue(client.wait(WAIT))
        self.assertEqual(({}, 'watcher unreachable: no whole answer within '
                          '2 s'), client.latest(NOW))

    def test_hostile_payloads_keep_the_windows_read_before(self):
        names = sorted(hostile.WATCHER_BODIES)
        answers = [hostile.Answer(hostile.watcher_payload())]
        for name in names:
            answers += [hostile.Answer(hostile.WATCHER_BODIES[name]),
                        hostile.Answer(hostile.watcher_payload())]
        client = self.client(*answers)
        good, problem = self.read(client)
        self.assertIsNone(problem)
        self.assertEqual({'host-A', 'host-B'}, set(good))
        for name in names:
            windows, problem = self.read(client)
            if problem is None:
                # Taken, for the weighers to judge host by host.
                self.assertIn(name, ('value_400_digits', 'value_1e400',
                                     'value_minus_400_digits', 'value_nan'))
                avg = windows['host-A']['cpu']['avg']
                self.assertIsInstance(avg, float)
                self.assertFalse(math.isfinite(avg))
                snapshot = load.build(NOW, [('host-A', 8, 8000)], windows,
                                      {'host-A'})
                self.assertFalse(snapshot.hosts['host-A'].has('cpu'))
            else:
                self.assertEqual(good, windows, name)
                self.assertTrue(problem.startswith(
                    ('bad watcher payload: ', 'watcher unreachable: ')),
                    (name, problem))
                self.assertNotIn('\n', problem)
            self.assertEqual((good, None), self.read(client), name)

    def test_huge_numbers_in_the_window_are_refused(self):
        # A 400-digit window end made the scheduler exit 1 (OverflowError
        # converting it to a float).
        for name in ('end_400_digits', 'timestamp_400_digits',
                     'end_5000_digits', 'end_float_huge', 'end_infinity'):
            client = self.client(hostile.Answer(
                hostile.WATCHER_BODIES[name]))
            windows, problem = self.read(client)
            self.assertEqual({}, windows)
            self.assertTrue(problem.startswith('bad watcher payload: '),
                            problem)

    def test_deep_nesting_is_refused(self):
        # It made the scheduler exit 1 (RecursionError out of json).
        client = self.client(hostile.Answer(
            hostile.WATCHER_BODIES['deep_nesting']))
        self.assertEqual(({}, 'bad watcher payload: nested 100000 levels '
                          'deep (at most 32)'), self.read(client))

    def test_larger_than_the_limit(self):
        client = self.client(hostile.Answer(b'[' + b'0,' * 5000 + b'0]'),
                             max_bytes=4096)
        self.assertEqual(({}, 'watcher unreachable: answer larger than '
                          '4096 bytes'), self.read(client))

    def test_one_warning_while_failing_one_line_when_back(self):
        client = self.client(
            *[hostile.Answer(b'oops', status=500)] * 3 +
            [hostile.Answer(hostile.watcher_payload())])
        for _ in range(3):
            self.assertEqual('watcher answered HTTP 500',
                             self.read(client)[1])
        self.assertIsNone(self.read(client)[1])
        lines = self.log.output.splitlines()
        self.assertEqual(2, len(lines), lines)
        self.assertIn('cannot be read (watcher answered HTTP 500): the '
                      'windows read before are used', lines[0])
        self.assertIn('is read again', lines[1])

    def test_one_read_at_a_time_and_cached(self):
        client = self.client(hostile.Answer(hostile.watcher_payload()))
        client.cache_seconds = 10.0
        self.read(client, NOW)
        client.latest(NOW + 5)
        self.assertTrue(client.wait(WAIT))
        self.assertEqual(1, len(self.server.requests))
        self.read(client, NOW + 10)
        self.assertEqual(2, len(self.server.requests))

    def test_a_read_is_laid_out_as_arrays(self):
        # In the reading thread, not in a pass; the names of the read
        # before are reused while the hosts are the same.
        stats = {'15m': {'cpu': (30.0, 2.0, 31.0),
                         'memory': (40.0, 1.0, 41.0)}}
        body = payload_mod.build(END, '15m', '15m', END - 900, END, 'test',
                                 {'host-A': stats, 'host-B': stats})
        client = self.client(hostile.Answer(body), hostile.Answer(body))
        first, _ = self.read(client)
        self.assertIsInstance(first, load_reading.Reading)
        self.assertEqual(['host-A', 'host-B'], sorted(first.names))
        self.assertEqual({'cpu': {'avg': 30.0, 'std': 2.0},
                          'memory': {'avg': 40.0, 'std': 1.0},
                          'window_end': float(END)}, first['host-A'])
        again, _ = self.read(client)
        self.assertIsNot(first, again)
        self.assertIs(first.names, again.names)
        self.assertEqual(dict(first), dict(again))
        # Hosts not in the plain form (CPU only) stay mappings.
        client = self.client(hostile.Answer(hostile.watcher_payload()))
        cpu_only, _ = self.read(client)
        self.assertEqual([], cpu_only.names)
        self.assertEqual({'host-A', 'host-B'}, set(cpu_only.others))
