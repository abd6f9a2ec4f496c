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

"""``preemptible-sched submit|list|show|delete`` against a running service.

The commands run in this process (``sched.main``) on the test's ``fake://``
transport instead of the configured one, which is the only difference from
a real command line.
"""

import io
import json
from unittest import mock

from preemptible_sched.cmd.client import service_calls
from preemptible_sched.cmd import sched
from tests.functional.service import base


class TestClientCommands(base.ServiceTestCase):

    def setUp(self):
        super().setUp()
        # The commands clean their transport up; ours serves the test on.
        for patcher in (mock.patch.object(service_calls, '_transport',
                                          return_value=self.transport),
                        mock.patch.object(self.transport, 'cleanup')):
            patcher.start()
            self.addCleanup(patcher.stop)

    def cli(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            code = sched.main(list(argv))
        return code, out.getvalue(), err.getvalue()

    def test_submit_show_list_delete(self):
        code, out, err = self.cli('submit', '--flavor', 'medium', '--id',
                                  'r1', '--preemptible', '--wait')
        self.assertEqual(0, code, err)
        submitted = json.loads(out)
        self.assertEqual('placed', submitted['status'])
        self.assertTrue(submitted['spec']['preemptible'])
        self.wait_running('r1')

        code, out, err = self.cli('show', 'r1', '--format', 'table')
        self.assertEqual(0, code, err)
        header, row = out.splitlines()
        self.assertEqual(['ID', 'STATUS', 'REQUEST', 'INSTANCES'],
                         header.split())
        self.assertRegex(row, r'^r1 +placed +preemptible medium x1 +'
                         r'r1 running@host-[A-D]$')

        code, out, err = self.cli('submit', '--vcpus', '1', '--memory-mb',
                                  '1000', '--num-instances', '2', '--id',
                                  'r2', '--duration', '3600')
        self.assertEqual(0, code, err)
        code, out, err = self.cli('list')
        self.assertEqual(0, code, err)
        self.assertEqual(['r1', 'r2'], [r['id'] for r in json.loads(out)])
        self.assertEqual(3600.0, json.loads(out)[1]['duration_s'])

        code, out, err = self.cli('delete', 'r1')
        self.assertEqual(0, code, err)
        self.assertEqual('deleted', json.loads(out)['status'])
        code, out, err = self.cli('list', '--status', 'deleted')
        self.assertEqual(['r1'], [r['id'] for r in json.loads(out)])

    def test_failed_request_exits_1(self):
        code, out, err = self.cli('submit', '--vcpus', '64', '--memory-mb',
                                  '1', '--id', 'huge', '--wait')
        self.assertEqual(1, code, err)
        self.assertEqual('failed', json.loads(out)['status'])
        self.assertIn('No host', json.loads(out)['reason'])

    def test_unknown_ids_and_conflicting_duplicates_exit_2(self):
        for argv in (['show', 'nope'], ['delete', 'nope']):
            code, out, err = self.cli(*argv)
            self.assertEqual(2, code)
            self.assertEqual('', out)
            self.assertEqual(["preemptible-sched: request 'nope' not found"],
                             err.splitlines())
        self.assertEqual(0, self.cli('submit', '--flavor', 'small', '--id',
                                     'r')[0])
        # The same request again: idempotent, the stored one is shown.
        code, out, err = self.cli('submit', '--flavor', 'small', '--id', 'r')
        self.assertEqual(0, code, err)
        self.assertEqual('r', json.loads(out)['id'])
        self.assertEqual(1, len(self.store.list_instances(request_id='r')))
        # Another request under the same id: refused, naming what differs.
        code, out, err = self.cli('submit', '--flavor', 'medium', '--id',
                                  'r')
        self.assertEqual(2, code)
        # (The service's own WARNING line is on stderr too, in-process.)
        self.assertEqual(
            ['preemptible-sched: request r: exists already with a '
             'different resources, flavor'],
            [line for line in err.splitlines()
             if line.startswith('preemptible-sched:')])
