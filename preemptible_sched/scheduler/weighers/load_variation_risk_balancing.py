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


"""Trimaran's ``LoadVariationRiskBalancing``: spread the risk of overload."""

import math

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.hosts import load
from preemptible_sched.scheduler.weighers import load_aware

MAX_SCORE = load_aware.MAX_SCORE
#: The snapshot's columns this weigher reads.
_FIELDS = ('physical_cores', 'physical_memory_mb', 'cpu_known', 'cpu_mu',
           'cpu_sigma', 'memory_known', 'memory_mu', 'memory_sigma')


def _exponent(sensitivity):
    """The power the deviation is raised to: 1/sensitivity, +inf at 0
    (as the released plugin's float division gives).
    """
    return math.inf if sensitivity == 0.0 else 1.0 / sensitivity


def risk_score(mu, sigma, formula, margin, sensitivity):
    """Score 0-100 of one resource: ``mu`` the mean use with the request
    and ``sigma`` the standard deviation, both fractions of capacity.

    ``upstream`` follows the released plugin step by step: mu and sigma
    clipped to [0, 1], sigma raised to 1/sensitivity (+inf at sensitivity
    0: 0 below 100 %, 1 at 100 %), then scaled by the margin and clipped
    to [0, 1] again.
    """
    if formula == 'kep':
        return (1.0 - min(mu + margin * sigma, 1.0)) * MAX_SCORE
    mu = min(max(mu, 0.0), 1.0)
    sigma = min(max(sigma, 0.0), 1.0)
    spread = min(max(margin * sigma ** _exponent(sensitivity), 0.0), 1.0)
    return (1.0 - (mu + spread) / 2.0) * MAX_SCORE


def risk_scores(mu, sigma, formula, margin, sensitivity):
    """:func:`risk_score` of every host: vectors in, vector out."""
    if formula == 'kep':
        return (1.0 - numpy.minimum(mu + margin * sigma, 1.0)) * MAX_SCORE
    mu = numpy.clip(mu, 0.0, 1.0)
    sigma = numpy.clip(sigma, 0.0, 1.0)
    spread = numpy.clip(
        margin * numpy.power(sigma, _exponent(sensitivity)), 0.0, 1.0)
    return (1.0 - (mu + spread) / 2.0) * MAX_SCORE


def _options():
    group = CONF.load_variation_risk_balancing
    return (group.formula, group.safe_variance_margin,
            group.safe_variance_sensitivity)


class LoadVariationRiskBalancingWeigher(load_aware.LoadAwareWeigher):
    """Score 0-100: prefer hosts least at risk of running out, CPU or memory.

    Per resource with metrics, from the load watcher's latest 15-minute
    window: mu = (average use + the instances placed since the window +
    the request) / capacity and sigma = standard deviation / capacity
    (fractions of the host's physical capacity; the request's CPU is its
    predicted CPU). ``kep`` (the design document): score = (1 - min(mu +
    margin * sigma, 1)) * 100; ``upstream`` (the released plugin, step by
    step): with mu and sigma clipped to [0, 1], score = (1 - (mu +
    min(margin * sigma^(1/sensitivity), 1)) / 2) * 100, where sensitivity
    0 makes the power 0 below 100 % and 1 at 100 % (so mu 0.5, sigma 1,
    margin 0.5 and sensitivity 0 score 50).
    The host's score is the lowest over its resources. It spreads load
    away from hosts whose use is high *or* varies a lot: use it where
    instances burst, to keep the chance of contention even.

    Bounds are fixed at 0 and 100. A host whose load is unknown scores 0;
    while the metrics source is down every host is ranked by best fit on
    allocations instead.

    ``least_requested``, ``balanced_allocation``, ``allocation_score`` and a
    positive ``cpu``/``ram`` multiplier rank by reservations, not by real
    use, and blur what this weigher measures: do not combine them.

    Options: ``[load_variation_risk_balancing] safe_variance_margin``
    (default 1), ``safe_variance_sensitivity`` (1), ``formula`` (``kep``);
    ``[filter_scheduler] load_variation_risk_balancing_weight_multiplier``
    (default 1.0).
    """

    name = 'load_variation_risk_balancing'

    def _weigh_all_loaded(self, batch, spec, snapshot):
        request_cores = load.predicted_cores(
            spec.resources.vcpus, spec.expected_vcpus, snapshot.multiplier)
        request_memory = spec.resources.memory_mb
        formula, margin, sensitivity = _options()

        def compute(columns, recent_cores, recent_memory):
            result = None
            for resource, added, capacity in (
                    ('cpu', recent_cores + request_cores,
                     columns['physical_cores']),
                    ('memory', recent_memory + request_memory,
                     columns['physical_memory_mb'])):
                share = load.shares(added, capacity)
                # mu and sigma: 0 where the load is unknown (then unused).
                value = risk_scores(columns[resource + '_mu'] + share,
                                    columns[resource + '_sigma'],
                                    formula, margin, sensitivity)
                known = columns[resource + '_known']
                # min(inf, value) is value (NaN included).
                result = (numpy.where(known, value, numpy.inf)
                          if result is None
                          else numpy.where(known, numpy.minimum(result, value),
                                           result))
            return numpy.where(numpy.isinf(result), 0.0, result)

        def one(row, recent_cores, recent_memory):
            # compute() for one host, as numpy rounds it (kep only: the
            # upstream formula's power is numpy's own).
            result = math.inf
            for resource, added, capacity in (
                    ('cpu', recent_cores + request_cores,
                     row['physical_cores']),
                    ('memory', recent_memory + request_memory,
                     row['physical_memory_mb'])):
                if not row[resource + '_known']:
                    continue
                share = added / capacity if capacity > 0 else math.inf
                value = risk_score(row[resource + '_mu'] + share,
                                   row[resource + '_sigma'], formula,
                                   margin, sensitivity)
                # numpy.minimum: NaN wins.
                result = (math.nan if result != result or value != value
                          else min(result, value))
            return 0.0 if math.isinf(result) else result
        # Host by host: kept across passes for the hosts that did not
        # change (see LoadSnapshot.weights).
        return snapshot.weights(
            batch, (self.name, request_cores, request_memory, formula, margin,
                    sensitivity), _FIELDS, compute,
            one if formula == 'kep' else None)
