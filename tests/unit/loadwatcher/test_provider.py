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


"""The snapshot of each pass, from a watcher in process or over HTTP."""

from preemptible_sched.hosts import manager as host_manager
from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import client as client_mod
from preemptible_sched.loadwatcher import provider
from preemptible_sched import objects
from tests import base
from tests import load_helpers as helpers
from tests.unit.loadwatcher import test_watcher


class FakeDriver:
    def __init__(self, hosts):
        self.hosts = hosts

    def host_specs(self):
        return self.hosts


class TestLoadProvider(base.TestCase):

    def setUp(self):
        super().setUp()
        self.hosts = [objects.Host('host-a', vcpus=4, memory_mb=8000),
                      objects.Host('host-b', vcpus=8, memory_mb=8000),
                      objects.Host('host-c', vcpus=8, memory_mb=8000)]
        self.manager = host_manager.HostManager(base.FakePlanner())
        for host in self.hosts:
            self.manager.add_host(host)
        self.manager.add_instance('host-c', base.make_instance('c1'))

    def test_snapshot_from_latest(self):
        windows = {'host-a': {'cpu': {'avg': 30.0, 'std': 2.0},
                              'window_end': 100.0}}
        load_provider = provider.LoadProvider(
            lambda now: (windows, None), FakeDriver(self.hosts))
        snapshot = load_provider.snapshot(120.0, self.manager)
        self.assertIs(snapshot, load_provider.last)
        self.assertIsNone(snapshot.fallback)
        self.assertEqual(30.0, snapshot.hosts['host-a'].cpu_avg)
        self.assertEqual(4.0, snapshot.hosts['host-a'].physical_cores)
        self.assertTrue(snapshot.hosts['host-b'].new)
        # host-c carries an instance and has no metrics: unknown
        self.assertFalse(snapshot.hosts['host-c'].usable())

    def test_a_host_the_driver_learns_later_gets_its_size(self):
        windows = {'host-a': {'cpu': {'avg': 30.0, 'std': 2.0},
                              'window_end': 100.0}}
        driver = FakeDriver(self.hosts[1:])
        load_provider = provider.LoadProvider(lambda now: (windows, None),
                                              driver)
        snapshot = load_provider.snapshot(110.0, self.manager)
        self.assertEqual(0.0, snapshot.hosts['host-a'].physical_cores)
        self.assertEqual(8.0, snapshot.hosts['host-b'].physical_cores)
        driver.hosts = self.hosts
        snapshot = load_provider.snapshot(120.0, self.manager)
        self.assertEqual(4.0, snapshot.hosts['host-a'].physical_cores)
        self.assertEqual(30.0, snapshot.hosts['host-a'].cpu_avg)

    def test_source_down_without_windows_falls_back(self):
        load_provider = provider.LoadProvider(
            lambda now: ({}, 'watcher unreachable'), FakeDriver(self.hosts))
        snapshot = load_provider.snapshot(0.0, self.manager)
        self.assertEqual('source down: watcher unreachable',
                         snapshot.fallback)

    def test_cached_windows_used_until_stale(self):
        windows = {'host-c': {'cpu': {'avg': 30.0, 'std': 2.0},
                              'window_end': 100.0}}
        load_provider = provider.LoadProvider(
            lambda now: (windows, 'watcher unreachable'),
            FakeDriver(self.hosts))
        self.assertIsNone(load_provider.snapshot(400.0,
                                                 self.manager).fallback)
        self.assertTrue(load_provider.snapshot(401.0, self.manager)
                        .fallback.startswith('no fresh metrics'))

    def test_over_http_reads_a_watcher(self):
        source = test_watcher.ScriptedSource(helpers.ramp)
        watcher = provider.watcher_mod.LoadWatcher(source)
        watcher.tick(helpers.T0)
        server = api.serve_in_thread(api.WatcherApp(watcher))
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.flags(group='load_watcher', cache_seconds=30.0)
        load_provider = provider.over_http(
            FakeDriver([objects.Host('host-a', 8, 8000),
                        objects.Host('host-b', 8, 8000)]),
            'http://127.0.0.1:%d' % server.server_port)
        manager = host_manager.HostManager(base.FakePlanner())
        manager.add_host(objects.Host('host-a', 8, 8000))
        manager.add_host(objects.Host('host-b', 8, 8000))
        # Read in the background from the start: a pass never waits.
        self.assertTrue(load_provider.client.wait(30.0))
        snapshot = load_provider.snapshot(helpers.T0 + 10, manager)
        self.assertEqual(50.0, snapshot.hosts['host-b'].cpu_avg)
        self.assertEqual(helpers.T0,
                         snapshot.hosts['host-b'].window_end)
        # cached: the watcher is not asked again within cache_seconds
        server.shutdown()
        snapshot = load_provider.snapshot(helpers.T0 + 20, manager)
        self.assertEqual(50.0, snapshot.hosts['host-b'].cpu_avg)

    def test_a_watcher_url_must_be_http(self):
        self.assertRaises(ValueError, client_mod.WatcherClient,
                          'file:///etc/passwd')
