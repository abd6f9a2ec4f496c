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

"""Fuzz tests of the infrastructure readers and host builders.

Whatever a host list or a ``--hosts``/``--host-flavor``/``--size-factor``
value holds, the hosts returned have finite sizes within
``0..limits.MAX_RESOURCE`` and number at most ``limits.MAX_HOSTS``, or
:class:`InvalidInput` is raised on one line. Settings:
tests/hypothesis_profiles.
"""

import csv
import io
import os
import shutil
import tempfile

from hypothesis import given
from hypothesis import strategies as st

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation.traces import records
from tests import base
from tests import fuzz_strategies as hostile
from tests.hypothesis_profiles import fuzz_settings

FORMATS = {
    'csv': ('name,vcpus,memory_mb,disk_gb,attributes',
            ['h', '4', '8000', '0', 'zone=a']),
    'alibaba': ('sn,cpu_milli,memory_mib,gpu,model',
                ['n', '64000', '262144', '2', 'V100']),
    'google2011': (None, ['0', '5', '0', 'p1', '0.5', '0.25']),
}


def cells():
    return st.one_of(hostile.number_texts(), hostile.nasty_text(12))


@st.composite
def host_tables(draw, fmt):
    header, good = FORMATS[fmt]
    rows = []
    for index in range(draw(st.integers(min_value=1, max_value=6))):
        row = list(good)
        row[0 if fmt != 'google2011' else 1] += str(index)
        for _ in range(draw(st.integers(min_value=0, max_value=3))):
            row[draw(st.integers(min_value=0, max_value=len(row) - 1))] = \
                draw(cells())
        rows.append(row)
    stream = io.StringIO()
    if header:
        stream.write(header + '\n')
    csv.writer(stream, lineterminator='\n').writerows(rows)
    return stream.getvalue()


class TestInfrastructureFuzz(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, content):
        path = os.path.join(self.tmp, 'hosts.csv')
        if isinstance(content, str):
            content = content.encode('utf-8', 'surrogatepass')
        with open(path, 'wb') as stream:
            stream.write(content)
        return path

    def check_hosts(self, build, names):
        try:
            hosts = build()
        except exception.InvalidInput as error:
            self.assertNotIn('\n', str(error).strip())
            self.assertIn(names, str(error))
            return None
        self.assertTrue(0 < len(hosts) <= limits.MAX_HOSTS)
        for host in hosts:
            hostile.assert_finite(host, host.name)
            for size in (host.vcpus, host.memory_mb, host.disk_gb):
                self.assertTrue(0 <= size <= limits.MAX_RESOURCE, host)
        return hosts

    @fuzz_settings()
    @given(st.sampled_from(sorted(FORMATS)), st.data())
    def test_hostile_host_lists(self, fmt, data):
        path = self.write(data.draw(host_tables(fmt)))
        self.check_hosts(lambda: infrastructure.read_machines(path, fmt),
                         path)
        self.check_hosts(lambda: infrastructure.read_machines(path), path)
        if fmt == 'csv':
            self.check_hosts(
                lambda: infrastructure.read_infrastructure(path), path)

    @fuzz_settings()
    @given(st.binary(max_size=300))
    def test_any_bytes(self, data):
        path = self.write(data)
        self.check_hosts(lambda: infrastructure.read_machines(path), path)
        self.check_hosts(lambda: infrastructure.read_infrastructure(path),
                         path)

    @fuzz_settings()
    @given(st.one_of(hostile.numbers(), st.integers(
               min_value=-2, max_value=limits.MAX_HOSTS + 2)),
           st.one_of(hostile.nasty_text(12), st.lists(
               hostile.number_texts(), min_size=1, max_size=4).map(
               ':'.join)))
    def test_hosts_from_flavor(self, count, flavor):
        if isinstance(count, int) and not isinstance(count, bool) and \
                count > 1000 and count <= limits.MAX_HOSTS:
            count = 1000   # valid and large: no need to build 100,000
        self.check_hosts(
            lambda: infrastructure.hosts_from_flavor(count, flavor), '--')

    @fuzz_settings()
    @given(hostile.numbers(), st.integers(min_value=0, max_value=2 ** 40),
           st.lists(st.tuples(st.floats(min_value=0, max_value=1e9),
                              st.one_of(st.none(), st.floats(
                                  min_value=0, max_value=1e9))),
                    min_size=1, max_size=5))
    def test_size_factor(self, factor, seed, requests):
        items = [records.WorkloadItem(
            id='r%d' % index, submit_s=float(index), duration_s=duration,
            resources=objects.Resources(vcpus, 1.0))
            for index, (vcpus, duration) in enumerate(requests)]
        machines = [objects.Host('m1', 1.0, 1.0), objects.Host('m2', 64.0,
                                                               1e6)]
        self.check_hosts(lambda: infrastructure.size_from_workload(
            items, machines, factor, seed, until=100.0), '--size-factor')
