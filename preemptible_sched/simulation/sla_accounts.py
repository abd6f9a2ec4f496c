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

"""The accounts of SLA requests after a run: one record and one invoice
per request, totals per class and per user.

An SLA request runs as copies (instances) on distinct hosts; instances.csv
has one row per request all the same: its ``copies`` column lists the
hosts of its copies, ``start_s`` is when its first copy started (it is
served from then on), ``end_s`` when its last one ended, and its running
time that of its longest-running copy. Its invoice (§8 of the algorithms)
holds its wait (submission to first start), reputation category, cores
per copy, copies, core-seconds over every copy and service levels, priced
by the configured price function (``[sla] price``).
"""

import dataclasses
import statistics
import typing

from preemptible_sched.service_classes import sla
from preemptible_sched.simulation import metrics

#: Columns of invoices.csv, in order.
INVOICE_COLUMNS = ('request', 'user', 'sla_satisfaction', 'sla_reputation',
                   'sla_resources', 'sla_replicas', 'category', 'wait_s',
                   'cores', 'copies', 'core_seconds', 'price')


@dataclasses.dataclass(frozen=True)
class Priced:
    """An invoice, the amount the price function gave it and when the
    request started (None: never).
    """

    invoice: sla.Invoice
    price: float
    start_s: typing.Optional[float] = None

    def row(self):
        """Its row of invoices.csv, in :data:`INVOICE_COLUMNS` order."""
        invoice = self.invoice
        return (invoice.request, invoice.user) + tuple(invoice.levels) + (
            invoice.category, invoice.wait_s, invoice.cores,
            ';'.join(invoice.copies), invoice.core_seconds, self.price)


def merge(item, copies, price):
    """``(record, Priced)`` of SLA workload item ``item`` from the
    :class:`~.metrics.InstanceRecord` of each of its ``copies`` (with
    ``cores``, ``start_s`` and ``copies`` holding each copy's host).
    """
    copies = sorted(copies, key=lambda record: record.id)
    starts = [record.start_s for record in copies
              if record.start_s is not None]
    start = min(starts) if starts else None
    ends = [record.end_s for record in copies]
    alive = any(end is None for end in ends)
    longest = max(copies, key=lambda record: record.running_s)
    hosts = tuple(record.copies for record in copies if record.copies)
    record = dataclasses.replace(
        longest, id=item.id, submit_s=min(r.submit_s for r in copies),
        end_s=None if alive else max(ends),
        preemptions=sum(r.preemptions for r in copies),
        terminated=all(r.terminated for r in copies),
        host=hosts[0] if hosts else None, copies=';'.join(hosts) or None,
        start_s=start, user=item.user,
        cores=max(r.cores or 0.0 for r in copies))
    invoice = sla.Invoice(
        request=item.id, user=item.user, levels=item.sla,
        category=sla.CATEGORY[item.sla.reputation],
        wait_s=None if start is None else start - record.submit_s,
        cores=record.cores, copies=hosts,
        core_seconds=sum((r.cores or 0.0) * r.running_s for r in copies))
    return record, Priced(invoice, float(price.price(invoice)), start)


def records(rows, items, price):
    """Per-request records and invoices of a run: ``rows`` are
    ``(request id, InstanceRecord)`` per instance, in the store's order;
    ``items`` the workload items by id. Copies of an SLA request become
    one record, where its first copy was.
    """
    merged = []
    groups = {}
    for request_id, record in rows:
        item = items.get(request_id)
        if item is None or item.sla is None:
            merged.append(record)
            continue
        if request_id not in groups:
            groups[request_id] = []
            merged.append(request_id)
        groups[request_id].append(record)
    out = []
    priced = []
    for entry in merged:
        if isinstance(entry, metrics.InstanceRecord):
            out.append(entry)
            continue
        record, invoice = merge(items[entry], groups[entry], price)
        out.append(record)
        priced.append(invoice)
    return out, priced


def _mean(values):
    values = [value for value in values if value is not None]
    return statistics.fmean(values) if values else None


def totals(priced):
    """summary.json's ``sla``: per class (reputation level) and per user,
    the requests, copies, core-seconds and price, the mean cores, wait
    and start (of the requests that started).
    """
    def group(key):
        groups = {}
        for entry in priced:
            groups.setdefault(key(entry.invoice), []).append(entry)
        return {name: {
            'requests': len(entries),
            'copies': sum(len(e.invoice.copies) for e in entries),
            'core_seconds': sum(e.invoice.core_seconds for e in entries),
            'price': sum(e.price for e in entries),
            'mean_cores': _mean([e.invoice.cores for e in entries]),
            'mean_wait_s': _mean([e.invoice.wait_s for e in entries]),
            'mean_start_s': _mean([e.start_s for e in entries]),
        } for name, entries in sorted(groups.items(),
                                      key=lambda pair: str(pair[0]))}

    return {'per_class': group(lambda invoice: invoice.sla_class),
            'per_user': group(lambda invoice: invoice.user or '')}
