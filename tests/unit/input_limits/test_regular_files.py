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

"""Reading regular files within bounds
(:mod:`preemptible_sched.input_limits.regular_files`).
"""

import os
import shutil
import tempfile

from preemptible_sched import exception
from preemptible_sched.input_limits import regular_files
from tests import base


class TestFiles(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, name, data=None):
        path = os.path.join(self.tmp, name)
        if data is not None:
            with open(path, 'wb') as stream:
                stream.write(data)
        return path

    def test_regular_file(self):
        self.assertEqual('{}', regular_files.read_bounded_text(
            self.path('a.json', b'\xef\xbb\xbf{}')))

    def test_special_files_are_refused_before_reading(self):
        fifo = self.path('fifo')
        os.mkfifo(fifo)
        for path, kind in ((fifo, 'a FIFO'), ('/dev/zero',
                                              'a character device'),
                           (self.tmp, 'a directory')):
            error = self.assertRaises(exception.InvalidInput,
                                      regular_files.read_bounded_bytes, path)
            self.assertEqual('%s: not a regular file (%s)' % (path, kind),
                             str(error))

    def test_size_bound(self):
        path = self.path('big', b'x' * 11)
        error = self.assertRaises(exception.InvalidInput,
                                  regular_files.read_bounded_bytes, path,
                                  'big', max_bytes=10)
        self.assertEqual('big: file too large: 11 bytes (limit 10)',
                         str(error))

    def test_not_utf8(self):
        path = self.path('a.json', b'{}\n\n\xff')
        error = self.assertRaises(exception.InvalidInput,
                                  regular_files.read_bounded_text, path)
        self.assertEqual('%s: line 3: not UTF-8 text: byte 0xff at offset '
                         '4' % path, str(error))

    def test_missing(self):
        error = self.assertRaises(exception.InvalidInput,
                                  regular_files.read_bounded_bytes,
                                  self.path('nope'))
        self.assertIn('cannot read file: No such file', str(error))
