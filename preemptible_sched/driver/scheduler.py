"""select_destinations: where each instance of a request goes, and who dies.

One instance at a time (the next one sees the views the previous one left):

1. filter the hosts on the view the mode prescribes;
2. weigh the survivors on their full views;
3. pick among the best ``host_subset_size`` (and hosts tied with them) with
   the seeded generator;
4. if a normal request does not fit the chosen host's full view, take the
   termination plan of that host (the cheapest set of preemptible
   instances whose removal makes it fit);
5. consume: remove the victims from the host manager and add the instance.

Modes (``[preemptible] mode``):

``dual_state``
    Normal requests are filtered on the normal view, preemptible ones on the
    full view; terminations are chosen in the same pass.
``retry``
    Everything is filtered on the full view; only when no host passes does a
    normal request get a second pass on the normal view, with terminations.
``plain``
    A stock filter scheduler: full view only, nothing is ever terminated.

A preemptible request never terminates anything. A multi-instance request
is all or nothing: if one instance cannot be placed, every change made for
the earlier ones is rolled back.

Under a class-based preemption policy (``[scheduler] preemption_policy =
qos | priority``, see :mod:`preemptible_sched.preemption`) the preemptible
flag plays no part: hosts are filtered on the full view; when none passes,
each host is filtered again as it would be without the instances the policy
lets the request displace there, the policy picks the victims of each host
that passes and scores them, and the lowest score wins (ties: the weighers).
"""

import contextlib
import dataclasses
import logging
import random
import typing

from preemptible_sched.conf import CONF
from preemptible_sched.driver import termination_selector
from preemptible_sched import exception
from preemptible_sched import filters
from preemptible_sched import host_manager
from preemptible_sched import host_state
from preemptible_sched import objects
from preemptible_sched import policies
from preemptible_sched import preemption
from preemptible_sched import termination
from preemptible_sched import weighers

LOG = logging.getLogger(__name__)


@dataclasses.dataclass
class Selection:
    """One placed instance: where it goes and which instances it displaces."""

    instance: objects.Instance
    host: str
    plan: host_state.TerminationPlan

    @property
    def terminate(self):
        return self.plan.victim_ids


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


def _no_stopwatch(stage):
    return contextlib.nullcontext()


class FilterScheduler:
    """The preemptible-aware filter scheduler.

    Arguments left as None come from the configuration. ``filter_handler``,
    ``weight_handler`` and ``cost_handler`` may be given directly (tests
    build them from plugin objects).
    """

    def __init__(self, mode=None, filter_handler=None, weight_handler=None,
                 cost_handler=None, host_subset_size=None, seed=None,
                 preemption_policy=None):
        self.preemption = preemption_policy or preemption.load(
            CONF.scheduler.preemption_policy)
        self.mode = mode or CONF.preemptible.mode
        if self.preemption.name == 'none':
            self.mode = 'plain'
        if self.mode not in ('dual_state', 'retry', 'plain'):
            raise exception.InvalidInput(
                '[preemptible] mode', None, 'unknown mode %r' % self.mode)
        self.filter_handler = filter_handler or filters.FilterHandler.\
            from_names(CONF.filter_scheduler.enabled_filters)
        self.weight_handler = weight_handler or weighers.WeightHandler.\
            from_names(CONF.filter_scheduler.weighers)
        costs = cost_handler or termination.TerminationCostHandler.\
            from_names(CONF.preemptible.termination_costs)
        self.host_subset_size = (host_subset_size or
                                 CONF.filter_scheduler.host_subset_size)
        self.rng = random.Random(CONF.scheduler.random_seed
                                 if seed is None else seed)
        self.host_manager = host_manager.HostManager(
            termination_selector.TerminationPlanner(costs))
        #: ``stopwatch(stage)`` gives a context manager timing that stage
        #: (R4 filtering, R5 weighing and selection, T10 termination
        #: planning); the scheduler loop sets a real one.
        self.stopwatch = _no_stopwatch

    def _views_to_try(self, spec):
        """Which views to filter on, in order: True means the normal view."""
        if self.mode == 'dual_state':
            return (not spec.preemptible,)
        if self.mode == 'retry' and not spec.preemptible:
            return (False, True)
        return (False,)

    def select_destinations(self, spec, now=None, explain=False,
                            pending=None):
        """Place every instance of ``spec``; return a :class:`Decision`.

        The host manager is updated as the decision is made (victims
        removed, instances added), like a claim; nothing is changed when
        the request cannot be placed as a whole. ``pending`` is the queue
        entry of the request (:class:`policies.PendingRequest`), with the
        QoS account the class-based policies read; without it the request
        counts as admitted now.
        """
        if now is not None:
            self.host_manager.set_time(now)
        if pending is None:
            pending = policies.PendingRequest(spec, self.host_manager.now, 0)
        selections = []
        reports = []
        for index in range(spec.num_instances):
            if self.preemption.spot:
                selection, report = self._schedule_one(spec, index, explain)
            else:
                selection, report = self._schedule_by_class(
                    spec, index, explain, pending)
            if selection is not None:
                instance = selection.instance
                instance.admitted_at = pending.submitted_at
                instance.running_s = pending.running_s
                instance.overhead_s = pending.overhead_s
            if explain:
                reports.append(report)
            if selection is None:
                for done in reversed(selections):
                    self._undo(done)
                reason = ('No host can take instance %d of %d of request '
                          '%s (mode %s).' % (index + 1, spec.num_instances,
                                             spec.id, self.mode))
                LOG.debug(reason)
                return Decision(spec, [], reports, reason)
            self._apply(selection)
            selections.append(selection)
        return Decision(spec, selections, reports)

    def _with_group_hosts(self, spec):
        """``spec`` with the hosts its server group holds now (each
        instance of a request sees those of the previous ones)."""
        if not spec.group:
            return spec
        return dataclasses.replace(
            spec, group_hosts=self.host_manager.hosts_of_group(spec.group))

    def _schedule_one(self, spec, index, explain):
        spec = self._with_group_hosts(spec)
        states = self.host_manager.get_all_host_states()
        verdicts = {} if explain else None
        with self.stopwatch('R4'):
            for use_normal in self._views_to_try(spec):
                if explain:
                    verdicts.clear()
                passed = self.filter_handler.filter(
                    [state.view(use_normal) for state in states], spec,
                    verdicts)
                if passed:
                    break
        with self.stopwatch('R5'):
            weighed = self._ordered(self.weight_handler.get_weighed_objects(
                [view.host.full for view in passed], spec, explain))
        may_terminate = self.mode != 'plain' and not spec.preemptible
        selection = None
        with self.stopwatch('T10'):
            for candidate in weighed:
                plan = self._plan(candidate.view.host, spec, may_terminate)
                if plan is not None:
                    selection = Selection(
                        spec.new_instance(index, self.host_manager.now),
                        candidate.view.name, plan)
                    break
        report = None
        if explain:
            report = self._report(states, use_normal, verdicts, weighed,
                                  spec, may_terminate)
        return selection, report

    def _schedule_by_class(self, spec, index, explain, pending):
        """One instance under a class-based preemption policy."""
        now = self.host_manager.now
        spec = self._with_group_hosts(spec)
        states = self.host_manager.get_all_host_states()
        verdicts = {} if explain else None
        with self.stopwatch('R4'):
            passed = self.filter_handler.filter(
                [state.full for state in states], spec, verdicts)
        if passed:
            with self.stopwatch('R5'):
                weighed = self._ordered(
                    self.weight_handler.get_weighed_objects(
                        passed, spec, explain))
            best = weighed[0].view.host
            report = (self._report(states, False, verdicts, weighed, spec,
                                   False) if explain else None)
            return Selection(spec.new_instance(index, now), best.name,
                             host_state.TerminationPlan(best.name, (), ())), \
                report
        with self.stopwatch('T10'):
            plans = self._class_plans(states, spec, pending, now)
        report = None
        if explain:
            report = [HostReport(
                state.name, 'full', state.name in plans,
                None if state.name in plans else verdicts.get(state.name),
                terminate=([v.id for v in plans[state.name][1]]
                           if state.name in plans else None))
                for state in states]
        if not plans:
            return None, report
        with self.stopwatch('R5'):
            lowest = min(score for score, _ in plans.values())
            # Weighed as they will be once their victims are gone.
            tied = [self.host_manager.host_states[name].view_without(
                        victims)
                    for name, (score, victims) in plans.items()
                    if score == lowest]
            weighed = self._ordered(
                self.weight_handler.get_weighed_objects(tied, spec))
        name = weighed[0].view.name
        victims = plans[name][1]
        plan = host_state.TerminationPlan(name, victims,
                                          (0.0,) * len(victims))
        return Selection(spec.new_instance(index, now), name, plan), report

    def _class_plans(self, states, spec, pending, now):
        """``{host: (score, victims)}`` of the hosts where ``spec`` fits
        once the policy's victims are gone."""
        policy = self.preemption
        if not policy.may_preempt(pending, now):
            return {}
        candidates = {}
        views = []
        for state in states:
            chosen = policy.candidates(state, pending, now)
            if not chosen:
                continue
            candidates[state.name] = chosen
            views.append(state.view_without(chosen))
        plans = {}
        for view in self.filter_handler.filter(views, spec):
            state = view.host
            victims = policy.victims(state, pending, candidates[state.name],
                                     now)
            if victims is not None:
                plans[state.name] = (policy.score(victims, pending, now),
                                     victims)
        return plans

    def _ordered(self, weighed):
        """Candidates in the order they are tried.

        The first is drawn at random among the best ``host_subset_size``
        hosts and any host tied with the last of them; if its claim fails
        (it cannot take the request even after terminations) the others
        follow, best first, as Nova's alternates do.
        """
        if not weighed:
            return []
        size = min(self.host_subset_size, len(weighed))
        cutoff = weighed[size - 1].weight
        while size < len(weighed) and weighed[size].weight == cutoff:
            size += 1
        if size > 1:
            first = self.rng.randrange(size)
            weighed = ([weighed[first]] + weighed[:first] +
                       weighed[first + 1:])
        return weighed

    @staticmethod
    def _plan(state, spec, may_terminate):
        if state.full.fits(spec.resources):
            return host_state.TerminationPlan(state.name, (), ())
        if may_terminate:
            return state.termination_plan(spec.resources)
        return None

    def _apply(self, selection):
        for victim in selection.plan.victims:
            self.host_manager.remove_instance(victim.id)
        self.host_manager.add_instance(selection.host, selection.instance)

    def _undo(self, selection):
        self.host_manager.remove_instance(selection.instance.id)
        for victim in selection.plan.victims:
            self.host_manager.add_instance(selection.host, victim)

    def _report(self, states, use_normal, verdicts, weighed, spec,
                may_terminate):
        by_name = {item.view.name: item for item in weighed}
        view = 'normal' if use_normal else 'full'
        report = []
        for state in states:
            item = by_name.get(state.name)
            if item is None:
                report.append(HostReport(state.name, view, False,
                                         verdicts.get(state.name)))
                continue
            plan = self._plan(state, spec, may_terminate)
            report.append(HostReport(
                state.name, view, True, None, item.details, item.weight,
                None if plan is None else plan.victim_ids))
        return report

