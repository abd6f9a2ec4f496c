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

"""Dynamic sizing: a moldable request's cores, fixed just before filtering.

A moldable request (one with a ``sequential_s``) does not say how many
cores it wants. Within a pass, when its turn comes, an SLA request is given
its fair share of the idle cores of its reputation category, clamped to the
band of its resources level
(:func:`preemptible_sched.service_classes.sla.size`); the queued requests it
shares them with are the ones still pending at that moment, so the cores left
and the queue shrink as the pass places requests. A moldable request without an
SLA keeps the vCPUs it asked for. Either way it then runs ``sequential_s /
cores``.

The size is tried, not kept, until the request is placed: a request that
waits is sized again in the next pass, on the cloud as it is then. Once it
is placed the size is fixed (:func:`fix`) in the queue entry and the
store, so a copy placed again later (its host lost) has the same cores.
"""

import dataclasses
import logging

import numpy

from preemptible_sched.service_classes import sla

LOG = logging.getLogger(__name__)


def size(entry, queue, host_manager):
    """``(spec to place, Sizing or None)`` for queue entry ``entry``; the
    spec is None when its category has no host up to size it on.
    """
    spec = entry.spec
    if not spec.moldable:
        return spec, None
    if spec.sla is None:
        return dataclasses.replace(spec, sized=True), None
    # The host table's columns: a few vector operations, whatever the
    # number of hosts; the queue's running sum of the priorities it shares
    # the cores with, whatever the number of requests waiting.
    table = host_manager.table
    sizing = sla.size_on(spec, table.capacity[0],
                         table.capacity[0] - table.full_used[0], table.up,
                         host_categories(table), (),
                         others=queue.sharing_priority(spec))
    if sizing is None:
        return None, None
    return sla.sized(spec, sizing), sizing


def host_categories(table):
    """The reputation category of each host of host table ``table``, a
    column (looked up once per host profile).
    """
    return numpy.array([sla.host_category(profile)
                        for profile in table.profiles] + [None],
                       dtype=object)[table.profile]


def fix(entry, spec, sizing, store, now):
    """The request of ``entry`` was placed as ``spec`` (sized by
    ``sizing``, a :class:`~preemptible_sched.service_classes.sla.Sizing` or
    None): keep its size.

    The entry, the request's stored spec and run time, and its instances'
    vCPUs all take it, before its decisions are journaled (the spawn reads
    the run time from the store).
    """
    if sizing is not None:
        LOG.info('Request %s sized to %d core(s): priority %d of %d '
                 'among the requests sharing the %d idle core(s) of '
                 'category %s (fair share %d, kept within %d-%d)',
                 entry.id, sizing.cores, sizing.priority,
                 sizing.total_priority, sizing.idle, sizing.category,
                 sizing.raw, sizing.band[0], sizing.band[1])
    entry.spec = spec
    entry.duration = sla.run_time(spec)
    store.set_request_size(entry.id, spec, entry.duration, now)
