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
"""

import itertools

from preemptible_sched import objects


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
    full cloud cheap. Workflow dependencies plug in here.
    """

    def __init__(self):
        self.failed = {}

    def eligible(self, entry):
        kind = _kind(entry.spec)
        if kind is None or kind not in self.failed:
            return True
        size = entry.spec.resources
        return not any(smaller.vcpus <= size.vcpus and
                       smaller.memory_mb <= size.memory_mb and
                       smaller.disk_gb <= size.disk_gb
                       for smaller in self.failed[kind])

    def failed_to_place(self, entry):
        kind = _kind(entry.spec)
        if kind is not None:
            self.failed.setdefault(kind, []).append(entry.spec.resources)


class PendingQueue:
    """Entries waiting for a host, keyed by their sequence number."""

    def __init__(self, policy):
        self.policy = policy
        self.entries = {}
        self.arrivals = []
        self._sequence = itertools.count()

    def add(self, spec, submitted_at, duration=None, image=None,
            attempts=0, running_s=0.0, overhead_s=0.0, reason=None,
            preempted=False):
        """A request arrives; the next pass admits it."""
        entry = objects.PendingRequest(spec, submitted_at,
                                       next(self._sequence), duration,
                                       image, attempts, running_s,
                                       overhead_s, reason, preempted)
        self.arrivals.append(entry)
        return entry

    def admit(self, accept):
        """J2: move the arrivals in; ``accept(entry)`` may refuse one
        (it then handles it). Returns how many arrived.
        """
        arrivals, self.arrivals = self.arrivals, []
        for entry in arrivals:
            if accept(entry):
                self.entries[entry.sequence] = entry
        return len(arrivals)

    def order(self, now):
        """T2: the admitted entries, first to be considered first."""
        return self.policy.order(list(self.entries.values()), now)

    def remove(self, entry):
        self.entries.pop(entry.sequence, None)

    def remove_request(self, request_id):
        """Forget every entry of ``request_id``, admitted or not."""
        for key, entry in list(self.entries.items()):
            if entry.id == request_id:
                del self.entries[key]
        self.arrivals = [entry for entry in self.arrivals
                         if entry.id != request_id]

    def __contains__(self, entry):
        return entry.sequence in self.entries

    def __len__(self):
        return len(self.entries) + len(self.arrivals)

    def signature(self):
        """What a pass depends on in the queue (for pass pruning)."""
        return tuple(self.entries) + tuple(e.sequence for e in self.arrivals)

    def values(self):
        return list(self.entries.values()) + list(self.arrivals)
