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

import dataclasses
import os

import fixtures

from preemptible_sched import objects
from preemptible_sched.service_classes.sla_prices import per_class
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import report
from preemptible_sched.simulation import report_tables
from preemptible_sched.simulation import sla_accounts
from preemptible_sched.simulation.traces import records
from tests import base

PREMIUM = objects.SLALevels('premium', 'premium', 'premium', 'premium')


def copy(copy_id, host, start, running, cores=24.0, end=None):
    return metrics.InstanceRecord(
        id=copy_id, service_class=None, preemptible=False, submit_s=5.0,
        end_s=start + running if end is None else end, running_s=running,
        pending_s=start - 5.0, overhead_s=0.0, availability=0.5,
        preemptions=0, terminated=False, host=host, user='alice',
        cores=cores, copies=host, start_s=start)


def item(item_id, levels=PREMIUM, user='alice'):
    return records.WorkloadItem(
        id=item_id, submit_s=5.0, duration_s=None,
        resources=objects.Resources(0, 1024, 0), sla=levels,
        sequential_s=300.0, user=user)


class TestRecords(base.TestCase):

    def test_copies_become_one_request(self):
        plain = copy('vm', 'x', 1.0, 10.0)
        rows = [('r', copy('r-1', 'h2', 9.0, 12.5)), ('vm', plain),
                ('r', copy('r-0', 'h1', 7.0, 12.5)),
                ('r', copy('r-2', 'h3', 8.0, 10.0))]
        served, priced = sla_accounts.records(
            rows, {'r': item('r'), 'vm': records.WorkloadItem(
                'vm', 0.0, 10.0, objects.Resources(1, 1, 0))},
            per_class.PerClassPrice())
        self.assertEqual(['r', 'vm'], [record.id for record in served])
        merged = served[0]
        # Served from its first copy's start to its last copy's end.
        self.assertEqual((7.0, 21.5, 12.5, 'h1;h2;h3', 'h1', 24.0),
                         (merged.start_s, merged.end_s, merged.running_s,
                          merged.copies, merged.host, merged.cores))
        self.assertIs(plain, served[1])
        invoice = priced[0].invoice
        self.assertEqual((2.0, 'high', ('h1', 'h2', 'h3'),
                          24.0 * (12.5 + 12.5 + 10.0)),
                         (invoice.wait_s, invoice.category, invoice.copies,
                          invoice.core_seconds))
        # premium: 3.0 per core-hour.
        self.assertAlmostEqual(3.0 * 840.0 / 3600.0, priced[0].price)
        self.assertEqual(('r', 'alice', 'premium', 'premium', 'premium',
                          'premium', 'high', 2.0, 24.0, 'h1;h2;h3', 840.0),
                         priced[0].row()[:-1])

    def test_a_copy_still_running_keeps_the_request_alive(self):
        alive = dataclasses.replace(copy('r-1', 'h2', 7.0, 3.0), end_s=None)
        served, _ = sla_accounts.records(
            [('r', copy('r-0', 'h1', 7.0, 12.5)), ('r', alive)],
            {'r': item('r')}, per_class.PerClassPrice())
        self.assertIsNone(served[0].end_s)
        self.assertEqual(12.5, served[0].running_s)

    def test_totals_per_class_and_user(self):
        price = per_class.PerClassPrice()
        best = objects.SLALevels()
        _, priced = sla_accounts.records(
            [('a', copy('a-0', 'h1', 10.0, 12.5)),
             ('b', copy('b', 'l1', 20.0, 30.0, cores=10.0)),
             ('c', copy('c', 'l2', 30.0, 60.0, cores=5.0))],
            {'a': item('a'), 'b': item('b', best, 'bob'),
             'c': item('c', best, 'bob')}, price)
        totals = sla_accounts.totals(priced)
        self.assertEqual(['premium', 'best_effort'],
                         list(totals['per_class'])[::-1])
        bob = totals['per_user']['bob']
        self.assertEqual((2, 2, 600.0, 7.5, 25.0, 20.0),
                         (bob['requests'], bob['copies'],
                          bob['core_seconds'], bob['mean_cores'],
                          bob['mean_start_s'], bob['mean_wait_s']))
        self.assertAlmostEqual(600.0 / 3600.0, bob['price'])


class TestOutputs(base.TestCase):

    def test_invoices_csv_gantt_and_tables(self):
        directory = os.path.join(self.useFixture(fixtures.TempDir()).path,
                                 'run')
        record, priced = sla_accounts.merge(
            item('r'), [copy('r-0', 'h1', 7.0, 12.5),
                        copy('r-1', 'h2', 7.0, 12.5)],
            per_class.PerClassPrice())
        summary = {'policy': 'dual_state', 'per_class': {},
                   'sla': sla_accounts.totals([priced])}
        names = report.write_outputs(directory, [record], summary,
                                     invoices=[priced.row()])
        with open(os.path.join(directory, 'invoices.csv')) as stream:
            lines = stream.read().splitlines()
        self.assertEqual(','.join(sla_accounts.INVOICE_COLUMNS), lines[0])
        self.assertEqual('r,alice,premium,premium,premium,premium,high,2,'
                         '24,h1;h2,600,0.5', lines[1])
        if plots.available():
            self.assertIn('sla_gantt.png', names)
        tables = report_tables.sla_tables(summary['sla'])
        self.assertEqual(['alice', '1', '2', '24.00', '7.0', '2.0', '0.17',
                          '0.50'], tables[0].rows[0])
        self.assertEqual([], report_tables.sla_tables(None))
