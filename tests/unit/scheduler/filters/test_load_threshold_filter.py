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


from preemptible_sched.hosts import batch as host_batch
from preemptible_sched import objects
from preemptible_sched.scheduler import filters
from preemptible_sched.scheduler.filters import load_threshold_filter
from tests import base
from tests import load_helpers as helpers


class TestLoadThresholdFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = load_threshold_filter.LoadThresholdFilter()
        self.flags(group='load_threshold', max_cpu_utilization=60.0)

    def _both(self, manager, spec):
        """The mask over the table, checked against each host's view in
        a batch of its own (as a displacement phase builds them).
        """
        batch = manager.batch()
        mask = self.filter.filter_all(batch, spec).tolist()
        self.assertEqual(mask, [
            bool(self.filter.filter_all(host_batch.HostBatch.of_views(
                [view], manager.snapshot), spec)[0])
            for view in batch.views()])
        return mask

    def test_the_load_comes_from_the_pass(self):
        manager = helpers.loaded_manager([
            ('high', 4, 8192, helpers.cpu(99.0), [helpers.old_instance('c')]),
        ])
        spec = base.make_spec((1, 512, 0))
        handler = filters.FilterHandler([self.filter])
        batch = manager.batch()
        batch.load = None
        # The handler hands the pass's snapshot to the filter...
        self.assertEqual(0, len(handler.filter_batch(
            batch, spec, context=manager.context)))
        # ...and without one (no load watcher), every host passes, one at
        # a time too.
        self.assertEqual(1, len(handler.filter_batch(
            batch, spec, context=objects.PassContext())))
        view = manager.batch().views()[0]
        self.assertTrue(self.filter.host_passes(view, spec))

    def test_cap_on_predicted_cpu(self):
        manager = helpers.loaded_manager([
            ('low', 4, 8192, helpers.cpu(30.0), [helpers.old_instance('a')]),
            ('edge', 4, 8192, helpers.cpu(35.0), [helpers.old_instance('b')]),
            ('high', 4, 8192, helpers.cpu(36.0), [helpers.old_instance('c')]),
            ('missing', 4, 8192, None, [helpers.old_instance('d')]),
            ('new', 4, 8192, None, []),
        ])
        # the request adds 1 core of 4 = 25 %: 55, 60 (passes), 61.
        spec = base.make_spec((1, 512, 0))
        self.assertEqual([True, True, False, True, True],
                         self._both(manager, spec))
        # expected 0.2 * 1.5 = 0.3 core = 7.5 %: 43.5 passes.
        spec = base.make_spec((1, 512, 0), expected_vcpus=0.2)
        self.assertEqual([True] * 5, self._both(manager, spec))

    def test_recent_placement_counts(self):
        recent = helpers.old_instance('r', vcpus=2.0, at=-5.0)
        manager = helpers.loaded_manager([
            ('h', 4, 8192, helpers.cpu(10.0), [recent]),
        ])
        # 10 + 50 (recent) + 25 = 85 > 60
        self.assertEqual([False], self._both(manager, base.make_spec(
            (1, 512, 0))))

    def test_source_down_passes_everything(self):
        manager = helpers.loaded_manager([
            ('high', 4, 8192, helpers.cpu(99.0), [helpers.old_instance('c')]),
        ], source_problem='timeout')
        self.assertEqual([True], self._both(manager, base.make_spec(
            (1, 512, 0))))
