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

"""The host manager's indexes follow every add and remove."""

from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from tests import base


class TestHostManager(base.TestCase):

    def setUp(self):
        super().setUp()
        self.manager = host_manager.HostManager(base.FakePlanner())
        for name in ('h1', 'h2'):
            self.manager.add_host(objects.Host(name, 8, 16384, 500))

    def test_instances_and_groups_are_indexed(self):
        self.manager.add_instance('h1', base.make_instance('a', group='g'))
        self.manager.add_instance('h2', base.make_instance('b', group='g'))
        self.assertEqual({'a': 'h1', 'b': 'h2'}, self.manager.instance_hosts)
        self.assertEqual(frozenset({'h1', 'h2'}),
                         self.manager.hosts_of_group('g'))
        host, instance = self.manager.remove_instance('a')
        self.assertEqual(('h1', 'a'), (host, instance.id))
        self.assertEqual(frozenset({'h2'}), self.manager.hosts_of_group('g'))
        self.assertEqual(0, self.manager.host_states['h1'].full.num_instances)

    def test_duplicates_are_refused(self):
        self.manager.add_instance('h1', base.make_instance('a'))
        self.assertRaises(ValueError, self.manager.add_instance, 'h2',
                          base.make_instance('a'))
        self.assertRaises(ValueError, self.manager.add_host,
                          objects.Host('h1', 1, 1))

    def test_set_up_marks_the_host_and_bumps_the_generations(self):
        state = self.manager.host_states['h1']
        generation, host_generation = self.manager.generation, \
            state.generation
        self.assertTrue(self.manager.set_up('h1', False))
        self.assertFalse(state.up)
        self.assertGreater(self.manager.generation, generation)
        self.assertGreater(state.generation, host_generation)
        self.assertTrue(self.manager.set_up('h1', True))
        self.assertTrue(state.up)
        self.assertFalse(self.manager.set_up('nowhere', True))
