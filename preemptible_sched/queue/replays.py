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

"""Moldable SLA requests a pass need not try: T1 for requests without a
fixed shape.

A moldable SLA request is sized when its turn comes, so the "a smaller
shape failed" rule of :class:`~preemptible_sched.queue.pending.Eligibility`
cannot see its shape beforehand. But two waiting requests that differ only
by their identity (their :func:`sla_class`) and share the idle cores with
the same others (the same :meth:`~preemptible_sched.queue.pending.
PendingQueue.sharing_priority`) are sized alike and asked about alike: on
the same hosts, the second fails exactly as the first did. Until the pass
places something (the hosts and the queue change), a failed request stops
the later ones of its class and share: the pass skips them.

Skipping must not change what the pass decides afterwards. A failed
request still draws from the scheduler's seeded generator (a tie among the
best hosts for a copy that fits, before a later copy finds no host), so a
skipped request replays the draws of the one that failed
(:class:`DrawLog`): the generator ends where it would have, and the next
decision draws the same host.
"""


class DrawLog:
    """The filter scheduler's random generator, noting the arguments of
    the ``randrange`` draws since the last :meth:`clear` (the only draws
    a decision makes: the host among the best ``host_subset_size``).
    Everything else is the wrapped generator's.
    """

    def __init__(self, rng):
        self.rng = rng
        self.calls = []

    def randrange(self, *args):
        self.calls.append(args)
        return self.rng.randrange(*args)

    def clear(self):
        self.calls.clear()

    def replay(self, calls):
        """Draw again as ``calls`` (noted earlier) did; their results are
        dropped, as the failed decision that made them dropped them.
        """
        randrange = self.rng.randrange
        for args in calls:
            randrange(*args)

    def __getattr__(self, name):
        return getattr(self.rng, name)


def logged(scheduler):
    """The :class:`DrawLog` of ``scheduler``'s generator, put in place
    on first use (the generator is the same; only ``randrange`` calls are
    noted).
    """
    rng = scheduler.rng
    if not isinstance(rng, DrawLog):
        rng = scheduler.rng = DrawLog(rng)
    return rng


def sla_class(entry):
    """Everything but its identity and its share of the idle cores that
    the placement of queue entry ``entry`` depends on, when it is a
    moldable SLA request; None otherwise.

    The spec (its copies apart: a request's own anti-affinity group,
    named after it, holds nothing while it is moldable) and the account
    the preemption strategies may read (submission, attempts, run and
    overhead so far).
    """
    spec = entry.spec
    if spec.sla is None or not spec.moldable:
        return None
    group = True if spec.group == spec.id else spec.group
    return (spec.resources, spec.preemptible, spec.num_instances,
            spec.flavor, tuple(sorted(spec.constraints.items())),
            spec.availability_zone, group, spec.group_policy,
            spec.group_hosts, spec.service_class, spec.priority,
            spec.expected_vcpus, spec.sla, spec.sequential_s, spec.user,
            entry.submitted_at, entry.admitted_at, entry.attempts,
            entry.running_s, entry.overhead_s, entry.preempted,
            entry.work_s, entry.duration)


class FailedClasses:
    """Within one pass, the (class, share) of the moldable SLA requests
    that failed since the last placement, with the draws each made.

    ``classes`` maps entry sequences to ``(class number, reputation
    level, (level, request id), request id)`` (kept by the queue: the
    number stands for the entry's :func:`sla_class`); ``totals`` and
    ``own`` are the queue's sums of the sharing priorities per level and
    per (level, request), whose difference is an entry's share (see
    :meth:`~preemptible_sched.queue.pending.PendingQueue.
    sharing_priority`). ``draws`` is the scheduler's :class:`DrawLog` and
    ``keep_trying`` the ids of the requests that must be asked about
    whatever failed (a reason said for them may have to change).
    """

    def __init__(self, classes, totals, own, draws, keep_trying=()):
        self.classes = classes
        self.totals = totals
        self.own = own
        self.draws = draws
        self.keep_trying = keep_trying
        self.failed = {}
        #: requests skipped (their draws replayed) in this pass
        self.skipped = 0

    def _key(self, entry):
        known = self.classes.get(entry.sequence)
        if known is None:
            return None
        number, level, mine, request_id = known
        if request_id in self.keep_trying:
            return None
        return number, self.totals[level] - self.own[mine]

    def replays(self, entry):
        """True when ``entry`` would fail as one already did: its draws
        are replayed and it is skipped. Otherwise the draws of the
        decision about to be made start being noted.
        """
        if self.failed:
            key = self._key(entry)
            if key is not None:
                calls = self.failed.get(key)
                if calls is not None:
                    self.draws.replay(calls)
                    self.skipped += 1
                    return True
        self.draws.clear()
        return False

    def failed_to_place(self, entry):
        """``entry`` was just asked about and not placed."""
        key = self._key(entry)
        if key is not None:
            self.failed[key] = tuple(self.draws.calls)

    def placed(self):
        """The pass placed a request: the hosts and the queue changed."""
        self.failed.clear()


class Numbering:
    """Small numbers for the classes of the entries waiting (a class
    stands for a long tuple, slow to hash in every pass); a number is
    freed when the last entry of its class leaves.
    """

    def __init__(self):
        self._numbers = {}
        self._counts = {}
        self._next = 0

    def take(self, klass):
        number = self._numbers.get(klass)
        if number is None:
            number = self._numbers[klass] = self._next
            self._next += 1
            self._counts[number] = 0
        self._counts[number] += 1
        return number

    def give_back(self, klass):
        number = self._numbers[klass]
        self._counts[number] -= 1
        if not self._counts[number]:
            del self._counts[number], self._numbers[klass]

    def __len__(self):
        return len(self._numbers)
