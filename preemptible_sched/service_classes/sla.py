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

"""SLA classes: the four services, PROMETHEE II, dynamic sizing, copies.

A request may carry a level (``premium``, ``advanced``, ``best_effort``,
priorities 3, 2, 1) of four services (:class:`~.objects.SLALevels`):

satisfaction time
    how soon it is served: a criterion of the ``promethee`` queue policy;
reputation
    the category of the hosts it runs on: premium on hosts whose attribute
    ``reputation`` is ``high``, advanced on ``average``, best effort on
    ``low`` (the ``reputation`` filter);
resources
    for a moldable request (one with a sequential run time), the band of
    cores it is sized in: best effort [1, N/3], advanced [N/3 + 1, 2N/3],
    premium [2N/3 + 1, N], rounded down, N being the cores of a full
    allocation (``[sla] reference_cores``);
replicas
    how many copies of it run, each on a distinct host of its category.

Everything here is pure: the loop and the plugins hand in the host states,
the queue and the options.
"""

import dataclasses
import math
import typing

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import objects

#: Priority of each level: the criteria PROMETHEE II maximises.
PRIORITY = {'premium': 3, 'advanced': 2, 'best_effort': 1}

#: The host attribute that says a host's reputation category.
REPUTATION_ATTRIBUTE = 'reputation'

#: Host category of each level of the reputation service.
CATEGORY = {'premium': 'high', 'advanced': 'average', 'best_effort': 'low'}


def levels(values, source, field_of):
    """:class:`~.objects.SLALevels` of ``values`` (``{service: text}``,
    the four services or none: None).

    ``source`` names the file and ``field_of(service)`` where in it the
    service's level was given, for errors: every bad or missing level is
    reported at once, in one :class:`InvalidInput`.
    """
    given = {service: text for service, text in values.items()
             if text not in (None, '')}
    if not given:
        return None
    problems = []
    parsed = {}
    for service in objects.SLA_SERVICES:
        text = given.get(service)
        value = str(text).strip().lower().replace('-', '_')
        if text is None:
            problems.append('%s: missing (the four SLA services go '
                            'together)' % field_of(service))
        elif value not in PRIORITY:
            problems.append('%s: expected one of %s, got %r' % (
                field_of(service), ', '.join(objects.SLA_LEVELS), text))
        else:
            parsed[service] = value
    if problems:
        raise exception.InvalidInput(source, None, '; '.join(problems))
    return objects.SLALevels(**parsed)


def criteria(sla):
    """The priorities of ``sla``'s four services, in service order."""
    return tuple(PRIORITY[getattr(sla, service)]
                 for service in objects.SLA_SERVICES)


def weights(conf=CONF):
    """The configured weights of the four services, in service order."""
    return tuple(conf.sla['%s_weight' % service]
                 for service in objects.SLA_SERVICES)


class Flows(typing.NamedTuple):
    """A request's PROMETHEE II flows: how much it outranks the others
    (``plus``), is outranked by them (``minus``), and the net flow.
    """

    plus: float
    minus: float
    net: float


def promethee(rows, weights):
    """PROMETHEE II flows of the alternatives ``rows`` (one sequence of
    criteria to maximise each) with the usual criterion P(d) = [d > 0].

    pi(a, b) is the weighted share of criteria on which a beats b;
    phi+(a) = sum_b pi(a, b) / (n - 1), phi-(a) = sum_b pi(b, a) / (n - 1),
    phi = phi+ - phi-. One alternative alone has every flow 0.
    """
    count = len(rows)
    if count < 2:
        return [Flows(0.0, 0.0, 0.0)] * count
    # The alternatives take few distinct values (81 at most for four
    # services of three levels): compare the distinct ones, each counted
    # as often as it occurs (pi(a, a) = 0), not every pair of a long queue.
    values, which, counts = numpy.unique(
        numpy.asarray(rows, dtype=float), axis=0, return_inverse=True,
        return_counts=True)
    plus, minus = _distinct_flows(values, counts, weights, count)
    return [Flows(p, m, p - m) for p, m in zip(
        plus[which.ravel()].tolist(), minus[which.ravel()].tolist())]


def _distinct_flows(values, counts, weights, count):
    """phi+ and phi- of each of the distinct sorted alternatives
    ``values``, occurring ``counts`` times among ``count``.
    """
    share = numpy.asarray(weights, dtype=float)
    share = share / share.sum()
    beats = values[:, None, :] > values[None, :, :]
    preference = beats @ share            # preference[a, b] = pi(a, b)
    return (preference @ counts) / (count - 1), \
        (counts @ preference) / (count - 1)


def net_flows(counted, weights):
    """``{criteria: net flow}`` of the alternatives counted by their
    criteria in ``counted`` (a mapping of distinct criteria tuples to
    how many alternatives have them): the net flows :func:`promethee`
    gives them, to the last bit, without a row per alternative.
    """
    count = sum(counted.values())
    if count < 2:
        return dict.fromkeys(counted, 0.0)
    distinct = list(counted)
    values, which = numpy.unique(
        numpy.asarray(distinct, dtype=float), axis=0, return_inverse=True)
    which = which.ravel()
    counts = numpy.zeros(len(values), dtype=numpy.intp)
    counts[which] = [counted[row] for row in distinct]
    plus, minus = _distinct_flows(values, counts, weights, count)
    plus, minus = plus[which].tolist(), minus[which].tolist()
    return {row: p - m for row, p, m in zip(distinct, plus, minus)}


class Band(typing.NamedTuple):
    """The cores a level of the resources service may get, inclusive."""

    low: int
    high: int


def bands(cores):
    """``{level: Band}`` for a full allocation of ``cores`` (N >= 1).

    best_effort [1, N/3], advanced [N/3 + 1, 2N/3], premium [2N/3 + 1, N],
    rounded down. Below 3 cores the three bands cannot be apart: each is
    kept within [1, N] and not below the one under it (N = 2: 1, 1 and 2
    cores; N = 1: one core each).
    """
    cores = int(cores)
    if cores < 1:
        raise ValueError('N = %d cores: a band needs at least one core'
                         % cores)
    third, two_thirds = cores // 3, (2 * cores) // 3
    best_effort = Band(1, max(1, third))
    advanced_low = min(third + 1, cores)
    advanced = Band(advanced_low, max(advanced_low, two_thirds))
    return {'best_effort': best_effort,
            'advanced': advanced,
            'premium': Band(min(two_thirds + 1, cores), cores)}


def share(priority, idle, total_priority, band):
    """(raw, clamped) cores of one request: its fair share
    floor(p * wc / sum p) of the ``idle`` cores, clamped to ``band``.
    """
    raw = (int(priority) * int(math.floor(idle))) // int(total_priority)
    return raw, min(max(raw, band.low), band.high)


def category(spec):
    """The host category ``spec`` must run on; None if it has no SLA."""
    return None if spec.sla is None else CATEGORY[spec.sla.reputation]


def host_category(host):
    """The category of ``host`` (a host state, profile or Host)."""
    return host.attributes.get(REPUTATION_ATTRIBUTE)


def up_categories(categories, up):
    """The reputation categories with a host up: ``categories`` and
    ``up`` are host columns (each host's category and whether it is up).
    """
    return frozenset(numpy.asarray(categories, dtype=object)[
        numpy.asarray(up, dtype=bool)].tolist())


def no_host_up(spec, categories):
    """Why SLA request ``spec`` cannot be placed when no host of its
    category is up (``categories``: those with a host up); None when one
    is, or when it has no SLA.
    """
    wanted = category(spec)
    if wanted is None or wanted in categories:
        return None
    return ('no host of reputation category %s is up (its %s reputation '
            'runs only there)' % (wanted, spec.sla.reputation))


def copies(sla, conf=CONF):
    """How many copies of a request with levels ``sla`` run in total."""
    count = conf.sla['%s_replicas' % sla.replicas]
    return count + 1 if conf.sla.replicas_count == 'extra' else count


def with_copies(spec, conf=CONF):
    """``spec`` asking for its copies: one instance each, on distinct
    hosts (an anti-affinity group named after the request, kept apart by
    the ``anti_affinity`` filter or, without it, by :class:`CopiesApart`).
    """
    if spec.sla is None:
        return spec
    count = copies(spec.sla, conf)
    if count == spec.num_instances and (count == 1 or spec.group):
        return spec
    return dataclasses.replace(
        spec, num_instances=count,
        group=spec.group or (spec.id if count > 1 else None),
        group_policy=spec.group_policy or (
            'anti-affinity' if count > 1 else None))


#: The enabled filter that keeps the members of an anti-affinity group,
#: and so the copies of a request, on distinct hosts.
ANTI_AFFINITY_FILTER = 'anti_affinity'


class CopiesApart:
    """A host filter that keeps the copies of an SLA request on distinct
    hosts: a host holding one of them (placed earlier, or earlier in this
    decision) is rejected.

    It has the interface of
    :class:`preemptible_sched.scheduler.filters.BaseHostFilter` (``name``,
    ``applies_to``, ``filter_all``) and is not a plugin: the filter scheduler
    runs it after the enabled filters when ``anti_affinity`` is not among them
    (:func:`copies_filters`), so that the copies never depend on that option.
    Other requests pass every host.
    """

    name = 'sla_copies'

    def applies_to(self, spec):
        return spec.sla is not None and bool(spec.group) and \
            spec.group_policy == 'anti-affinity'

    def filter_all(self, batch, spec):
        return ~(batch.named(spec.group_hosts) | batch.with_group(spec.group))


def copies_filters(enabled):
    """The filters to run after the ``enabled`` ones (their names) so that
    the copies of a request land on distinct hosts: none when
    ``anti_affinity`` is enabled, else :class:`CopiesApart`.
    """
    return [] if ANTI_AFFINITY_FILTER in enabled else [CopiesApart()]


@dataclasses.dataclass(frozen=True)
class Sizing:
    """How a moldable request's cores were worked out (for ``decide`` and
    the journal): N and the band, the idle cores ``wc`` of its category,
    the sum of priorities of the queued requests sharing them, the raw
    fair share and the cores after clamping.
    """

    category: str
    reference_cores: int
    band: Band
    idle: int
    total_priority: int
    priority: int
    raw: int
    cores: int

    def as_dict(self):
        return {'category': self.category, 'N': self.reference_cores,
                'band': list(self.band), 'wc': self.idle,
                'sum_p': self.total_priority, 'p': self.priority,
                'raw_r': self.raw, 'r': self.cores}


def size(spec, states, queued, conf=CONF):
    """The :class:`Sizing` of moldable ``spec`` on host states ``states``
    (their full views say what is idle); see :func:`size_on`.
    """
    states = list(states)
    return size_on(
        spec, numpy.array([state.capacity.vcpus for state in states]),
        numpy.array([state.full.free_vcpus for state in states]),
        numpy.array([state.up for state in states], dtype=bool),
        numpy.array([host_category(state) for state in states],
                    dtype=object), queued, conf)


def sharing(spec):
    """``(reputation level, priority)`` by which ``spec`` shares the idle
    cores of its category with the other queued moldable SLA requests, or
    None when it does not (not moldable, or no SLA).
    """
    if not spec.moldable or spec.sla is None:
        return None
    return spec.sla.reputation, PRIORITY[spec.sla.resources]


def queued_priority(spec, queued):
    """The priorities of the specs of ``queued`` that share with ``spec``
    (:func:`sharing`: moldable, same reputation level), summed; those of
    ``spec``'s own request left out.
    """
    return sum(PRIORITY[other.sla.resources] for other in queued
               if other.moldable and other.sla is not None and
               other.sla.reputation == spec.sla.reputation and
               other.id != spec.id)


def size_on(spec, cores, idle, up, categories, queued, conf=CONF,
            others=None):
    """The :class:`Sizing` of moldable ``spec`` now; None if it has no SLA
    or no up host to measure N on.

    The hosts are columns: their ``cores``, ``idle`` vCPUs (on the full
    view), whether they are ``up`` and their reputation ``categories``.
    ``queued`` are the specs still waiting in the queue (``spec`` among
    them): the moldable ones with the same reputation level share the idle
    cores of the category by the priority of their resources level.
    ``others``, when given, is their :func:`queued_priority` already
    summed (the queue keeps it as requests come and go), and ``queued`` is
    not read.
    """
    if spec.sla is None:
        return None
    wanted = category(spec)
    in_category = up & (categories == wanted)
    if conf.sla.reference_cores == 'configured':
        reference = conf.sla.reference_cores_value
    else:
        pool = cores[in_category if conf.sla.reference_cores ==
                     'per_category' else up]
        pool = pool[pool >= 1]      # a host with no whole core sizes none
        if not pool.size:
            return None
        reference = int(math.floor(pool.min()))
    band = bands(reference)[spec.sla.resources]
    wc = int(math.floor(numpy.maximum(idle[in_category], 0.0).sum()))
    priority = PRIORITY[spec.sla.resources]
    if others is None:
        others = queued_priority(spec, queued)
    total = others + priority
    raw, clamped = share(priority, wc, total, band)
    return Sizing(wanted, reference, band, wc, total, priority, raw,
                  clamped)


def sized(spec, sizing):
    """``spec`` with the cores of ``sizing``; it runs sequential_s / r."""
    resources = spec.resources._replace(vcpus=float(sizing.cores))
    return dataclasses.replace(spec, resources=resources, sized=True)


def run_time(spec):
    """How long a sized moldable request runs (None if not moldable)."""
    if spec.sequential_s is None or not spec.resources.vcpus:
        return None
    return spec.sequential_s / spec.resources.vcpus


@dataclasses.dataclass(frozen=True)
class Invoice:
    """What an SLA request is billed on.

    ``wait_s`` from submission to its first copy starting, ``cores`` per
    copy, ``copies`` the hosts of its copies, ``core_seconds`` summed over
    the copies' running times, ``levels`` its four service levels.
    """

    request: str
    user: typing.Optional[str]
    levels: objects.SLALevels
    category: str
    wait_s: typing.Optional[float]
    cores: float
    copies: typing.Tuple[str, ...]
    core_seconds: float

    @property
    def sla_class(self):
        """The class it is billed in: its reputation level."""
        return self.levels.reputation
