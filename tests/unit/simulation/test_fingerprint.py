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

"""The digest of a cell's inputs
(:mod:`preemptible_sched.simulation.fingerprint`): equal values give
equal digests whatever the order of a set or a dictionary, and any
change that can change a result changes the digest.
"""

import dataclasses
import os
import subprocess
import sys

from preemptible_sched import objects
from preemptible_sched.simulation import fingerprint
from preemptible_sched.simulation.traces import records
from tests import base


def item(**changes):
    fields = dict(id='r1', submit_s=0.0, duration_s=10.0,
                  resources=objects.Resources(1, 1000, 0),
                  service_class='gold', constraints={'a': 'x', 'b': 'y'})
    fields.update(changes)
    return records.WorkloadItem(**fields)


class TestDigest(base.TestCase):

    def test_equal_values_equal_digests(self):
        self.assertEqual(fingerprint.digest([item(), item(id='r2')]),
                         fingerprint.digest([item(), item(id='r2')]))

    def test_dictionary_and_set_order_do_not_count(self):
        self.assertEqual(
            fingerprint.digest(item(constraints={'a': 'x', 'b': 'y'})),
            fingerprint.digest(item(constraints={'b': 'y', 'a': 'x'})))
        self.assertEqual(fingerprint.digest({'x', 'y', 'z'}),
                         fingerprint.digest({'z', 'y', 'x'}))

    def test_same_digest_under_another_hash_seed(self):
        # Sets of strings iterate in another order under another seed.
        code = ('from preemptible_sched.simulation import fingerprint\n'
                'print(fingerprint.digest([{"a", "b", "c", "d"}, '
                '{"k": {"x", "y"}}]))')
        digests = set()
        for seed in ('1', '2', '3'):
            env = dict(os.environ, PYTHONHASHSEED=seed)
            digests.add(subprocess.run(
                [sys.executable, '-c', code], env=env, check=True,
                capture_output=True, text=True).stdout)
        self.assertEqual(1, len(digests), digests)

    def test_every_field_counts(self):
        reference = fingerprint.digest(item())
        for changes in (dict(id='r2'), dict(submit_s=1e-9),
                        dict(duration_s=None),
                        dict(resources=objects.Resources(2, 1000, 0)),
                        dict(service_class='silver'),
                        dict(constraints={'a': 'x'}), dict(priority=0.0),
                        dict(depends_on=('r0',))):
            self.assertNotEqual(reference, fingerprint.digest(item(**changes)),
                                changes)

    def test_types_are_told_apart(self):
        self.assertNotEqual(fingerprint.digest(1), fingerprint.digest(1.0))
        self.assertNotEqual(fingerprint.digest('1'), fingerprint.digest(1))
        self.assertNotEqual(fingerprint.digest(None),
                            fingerprint.digest('None'))
        self.assertNotEqual(fingerprint.digest([[1], 2]),
                            fingerprint.digest([1, [2]]))

    def test_hosts(self):
        host = objects.Host('h1', vcpus=4, memory_mb=8000)
        self.assertEqual(fingerprint.digest([host]),
                         fingerprint.digest([dataclasses.replace(host)]))
        self.assertNotEqual(
            fingerprint.digest([host]),
            fingerprint.digest([dataclasses.replace(host, memory_mb=8001)]))

    def test_unknown_types_are_refused(self):
        # Their repr would name an address: no stable digest.
        self.assertRaises(TypeError, fingerprint.digest, [object()])
