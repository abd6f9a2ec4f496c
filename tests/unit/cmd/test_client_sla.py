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

"""``submit`` with SLA levels, a sequential run time and a user, to the
service's wire check.
"""

from preemptible_sched.cmd.client import submit_args
from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.service import submissions
from tests import base
from tests.unit.cmd import test_client

SLA_FLAGS = ('--sla-satisfaction', 'premium', '--sla-reputation', 'advanced',
             '--sla-resources', 'best_effort', '--sla-replicas', 'premium')


class TestSubmitSLA(base.TestCase):

    def spec(self, *argv):
        return submit_args.request_spec(test_client.parse_submit(*argv))

    def test_moldable_sla_request_reaches_the_service(self):
        wire = self.spec('--memory-mb', '1024', '--sequential-s', '300',
                         '--user', 'alice', '--id', 'm1', *SLA_FLAGS)
        self.assertEqual(
            ({'satisfaction_time': 'premium', 'reputation': 'advanced',
              'resources': 'best_effort', 'replicas': 'premium'}, 300.0,
             'alice', 0.0),
            (wire['sla'], wire['sequential_s'], wire['user'],
             wire['resources']['vcpus']))
        spec = submissions.request_spec_from_wire(wire)
        self.assertEqual(objects.SLALevels('premium', 'advanced',
                                           'best_effort', 'premium'),
                         spec.sla)
        self.assertTrue(spec.moldable)
        self.assertEqual('alice', spec.user)

    def test_all_four_levels_or_none(self):
        error = self.assertRaises(
            exception.InvalidInput, self.spec, '--flavor', 'small',
            '--sla-reputation', 'premium', '--sla-resources', 'advanced')
        self.assertIn('--sla-satisfaction: missing', str(error))
        self.assertIn('--sla-replicas: missing', str(error))

    def test_moldable_sla_request_gives_no_vcpus_nor_duration(self):
        error = self.assertRaises(
            exception.InvalidInput, self.spec, '--vcpus', '4',
            '--memory-mb', '1024', '--sequential-s', '300', *SLA_FLAGS)
        self.assertEqual('--vcpus', error.field)
        error = self.assertRaises(
            exception.InvalidInput, self.spec, '--memory-mb', '1024',
            '--sequential-s', '300', '--duration', '30', *SLA_FLAGS)
        self.assertEqual('--duration', error.field)
        error = self.assertRaises(
            exception.InvalidInput, self.spec, '--memory-mb', '1024',
            '--sequential-s', 'nan', *SLA_FLAGS)
        self.assertIn('--sequential-s', str(error))

    def test_bad_level_on_the_wire(self):
        wire = self.spec('--flavor', 'small', *SLA_FLAGS)
        wire['sla']['reputation'] = 'gold'
        error = self.assertRaises(
            exception.InvalidInput, submissions.request_spec_from_wire,
            wire)
        self.assertIn('sla.reputation', str(error))
