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

"""The victim table keeps its rows packed and its per-host layout true."""

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from preemptible_sched.hosts import victims as victims_mod
from preemptible_sched import objects
from tests import base


class TestVictimTable(base.TestCase):

    @settings(max_examples=100, deadline=None)
    @given(st.lists(st.tuples(st.booleans(), st.integers(0, 20)),
                    max_size=60))
    def test_rows_stay_packed_and_match_their_instances(self, steps):
        victims = victims_mod.VictimTable()
        present = {}
        for add, key in steps:
            instance_id = 'i%d' % key
            if add and instance_id not in present:
                instance = objects.Instance(
                    instance_id, objects.Resources(key, 100 * key, key),
                    True, started_at=float(key), priority=float(key % 3))
                victims.add(key % 4, instance)
                present[instance_id] = instance
            elif not add:
                self.assertEqual(instance_id in present,
                                 victims.remove(instance_id))
                present.pop(instance_id, None)
        self.assertEqual(len(present), len(victims))
        self.assertEqual(set(present), set(victims.row_of))
        for instance_id, row in victims.row_of.items():
            instance = present[instance_id]
            self.assertIs(instance, victims.instances[row])
            self.assertEqual(list(instance.resources),
                             victims.column('size')[:, row].tolist())
            self.assertEqual(instance.started_at,
                             victims.column('started')[row])
            self.assertEqual(int(instance.id[1:]) % 4,
                             victims.column('host')[row])
        # The layout lists each host's rows from the top, once each.
        layout, counts = victims.rows_of(None, 6)
        for slot in range(6):
            listed = layout[:, slot]
            count = int(counts[slot])
            self.assertTrue((listed[:count] >= 0).all(), slot)
            self.assertTrue((listed[count:] == -1).all(), slot)
            self.assertEqual(sorted(row for row, host in enumerate(
                victims.column('host').tolist()) if host == slot),
                sorted(listed[:count].tolist()), slot)
            for rank, row in enumerate(listed[:count].tolist()):
                self.assertEqual(rank, victims.column('rank')[row])
