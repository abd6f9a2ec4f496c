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


"""The load-aware plugins' vector and per-host forms agree on any cloud."""

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.scheduler.filters import load_threshold_filter
from preemptible_sched.scheduler.weighers import (
    load_variation_risk_balancing as lvrb)
from preemptible_sched.scheduler.weighers import (
    low_risk_over_commitment as lroc)
from preemptible_sched.scheduler.weighers import target_load_packing as tlp
from tests import base
from tests import load_helpers as helpers

_PERCENT = st.one_of(st.none(), st.floats(-20, 130), st.just(float('nan')),
                     st.just('busy'))
_METRICS = st.one_of(
    st.none(),
    st.fixed_dictionaries({
        'cpu': st.fixed_dictionaries({'avg': _PERCENT, 'std': _PERCENT}),
        'memory': st.fixed_dictionaries({'avg': _PERCENT, 'std': _PERCENT}),
        'window_end': st.sampled_from([-10.0, -100.0, -301.0]),
    }))
_INSTANCE = st.tuples(st.sampled_from([0.5, 1.0, 2.0, 4.0]),
                      st.sampled_from([512.0, 4096.0]),
                      st.sampled_from([-3600.0, -100.0, -50.0, -5.0]),
                      st.one_of(st.none(), st.floats(0, 4)))
_HOST = st.tuples(st.sampled_from([0.0, 4.0, 16.0]),
                  st.sampled_from([0.0, 8192.0, 65536.0]), _METRICS,
                  st.lists(_INSTANCE, max_size=4))


def _manager(hosts, source_problem):
    rows = []
    for index, (cores, memory, metrics, instances) in enumerate(hosts):
        name = 'h%d' % index
        rows.append((name, cores, memory, metrics, [
            helpers.old_instance('%s-%d' % (name, number), vcpus=vcpus,
                                 memory_mb=memory_mb, at=at,
                                 expected=expected)
            for number, (vcpus, memory_mb, at, expected)
            in enumerate(instances)]))
    return helpers.loaded_manager(rows, source_problem=source_problem)


class TestAgreement(base.TestCase):

    @settings(max_examples=60, deadline=None, derandomize=True,
              database=None)
    @given(st.lists(_HOST, min_size=1, max_size=6),
           st.one_of(st.none(), st.just('down')),
           st.tuples(st.sampled_from([0.5, 1.0, 8.0]),
                     st.one_of(st.none(), st.floats(0, 8))),
           st.sampled_from(['kep', 'upstream']),
           st.sampled_from([(1.0, 1.0), (0.0, 1.0), (2.0, 0.0),
                            (1.5, 0.5)]))
    def test_vector_equals_per_host(self, hosts, problem, request, formula,
                                    margins):
        self.flags(group='load_variation_risk_balancing', formula=formula,
                   safe_variance_margin=margins[0],
                   safe_variance_sensitivity=margins[1])
        manager = _manager(hosts, problem)
        spec = base.make_spec((request[0], 1024, 0),
                              expected_vcpus=request[1])
        for weigher in (tlp.TargetLoadPackingWeigher(),
                        lvrb.LoadVariationRiskBalancingWeigher(),
                        lroc.LowRiskOverCommitmentWeigher()):
            weights = helpers.weigh_both(self, weigher, manager, spec)
            self.assertTrue(all(0.0 <= w <= 100.0 for w in weights),
                            weights)
        threshold = load_threshold_filter.LoadThresholdFilter()
        batch = manager.batch()
        self.assertEqual(threshold.filter_all(batch, spec).tolist(),
                         [bool(threshold.filter_all(
                             host_batch.HostBatch.of_views(
                                 [view], manager.snapshot), spec)[0])
                          for view in batch.views()])
