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

"""What a client submits: request validation, and the differences that
make a submit under a taken id another request."""

from preemptible_sched.db import api as db_api
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.service import submissions
from tests import base

MEDIUM = {'vcpus': 2, 'memory_mb': 4000, 'disk_gb': 40}


class TestRequestSpecFromWire(base.TestCase):

    def test_valid(self):
        spec = submissions.request_spec_from_wire(
            {'id': 'r', 'resources': MEDIUM, 'preemptible': True,
             'num_instances': 2, 'flavor': 'medium'})
        self.assertEqual('r', spec.id)
        self.assertEqual(objects.Resources(2, 4000, 40), spec.resources)
        self.assertTrue(spec.preemptible)
        self.assertEqual(2, spec.num_instances)

    def test_generated_id(self):
        spec = submissions.request_spec_from_wire(
            {'resources': MEDIUM})
        self.assertRegex(spec.id, r'^req-[0-9a-f]{12}$')

    def test_every_problem_at_once(self):
        error = self.assertRaises(
            exception.InvalidInput, submissions.request_spec_from_wire,
            {'id': 'r', 'resources': {'vcpus': -1, 'memory_mb': 'lots'},
             'num_instances': 0})
        for fragment in ('request r', 'num_instances', 'resources.vcpus',
                         'resources.memory_mb'):
            self.assertIn(fragment, str(error))

    def test_nothing_asked(self):
        self.assertRaises(exception.InvalidInput,
                          submissions.request_spec_from_wire,
                          {'id': 'r', 'resources': {}})

    def test_unknown_field(self):
        error = self.assertRaises(
            exception.InvalidInput, submissions.request_spec_from_wire,
            {'id': 'r', 'resources': MEDIUM, 'colour': 'blue'})
        self.assertIn('colour', str(error))

    def test_declared_use(self):
        # Issue 29 item 6: the RPC field, at most the request's vCPUs.
        spec = submissions.request_spec_from_wire(
            {'id': 'r', 'resources': MEDIUM, 'expected_vcpus': 1.5})
        self.assertEqual(1.5, spec.expected_vcpus)
        for value, fragment in ((MEDIUM['vcpus'] + 1, 'declares'),
                                (0, 'expected_vcpus'),
                                ('1', 'expected_vcpus')):
            error = self.assertRaises(
                exception.InvalidInput,
                submissions.request_spec_from_wire,
                {'id': 'r', 'resources': MEDIUM, 'expected_vcpus': value})
            self.assertIn(fragment, str(error))

    def test_not_an_object(self):
        self.assertRaises(exception.InvalidInput,
                          submissions.request_spec_from_wire, [1])

    def test_id_too_long(self):
        self.assertRaises(exception.InvalidInput,
                          submissions.request_spec_from_wire,
                          {'id': 'x' * 300, 'resources': MEDIUM})


class TestSubmitDifferences(base.TestCase):

    def stored(self, store, **spec):
        request_spec = submissions.request_spec_from_wire(
            dict({'id': 'r', 'resources': MEDIUM}, **spec))
        store.add_request(request_spec, 1.0, duration_s=60.0, image='img')
        return store.get_request('r')

    def differences(self, request, duration=60.0, image='img', **spec):
        return submissions.submit_differences(
            request, submissions.request_spec_from_wire(
                dict({'id': 'r', 'resources': MEDIUM}, **spec)),
            duration, image)

    def test_differences(self):
        store = db_api.Store('sqlite://')
        store.upgrade()
        request = self.stored(store, num_instances=2, service_class='gold')
        self.assertEqual([], self.differences(
            request, num_instances=2, service_class='gold'))
        self.assertEqual([], self.differences(
            request, num_instances=2, service_class='gold',
            resources={'vcpus': 2.0, 'memory_mb': 4000.0, 'disk_gb': 40}))
        self.assertEqual(['num_instances', 'duration', 'image'],
                         self.differences(request, duration=None,
                                          image=None,
                                          service_class='gold'))
        self.assertEqual(['resources', 'preemptible', 'service_class'],
                         self.differences(request, num_instances=2,
                                          preemptible=True,
                                          resources={'vcpus': 1}))
        self.assertEqual(['priority'], self.differences(
            request, num_instances=2, service_class='gold', priority=5))

    def test_a_class_priority_set_by_the_loop_is_no_difference(self):
        store = db_api.Store('sqlite://')
        store.upgrade()
        request = self.stored(store, service_class='gold', priority=40.0)
        self.assertEqual([], self.differences(request,
                                              service_class='gold'))
        self.assertEqual(['priority'], self.differences(
            request, service_class='gold', priority=1.0))
