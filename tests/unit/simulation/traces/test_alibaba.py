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

"""The Alibaba GPU 2023 pod list reader."""

import collections
import os


from preemptible_sched.simulation.traces import reading
from tests import base
from tests.unit.simulation.traces import samples


DATA = samples.DATA
ALIBABA_HEADER = samples.ALIBABA_HEADER
summary = samples.summary


class TestInvalid(samples.InvalidTraceMixin, base.TestCase):
    def test_alibaba_unknown_qos(self):
        self.assertInvalid('p.csv', ALIBABA_HEADER +
                           'p,1000,1,0,0,,Spot,Running,0,5,1\n',
                           'line 2: field qos', "no service class for QoS "
                           "'Spot'")

    def test_alibaba_deleted_before_scheduled(self):
        self.assertInvalid('p.csv', ALIBABA_HEADER +
                           'p,1000,1,0,0,,LS,Running,0,5,8\n',
                           'line 2: field deletion_time',
                           'before scheduled_time')

    def test_alibaba_only_pending(self):
        self.assertInvalid('p.csv', ALIBABA_HEADER +
                           'p,1000,1,0,0,,LS,Pending,0,5,\n', None,
                           'no requests to replay (skipped: 1 never '
                           'scheduled)')


class TestAlibaba(samples.TraceFileMixin, base.TestCase):

    PODS = (ALIBABA_HEADER +
            'pod-0,12000,16384,1,1000,,LS,Running,100,900,150\n'
            'pod-1,2500,2048,0,0,,BE,Pending,120,300,\n'
            'pod-2,500,100,0,0,,BE,Failed,130,,130\n'
            'pod-3,88000,327680,8,1000,,Guaranteed,Succeeded,90,190,95\n'
            'pod-4,1000,512,0,0,,Burstable,Running,200,260,210\n')

    def test_pods(self):
        path = self.write('pods.csv', self.PODS)
        items, stats = reading.read_workload_with_stats(path)
        self.assertEqual(
            [('pod-3', 0.0, 95.0, (88.0, 327680.0, 0.0), 'gold'),
             ('pod-0', 10.0, 750.0, (12.0, 16384.0, 0.0), 'silver'),
             ('pod-2', 40.0, None, (0.5, 100.0, 0.0), 'bronze'),
             ('pod-4', 110.0, 50.0, (1.0, 512.0, 0.0), 'silver')],
            summary(items))
        self.assertEqual({'format': 'alibaba', 'requests': 4,
                          'skipped': {'never scheduled': 1}}, stats)

    def test_class_map_overrides_and_extends(self):
        items = self.read('pods.csv', self.PODS.replace(
            'Burstable', 'Spot'), 'alibaba',
            class_map={'LS': 'gold', 'Spot': 'bronze'})
        self.assertEqual({'pod-0': 'gold', 'pod-2': 'bronze',
                          'pod-3': 'gold', 'pod-4': 'bronze'},
                         {i.id: i.service_class for i in items})


class TestRealTraces(base.TestCase):
    """The traces in ../shared/data read whole, with the expected counts."""

    def path(self, *parts):
        if not os.path.isdir(DATA):
            self.skipTest('real traces not found at %s' % DATA)
        return os.path.join(DATA, *parts)

    def test_alibaba_pods(self):
        path = self.path('alibaba_gpu_v2023', 'openb_pod_list_default.csv')
        items, stats = reading.read_workload_with_stats(path)
        # 8,152 pods, of which the 897 Pending ones never ran.
        self.assertEqual({'format': 'alibaba', 'requests': 7255,
                          'skipped': {'never scheduled': 897}}, stats)
        self.assertEqual({'gold': 7, 'silver': 4291, 'bronze': 2957},
                         collections.Counter(i.service_class
                                             for i in items))
        self.assertEqual(('openb-pod-0000', 0.0, 12537496.0,
                          (12.0, 16384.0, 0.0), 'silver'),
                         summary(items)[0])
        prefix = reading.read_workload(path, limit=1000)
        self.assertEqual(items[:1000], prefix)


class TestHostileTraces(samples.HostileTraceMixin, base.TestCase):
    """Regressions of issue 11: hostile traces are refused on one line
    naming the file and the line, never read without bound.
    """

    def test_alibaba_nan_gpu_is_refused(self):
        path = self.write('pods.csv', ALIBABA_HEADER +
                          'p,1000,100,nan,0,,LS,Running,0,20,5\n')
        self.assertInvalid(path, 'line 2: field num_gpu', 'not a number')
