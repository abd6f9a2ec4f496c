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

"""Whole-cloud (vectorised) decisions against one host at a time.

Every built-in filter, weigher, termination cost and the ``dual_state``
strategy judge all hosts at once; wrapped so that they can only judge one
host at a time, the same scheduler must choose the same hosts, the same
victims, with the same weights and the same random draws, on random clouds
(varied hosts, aggregates overriding multipliers, hosts down, held
victims, server groups) under every strategy. A cross-host oracle checks
that the cheapest termination set of the whole cloud is found.
"""

import itertools

import fixtures
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

from preemptible_sched.conf import plugins
from preemptible_sched import objects
from preemptible_sched.scheduler import filter_scheduler as scheduler
from preemptible_sched.scheduler import filters
from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.scheduler import weighers
from tests import base
from tests import oracles

SIZES = st.sampled_from([objects.Resources(1, 2000, 20),
                         objects.Resources(2, 4000, 40),
                         objects.Resources(0.5, 1000, 10),
                         objects.Resources(4, 8000, 80)])
# Every registered plugin (the load-aware ones see no load here: they
# rank by best fit, as without usable metrics).
WEIGHERS = plugins.names(plugins.WEIGHERS)
FILTERS = plugins.names(plugins.FILTERS)


class _OneHostFilter(filters.BaseHostFilter):
    """A built-in filter that can only judge one host at a time."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name

    def applies_to(self, spec):
        return self.inner.applies_to(spec)

    def host_passes(self, host_view, spec):
        return self.inner.host_passes(host_view, spec)


class _OneHostWeigher(weighers.BaseHostWeigher):
    """A built-in weigher that can only weigh one host at a time."""

    def __init__(self, inner):
        self.inner = inner
        for name in ('name', 'minval', 'maxval', 'raw_type',
                     'multiplier_default'):
            setattr(self, name, getattr(inner, name))

    def weigh_objects(self, host_views, spec, context=None):
        return self.inner.weigh_objects(host_views, spec, context)


@st.composite
def clouds(draw):
    hosts = []
    number = itertools.count()
    for h in range(draw(st.integers(1, 7))):
        vcpus = draw(st.sampled_from([4, 8, 16]))
        aggregates = []
        if draw(st.booleans()):
            aggregates.append(objects.Aggregate('a%d' % (h % 2), {
                'ram_weight_multiplier': draw(st.sampled_from(['2', '-1'])),
                'termination_cost_weight_multiplier': '5',
                'availability_zone': 'z%d' % (h % 2)}))
        host = objects.Host('h%d' % h, vcpus, vcpus * 2048, 40 * vcpus,
                            aggregates=aggregates,
                            attributes={'gpu': str(h % 3)},
                            up=draw(st.integers(0, 9)) > 0)
        instances = []
        free = objects.Resources(vcpus, vcpus * 2048, 40 * vcpus)
        for _ in range(draw(st.integers(0, 8))):
            size = draw(SIZES)
            left = free - size
            if min(left) < 0:
                continue
            free = left
            instances.append(objects.Instance(
                'i%02d' % next(number), size, draw(st.booleans()),
                started_at=-float(draw(st.integers(0, 7200))),
                priority=float(draw(st.integers(0, 3))),
                group=draw(st.sampled_from([None, None, 'g'])),
                running_since=0.0, admitted_at=0.0,
                service_class=draw(st.sampled_from(
                    [None, 'gold', 'bronze']))))
        held = draw(st.integers(0, 2))
        hosts.append((host, instances, held))
    requests = [objects.RequestSpec(
        'r%d' % index, draw(SIZES), draw(st.booleans()),
        draw(st.integers(1, 2)),
        availability_zone=draw(st.sampled_from([None, None, 'z1'])),
        constraints=draw(st.sampled_from([{}, {}, {'gpu': '1'}])),
        group=draw(st.sampled_from([None, 'g'])),
        group_policy=draw(st.sampled_from(['affinity', 'anti-affinity'])),
        service_class=draw(st.sampled_from([None, 'gold'])),
        priority=float(draw(st.integers(0, 4))))
        for index in range(3)]
    config = {
        'strategy': draw(st.sampled_from(['dual_state', 'retry', 'plain',
                                          'qos', 'priority'])),
        'weighers': draw(st.lists(st.sampled_from(WEIGHERS), min_size=1,
                                  max_size=4, unique=True)),
        'costs': draw(st.lists(st.sampled_from(
            ['billing_period', 'runtime', 'count', 'priority']),
            min_size=1, max_size=2, unique=True)),
        'subset': draw(st.integers(1, 3)),
        'when_needed': draw(st.booleans()),
    }
    return hosts, requests, config


def _build(hosts, config, one_host_at_a_time):
    costs = termination.TerminationCostHandler.from_names(config['costs'])
    filter_handler = filters.FilterHandler.from_names(FILTERS)
    weight_handler = weighers.WeightHandler.from_names(config['weighers'])
    strategy = preemption.load(config['strategy'])
    if one_host_at_a_time:
        filter_handler = filters.FilterHandler(
            [_OneHostFilter(f) for f in filter_handler.filters])
        weight_handler = weighers.WeightHandler(
            [_OneHostWeigher(w) for w in weight_handler.weighers])
        strategy.displacement_batch = lambda *args: None
    sched = scheduler.FilterScheduler(
        strategy=strategy, filter_handler=filter_handler,
        weight_handler=weight_handler, cost_handler=costs,
        host_subset_size=config['subset'], seed=7)
    manager = sched.host_manager
    for host, instances, held in hosts:
        manager.add_host(host)
        for instance in instances:
            manager.add_instance(host.name, objects.Instance(
                **{field: getattr(instance, field) for field in (
                    'id', 'resources', 'preemptible', 'started_at',
                    'priority', 'group', 'running_since', 'admitted_at',
                    'service_class')}))
        preemptible = [i for i in instances if i.preemptible]
        for victim in preemptible[:held]:
            manager.hold_victim(host.name, manager.host_states[
                host.name].instances[victim.id], 'held')
    return sched


def _outcome(decision):
    return [(s.host, tuple(s.terminate), s.weights,
             s.explanation()['rejected_by'], s.passed)
            for s in decision.selections], decision.reason


class TestVectorisedEqualsOneHostAtATime(base.TestCase):

    @settings(max_examples=60, deadline=None)
    @given(clouds())
    def test_same_hosts_victims_weights_and_draws(self, cloud):
        hosts, requests, config = cloud
        self.flags(group='scheduler',
                   terminate_only_when_needed=config['when_needed'])
        fast = _build(hosts, config, False)
        small = _build(hosts, config, False)
        slow = _build(hosts, config, True)
        for step, request in enumerate(requests):
            now = 1800.0 * step
            # One host at a time; every host at once, on vectors; and
            # every host at once, the way of small batches (Python floats).
            expected = _outcome(slow.select_destinations(request, now=now))
            with fixtures.MonkeyPatch(
                    'preemptible_sched.scheduler.weighers.ranking.SMALL', 0):
                got = _outcome(fast.select_destinations(request, now=now))
            self.assertEqual(expected, got)
            self.assertEqual(expected, _outcome(
                small.select_destinations(request, now=now)))
            self.assertEqual(slow.rng.getstate(), fast.rng.getstate())
            self.assertEqual(slow.rng.getstate(), small.rng.getstate())

    @settings(max_examples=25, deadline=None)
    @given(clouds())
    def test_explanations_agree(self, cloud):
        hosts, requests, config = cloud
        fast = _build(hosts, config, False)
        slow = _build(hosts, config, True)
        with fixtures.MonkeyPatch(
                'preemptible_sched.scheduler.weighers.ranking.SMALL', 0):
            fast_reports = fast.select_destinations(requests[0],
                                                    explain=True).reports
        slow_reports = slow.select_destinations(requests[0],
                                                explain=True).reports
        self.assertEqual(slow_reports, fast_reports)


class TestCheapestSetOfTheWholeCloud(base.TestCase):
    """termination_cost alone: the chosen host's set is the cheapest of
    every host's brute-force cheapest set.
    """

    @settings(max_examples=50, deadline=None)
    @given(clouds(), st.sampled_from(['billing_period', 'runtime',
                                      'priority']))
    def test_cheapest_termination_set_of_the_cloud(self, cloud, cost):
        hosts, requests, config = cloud
        # One multiplier everywhere: the cheapest set then always wins.
        hosts = [(objects.Host(host.name, host.vcpus, host.memory_mb,
                               host.disk_gb, up=host.up), instances, held)
                 for host, instances, held in hosts]
        config = dict(config, strategy='dual_state',
                      weighers=['termination_cost'], costs=[cost],
                      subset=1)
        sched = _build(hosts, config, False)
        request = objects.RequestSpec('r', requests[0].resources)
        handler = termination.TerminationCostHandler.from_names([cost])
        best = None
        for state in sched.host_manager.get_all_host_states():
            if not (state.enabled and state.up) or \
                    not state.normal.fits(request.resources):
                continue
            if state.full.fits(request.resources):
                best = 0.0
                break
            candidates = list(state.preemptible_instances.values())
            costs = [handler.cost(i, state, 0.0) for i in candidates]
            chosen = oracles.brute_force(
                [i.resources for i in candidates], costs,
                [i.id for i in candidates],
                request.resources - state.full.free, state.capacity)
            if chosen is not None:
                total = sum(costs[i] for i in chosen)
                best = total if best is None else min(best, total)
        decision = sched.select_destinations(request, now=0.0)
        self.assertEqual(best is not None, decision.placed)
        if decision.placed:
            self.assertAlmostEqual(best, decision.selections[0].plan.cost,
                                   places=6)
