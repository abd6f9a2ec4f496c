"""Preemption policies: which running instances a request may displace.

``[scheduler] preemption_policy`` names one policy of the
``preemptible_sched.preemption_policies`` namespace.

Two families:

*Spot* policies (``none``, ``billing``) keep the semantics of preemptible
instances: only instances flagged preemptible are ever terminated, chosen by
the exact termination selector on the two host views (see
:mod:`preemptible_sched.driver.scheduler`). ``none`` never terminates.

*Class-based* policies (``qos``, ``priority``) follow the requests' service
classes: when no host fits a request, each host's :meth:`candidates` are
the instances the request may displace there; a host on which the request
fits once they are gone is feasible, and :meth:`victims` keeps the smallest
set by adding candidates back in :meth:`keep_order`; the host with the
smallest :meth:`score` wins. Plugins see only the host states, the request's
account and the time they are given.
"""

import math

from preemptible_sched import exception
from preemptible_sched import loadables


class BasePreemptionPolicy:
    """Base of every preemption policy."""

    #: Entry-point name, set when the policy is loaded.
    name = None

    #: True for the spot policies, which the filter scheduler carries out
    #: with its termination selector; the methods below are then unused.
    spot = False

    def next_change(self, states, pending, now):
        """Earliest time at which time alone (no event) may let one of
        ``pending`` be placed; the loop skips its watchdog passes until
        then while nothing else changes. The default: never."""
        return math.inf

    def may_preempt(self, request, now):
        """Whether ``request`` may displace anything at all at ``now``."""
        return True

    def candidates(self, state, request, now):
        """Instances on ``state`` that ``request`` may displace at ``now``.

        ``request`` is a :class:`preemptible_sched.policies.PendingRequest`.
        """
        raise NotImplementedError()

    def keep_order(self, candidates, request, now):
        """``candidates`` ordered most worth keeping first."""
        raise NotImplementedError()

    def victims(self, state, request, candidates, now):
        """Smallest set to displace: None when even all are not enough.

        Remove every candidate; if the request still does not fit, the
        host is infeasible. Otherwise add candidates back in
        :meth:`keep_order`, keeping each one with which the request still
        fits; the rest are the victims.
        """
        resources = request.spec.resources
        if not state.view_without(candidates).fits(resources):
            return None
        victims = list(candidates)
        for instance in self.keep_order(candidates, request, now):
            rest = [victim for victim in victims if victim is not instance]
            if state.view_without(rest).fits(resources):
                victims = rest
        return tuple(victims)

    def score(self, victims, request, now):
        """Preemption cost of displacing ``victims``; smaller wins."""
        raise NotImplementedError()


def load(name):
    """The preemption policy called ``name``."""
    loaded = loadables.load_plugins('preemptible_sched.preemption_policies',
                                    [name or ''], 'scheduler',
                                    'preemption_policy')
    if not loaded:
        raise exception.InvalidInput('[scheduler] preemption_policy', None,
                                     'must name a preemption policy')
    return loaded[0]
