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

"""Preemption strategies: who may be displaced for a request, and how.

``[scheduler] preemption_strategy`` names one strategy of the
``preemptible_sched.preemption_strategies`` namespace. A strategy answers,
for one request:

* :meth:`~BasePreemptionStrategy.phases` – the host views it is filtered
  on, in order: ``FIT`` (the full view: nothing is displaced) and
  ``DISPLACE`` (each host as it would be without the instances the request
  may displace there);
* :meth:`~BasePreemptionStrategy.displaceable` – those instances, per host;
* :meth:`~BasePreemptionStrategy.plan` – the victims on one host (the
  exact termination selector for the preemptible strategies, the smallest
  set by class for ``qos`` and ``priority``);
* :meth:`~BasePreemptionStrategy.victim_standing` – where one victim
  stands, for a strategy that ranks hosts by their victims
  (:attr:`~BasePreemptionStrategy.ranks_by_score`; the rule that compares
  them is :func:`plan_scores`); otherwise the weighers alone rank the hosts
  with victims, on their full view;
* :attr:`~BasePreemptionStrategy.on_victim` – what happens to a victim:
  ``terminate`` (gone for good) or ``requeue`` (back to the queue with its
  account, and in simulation with its remaining duration).

Strategies see only host states, the request's queue entry and the time
they are given; they never touch the database, RPC or a clock.
"""

import math
import typing

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import loadables
from preemptible_sched import objects

NAMESPACE = 'preemptible_sched.preemption_strategies'

#: Phase in which hosts are filtered on their full view.
FIT = 'fit'
#: Phase in which each host is filtered as it would be without the
#: instances the request may displace there.
DISPLACE = 'displace'

VICTIM_ACTIONS = ('terminate', 'requeue')


class BasePreemptionStrategy:
    """Base of every preemption strategy."""

    #: Its entry-point name: each class declares it (``name = 'dual_state'``).
    #: A third-party class that declares none still loads; the loader sets
    #: the name on the object (:func:`preemptible_sched.loadables.named`).
    name = None
    #: True when only instances flagged preemptible are ever displaced
    #: (the journal then refuses any other victim).
    spot = True
    #: True when hosts with victims are ranked by the :func:`plan_scores`
    #: of their victims' :meth:`victim_standing` first (ties: the
    #: weighers); False when the weighers alone rank them.
    ranks_by_score = False
    #: What a victim becomes when ``[scheduler] on_victim`` is not set.
    default_on_victim = 'terminate'
    #: Queue policy used when ``[scheduler] queue_policy`` is not set.
    default_queue_policy = 'fifo'
    #: Weighers used when ``[filter_scheduler] weighers`` is not set.
    default_weighers = ('ram', 'cpu', 'termination_cost')
    #: True when :meth:`plan` is exactly ``TerminationPlan(host name)``
    #: on a host the request fits as it is: the driver then makes that
    #: plan itself, without the host's state object.
    empty_plan_where_it_fits = False

    @classmethod
    def from_conf(cls, conf):
        """The strategy configured from ``conf`` (the core's
        configuration, or Nova's with the same groups registered).
        """
        return cls()

    @property
    def on_victim(self):
        """``terminate`` or ``requeue``: the option, else the default."""
        return CONF.scheduler.on_victim or self.default_on_victim

    def phases(self, spec):
        """The phases ``spec`` is filtered in, in order."""
        raise NotImplementedError()

    def may_preempt(self, request, now):
        """Whether ``request`` may displace anything at all at ``now``."""
        return True

    def displaceable(self, state, request, now):
        """The instances on ``state`` that ``request`` may displace."""
        raise NotImplementedError()

    def displacement_view(self, state, displaceable):
        """The view of ``state`` with ``displaceable`` gone."""
        return state.view_without(displaceable)

    def displacement_batch(self, hosts, request, now, skip_unchanged):
        """Every host of ``hosts`` (the host manager) as it would be
        without the instances ``request`` may displace there, as a
        :class:`~preemptible_sched.hosts.batch.HostBatch`; with
        ``skip_unchanged``, only the hosts with something to displace.

        None (the default) when the strategy has no such vector form: the
        driver then asks :meth:`displaceable` and
        :meth:`displacement_view` host by host.
        """
        return None

    def plan(self, state, request, displaceable, now):
        """The :class:`~preemptible_sched.objects.TerminationPlan` of
        ``request`` on ``state``: empty when it fits the full view, None
        when it cannot fit even with all of ``displaceable`` gone.
        """
        raise NotImplementedError()

    def victim_standing(self, instance, request, now):
        """The :class:`Standing` of ``instance`` as a victim of
        ``request``; asked when :attr:`ranks_by_score` is True.
        """
        raise NotImplementedError()

    def next_change(self, states, pending, now):
        """Earliest time at which time alone (no event) may let one of
        ``pending`` be placed; the loop skips its watchdog passes until
        then while nothing else changes. ``states`` are the states of the
        hosts that carry instances. The default: never.
        """
        return math.inf


class ClassBasedStrategy(BasePreemptionStrategy):
    """Base of the strategies that follow the requests' service classes.

    The preemptible flag plays no part: a request is first filtered on the
    full view; when no host passes, each host is filtered as it would be
    without its :meth:`displaceable` instances, the victims of a host are
    the smallest set found by removing them all and adding back, in
    :meth:`keep_order`, every one with which the request still fits, and
    the host whose victims have the smallest :func:`plan_scores` (from
    their :meth:`victim_standing`) wins (ties: the weighers, on the hosts
    as they will be without their victims).
    """

    spot = False
    ranks_by_score = True
    default_on_victim = 'requeue'
    default_weighers = ('allocation_score',)

    def phases(self, spec):
        return (FIT, DISPLACE)

    def keep_order(self, candidates, request, now):
        """``candidates`` ordered most worth keeping first."""
        raise NotImplementedError()

    def plan(self, state, request, displaceable, now):
        resources = request.spec.resources
        if state.full.fits(resources):
            return objects.TerminationPlan(state.name)
        if not displaceable or \
                not state.view_without(displaceable).fits(resources):
            return None
        victims = list(displaceable)
        for instance in self.keep_order(displaceable, request, now):
            rest = [victim for victim in victims if victim is not instance]
            if state.view_without(rest).fits(resources):
                victims = rest
        return objects.TerminationPlan(
            state.name, tuple(victims), (0.0,) * len(victims),
            '%s: %d victim(s) of lower standing' % (self.name, len(victims)))


class Standing(typing.NamedTuple):
    """Where one victim stands, for :func:`plan_scores`."""

    #: Its class: the smaller, the more important.
    level: float
    #: The time to violation below which it is at risk.
    margin: float
    #: How long it may stay stopped before it misses its objective.
    time_to_violation: float


def plan_scores(plans, standing):
    """How the hosts of ``plans`` (``{host: TerminationPlan}``) compare
    under a strategy that ranks by score: ``{host: score}``, the smallest
    best. ``standing`` maps a victim to its :class:`Standing`.

    A victim is at risk when its time to violation is below its margin.
    A score is ``(s_1, ..., s_m, s_safe)``, compared as a tuple: ``s_i``
    sums ``margin - time_to_violation`` over the at-risk victims of the
    i-th level, the levels being those of the at-risk victims of all
    ``plans``, most important first, and ``s_safe`` is ``1 / sum(
    time_to_violation - margin)`` over the safe victims: 0 when there are
    none or their slack is infinite, infinite when it is not positive
    (the more slack the safe victims have, the cheaper). A victim that is
    always at risk by one (margin 1, time to violation 0) makes ``s_i``
    the number of victims of each level: fewest of the most important
    level first, then of the next...
    """
    at_risk_by_host = {}
    safe_terms = {}
    levels = set()
    for host, plan in plans.items():
        at_risk = {}
        safe_slack = 0.0
        safe = 0
        for victim in plan.victims:
            level, margin, time_to_violation = standing(victim)
            if time_to_violation < margin:
                at_risk[level] = (at_risk.get(level, 0.0) + margin -
                                  time_to_violation)
            else:
                safe += 1
                safe_slack += time_to_violation - margin
        if not safe:
            safe_term = 0.0
        elif safe_slack <= 0 or math.isinf(safe_slack):
            safe_term = math.inf if safe_slack <= 0 else 0.0
        else:
            safe_term = 1.0 / safe_slack
        at_risk_by_host[host] = at_risk
        safe_terms[host] = safe_term
        levels.update(at_risk)
    levels = sorted(levels)
    return {host: tuple(at_risk.get(level, 0.0) for level in levels) +
            (safe_terms[host],)
            for host, at_risk in at_risk_by_host.items()}


def load(name, conf=None, group='scheduler'):
    """The preemption strategy called ``name``.

    With ``conf``, it is configured from that configuration (see
    :meth:`BasePreemptionStrategy.from_conf`) instead of the core's;
    ``group`` names the group of the option ``preemption_strategy`` for
    errors.
    """
    if conf is None:
        loaded = loadables.load_plugins(NAMESPACE, [name or ''], group,
                                        'preemption_strategy')
    else:
        loaded = [loadables.named(loadables.plugin_class(
            NAMESPACE, name, group, 'preemption_strategy').from_conf(conf),
            name)] if name else []
    if not loaded:
        raise exception.InvalidInput('[%s] preemption_strategy' % group,
                                     None, 'must name a preemption strategy')
    return loaded[0]
