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

"""Workload traces: the requests a simulation replays.

:func:`read_workload` turns a trace into :class:`.records.WorkloadItem`
requests sorted by submit time (file order breaks ties) and shifts the
times so the first request is submitted at 0 s: traces start at arbitrary
offsets and the simulated clock starts at 0 (``time_origin='trace'`` keeps the
trace's times). ``limit`` then keeps the first N requests ("a 1,000-pod
prefix").

Workflow traces (``gwf``, ``wta``) give each task its ``workflow`` and the
tasks it ``depends_on``; the scheduler loop places a task only once those
have ended (stage T1). A task that depends on a skipped task (or on one
beyond ``limit``) is skipped too; a dependency on a task the trace does
not have, or a cycle, is an error. With ``task_submit='workflow'`` every
task enters the queue at its workflow's submit time (the ``workflows``
table of a WTA trace, else its earliest task's).

Units: seconds, vCPUs (fractional allowed), memory in MB, disk in GB;
except ``google2011``, whose requests are normalised (see :mod:`.google`).

Formats (``FORMATS``; ``auto`` asks :func:`detect_format`), one reader
module each, whose documentation says how it reads its format:
``csv`` (:mod:`.native_csv`), ``alibaba`` (:mod:`.alibaba`), ``swf``
(:mod:`.swf`), ``gwf`` (:mod:`.gwf`), ``google2011`` (:mod:`.google`)
and ``wta`` (:mod:`.wta`). What they share, the limits on hostile input
included, is in :mod:`.records`. Skipped records are logged as a warning
and counted by :func:`read_workload_with_stats`.
"""

import collections
import dataclasses
import functools
import logging

from preemptible_sched import exception
from preemptible_sched.simulation.traces import alibaba
from preemptible_sched.simulation.traces import google
from preemptible_sched.simulation.traces import gwf
from preemptible_sched.simulation.traces import native_csv
from preemptible_sched.simulation.traces import records
from preemptible_sched.simulation.traces import swf
from preemptible_sched.simulation.traces import wta
from preemptible_sched.simulation import user_sampling
from preemptible_sched.simulation import workflows

LOG = logging.getLogger(__name__)

FORMATS = ('csv', 'alibaba', 'swf', 'gwf', 'google2011', 'wta')

_READERS = {'csv': native_csv.read, 'alibaba': alibaba.read,
            'swf': swf.read, 'gwf': gwf.read, 'google2011': google.read,
            'wta': wta.read}

# Columns (as column keys) that tell each CSV-like format; the reader then
# reports any other column missing.
_HEADERS = (('csv', {'id', 'submit_s'}),
            ('alibaba', {'name', 'qos', 'creation_time'}),
            ('google2011', {'jobid', 'event type', 'priority'}),
            ('gwf', {'workflowid', 'jobid'}))


def detect_format(path):
    """The format of the workload at ``path``, by extension or header.

    ``.swf``/``.swf.gz`` is swf, ``.gwf`` gwf and a directory with a
    ``tasks`` folder wta; otherwise the first row that is not a ``#``
    comment decides: a ``;`` comment is swf, a known header names its
    format, and 13 fields starting with numbers are a header-less Google
    ``task_events`` file.
    """
    if wta.is_trace(path):
        return 'wta'
    name = path.lower()
    name = name[:-3] if name.endswith('.gz') else name
    if name.endswith('.swf'):
        return 'swf'
    if name.endswith('.gwf'):
        return 'gwf'
    fields = records.first_row(path) or ['']
    if fields[0].startswith(';'):
        return 'swf'
    columns = {records.column_key(field) for field in fields}
    for fmt, header in _HEADERS:
        if header <= columns:
            return fmt
    if len(fields) == len(google.FIELDS) and all(
            fields[i].isdigit() for i in (0, 2, 3, 5)):
        return 'google2011'
    raise exception.InvalidInput(path, None, 'cannot tell the workload '
                                 'format; give --workload-format')


def read_workload_with_stats(path, fmt='auto', class_map=None,
                             default_class=None, limit=None,
                             time_origin='first_request', task_submit='task',
                             task_constraints=None, sample_users=0,
                             sample_share=1.0, sample_seed=0):
    """:func:`read_workload`, and what was read: ``{'format': fmt,
    'requests': requests before the limit, 'skipped': {reason: count}}``,
    and with user sampling ``'user_sampling'``
    (:func:`..user_sampling.sample`'s stats).
    """
    if fmt == 'auto':
        fmt = detect_format(path)
    elif fmt not in FORMATS:
        raise exception.InvalidInput(
            '--workload-format', None, 'unknown format %r (valid: auto, %s)'
            % (fmt, ', '.join(FORMATS)))
    if limit is not None and limit < 1:
        raise exception.InvalidInput('limit', None,
                                     'must be >= 1, got %r' % limit)
    reader = _READERS[fmt]
    if task_constraints is not None:
        if fmt != 'google2011':
            raise exception.InvalidInput(
                task_constraints, None, 'task_constraints go with a '
                'google2011 workload, not a %s one' % fmt)
        reader = functools.partial(google.read,
                                   constraints_path=task_constraints)
    skipped = records.Skipped()
    items = list(reader(path, class_map or {}, default_class, skipped))
    items = workflows.close_dependencies(path, items, skipped.ids, skipped)
    sampled = None
    if sample_users:
        kept, sampled = user_sampling.sample(items, sample_users,
                                             sample_share, sample_seed)
        LOG.info('%s: kept %d of %d users (%d of %d requests); by '
                 'cluster, kept/users: %s', path, sampled['kept_users'],
                 sampled['users'], len(kept), len(items), ', '.join(
                     '%(kept)d/%(users)d' % c for c in sampled['clusters']))
        left_out = {item.id for item in items} - {item.id for item in kept}
        items = workflows.close_dependencies(path, kept, left_out,
                                             collections.Counter())
    if task_submit == 'workflow':
        items = workflows.at_workflow_submit(items)
    items.sort(key=lambda item: item.submit_s)
    if limit is not None and limit < len(items):
        kept = workflows.close_dependencies(path, items[:limit],
                                            {item.id for item in
                                             items[limit:]},
                                            collections.Counter())
        dropped = limit - len(kept)
    else:
        kept, dropped = items, 0
    reasons = ', '.join('%d %s' % (count, reason)
                        for reason, count in sorted(skipped.items()))
    if not items:
        raise exception.InvalidInput(path, None, 'no requests to replay%s'
                                     % (' (skipped: %s)' % reasons
                                        if reasons else ''))
    if skipped:
        LOG.warning('%s: skipped %s', path, reasons)
    if dropped:
        LOG.warning('%s: %d task(s) of the first %d depend on tasks beyond '
                    'the limit and are left out', path, dropped, limit)
    stats = {'format': fmt, 'requests': len(items), 'skipped': dict(skipped)}
    if sampled is not None:
        stats['user_sampling'] = sampled
    if time_origin == 'trace':
        if items[0].submit_s < 0:
            raise exception.InvalidInput(
                path, None, 'request %s is submitted at %g s: negative '
                'times cannot be kept ([replay] time_origin = trace)'
                % (items[0].id, items[0].submit_s))
        return kept, stats
    start = items[0].submit_s
    return [dataclasses.replace(
        item, submit_s=item.submit_s - start,
        workflow_submit_s=None if item.workflow_submit_s is None
        else item.workflow_submit_s - start) for item in kept], stats


def read_workload(path, fmt='auto', class_map=None, default_class=None,
                  limit=None, time_origin='first_request', task_submit='task',
                  task_constraints=None, sample_users=0, sample_share=1.0,
                  sample_seed=0):
    """The requests of the trace at ``path``, sorted, first at 0 s.

    ``fmt`` is one of ``FORMATS`` or ``auto``; ``class_map`` maps the
    trace's classes (Alibaba QoS, SWF queue, Google priority, as written)
    to service classes; ``default_class`` is the class of requests the
    trace gives none (canonical CSV, SWF, GWF); ``limit`` keeps the first
    N requests; ``time_origin`` (``first_request`` or ``trace``) and
    ``task_submit`` (``task`` or ``workflow``) are those of ``[replay]``.
    ``task_constraints`` is a Google ``task_constraints`` file for a
    ``google2011`` workload (:func:`.google.task_constraints`).
    ``sample_users`` clusters (0: no sampling) keep ``sample_share`` of
    each cluster's users, drawn with ``sample_seed``
    (:mod:`..user_sampling`), before the limit. Raises
    :class:`InvalidInput` on any problem.
    """
    return read_workload_with_stats(
        path, fmt, class_map, default_class, limit, time_origin,
        task_submit, task_constraints, sample_users, sample_share,
        sample_seed)[0]
