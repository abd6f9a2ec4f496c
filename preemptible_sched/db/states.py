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

"""The instance state machine, enforced by the store.

Every change of an instance's ``state`` is checked against this table; a
change it does not list is refused (:class:`IllegalTransition`), so no
late, duplicate or misrouted report can move an instance backwards::

    pending ──spawn──> building ──started──> running ──ended──> ended
       │                  │  │                 │
       │    spawn failed <┘  └──chosen as a victim──> terminating
       │    (back to pending)                 │          │    │
       │                                      └──────────┘    ├─> terminated
       │                                                      ├─> preempted
       │                          rolled back (runs on) <─────┘      │
       │                                                              │
       └────────────────────────── requeued <─────────────────────────┘

    any active state ──> error | deleted
    building | running ──> terminated | preempted
                                        (a termination that went through
                                         after its decision was given up;
                                         preempted with on_victim = requeue)

``ended``, ``terminated``, ``error`` and ``deleted`` are final: an
instance in them never runs again (a request that wants it again is a new
request). ``preempted`` only goes back to ``pending``, when its request
queues it again (``on_victim = requeue``), or ends with a request deleted
or failed meanwhile.
"""

from preemptible_sched import exception

#: States an instance is alive in (it holds or waits for a host).
ACTIVE_STATES = ('pending', 'building', 'running', 'terminating')

#: ``{state: states it may move to}``.
TRANSITIONS = {
    'pending': frozenset({'building', 'error', 'deleted'}),
    'building': frozenset({'running', 'pending', 'terminating', 'ended',
                           'terminated', 'preempted', 'error', 'deleted'}),
    'running': frozenset({'terminating', 'ended', 'terminated', 'preempted',
                          'error', 'deleted'}),
    'terminating': frozenset({'terminated', 'preempted', 'running',
                              'ended', 'error', 'deleted'}),
    'preempted': frozenset({'pending', 'error', 'deleted'}),
    'ended': frozenset(),
    'terminated': frozenset(),
    'error': frozenset(),
    'deleted': frozenset(),
}


class IllegalTransition(exception.PreemptibleSchedException, ValueError):
    """A state change the instance state machine does not allow."""

    def __init__(self, instance_id, old, new):
        self.instance_id = instance_id
        self.old = old
        self.new = new
        allowed_ = ', '.join(sorted(TRANSITIONS.get(old, ()))) or \
            'none, it is final'
        super().__init__('instance %s cannot go from %s to %s (allowed: %s)'
                         % (instance_id, old, new, allowed_))


def allowed(old, new):
    """Whether an instance may go from ``old`` to ``new`` (or stay)."""
    return old == new or new in TRANSITIONS.get(old, ())


def check(instance_id, old, new):
    """Raise :class:`IllegalTransition` unless ``old`` -> ``new`` is
    allowed.
    """
    if not allowed(old, new):
        raise IllegalTransition(instance_id, old, new)
