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

"""The load snapshot of a pass reaches its filters and weighers through
the pass context, on a real loop."""

from preemptible_sched.hosts import load
from tests.functional.loop import fixtures


class HotHosts:
    """A load provider whose snapshot shows ``hot`` at 99 % CPU (the
    others without metrics: new hosts); it remembers what it gave.
    """

    def __init__(self, driver):
        self.driver = driver
        self.hot = set()
        self.given = []

    def snapshot(self, now, host_manager):
        specs = self.driver.host_specs()
        snapshot = load.build(
            now, [(host.name, host.vcpus, host.memory_mb) for host in specs],
            {name: {'cpu': {'avg': 99.0, 'std': 0.0},
                    'window_end': now - 30.0} for name in self.hot},
            {state.name for state in host_manager.occupied_host_states()})
        self.given.append(snapshot)
        return snapshot


class TestLoadInThePassContext(fixtures.LoopTestCase):

    hosts = 2

    def setUp(self):
        super().setUp()
        # A stacking weigher: without load, the second request joins the
        # first on its host.
        self.flags(group='filter_scheduler',
                   enabled_filters=['compute', 'resources', 'load_threshold'],
                   weighers=['ram'], ram_weight_multiplier=-1.0)
        self.flags(group='load_threshold', max_cpu_utilization=60.0)
        self.loop.stop()
        self.loop = self.new_loop()

    def host_of(self, request_id):
        self.run_for(30)
        return self.loop.store.get_instance(request_id).host

    def test_without_load_the_two_requests_stack(self):
        self.submit('r1')
        first = self.host_of('r1')
        self.submit('r2')
        self.assertEqual(first, self.host_of('r2'))

    def test_the_filter_reads_the_snapshot_of_the_pass(self):
        self.check_the_hot_host_is_left_out(preemptible=False)

    def test_so_does_the_fit_phase(self):
        # Preemptible requests are filtered on the full view (the FIT
        # phase; a normal request's is the DISPLACE phase, on the view
        # without preemptible instances).
        self.check_the_hot_host_is_left_out(preemptible=True)

    def check_the_hot_host_is_left_out(self, preemptible):
        provider = self.loop.load_provider = HotHosts(self.driver)
        self.submit('r1', preemptible=preemptible)
        first = self.host_of('r1')
        self.assertIsNotNone(first)
        provider.hot = {first}
        self.submit('r2', preemptible=preemptible)
        second = self.host_of('r2')
        self.assertIsNotNone(second)
        self.assertNotEqual(first, second)
        # Each pass built its own snapshot; the last one saw the hot host.
        self.assertGreaterEqual(len(provider.given), 2)
        self.assertEqual(99.0, provider.given[-1].hosts[first].cpu_avg)
