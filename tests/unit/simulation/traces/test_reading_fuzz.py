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

"""Fuzz tests of the workload readers (every format of ``FORMATS``).

Whatever a trace holds, :func:`reading.read_workload` returns requests
whose every number is finite and within its bound, or raises
:class:`InvalidInput` naming the file (and the line, for a bad row) on one
line. Settings: tests/hypothesis_profiles.
"""

import csv
import gzip
import io
import os
import shutil
import tempfile

from hypothesis import given
from hypothesis import strategies as st

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.simulation.traces import reading
from tests import base
from tests import fuzz_strategies as hostile
from tests.hypothesis_profiles import fuzz_settings

#: Per format: a file name, a header (None: none), the columns of a row
#: and a good row to start from.
FORMATS = {
    'csv': ('w.csv', 'id,submit_s,duration_s,vcpus,memory_mb,disk_gb,'
            'service_class,preemptible,constraints',
            ['a', '0', '10', '1', '100', '0', 'gold', 'false', 'k=v']),
    'alibaba': ('pods.csv', 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,'
                'gpu_spec,qos,pod_phase,creation_time,deletion_time,'
                'scheduled_time',
                ['p', '1000', '100', '0', '0', '', 'LS', 'Running', '0',
                 '20', '5']),
    'gwf': ('w.gwf', 'WorkflowID, JobID, SubmitTime, RunTime, NProcs, '
            'ReqNProcs, Dependencies',
            ['1', '2', '0', '10', '1', '1', '']),
    'google2011': ('task_events.csv', None,
                   ['1000000', '', '7', '0', '42', '0', 'u', '2', '9', '0.5',
                    '0.25', '0.001', '0']),
}
SWF_ROW = ['1', '0', '-1', '10', '2', '-1', '-1', '2', '-1', '1024', '1',
           '1', '1', '-1', '1', '-1', '-1', '-1']


def cells():
    return st.one_of(hostile.number_texts(), hostile.nasty_text(12))


@st.composite
def tables(draw, fmt):
    """Rows of ``fmt``, good ones with hostile cells here and there."""
    name, header, good = FORMATS[fmt]
    rows = []
    for index in range(draw(st.integers(min_value=1, max_value=6))):
        row = list(good)
        row[0] = '%s%d' % (row[0], index)
        for _ in range(draw(st.integers(min_value=0, max_value=3))):
            row[draw(st.integers(min_value=0, max_value=len(row) - 1))] = \
                draw(cells())
        if draw(st.integers(min_value=0, max_value=9)) == 0:
            row = row[:draw(st.integers(min_value=0, max_value=len(row)))]
        rows.append(row)
    return name, header, rows


def _csv_text(header, rows):
    stream = io.StringIO()
    writer = csv.writer(stream, lineterminator='\n')
    if header is not None:
        stream.write(header + '\n')
    writer.writerows(rows)
    return stream.getvalue()


class WorkloadFuzzTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write(self, name, content):
        path = os.path.join(self.tmp, name)
        if isinstance(content, str):
            content = content.encode('utf-8', 'surrogatepass')
        if name.endswith('.gz'):
            content = gzip.compress(content)
        with open(path, 'wb') as stream:
            stream.write(content)
        return path

    def check(self, path, fmt='auto', names=None, **kw):
        """The requests read, or None if refused as they should be: on one
        line naming ``names`` (default: the file).
        """
        try:
            items = reading.read_workload(path, fmt, **kw)
        except exception.InvalidInput as error:
            self.assertNotIn('\n', str(error).strip())
            self.assertIn(names or path, str(error))
            return None
        self.assertTrue(items)
        for item in items:
            hostile.assert_finite(item, item.id)
            self.assertTrue(0 <= item.submit_s <= limits.MAX_TIME)
            if item.duration_s is not None:
                self.assertTrue(0 <= item.duration_s <= limits.MAX_TIME)
            for size in item.resources:
                self.assertTrue(0 <= size <= limits.MAX_RESOURCE)
        return items


class TestWorkloadFuzz(WorkloadFuzzTestCase):

    @fuzz_settings()
    @given(st.sampled_from(sorted(FORMATS)), st.data())
    def test_hostile_cells(self, fmt, data):
        name, header, rows = data.draw(tables(fmt))
        path = self.write(name, _csv_text(header, rows))
        self.check(path, fmt)
        self.check(path)

    @fuzz_settings()
    @given(st.lists(st.lists(st.one_of(st.just(None), cells()),
                             min_size=18, max_size=18),
                    min_size=1, max_size=5), st.booleans())
    def test_hostile_swf(self, rows, gzipped):
        rows = [[SWF_ROW[i] if cell is None else cell
                 for i, cell in enumerate(row)] for row in rows]
        text = ''.join(' '.join(cell.replace(' ', '') or '-1'
                                for cell in row) + '\n' for row in rows)
        self.check(self.write('w.swf.gz' if gzipped else 'w.swf', text),
                   'swf')

    @fuzz_settings()
    @given(st.sampled_from(sorted(FORMATS) + ['swf']),
           st.binary(max_size=400), st.booleans())
    def test_any_bytes(self, fmt, data, gzipped):
        name = 'trace.csv.gz' if gzipped else 'trace.csv'
        path = os.path.join(self.tmp, name)
        with open(path, 'wb') as stream:
            stream.write(data)
        self.check(path, fmt)

    @fuzz_settings()
    @given(hostile.nasty_text(20), hostile.nasty_text(10),
           st.integers(min_value=-3, max_value=10 ** 12))
    def test_hostile_options(self, class_map, default_class, limit):
        name, header, rows = FORMATS['csv']
        path = self.write(name, _csv_text(header, [rows]))
        mapping = {class_map: default_class}
        self.check(path, names='limit' if limit < 1 else path,
                   class_map=mapping, default_class=default_class,
                   limit=limit)
