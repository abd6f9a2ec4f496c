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

"""The pending queue: admission (J2), order (J3/T2) and eligibility (T1).

Requests arrive (new, or an instance coming back after a preemption or a
failed spawn) and wait in ``arrivals`` until the next pass admits them
(J2); the admitted ones are ordered by the queue policy (T2); each is then
checked for eligibility (T1) before the filter scheduler is asked. The
queue holds plain :class:`~preemptible_sched.objects.PendingRequest`
entries and touches neither the database nor the hosts.

Workflow tasks (entries with ``depends_on``) are held back, outside the
ordered queue, until every request they depend on has ended: the queue is
told when a request ends (:meth:`PendingQueue.request_ended`) and a pass
releases the tasks whose last dependency ended (:meth:`PendingQueue.release`,
stage T1). The work is incremental: each dependency edge is looked at
once when its task is admitted and once when its dependency ends, however
many passes the task waits.
"""

import bisect
import collections
import itertools

from preemptible_sched import objects
from preemptible_sched.queue import replays
from preemptible_sched.service_classes import sla


def _kind(spec):
    """What, besides size, decides whether a request can be placed; None
    when its placement depends on more (constraints, zones, groups, SLA
    levels, whose category and sized cores vary).
    """
    if spec.constraints or spec.availability_zone or spec.group or \
            spec.num_instances != 1 or spec.sla is not None:
        return None
    return (spec.preemptible, spec.service_class, spec.priority)


class Eligibility:
    """T1 within one pass: which requests are worth asking about.

    A request is skipped when a request of the same kind, no larger,
    already failed in this pass: that one came earlier in the queue order,
    so it could displace at least the instances this one could (policies
    only narrow the candidates further down the queue); if it found no
    host, neither will this one. This keeps a pass over a long queue on a
    full cloud cheap. (Workflow dependencies are the queue's: a task
    waiting for one is not in the ordered queue at all.)

    ``kinds`` maps entry sequences to their kind when the queue knows it
    already, and ``shapes`` counts the queue's entries by (kind, size)
    (see :meth:`PendingQueue.eligibility`).

    Moldable SLA requests have no shape before they are sized: with
    ``classes`` (a :class:`~preemptible_sched.queue.replays.
    FailedClasses`) one that would be sized and asked about exactly as a
    request that failed since the pass last placed something is skipped
    (:meth:`replays`).
    """

    def __init__(self, kinds=None, shapes=None, classes=None):
        self.failed = {}
        self.kinds = {} if kinds is None else kinds
        self.shapes = shapes
        self.classes = classes

    def _shape_blocked(self, kind, size):
        if kind is None or kind not in self.failed:
            return False
        return any(smaller.vcpus <= size.vcpus and
                   smaller.memory_mb <= size.memory_mb and
                   smaller.disk_gb <= size.disk_gb
                   for smaller in self.failed[kind])

    def _kind_of(self, entry):
        kind = self.kinds.get(entry.sequence, _kind)
        return _kind(entry.spec) if kind is _kind else kind

    def eligible(self, entry):
        return not self._shape_blocked(self._kind_of(entry),
                                       entry.spec.resources)

    def failed_to_place(self, entry):
        kind = self._kind_of(entry)
        if kind is not None:
            self.failed.setdefault(kind, []).append(entry.spec.resources)
        if self.classes is not None:
            self.classes.failed_to_place(entry)

    def replays(self, entry):
        """True when ``entry`` (a moldable SLA request) need not be asked
        about: it would fail as one did since the last placement (see
        :class:`~preemptible_sched.queue.replays.FailedClasses`).
        """
        return self.classes is not None and self.classes.replays(entry)

    def placed(self):
        """The pass placed a request: what failed of the moldable SLA
        requests no longer tells about the others (the hosts and the
        queue changed).
        """
        if self.classes is not None:
            self.classes.placed()

    def keep(self, entries):
        """The entries of ``entries`` still eligible, in order (one call
        after each failure instead of a check per entry: a long queue on
        a full cloud is dropped in one sweep).
        """
        if not self.failed:
            # No fixed shape failed (a moldable request's failure blocks
            # none): every entry is kept, without a sweep.
            return entries
        # On a saturated cloud every shape of the queue has usually
        # failed: then nothing is left, whatever the order.
        if self.shapes is not None and all(
                self._shape_blocked(kind, size)
                for kind, size in self.shapes):
            return []
        # eligible() inlined: this runs over the whole queue.
        failed, kinds = self.failed, self.kinds
        kept = []
        for entry in entries:
            kind = kinds.get(entry.sequence, _kind)
            if kind is _kind:
                kind = _kind(entry.spec)
            smaller_ones = failed.get(kind) if kind is not None else None
            if smaller_ones is not None:
                vcpus, memory_mb, disk_gb = entry.spec.resources
                for smaller in smaller_ones:
                    if smaller.vcpus <= vcpus and \
                            smaller.memory_mb <= memory_mb and \
                            smaller.disk_gb <= disk_gb:
                        break
                else:
                    kept.append(entry)
                continue
            kept.append(entry)
        return kept


class PendingQueue:
    """Entries waiting for a host, keyed by their sequence number.

    ``sort_every_pass``: a time-invariant policy's order is sorted again
    at every :meth:`order` (as the SC18 artifact's passes do) instead of
    read from the queue kept in order; the same order either way.
    """

    def __init__(self, policy, sort_every_pass=False):
        self.policy = policy
        self.sort_every_pass = sort_every_pass
        self.entries = {}
        self.arrivals = []
        # Bumped whenever entries or arrivals change (see signature).
        self._changes = 0
        self._sequence = itertools.count()
        #: entries waiting for dependencies, by sequence (stage T1)
        self.blocked = {}
        # sequence -> dependencies not ended yet; request id -> blocked
        # entries waiting for it
        self._unmet = {}
        self._dependents = {}
        # Requests that ended (all their instances), and those that ended
        # since the last release.
        self._ended = set()
        self._newly_ended = []
        self._instances_left = {}
        # sequence -> kind (see Eligibility), and -> sort key when the
        # policy's keys do not change while a request waits: computed
        # once, when the entry joins the ordered queue.
        self._kinds = {}
        self._shapes = collections.Counter()
        # sequence -> (class number, level, (level, request id), request
        # id) of the moldable SLA entries, and their classes (replays.py)
        self._classes = {}
        self._class_of = {}
        self._class_numbers = replays.Numbering()
        self._keys = {} if getattr(policy, 'time_invariant', False) \
            else None
        # The ordered queue kept sorted as entries come and go, each entry
        # beside its key: with such keys, by (key, the order it joined in)
        # (a pass copies the list instead of sorting the queue); for a
        # policy that orders the queue in every pass from the requests
        # alone, by sequence (it is handed them in arrival order).
        self._sorted_keys = []
        self._sorted_entries = []
        self._joined = itertools.count()
        # sequence -> the policy's entry_key, in the order of entries
        self._entry_keys = {} if self._keys is None and getattr(
            policy, 'entry_keys', False) else None
        # Dynamic sizing's shares, kept as entries come and go: sequence
        # -> (reputation level, request id, priority) of each admitted
        # entry that shares, and the priorities summed per level and per
        # (level, request).
        self._shares = {}
        self._share_total = collections.Counter()
        self._share_of_request = collections.Counter()

    def add(self, spec, submitted_at, duration=None, attempts=0,
            running_s=0.0, overhead_s=0.0, reason=None, preempted=False,
            depends_on=(), work_s=None):
        """A request arrives; the next pass admits it.

        ``depends_on`` names the requests that must have ended before it
        may be placed; ``work_s`` is the part of ``duration`` a displaced
        instance had done (see :class:`~preemptible_sched.objects.
        PendingRequest`).
        """
        entry = objects.PendingRequest(spec, submitted_at,
                                       next(self._sequence), duration,
                                       attempts, running_s,
                                       overhead_s, reason, preempted,
                                       tuple(depends_on), work_s=work_s)
        self.arrivals.append(entry)
        self._changes += 1
        return entry

    def admit(self, accept):
        """J2: move the arrivals in; ``accept(entry)`` may refuse one
        (it then handles it). An entry with dependencies that have not all
        ended is held back (see :meth:`release`). Returns how many arrived.
        """
        # No change to count: each arrival counted when it came (add).
        arrivals, self.arrivals = self.arrivals, []
        for entry in arrivals:
            if not accept(entry):
                continue
            unmet = [request_id for request_id in set(entry.depends_on)
                     if request_id not in self._ended]
            if not unmet:
                self._enter(entry)
                continue
            self.blocked[entry.sequence] = entry
            self._unmet[entry.sequence] = len(unmet)
            for request_id in unmet:
                self._dependents.setdefault(request_id, []).append(entry)
        return len(arrivals)

    def expect(self, request_id, instances):
        """``request_id`` ends once ``instances`` instances ended."""
        self._instances_left[request_id] = instances

    def instance_ended(self, request_id):
        """One instance of ``request_id`` ended (state ``ended``)."""
        left = self._instances_left.get(request_id, 1) - 1
        if left > 0:
            self._instances_left[request_id] = left
            return
        self._instances_left.pop(request_id, None)
        self.request_ended(request_id)

    def request_ended(self, request_id):
        """Every instance of ``request_id`` ended: its dependents may go
        at the next :meth:`release`.
        """
        if request_id not in self._ended:
            self._ended.add(request_id)
            if request_id in self._dependents:
                self._newly_ended.append(request_id)

    def release(self):
        """T1: admit the blocked entries whose last dependency ended
        since the last call. Returns how many dependency edges it looked
        at (the stage's input size).
        """
        examined = 0
        newly_ended, self._newly_ended = self._newly_ended, []
        for request_id in newly_ended:
            for entry in self._dependents.pop(request_id, ()):
                examined += 1
                sequence = entry.sequence
                if sequence not in self.blocked:
                    continue        # withdrawn meanwhile
                self._unmet[sequence] -= 1
                if not self._unmet[sequence]:
                    del self._unmet[sequence]
                    self._enter(self.blocked.pop(sequence))
        return examined

    def _enter(self, entry):
        """``entry`` joins the ordered queue."""
        self.entries[entry.sequence] = entry
        self._changes += 1
        kind = self._kinds[entry.sequence] = _kind(entry.spec)
        self._shapes[kind, entry.spec.resources] += 1
        klass = replays.sla_class(entry)
        if klass is not None:
            level = entry.spec.sla.reputation
            self._class_of[entry.sequence] = klass
            self._classes[entry.sequence] = (
                self._class_numbers.take(klass), level, (level, entry.id),
                entry.id)
        if self._entry_keys is not None:
            self._entry_keys[entry.sequence] = self.policy.entry_key(entry)
        else:
            item = entry.sequence
            if self._keys is not None:
                # Equal keys keep the order they joined in, as a stable
                # sort of the queue would.
                item = (self.policy.sort_key(entry, None), next(self._joined))
                self._keys[entry.sequence] = item
            at = bisect.bisect(self._sorted_keys, item)
            self._sorted_keys.insert(at, item)
            self._sorted_entries.insert(at, entry)
        shares = sla.sharing(entry.spec)
        if shares is not None:
            level, priority = shares
            self._shares[entry.sequence] = (level, entry.id, priority)
            self._share_total[level] += priority
            self._share_of_request[level, entry.id] += priority

    def _forget(self, sequence):
        entry = self.entries.pop(sequence, None)
        if entry is None:
            return
        self._changes += 1
        shares = self._shares.pop(sequence, None)
        if shares is not None:
            level, request_id, priority = shares
            self._share_total[level] -= priority
            self._share_of_request[level, request_id] -= priority
            if not self._share_of_request[level, request_id]:
                del self._share_of_request[level, request_id]
        if self._classes.pop(sequence, None) is not None:
            self._class_numbers.give_back(self._class_of.pop(sequence))
        shape = (self._kinds.pop(sequence), entry.spec.resources)
        self._shapes[shape] -= 1
        if not self._shapes[shape]:
            del self._shapes[shape]
        if self._entry_keys is not None:
            del self._entry_keys[sequence]
        else:
            at = bisect.bisect_left(self._sorted_keys, sequence if self._keys
                                    is None else self._keys.pop(sequence))
            del self._sorted_keys[at]
            del self._sorted_entries[at]

    def sharing_priority(self, spec):
        """:func:`~preemptible_sched.service_classes.sla.queued_priority`
        of ``spec`` over the admitted entries, from running sums: the
        same number, without a pass over the queue.
        """
        level = spec.sla.reputation
        return (self._share_total[level] -
                self._share_of_request[level, spec.id])

    def eligibility(self, scheduler=None, keep_trying=()):
        """A new :class:`Eligibility` for a pass over this queue; with the
        filter ``scheduler`` of the pass, it also skips the moldable SLA
        requests that would fail as one did, replaying its draws on the
        scheduler's generator (see :mod:`~preemptible_sched.queue.
        replays`), except those of ``keep_trying`` (request ids).
        """
        classes = None
        if scheduler is not None:
            classes = replays.FailedClasses(
                self._classes, self._share_total, self._share_of_request,
                replays.logged(scheduler), keep_trying)
        return Eligibility(self._kinds, self._shapes, classes)

    def dependents(self, request_id):
        """The ids of the blocked requests waiting for ``request_id``."""
        return [entry.id for entry in self._dependents.get(request_id, ())
                if entry.sequence in self.blocked]

    def order(self, now):
        """T2: the admitted entries, first to be considered first.

        A policy whose keys do not depend on time
        (``time_invariant``) gave each entry its key when it joined, and
        the queue is kept in that order: the same order, without a sort
        or a Python call per entry and pass. Any other policy orders
        the entries, handed over in arrival order, in every pass; it may
        answer with a lazy sequence (``random`` does: a pass that stops
        early never looks at the rest).
        """
        if self._keys is None:
            if self._entry_keys is not None:
                # Both dicts gain and lose the same sequences together:
                # their values are in the same order.
                return self.policy.order(list(self.entries.values()), now,
                                         list(self._entry_keys.values()))
            return self.policy.order(list(self._sorted_entries), now)
        if self.sort_every_pass:
            entries, keys = self.entries, self._keys
            return [entries[sequence] for sequence
                    in sorted(keys, key=keys.__getitem__)]
        return list(self._sorted_entries)

    @property
    def reranks(self):
        """True when the policy ranks the queue again after each
        placement of a pass (its order depends on who else waits, and it
        is asked to: ``promethee`` with ``[sla] rerank``).
        """
        return bool(getattr(self.policy, 'rerank', False))

    def reorder(self, untried, now):
        """``untried`` (entries of this pass not tried yet) in the order
        the policy gives the queue as it is now, after a placement.
        """
        left = {entry.sequence for entry in untried}
        return [entry for entry in self.order(now) if entry.sequence in left]

    def remove(self, entry):
        self._forget(entry.sequence)

    def remove_request(self, request_id):
        """Forget every entry of ``request_id``, admitted or not."""
        for key, entry in list(self.entries.items()):
            if entry.id == request_id:
                self._forget(key)
        for key, entry in list(self.blocked.items()):
            if entry.id == request_id:
                del self.blocked[key]
                self._unmet.pop(key, None)
        arrivals = len(self.arrivals)
        self.arrivals = [entry for entry in self.arrivals
                         if entry.id != request_id]
        self._changes += arrivals != len(self.arrivals)

    def __contains__(self, entry):
        return entry.sequence in self.entries

    def __len__(self):
        return len(self.entries) + len(self.arrivals) + len(self.blocked)

    def signature(self):
        """What a pass depends on in the queue, for pass pruning: equal
        only when no entry or arrival came or went in between (a counter:
        not a copy of a long queue in every pass).
        """
        return self._changes

    def values(self):
        return (list(self.entries.values()) + list(self.arrivals) +
                list(self.blocked.values()))
