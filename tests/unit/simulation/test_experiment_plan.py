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

import os
import shutil
import tempfile
import types

from preemptible_sched import exception
from preemptible_sched.simulation import definition as definitions
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import experiment_plan
from tests import base
from tests.unit.simulation import test_cells

MACHINES = 'name,vcpus,memory_mb,disk_gb\nm1,4,8000,0\nm2,8,16000,0\n'


def options(**given):
    """The parsed options of ``experiment`` that the plan reads."""
    values = dict(workload=[], workload_format='auto', class_map=None,
                  default_class=None, limit=None, until=None,
                  infrastructure=None, hosts=None, host_flavor=None,
                  machines=None)
    values.update(given)
    return types.SimpleNamespace(**values)


class PlanTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.workload = os.path.join(self.tmp, 'trace.csv')
        test_cells.write_workload(self.workload, 12)
        self.machines = self.write('machines.csv', MACHINES)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as stream:
            stream.write(text)
        return path


class TestOptionsPlan(PlanTestCase):

    def test_hosts_given_outright_are_shared_by_every_cell(self):
        plan = experiment_plan.options_plan(
            options(workload=[self.workload], hosts=2,
                    host_flavor='4:8000:0'),
            ['qos', 'priority'], [None], [0, 1], jobs=2)
        self.assertEqual(['trace'], list(plan.workloads))
        self.assertEqual({('trace', None, 0), ('trace', None, 1)},
                         set(plan.hosts))
        self.assertIs(plan.hosts['trace', None, 0],
                      plan.hosts['trace', None, 1])
        self.assertEqual(4, len(plan.cells()))
        self.assertEqual('seeds', plan.replication)
        self.assertEqual(['gold', 'silver', 'bronze'], plan.classes)

    def test_hosts_are_sampled_per_size_factor_and_seed(self):
        plan = experiment_plan.options_plan(
            options(workload=[self.workload], machines=self.machines),
            ['qos'], [0.5, 1.0], [3], jobs=1)
        self.assertEqual({('trace', 0.5, 3), ('trace', 1.0, 3)},
                         set(plan.hosts))
        self.assertEqual([0.5, 1.0], plan.size_factors)

    def test_workloads_may_not_share_a_stem(self):
        os.mkdir(os.path.join(self.tmp, 'other'))
        twin = os.path.join(self.tmp, 'other', 'trace.csv')
        shutil.copy(self.workload, twin)
        error = self.assertRaises(
            exception.InvalidInput, experiment_plan.read_workloads,
            options(workload=[self.workload, twin]))
        self.assertIn('would share the output directory', str(error))

    def test_a_bad_plugin_fails_before_any_run(self):
        self.flags(group='filter_scheduler',
                   enabled_filters=['NoSuchFilter'])
        error = self.assertRaises(
            exception.PreemptibleSchedException,
            experiment_plan.options_plan,
            options(workload=[self.workload], hosts=1,
                    host_flavor='4:8000:0'),
            ['qos'], [None], [0], jobs=1)
        self.assertIn('NoSuchFilter', str(error))


class TestDefinitionPlan(PlanTestCase):

    def definition(self):
        hosts = self.write('hosts.csv', MACHINES)
        path = self.write('design.yaml', (
            'workloads:\n  - path: %s\n'
            'infrastructures:\n  - infrastructure: %s\n'
            'strategies: [qos, priority]\nbaseline: qos\n'
            'seeds: [0, 1]\nuntil: 300\n') % (self.workload, hosts))
        return definitions.load(path)

    def test_every_scenario_read_once(self):
        definition = self.definition()
        plan = experiment_plan.definition_plan(definition, jobs=1, limit=5)
        self.assertEqual(['qos', 'priority'], plan.policies)
        self.assertEqual([None], plan.size_factors)
        self.assertEqual([0, 1], plan.seeds)
        (scenario, (path, items)), = plan.workloads.items()
        self.assertEqual(self.workload, path)
        self.assertEqual(5, len(items))
        # The strategies share what was read.
        self.assertIs(plan.inputs['qos'], plan.inputs['priority'])
        self.assertEqual(definition.cells(), plan.cells())
        self.assertEqual(definition.replications, plan.replication)
        self.assertEqual([(os.path.basename(definition.path),
                           definition.path)], plan.sources())
        cell = plan.cells()[0]
        self.assertIsInstance(cell, experiment.Cell)
        self.assertEqual(definition.key(cell), plan.key(cell))
