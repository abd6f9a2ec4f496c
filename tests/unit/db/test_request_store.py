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

"""The project of the requests a thread adds
(:mod:`preemptible_sched.db.request_store`); the requests and instances
themselves are tested on every store in :mod:`tests.unit.db.test_api`.
"""

import threading

from preemptible_sched.db import request_store
from tests import base


class TestProjectScope(base.TestCase):

    def test_project_scope_is_per_thread(self):
        seen = []
        with request_store.project_scope('alice'):
            thread = threading.Thread(
                target=lambda: seen.append(request_store.scoped_project()))
            thread.start()
            thread.join()
            self.assertEqual('alice', request_store.scoped_project())
        self.assertEqual(['default'], seen)
        self.assertEqual('default', request_store.scoped_project())
