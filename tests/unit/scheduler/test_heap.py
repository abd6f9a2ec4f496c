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

"""The freed heap a pass's temporaries leave is kept for the next pass."""

import os
import subprocess
import sys
from unittest import mock

import fixtures

from preemptible_sched.scheduler import filter_scheduler
from preemptible_sched.scheduler import heap
from tests import base

MIB = 2 ** 20


class TestKeep(base.TestCase):

    def setUp(self):
        super().setUp()
        # Each test starts from a process that kept nothing.
        self.useFixture(fixtures.MockPatchObject(heap, '_kept', 0))
        self.mallopt = mock.Mock(return_value=1)
        self.useFixture(fixtures.MockPatchObject(
            heap, '_mallopt', return_value=self.mallopt))

    def test_sets_the_trim_and_mmap_thresholds_once(self):
        self.assertTrue(heap.keep(64))
        self.assertEqual([mock.call(heap.M_MMAP_THRESHOLD, 32 * MIB),
                          mock.call(heap.M_TRIM_THRESHOLD, 64 * MIB)],
                         self.mallopt.call_args_list)
        # The same or less again: nothing changes.
        self.assertFalse(heap.keep(64))
        self.assertFalse(heap.keep(16))
        self.assertEqual(2, self.mallopt.call_count)
        # More: taken, the mmap threshold at most what glibc allows.
        self.assertTrue(heap.keep(128))
        self.assertEqual([mock.call(heap.M_MMAP_THRESHOLD, 32 * MIB),
                          mock.call(heap.M_TRIM_THRESHOLD, 128 * MIB)],
                         self.mallopt.call_args_list[2:])

    def test_below_the_mmap_limit_blocks_of_that_size_stay_on_the_heap(self):
        heap.keep(8)
        self.assertEqual([mock.call(heap.M_MMAP_THRESHOLD, 8 * MIB),
                          mock.call(heap.M_TRIM_THRESHOLD, 8 * MIB)],
                         self.mallopt.call_args_list)

    def test_zero_leaves_the_defaults(self):
        self.assertFalse(heap.keep(0))
        self.mallopt.assert_not_called()

    def test_another_c_library_is_left_alone(self):
        heap._mallopt.return_value = None
        self.assertFalse(heap.keep(64))
        self.assertEqual(0, heap._kept)

    def test_refused_settings_are_not_remembered(self):
        self.mallopt.return_value = 0
        self.assertFalse(heap.keep(64))
        self.assertEqual(0, heap._kept)

    def test_the_scheduler_keeps_the_configured_heap(self):
        self.flags(group='filter_scheduler', heap_keep_mb=48)
        filter_scheduler.FilterScheduler()
        self.assertEqual(48, heap._kept)
        self.mallopt.assert_any_call(heap.M_TRIM_THRESHOLD, 48 * MIB)


#: Passes of eight 4 MB temporaries alive at once (as at 100,000 hosts),
#: in a fresh interpreter: the page faults of the second ten passes, before
#: and after keep().
_CHURN = """
import resource, sys
import numpy
from preemptible_sched.scheduler import heap

def faults():
    def passes():
        for _ in range(10):
            temporaries = [numpy.ones(500000) for _ in range(8)]
            del temporaries
    passes()    # the heap grows to what a pass needs, once
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    passes()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

default = faults()
kept = heap.keep(64)
print(default, faults(), kept)
"""


class TestOnThisMachine(base.TestCase):
    """glibc itself: temporaries freed and allocated again, pass after pass,
    no longer fault their pages in again once the heap is kept.
    """

    def test_no_page_faults_once_the_heap_is_kept(self):
        if heap._mallopt() is None:
            self.skipTest('not glibc: %s' % os.uname().sysname)
        output = subprocess.run([sys.executable, '-c', _CHURN], check=True,
                                capture_output=True, text=True).stdout
        default, kept, taken = output.split()
        self.assertEqual('True', taken)
        # 10 passes of 32 MB: 78,000 pages faulted in again by default.
        self.assertGreater(int(default), 20000)
        # A few for the interpreter's own allocations.
        self.assertLess(int(kept), 500)
