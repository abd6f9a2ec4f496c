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

"""Whole soak scenarios against deliberately broken compute sides.

One overcommits, one boots again what it terminated, one reports
terminations it did not do: each must end in the violations it causes,
while the same scenarios against the honest fake end in none.
"""

import dataclasses
import shutil
import tempfile

from preemptible_sched import objects
from tests import base
from tests.soak import faults
from tests.soak import run
from tests.soak import scenarios


def names_of(violations):
    return sorted({violation.invariant for violation in violations})


class Overcommitting(faults.SoakDriver):
    """Tells the scheduler its hosts are twice their size and takes every
    spawn (a compute side that overcommits).
    """

    def host_specs(self):
        return [dataclasses.replace(spec, vcpus=spec.vcpus * 2,
                                    memory_mb=spec.memory_mb * 2,
                                    disk_gb=spec.disk_gb * 2)
                for spec in super().host_specs()]

    def _spawn_refusal(self, host, instance):
        reason = super()._spawn_refusal(host, instance)
        if reason is not None and 'cannot hold' in reason:
            self.overcommits.pop()
            self.history[instance.id].pop()
            return None
        return reason


class Resurrecting(faults.SoakDriver):
    """Boots again, at once, the first instance it terminated."""

    done = False

    def _terminated(self, fake_host, fake_instance):
        super()._terminated(fake_host, fake_instance)
        if not self.done:
            self.done = True
            # Forgets it finished (else the spawn is a duplicate).
            fake_host.finished.pop(fake_instance.instance.id, None)
            self.spawn(fake_host.spec.name, fake_instance.instance)


class Lying(faults.SoakDriver):
    """Reports terminations it never does (the instance keeps running)."""

    def terminate(self, host, instance_id):
        self._report('instance_terminated', host, instance_id,
                     boot=self._hosts[host].instances[instance_id]
                     .instance.boot
                     if instance_id in self._hosts[host].instances
                     else None)


LARGE = objects.Flavor('large', 4, 8192, 80)


def preemption_scenario(seed=1):
    """One 4-core host: a preemptible instance, then a normal one that
    needs its room (so the first is terminated), then another
    preemptible one that ends on its own.
    """
    return scenarios.Scenario(
        seed=seed, strategy='dual_state',
        options={('scheduler', 'preemption_strategy'): 'dual_state',
                 ('scheduler', 'on_no_valid_host'): 'wait',
                 ('scheduler', 'watchdog_interval'): 10.0,
                 ('fake_driver', 'termination_seconds'): 1.0,
                 ('fake_driver', 'boot_times_hot'): ['1.0'],
                 ('fake_driver', 'boot_times_cold'): ['2.0']},
        hosts=[objects.Host('host-A', 4, 8192, 80)],
        items=[scenarios.Item('p', 10.0, LARGE, True),
               scenarios.Item('n', 100.0, LARGE, False, duration=300.0),
               scenarios.Item('q', 500.0, LARGE, True, duration=100.0)],
        faults=scenarios.FaultPlan(), size='unit')


class TestBrokenComputeSides(base.TestCase):

    def setUp(self):
        super().setUp()
        directory = tempfile.mkdtemp(prefix='psched-soak-test-')
        self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
        self.template = run.Template(directory)
        self.addCleanup(self.template.close)

    def run_with(self, driver_class, scenario=None):
        one = run.Run(scenario or preemption_scenario(), self.template,
                      settle=600.0, driver_class=driver_class)
        with run.quiet(), run.cached_entry_points():
            outcome = one.execute()
        return outcome, one

    def test_honest_fake_breaks_nothing(self):
        outcome, run = self.run_with(faults.SoakDriver)
        self.assertEqual([], outcome.violations)
        self.assertEqual(['spawned', 'started', 'terminated'],
                         [event[1] for event in run.driver.history['p']])

    def test_overcommitting_fake(self):
        scenario = preemption_scenario()
        scenario.items = [scenarios.Item('a', 10.0, LARGE, False),
                          scenarios.Item('b', 20.0, LARGE, False)]
        outcome, run = self.run_with(Overcommitting, scenario)
        self.assertIn('overcommitted', names_of(outcome.violations))
        self.assertIn('holds more than its capacity',
                      str(outcome.violations))

    def test_instance_booted_after_its_termination(self):
        outcome, run = self.run_with(Resurrecting)
        self.assertIn('resurrected', names_of(outcome.violations))

    def test_termination_reported_but_not_done(self):
        outcome, run = self.run_with(Lying)
        found = names_of(outcome.violations)
        self.assertIn('db_equals_compute', found)
        self.assertIn('overcommitted', found)

    def test_faults_are_counted_where_they_strike(self):
        scenario = preemption_scenario()
        scenario.faults = scenarios.FaultPlan(intensity='heavy',
                                              report_duplicate_p=1.0,
                                              report_delay_p=1.0,
                                              report_max_delay=5.0)
        outcome, run = self.run_with(faults.SoakDriver, scenario)
        self.assertEqual([], outcome.violations)
        self.assertGreater(outcome.faults['report_duplicated'], 0)
        self.assertGreater(outcome.faults['report_delayed'], 0)
        self.assertGreater(outcome.observed['instance.report_ignored'], 0)
