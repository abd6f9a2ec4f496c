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


"""The scheduler service runs a load watcher when a plugin reads the load."""

import json
import time
import urllib.error
import urllib.request

import fixtures

from preemptible_sched.conf import CONF
from preemptible_sched.loadwatcher import payload
from tests.unit.service import test_scheduler_service as service_tests


class TestLoadWatcherInService(service_tests.ServiceTestCase):

    def setUp(self):
        self.state = fixtures.TempDir()
        self.useFixture(self.state)
        CONF.set_override('state_path', self.state.path)
        self.addCleanup(CONF.clear_override, 'state_path')
        for group, values in (
                ('filter_scheduler', {'weighers': ['target_load_packing']}),
                ('load_watcher', {'scrape_interval': 1.0,
                                  'window_refresh': 1.0,
                                  'bind': '127.0.0.1:0'})):
            for name, value in values.items():
                CONF.set_override(name, value, group=group)
                self.addCleanup(CONF.clear_override, name, group=group)
        super().setUp()

    def test_watcher_collects_and_feeds_the_passes(self):
        watcher = self.scheduler.load_watcher
        self.assertIsNotNone(watcher)
        self.assertEqual('compute', watcher.source.name)
        self.assertIsNotNone(self.scheduler.loop.load_provider)
        self.assertTrue(watcher.store.path.startswith(self.state.path))
        self.api.submit({'id': 'r', 'resources': service_tests.MEDIUM})
        self.wait_running('r')
        host = self.api.show('r')['instances'][0]['host']
        deadline = time.monotonic() + 30
        # The running instance's constant utilisation (0.5 of 2 vCPUs)
        # reaches the windows within a few scrapes.
        while not watcher.latest().get(host, {}).get('cpu', {}).get('avg'):
            if time.monotonic() > deadline:
                self.fail('no load for %s after 30 s' % host)
            time.sleep(0.05)
        snapshot = self.scheduler.loop.load_provider.last
        self.assertIsNotNone(snapshot)
        self.assertIn(host, snapshot.hosts)

    def test_serves_its_windows_over_http(self):
        server = self.scheduler.load_watcher_server
        self.assertEqual('127.0.0.1', server.server_address[0])
        url = 'http://127.0.0.1:%d/watcher' % server.server_port
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    document = json.loads(response.read())
                break
            except urllib.error.HTTPError as error:
                # 404 until the first window is computed
                if error.code != 404 or time.monotonic() > deadline:
                    raise
            time.sleep(0.05)
        payload.validator().validate(document)
        self.assertEqual('compute', document['source'])
        self.assertEqual(['host-%s' % letter for letter in 'ABCD'],
                         sorted(document['data']['NodeMetricsMap']))

    def test_its_metrics_on_both_endpoints(self):
        registry = self.scheduler.metrics.registry
        deadline = time.monotonic() + 30
        while registry.get_sample_value('psched_watcher_hosts') != 4.0:
            if time.monotonic() > deadline:
                self.fail('the watcher has no windows after 30 s')
            time.sleep(0.05)
        self.assertGreaterEqual(registry.get_sample_value(
            'psched_watcher_collections_total', {'outcome': 'ok'}), 1.0)
        # Its own endpoint, beside /watcher, counts the same collections.
        url = 'http://127.0.0.1:%d/metrics' % \
            self.scheduler.load_watcher_server.server_port
        with urllib.request.urlopen(url, timeout=5) as response:
            text = response.read().decode()
        self.assertIn('psched_watcher_hosts 4.0', text)
        self.assertIn('psched_watcher_sample_age_seconds{host="host-A"}',
                      text)
