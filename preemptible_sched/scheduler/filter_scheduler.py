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

"""select_destinations: where each instance of a request goes, and who goes.

One path for every preemption strategy (see
:mod:`preemptible_sched.scheduler.preemption_strategies`). One instance at
a time (the next one sees the views the previous one left), in the
strategy's phases:

``FIT``
    Filter every host on its full view (R4), weigh the survivors (R5) and
    take the best one the request fits; nothing is displaced.
``DISPLACE``
    Filter every host as it would be without the instances the request may
    displace there (for ``dual_state`` that is the normal view), then
    either weigh the survivors on their full views and take the best one on
    which the strategy finds victims, or, for a strategy that scores hosts
    (``qos``, ``priority``), take the host whose victims score lowest, the
    weighers breaking ties on the hosts as they will be without them (T10).

The best host is drawn at random among the best ``host_subset_size`` with
the seeded generator. Consuming removes the victims from the host manager
and adds the instance. A multi-instance request is all or nothing: if one
instance cannot be placed, every change made for the earlier ones is
rolled back.
"""

import contextlib
import dataclasses
import logging
import random
import typing

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.hosts import manager as host_manager
from preemptible_sched import objects
from preemptible_sched.scheduler import filters
from preemptible_sched.scheduler import heap
from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.scheduler import termination_planner
from preemptible_sched.scheduler import weighers
from preemptible_sched.service_classes import sla

LOG = logging.getLogger(__name__)


@dataclasses.dataclass
class Selection:
    """One placed instance: where it goes and which instances it displaces.

    ``weights`` holds the winner's weights per weigher (raw, normalised,
    multiplier), ``verdicts``
    (:class:`~preemptible_sched.scheduler.filters.Verdicts`) records the hosts
    each filter rejected, and ``passed`` counts the hosts that passed the
    filters in the phase that placed it, for the journal's compact explanation.
    """

    instance: objects.Instance
    host: str
    plan: objects.TerminationPlan
    weights: typing.Optional[dict] = None
    verdicts: typing.Optional[filters.Verdicts] = None
    hosts: int = 0
    passed: int = 0

    @property
    def terminate(self):
        return self.plan.victim_ids

    def explanation(self):
        """A compact, JSON-able account of why this host won."""
        return {'hosts': self.hosts,
                'passed': self.passed,
                'rejected_by': (self.verdicts.counts() if self.verdicts
                                else {}),
                'weights': self.weights or {},
                'victims': [{'id': victim.id, 'cost': cost}
                            for victim, cost in zip(self.plan.victims,
                                                    self.plan.costs)],
                'reason': self.plan.reason}


@dataclasses.dataclass
class HostReport:
    """Why one host won or lost one instance's pass (``explain=True``)."""

    name: str
    view: str
    passed: bool
    failed_filter: typing.Optional[str] = None
    weights: typing.Optional[dict] = None
    total_weight: typing.Optional[float] = None
    terminate: typing.Optional[list] = None


@dataclasses.dataclass
class Decision:
    """The outcome of one select_destinations call."""

    spec: objects.RequestSpec
    selections: typing.List[Selection]
    reports: typing.List[typing.List[HostReport]]
    reason: typing.Optional[str] = None

    @property
    def placed(self):
        return self.reason is None


class FilterScheduler:
    """The preemptible-aware filter scheduler.

    ``strategy`` is a strategy object or name; arguments left as None come
    from the configuration. ``filter_handler``, ``weight_handler`` and
    ``cost_handler`` may be given directly (tests build them from plugin
    objects; the Nova adapter gives handlers that run Nova's filters and
    weighers). ``rng`` (a :class:`random.Random`) draws the host among the
    best ``host_subset_size``; without it one is seeded with ``seed`` or
    ``[scheduler] random_seed``.
    """

    def __init__(self, strategy=None, filter_handler=None,
                 weight_handler=None, cost_handler=None,
                 host_subset_size=None, seed=None, rng=None):
        heap.keep(CONF.filter_scheduler.heap_keep_mb)
        if strategy is None:
            name, problems = checks.strategy_name(CONF)
            if problems:
                raise exception.ConfigProblems(problems)
            strategy = name
        if isinstance(strategy, str):
            strategy = preemption.load(strategy)
        self.strategy = strategy
        if filter_handler is None:
            enabled = CONF.filter_scheduler.enabled_filters
            filter_handler = filters.FilterHandler.from_names(enabled)
            # SLA copies share no host, whether anti_affinity is enabled.
            filter_handler.filters += sla.copies_filters(enabled)
        self.filter_handler = filter_handler
        if weight_handler is None:
            names = CONF.filter_scheduler.weighers
            if names is None:
                names = list(strategy.default_weighers)
            weight_handler = weighers.WeightHandler.from_names(names)
        self.weight_handler = weight_handler
        costs = cost_handler or termination.TerminationCostHandler.\
            from_names(CONF.preemptible.termination_costs)
        self.host_subset_size = (host_subset_size or
                                 CONF.filter_scheduler.host_subset_size)
        if rng is None:
            rng = random.Random(CONF.scheduler.random_seed
                                if seed is None else seed)
        self.rng = rng
        self.host_manager = host_manager.HostManager(
            termination_planner.TerminationPlanner(costs))

    def select_destinations(self, spec, now=0.0, explain=False,
                            pending=None, context=None):
        """Place every instance of ``spec``; return a :class:`Decision`.

        The host manager is updated as the decision is made (victims
        removed, instances added), like a claim; nothing is changed when
        the request cannot be placed as a whole. ``context`` (a
        :class:`~preemptible_sched.objects.PassContext`) carries the time
        and the stage stopwatch of the pass; without it the decision is
        made at ``now``. ``pending`` is the queue entry of the request,
        with the account the class-based strategies read; without it the
        request counts as admitted then.
        """
        if not explain and not self.could_place(spec):
            # No view of any host fits it, whatever is displaced: every
            # phase would fail, host by host, for the same reason.
            return Decision(spec, [], [], self._too_large(spec))
        if context is None:
            context = objects.PassContext(now=now)
        if pending is None:
            pending = objects.PendingRequest(spec, context.now, 0)
        selections = []
        reports = []
        for index in range(spec.num_instances):
            selection, report = self._place_one(spec, index, pending,
                                                context, explain)
            if explain:
                reports.append(report)
            if selection is None:
                for done in reversed(selections):
                    self._undo(done)
                reason = ('No host can take instance %d of %d of request '
                          '%s (strategy %s).' % (
                              index + 1, spec.num_instances, spec.id,
                              self.strategy.name))
                LOG.debug(reason)
                return Decision(spec, [], reports, reason)
            instance = selection.instance
            instance.admitted_at = pending.submitted_at
            instance.running_s = pending.running_s
            instance.overhead_s = pending.overhead_s
            self._apply(selection)
            selections.append(selection)
        return Decision(spec, selections, reports)

    def could_place(self, spec):
        """False when an instance of ``spec`` is larger than every
        registered host: it waits until a host that can hold it registers.
        """
        return self.host_manager.table.holds(spec.resources)

    def _too_large(self, spec):
        reason = ('No host can take request %s: an instance (%s) is '
                  'larger than every host.' % (
                      spec.id, ', '.join('%s %g' % item for item in
                                         spec.resources._asdict().items())))
        LOG.debug(reason)
        return reason

    def _with_group_hosts(self, spec):
        """``spec`` with the hosts its server group holds now (each
        instance of a request sees those of the previous ones).
        """
        if not spec.group:
            return spec
        return dataclasses.replace(
            spec, group_hosts=self.host_manager.hosts_of_group(spec.group))

    def _place_one(self, spec, index, pending, context, explain):
        spec = self._with_group_hosts(spec)
        hosts = len(self.host_manager.table)
        strategy = self.strategy
        phases = strategy.phases(spec)
        with context.stopwatch('R1', hosts):
            # The full view's batch, for a FIT phase (a DISPLACE phase
            # makes its own).
            batch = (self.host_manager.batch()
                     if preemption.FIT in phases else None)
        report = None
        fitted = False
        for phase in phases:
            verdicts = filters.Verdicts()
            if phase == preemption.FIT:
                choice, report = self._fit(batch, spec, context, verdicts,
                                           explain)
                fitted = True
            elif strategy.may_preempt(pending, context.now):
                choice, report = self._displace(spec, pending, context,
                                                verdicts, explain,
                                                skip_unchanged=fitted)
            else:
                continue
            if choice is not None:
                plan, weighed, passed = choice
                return Selection(
                    spec.new_instance(index, context.now), plan.host, plan,
                    weights=weighed.details, verdicts=verdicts,
                    hosts=hosts, passed=passed), report
        return None, report

    def _rank(self, batch, spec, context):
        """The ranking of ``batch`` (full views) and the position drawn
        first: at random among the best ``host_subset_size`` hosts and any
        host tied with the last of them.
        """
        with context.stopwatch('R5', len(batch)):
            ranking = self.weight_handler.rank(batch, spec, context)
            best = ranking.top(self.host_subset_size)
            if len(best) > 1:
                first = int(best[self.rng.randrange(len(best))])
            else:
                first = int(best[0]) if len(best) else None
        return ranking, first

    @staticmethod
    def _candidates(ranking, first, prefer=None):
        """Positions in the order they are tried.

        The one drawn first, then the others best first, as Nova's
        alternates; with ``prefer`` (a mask), the preferred hosts come
        before the others, each in that order. The full order is worked
        out only if the first host tried cannot take the request.
        """
        if first is None:
            return
        if prefer is not None and prefer.any() and not prefer[first]:
            tried = ranking.best_where(prefer)
        else:
            tried = first
        yield tried
        order = [first] + [position for position in ranking.order().tolist()
                           if position != first]
        if prefer is not None:
            order = ([position for position in order if prefer[position]] +
                     [position for position in order
                      if not prefer[position]])
        for position in order:
            if position != tried:
                yield position

    def _fit(self, batch, spec, context, verdicts, explain):
        """Phase FIT: the best host the request fits as it is."""
        with context.stopwatch('R4', len(batch)):
            passed = self.filter_handler.filter_batch(batch, spec, verdicts,
                                                      context)
        ranking, first = self._rank(passed, spec, context)
        fits = passed.fits(spec.resources)
        choice = None
        for position in self._candidates(ranking, first, fits):
            if fits[position]:
                weighed = ranking.weighed(position)
                choice = (objects.TerminationPlan(weighed.view.name),
                          weighed, len(passed))
            break
        report = None
        if explain:
            weighed = [ranking.weighed(position)
                       for position in ranking.order().tolist()]
            plans = {item.view.name: () for item in weighed
                     if item.view.fits(spec.resources)}
            report = self._report('full', verdicts, weighed, plans)
        return choice, report

    def _displace(self, spec, pending, context, verdicts, explain,
                  skip_unchanged):
        """Phase DISPLACE: a host on which the strategy finds victims.

        The one ranking of displacement plans, whatever the strategy: the
        hosts that pass the filters are weighed, the first is drawn as in
        FIT, and the first in that order with a plan wins. A strategy that
        :attr:`ranks_by_score
        <preemption.BasePreemptionStrategy.ranks_by_score>` has a plan
        made on every host first, and only the hosts whose plans score
        lowest (:func:`preemption.plan_scores`) are weighed, as they will
        be without their victims; otherwise every host is weighed on its
        full view and planned on in that order.

        With ``skip_unchanged`` (a FIT phase already failed), hosts with
        nothing to displace are left out: their view is the full view.
        """
        strategy = self.strategy
        now = context.now
        hosts = len(self.host_manager.table)
        with context.stopwatch('R4', hosts):
            batch = strategy.displacement_batch(self.host_manager, pending,
                                                now, skip_unchanged)
            displaceable = None
            if batch is None:
                displaceable = {}
                views = []
                for state in self.host_manager.get_all_host_states():
                    candidates = strategy.displaceable(state, pending, now)
                    if skip_unchanged and not candidates:
                        continue
                    displaceable[state.name] = candidates
                    views.append(strategy.displacement_view(state,
                                                            candidates))
                if strategy.ranks_by_score and not explain and not any(
                        view.fits(spec.resources) for view in views):
                    # Every plan would be None (no room even with every
                    # candidate gone), and a scoring strategy draws
                    # nothing before it plans: the same answer, sooner.
                    return None, None
                batch = host_batch.HostBatch.of_views(views)
            passed = self.filter_handler.filter_batch(batch, spec, verdicts,
                                                      context)

        def plan_on(state):
            candidates = (strategy.displaceable(state, pending, now)
                          if displaceable is None
                          else displaceable[state.name])
            return strategy.plan(state, pending, candidates, now)
        view_name = 'normal' if strategy.spot else 'without displaceable'
        by_score = strategy.ranks_by_score
        report = None
        # The hosts weighed, and the plans made before weighing (by name).
        if by_score:
            # Plan on every host: only those whose victims score lowest
            # are weighed, as they will be without their victims.
            with context.stopwatch('T10', len(passed)):
                planned = {}
                for view in passed.views():
                    plan = plan_on(view.host)
                    if plan is not None:
                        planned[view.host.name] = plan
                scores = preemption.plan_scores(
                    planned, lambda victim: strategy.victim_standing(
                        victim, pending, now))
            if explain:
                rejected = verdicts.as_dict()
                report = [
                    HostReport(name, view_name, name in planned,
                               None if name in planned
                               else rejected.get(name),
                               terminate=(planned[name].victim_ids
                                          if name in planned else None))
                    for name in self.host_manager.table.names]
            if not planned:
                return None, report
            lowest = min(scores.values())
            weighed = host_batch.HostBatch.of_views([
                self.host_manager.host_states[name].view_without(
                    plan.victims)
                for name, plan in planned.items() if scores[name] == lowest])
        else:
            # Every host on its full view, planned on in the weighers'
            # order until one has a plan.
            weighed = passed.on_view(True)
        ranking, first = self._rank(weighed, spec, context)
        no_plan = prefer = fits = None
        if not by_score:
            fits = weighed.fits(spec.resources)
            # A host the request fits as it is gets the empty plan: the
            # strategy's answer there, without its per-host state. And the
            # hosts it fits come first (after the first drawn, if it is
            # one: see _candidates).
            no_plan = strategy.empty_plan_where_it_fits and not explain
            prefer = fits if CONF.scheduler.terminate_only_when_needed \
                else None
        choice = None
        with (contextlib.nullcontext() if by_score else
              context.stopwatch('T10', len(weighed))):
            for position in self._candidates(ranking, first, prefer):
                if by_score:
                    plan = planned[weighed.name(position)]
                elif no_plan and fits[position]:
                    plan = objects.TerminationPlan(weighed.name(position))
                else:
                    plan = plan_on(weighed.view(position).host)
                if plan is not None:
                    choice = (plan, ranking.weighed(position), len(passed))
                    break
        if explain and not by_score:
            items = [ranking.weighed(position)
                     for position in ranking.order().tolist()]
            victims = {}
            for item in items:
                plan = plan_on(item.view.host)
                if plan is not None:
                    victims[item.view.name] = plan.victim_ids
            report = self._report(view_name, verdicts, items, victims)
        return choice, report

    def _apply(self, selection):
        for victim in selection.plan.victims:
            self.host_manager.remove_instance(victim.id)
        self.host_manager.add_instance(selection.host, selection.instance)

    def _undo(self, selection):
        self.host_manager.remove_instance(selection.instance.id)
        for victim in selection.plan.victims:
            self.host_manager.add_instance(selection.host, victim)

    def _report(self, view, verdicts, weighed, plans):
        """One :class:`HostReport` per host; ``plans`` maps the hosts that
        could take the request to their victims' ids.
        """
        by_name = {item.view.name: item for item in weighed}
        rejected = verdicts.as_dict()
        report = []
        for name in self.host_manager.table.names:
            item = by_name.get(name)
            if item is None:
                report.append(HostReport(name, view, False,
                                         rejected.get(name)))
                continue
            report.append(HostReport(
                name, view, True, None, item.details, item.weight,
                plans.get(name)))
        return report
