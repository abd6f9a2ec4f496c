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

"""The invariants checked after every soak scenario (:data:`INVARIANTS`).

Each check takes what the scenario left (the compute side's history and
what it runs, the database rows, the loop's books) and returns the
:class:`Violation` s it finds.
"""

import collections
import dataclasses

from tests.soak import scenarios


#: What is checked after every scenario.
INVARIANTS = (
    # Every request ends placed (its instances running or ended),
    # failed with a reason, deleted (only when the workload deleted it),
    # or still legitimately waiting; nothing is stuck half-way.
    'request_outcome',
    # No instance is terminated twice by the compute side.
    'terminated_twice',
    # No instance boots again after it was terminated or ended (unless it
    # was displaced and requeued by design, on_victim = requeue).
    'resurrected',
    # No normal instance is terminated by a preemption decision.
    'normal_terminated',
    # No spawn reaches a host that cannot hold it (the fake refuses it: a
    # real host would be overcommitted).
    'overcommitted',
    # The database equals what the compute side runs, host by host.
    'db_equals_compute',
    # The loop's in-memory books equal what the compute side runs.
    'books_equal_compute',
    # A multi-instance request runs all of its instances or none.
    'all_or_nothing',
    # The scheduler raised something other than an injected crash (the
    # service would have died; the soak restarts it).
    'scheduler_exception',
)


@dataclasses.dataclass(frozen=True)
class Violation:
    invariant: str
    detail: str


# -- the checks ---------------------------------------------------------------

def check_compute_history(history, requeue_allowance=None):
    """``terminated_twice`` and ``resurrected`` from the compute history.

    ``history`` is :attr:`SoakDriver.history`; ``requeue_allowance`` maps an
    instance to how many times it was displaced and requeued by design
    (``on_victim = requeue``: each such termination may be followed by one
    new boot). A boot after a natural end or after any other termination
    is a resurrection; in ``terminate`` mode (no allowance) a second
    termination is one too many. (A boot after a crash or a host failure
    is not: with the start report lost, the loop may rightly take a crash
    for a failed boot and try again.)
    """
    allowance = dict(requeue_allowance or {})
    found = []
    for instance_id, events in sorted(history.items()):
        terminations = [event for event in events
                        if event[1] == 'terminated']
        if len(terminations) > 1 and not allowance.get(instance_id):
            found.append(Violation('terminated_twice', '%s terminated %d '
                                   'times (at %s)' % (
                                       instance_id, len(terminations),
                                       ', '.join('%.1f on %s' % (e[0], e[2])
                                                 for e in terminations))))
        gone = None
        for at, what, host, detail in events:
            if what == 'terminated':
                gone = ('terminated', at, host)
            elif what == 'ended':
                gone = ('ended', at, host)
            elif what == 'spawned':
                if gone is not None:
                    if gone[0] == 'terminated' and \
                            allowance.get(instance_id, 0) > 0:
                        allowance[instance_id] -= 1
                    else:
                        found.append(Violation(
                            'resurrected', '%s spawned on %s at %.1f after '
                            'it was %s at %.1f on %s' % (
                                instance_id, host, at, gone[0], gone[1],
                                gone[2])))
                gone = None
    return found


def check_overcommits(overcommits):
    return [Violation('overcommitted', 'spawn of %s on %s at %.1f: %s'
                      % (instance_id, host, at, reason))
            for at, host, instance_id, reason in overcommits]


def check_db_equals_compute(rows, truth):
    """Every instance the store puts on a host (building, running or
    terminating) runs there, and the reverse.
    """
    found = []
    in_db = collections.defaultdict(dict)
    by_id = {}
    for row in rows:
        by_id[row.id] = row
        if row.host is not None and row.state in ('building', 'running',
                                                  'terminating'):
            in_db[row.host][row.id] = row.state
    for host in sorted(set(truth) | set(in_db)):
        real = truth.get(host, {})
        books = in_db.get(host, {})
        for instance_id in sorted(set(real) - set(books)):
            row = by_id.get(instance_id)
            said = 'nothing' if row is None else '%s on %s' % (row.state,
                                                               row.host)
            found.append(Violation(
                'db_equals_compute', '%s is %s on %s, the database says %s'
                % (instance_id, real[instance_id], host, said)))
        for instance_id in sorted(set(books) - set(real)):
            found.append(Violation(
                'db_equals_compute', 'the database has %s %s on %s, which '
                'does not run it' % (instance_id, books[instance_id],
                                     host)))
    return found


def check_books_equal_compute(instance_hosts, truth):
    """The loop's host manager places every instance where it runs."""
    found = []
    real = {instance_id: host for host, present in truth.items()
            for instance_id in present}
    for instance_id in sorted(set(real) | set(instance_hosts)):
        if real.get(instance_id) != instance_hosts.get(instance_id):
            found.append(Violation(
                'books_equal_compute', '%s runs on %s, the loop counts it '
                'on %s' % (instance_id, real.get(instance_id),
                           instance_hosts.get(instance_id))))
    return found


def check_normal_terminated(rows, decisions, history, deleted, spot,
                            requeue, failed=(), displaced=None):
    """No normal instance is terminated by a preemption decision.

    With a spot strategy (``dual_state``, ``retry``) no decision may even
    name a normal victim. With any strategy a normal instance may be
    terminated by the compute side only when its request was deleted,
    when one of its request's instances failed (a multi-instance request
    rolled back), or when it was displaced and requeued by design
    (class-based strategies with ``on_victim = requeue``: as many times as
    ``displaced`` says, by default as many as decisions confirmed it gone);
    and no normal instance ends ``terminated``.
    """
    found = []
    by_id = {row.id: row for row in rows}
    failed_requests = {row.request_id for row in rows
                       if row.state == 'error'} | set(failed or ())
    confirmed = collections.Counter()
    for decision in decisions:
        for victim_id in decision.victims:
            row = by_id.get(victim_id)
            if spot and row is not None and not row.preemptible:
                found.append(Violation(
                    'normal_terminated', 'decision %s (%s) names the '
                    'normal instance %s as a victim' % (
                        decision.id, decision.state, victim_id)))
        for victim_id in decision.confirmed or ():
            confirmed[victim_id] += 1
    for row in rows:
        if row.preemptible:
            continue
        if row.state == 'terminated':
            found.append(Violation(
                'normal_terminated', 'the normal instance %s ended '
                'terminated (%s)' % (row.id, row.reason or 'no reason')))
        terminations = [event for event in history.get(row.id, ())
                        if event[1] == 'terminated']
        allowed = 0
        if row.request_id in deleted or row.request_id in failed_requests:
            allowed += 1
        if requeue and not spot:
            allowed += confirmed[row.id] if displaced is None else \
                displaced.get(row.id, 0)
        if len(terminations) > allowed:
            found.append(Violation(
                'normal_terminated', 'the normal instance %s was '
                'terminated by the compute side at %s (state %s)' % (
                    row.id, ', '.join('%.1f' % e[0] for e in terminations),
                    row.state)))
    return found


def _pack(sizes, rooms):
    """Whether ``sizes`` fit ``rooms`` (first fit, largest first)."""
    rooms = [list(room) for room in rooms]
    for size in sorted(sizes, reverse=True):
        for room in rooms:
            if all(need <= have + scenarios.EPSILON
                   for need, have in zip(size, room)):
                for index, need in enumerate(size):
                    room[index] -= need
                break
        else:
            return False
    return True


def check_outcomes(requests, rows, truth_rooms, deleted, ran, spot):
    """``request_outcome`` and ``all_or_nothing``.

    ``truth_rooms(normal_only)`` returns the free room of every up host as
    the compute side sees it (``normal_only``: as if no preemptible
    instance ran there); ``deleted`` holds the requests the workload
    deleted; ``ran`` the instances the compute side ever ran.

    An instance pending without a host is legitimately waiting when its
    request (its pending instances, all together) could not be placed on
    the free room now, nor, for a normal request under a spot strategy,
    on the room with every preemptible instance gone.
    """
    found = []
    by_request = collections.defaultdict(list)
    for row in rows:
        by_request[row.request_id].append(row)
    for request in requests:
        mine = by_request.get(request.id, [])
        status = request.status
        if status == 'deleted' and request.id not in deleted:
            found.append(Violation('request_outcome', 'request %s is '
                                   'deleted; nobody deleted it'
                                   % request.id))
        if status == 'failed' and not request.reason:
            found.append(Violation('request_outcome', 'request %s failed '
                                   'without a reason' % request.id))
        waiting = []
        for row in mine:
            where = '%s (request %s, %s)' % (row.id, request.id, status)
            if row.state in ('building', 'terminating', 'preempted') or (
                    row.state == 'pending' and row.host is not None):
                found.append(Violation('request_outcome', '%s is stuck %s%s'
                                       % (where, row.state,
                                          ' on %s' % row.host
                                          if row.host else '')))
            elif row.state == 'error' and not row.reason:
                found.append(Violation('request_outcome', '%s is in error '
                                       'without a reason' % where))
            elif row.state == 'deleted' and request.id not in deleted:
                found.append(Violation('request_outcome', '%s is deleted; '
                                       'nobody deleted it' % where))
            elif row.state in ('running',) and request.id in deleted:
                found.append(Violation('request_outcome', '%s still runs; '
                                       'its request was deleted' % where))
            elif row.state == 'pending':
                waiting.append(row)
                if request.id in deleted:
                    found.append(Violation('request_outcome', '%s waits; '
                                           'its request was deleted'
                                           % where))
        if waiting and status != 'pending':
            found.append(Violation('request_outcome', 'request %s is %s '
                                   'while %s wait(s) for a host' % (
                                       request.id, status, ', '.join(
                                           row.id for row in waiting))))
        if status == 'pending' and not waiting and mine:
            found.append(Violation('request_outcome', 'request %s is '
                                   'pending, none of its instances waits '
                                   '(%s)' % (request.id, ', '.join(
                                       '%s %s' % (row.id, row.state)
                                       for row in mine))))
        if waiting and request.id not in deleted:
            groups = [[row] for row in waiting if row.preemptions]
            fresh = [row for row in waiting if not row.preemptions]
            if fresh:
                groups.append(fresh)
            for group in groups:
                sizes = [(row.vcpus, row.memory_mb, row.disk_gb)
                         for row in group]
                normal_room = spot and not group[0].preemptible
                if _pack(sizes, truth_rooms(False)) or (
                        normal_room and _pack(sizes, truth_rooms(True))):
                    found.append(Violation(
                        'request_outcome', '%s of request %s wait(s) '
                        'although the cloud has room for them' % (
                            ', '.join(row.id for row in group),
                            request.id)))
        if len(mine) > 1 and request.id not in deleted and \
                status != 'failed':
            started = [row.id for row in mine if row.id in ran]
            # Gave up: neither waiting nor displaced. An instance
            # chosen as the victim of a decision before it ran was
            # displaced by design, one instance at a time, and did not
            # give up, whether it then ended terminated (or preempted) or
            # in error because its own failed spawn was reported during
            # its termination (seeds 293, 557, 856 and 972 of the first
            # long run: preemptible instances of multi-instance requests
            # chosen as victims while building).
            never = [row for row in mine if row.id not in ran and
                     row.state not in ('pending', 'terminated',
                                       'preempted') and
                     getattr(row, 'terminated_by', None) is None]
            if started and never:
                found.append(Violation(
                    'all_or_nothing', 'request %s is %s: %s ran, %s never '
                    'did and gave up (%s)' % (
                        request.id, status, ', '.join(started),
                        ', '.join(row.id for row in never), ', '.join(
                            '%s %s%s' % (row.id, row.state,
                                         ': %s' % row.reason
                                         if row.reason else '')
                            for row in never))))
        if status == 'failed':
            alive = [row.id for row in mine
                     if row.state in ('building', 'running')]
            if alive:
                found.append(Violation(
                    'all_or_nothing', 'request %s failed (%s) but %s still '
                    'run(s)' % (request.id, request.reason,
                                ', '.join(alive))))
    return found
