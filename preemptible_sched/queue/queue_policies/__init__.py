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

"""Queue policies: the order in which pending requests are considered.

A queue policy overrides :meth:`BaseQueuePolicy.sort_key` (one key per
request; smaller goes first) or, for policies that compare requests with
each other, :meth:`BaseQueuePolicy.order`. Policies are registered in the
``preemptible_sched.queue_policies`` namespace.
"""

from preemptible_sched import exception
from preemptible_sched import loadables


class BaseQueuePolicy:
    """Base of every queue policy."""

    #: Its entry-point name: each class declares it (``name = 'fifo'``).
    #: A third-party class that declares none still loads; the loader sets
    #: the name on the object (:func:`preemptible_sched.loadables.named`).
    name = None
    #: True when :meth:`sort_key` depends neither on ``now`` nor on
    #: anything that changes while the request waits (and :meth:`order`
    #: is not overridden): the queue then asks for each key once, when
    #: the request joins it, instead of in every pass.
    time_invariant = False
    #: True when the policy has ``entry_key(request)``, a value it needs of
    #: each request that does not change while the request waits, and
    #: :meth:`order` takes them as ``keys`` (in the order of
    #: ``requests``): the queue asks for each once, when the request joins
    #: it (a policy whose order depends on who waits, so not
    #: ``time_invariant``, spares a look into every request per pass).
    entry_keys = False

    def sort_key(self, request, now):
        """Key of ``request`` (a
        :class:`~preemptible_sched.objects.PendingRequest`); smaller
        first.
        """
        raise NotImplementedError()

    def order(self, requests, now):
        """The pending ``requests`` (a list in arrival order), first to be
        considered first: a list, or any sequence that can be measured,
        indexed, sliced and iterated (the pass often stops after a few).
        """
        return sorted(requests, key=lambda r: self.sort_key(r, now))


def load(name):
    """The queue policy called ``name``; InvalidInput if there is none."""
    loaded = loadables.load_plugins('preemptible_sched.queue_policies',
                                    [name or ''], 'scheduler',
                                    'queue_policy')
    if not loaded:
        raise exception.InvalidInput('[scheduler] queue_policy', None,
                                     'must name a queue policy')
    return loaded[0]
