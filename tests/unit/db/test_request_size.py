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

"""Fixing a moldable request's size once it is placed, in both stores."""

import dataclasses

from preemptible_sched.db import api
from preemptible_sched.db import errors
from preemptible_sched.db import memory
from preemptible_sched import objects
from tests import base


class StoreCase:

    def test_spec_run_time_and_instances_take_the_size(self):
        store = self.make_store()
        spec = objects.RequestSpec(
            'r', objects.Resources(0, 512, 0), num_instances=2,
            instance_ids=('r-0', 'r-1'), sequential_s=300.0,
            sla=objects.SLALevels('premium', 'premium', 'premium',
                                  'advanced'), user='alice')
        store.add_request(spec, 0.0)
        sized = dataclasses.replace(
            spec, resources=objects.Resources(24, 512, 0), sized=True)
        store.set_request_size('r', sized, 12.5, 3.0)
        request = store.get_request('r')
        self.assertEqual((12.5, 3.0), (request.duration_s,
                                       request.updated_at))
        self.assertEqual(sized, request.request_spec())
        self.assertEqual([24.0, 24.0], [store.get_instance(i).vcpus
                                        for i in ('r-0', 'r-1')])

    def test_unknown_request(self):
        store = self.make_store()
        spec = objects.RequestSpec('r', objects.Resources(1, 1, 0))
        self.assertRaises(errors.NotFound, store.set_request_size, 'r', spec,
                          1.0, 0.0)


class TestStore(StoreCase, base.TestCase):

    def make_store(self):
        store = api.Store('sqlite://')
        store.upgrade()
        return store


class TestMemoryStore(StoreCase, base.TestCase):

    def make_store(self):
        store = memory.MemoryStore('sqlite://')
        store.upgrade()
        return store
