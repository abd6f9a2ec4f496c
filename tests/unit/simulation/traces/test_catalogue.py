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

"""The trace catalogue: every entry complete and readable."""

import os
import re
import shutil
import tempfile

from preemptible_sched.compute import utilization
from preemptible_sched import exception
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import reading
from tests import base


READERS = {'workload': reading.FORMATS,
           'machines': infrastructure.MACHINE_FORMATS,
           'utilization': catalogue.UTILIZATION_FORMATS}


# Raw GitHub URL pinned to a commit: the bytes cannot change under it.
PINNED = re.compile(r'^https://raw\.githubusercontent\.com/[^/]+/[^/]+/'
                    r'[0-9a-f]{40}/')


class TestCatalogue(base.TestCase):
    def test_names_are_unique_and_simple(self):
        names = [t.name for t in catalogue.catalogue()]
        self.assertEqual(len(names), len(set(names)))
        for name in names:
            self.assertRegex(name, r'^[a-z0-9]+(-[a-z0-9]+)*$')

    def test_the_issue_s_traces_are_there(self):
        names = {t.name for t in catalogue.catalogue()}
        for name in ('alibaba-gpu-2023', 'google-2011', 'swf-nasa-ipsc',
                     'gwf-askalon-ee', 'wta', 'bitbrains-faststorage'):
            self.assertIn(name, names)

    def test_every_entry_has_the_required_fields(self):
        for trace in catalogue.catalogue():
            for field in ('title', 'description', 'page', 'licence',
                          'licence_note', 'citation', 'reader'):
                self.assertTrue(getattr(trace, field).strip(),
                                '%s: %s is empty' % (trace.name, field))
            self.assertRegex(trace.page, r'^https?://', trace.name)
            if not trace.files:
                # Then it says where to get it.
                self.assertIn('http', trace.notes, trace.name)

    def test_formats_are_known_to_the_readers(self):
        for trace in catalogue.catalogue():
            if trace.format is None:
                self.assertTrue(trace.reader.startswith('None'),
                                trace.name)
                self.assertEqual((), trace.files, trace.name)
                continue
            self.assertEqual(trace.format, trace.files[0].format,
                             trace.name)
            for trace_file in trace.files:
                self.assertIn(trace_file.role, catalogue.ROLES, trace.name)
                self.assertIn(trace_file.format, READERS[trace_file.role],
                              '%s/%s' % (trace.name, trace_file.name))

    def test_files(self):
        for trace in catalogue.catalogue():
            names = [f.name for f in trace.files]
            self.assertEqual(len(names), len(set(names)), trace.name)
            for trace_file in trace.files:
                where = '%s/%s' % (trace.name, trace_file.name)
                self.assertNotIn('/', trace_file.name, where)
                self.assertFalse(trace_file.name.startswith('.'), where)
                self.assertRegex(trace_file.url, r'^https?://', where)
                self.assertIn(trace_file.packed, (None, 'zip'), where)
                if trace_file.size is not None:
                    self.assertGreater(trace_file.size, 0, where)
                if trace_file.sha256 is not None:
                    self.assertRegex(trace_file.sha256, r'^[0-9a-f]{64}$',
                                     where)
                    # A checksum is only built in for bytes that cannot
                    # change: a file pinned to a commit.
                    self.assertRegex(trace_file.url, PINNED, where)
                    self.assertIsNotNone(trace_file.size, where)

    def test_get(self):
        self.assertEqual('google-2011', catalogue.get('google-2011').name)
        error = self.assertRaises(exception.InvalidInput, catalogue.get,
                                  'nope')
        self.assertIn("unknown trace 'nope'", str(error))
        self.assertIn('alibaba-gpu-2023', str(error))

    def test_size(self):
        self.assertEqual(575468 + 52287,
                         catalogue.get('alibaba-gpu-2023').size)
        self.assertIsNone(catalogue.get('google-2011').size)
        self.assertIsNone(catalogue.get('wta').size)

    def test_gwa_t_12_is_what_the_fake_driver_replays(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, 'vm.csv')
        with open(path, 'w') as stream:
            stream.write('Timestamp [ms];\tCPU cores;\tCPU capacity '
                         'provisioned [MHZ];\tCPU usage [MHZ]\n'
                         '1376314846;\t1;\t2600.0;\t1300.0\n'
                         '1376315146;\t1;\t2600.0;\t650.0\n')
        trace = utilization.TraceUtilization.from_file(path)
        self.assertEqual([0.5, 0.25], trace.shares)
