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

"""The simulator's store changes nothing but the time a run takes.

A small mixed workload (three classes, normal and preemptible requests,
most of them ending, a few running on) on a cloud too small for it, so
that every policy queues, places, preempts and requeues, is run under each
policy twice: with the synchronous store of the service, and with the
simulator's :class:`~preemptible_sched.db.memory.MemoryStore` (a small
batch, so that it flushes many times during the run). Everything the run
reports but its timings is the same, and so is every row of the database
after the run, in the order it was written.
"""

import random

from preemptible_sched.db import api as db_api
from preemptible_sched.db import errors
from preemptible_sched.db import memory
from preemptible_sched.db import models
from preemptible_sched import objects
from preemptible_sched.simulation import runner
from preemptible_sched.simulation.traces import records
from tests import base

#: The columns of Result.stage_rows that are timings.
TIMED_STAGE_COLUMNS = slice(0, 5)


def mixed_workload(seed=7, count=40):
    rng = random.Random(seed)
    items = []
    for index in range(count):
        items.append(records.WorkloadItem(
            id='r%02d' % index, submit_s=float(rng.randrange(0, 600)),
            duration_s=(None if index % 9 == 4 else
                        float(rng.randrange(60, 900))),
            resources=objects.Resources(rng.choice((0.5, 1.0, 2.0)),
                                        rng.choice((256.0, 512.0, 1024.0))),
            service_class=rng.choice(('gold', 'silver', 'bronze')),
            preemptible=index % 2 == 0))
    return sorted(items, key=lambda item: item.submit_s)


def small_cloud():
    return [objects.Host(name='host-%d' % index, vcpus=4, memory_mb=4096,
                         disk_gb=0) for index in range(3)]


def database_rows(store):
    """Every row of every table as the database holds it (JSON as its
    text), with its rowid: the order it was first written.
    """
    tables = {}
    with store.engine.connect() as connection:
        for table in models.Base.metadata.sorted_tables:
            tables[table.name] = connection.exec_driver_sql(
                'SELECT rowid, * FROM %s ORDER BY rowid' % table.name).all()
    return tables


def outputs(result):
    """What a run reports, but its timings."""
    return {
        'records': result.records, 'slos': result.slos,
        'preemptions': result.preemptions,
        'terminations': result.terminations,
        'utilisation': result.utilisation, 'events': result.events,
        'hosts': result.hosts, 'until': result.until,
        'normal_acceptance': result.normal_acceptance,
        'never_placed': result.never_placed,
        'lost': result.preemptible_cpu_hours_lost,
        'decisions': len(result.latencies_s),
        'stages': [row[:TIMED_STAGE_COLUMNS.stop]
                   for row in result.stage_rows],
    }


class TestMemoryStoreOutputs(base.TestCase):

    def run_with(self, policy, store_factory):
        simulation = runner.Simulation(
            mixed_workload(), small_cloud(), until=1800.0, seed=3,
            policy=policy, store_factory=store_factory)
        result = simulation.run()
        self.addCleanup(simulation.store.dispose)
        return simulation.store, result

    def check_policy(self, policy):
        synchronous, expected = self.run_with(
            policy, lambda: db_api.Store('sqlite://'))
        batched, result = self.run_with(
            policy, lambda: memory.MemoryStore('sqlite://', batch_size=7))
        self.assertIsInstance(batched, memory.MemoryStore)
        self.assertEqual(0, batched.waiting)
        self.assertGreater(batched._writer.flushes, 10)
        self.assertEqual(outputs(expected), outputs(result))
        expected_rows = database_rows(synchronous)
        self.assertGreater(len(expected_rows['events']), 100)
        self.assertEqual(expected_rows, database_rows(batched))
        # The run did what the comparison is meant to cover.
        return expected

    def test_dual_state(self):
        self.assertGreater(self.check_policy('dual_state').preemptions, 0)

    def test_retry(self):
        self.check_policy('retry')

    def test_plain(self):
        self.check_policy('plain')

    def test_qos(self):
        self.assertGreater(self.check_policy('qos').preemptions, 0)

    def test_priority(self):
        self.assertGreater(self.check_policy('priority').preemptions, 0)

    def test_default_store_is_the_memory_store_without_a_database(self):
        simulation = runner.Simulation(mixed_workload(count=4),
                                       small_cloud(), until=900.0)
        result = simulation.run()
        store = simulation.store
        self.assertIsInstance(store, memory.MemoryStore)
        self.assertFalse(store.journaled)
        self.assertIsNone(store.engine)
        self.assertEqual(4, len(store.list_requests()))
        self.assertEqual(
            {row.id for row in store.list_instances()},
            {record.id for record in result.records})
        self.assertRaises(errors.NoJournal, store.list_events)
        # The same outputs as with the journal written to a database.
        journaled = runner.Simulation(
            mixed_workload(count=4), small_cloud(), until=900.0,
            store_factory=lambda: memory.MemoryStore('sqlite://')).run()
        self.assertEqual(outputs(journaled), outputs(result))
