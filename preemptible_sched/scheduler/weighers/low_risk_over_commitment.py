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


"""Trimaran's ``LowRiskOverCommitment``: the risk of over-committed hosts.

The risk of a resource on a host has two parts, weighed by a risk-limit
weight ``w``: ``risk = w * limit risk + (1 - w) * load risk``, clipped to
[0, 1]; the host scores ``(1 - max(CPU risk, memory risk)) * 100``.

* Limit risk: with ``limits`` and ``requests`` the sums over the host's
  instances and the request (``requests`` capped at the capacity), the
  share of the room beyond the requests that does not fit:
  ``(limits - capacity) / (limits - requests)`` when the limits exceed the
  capacity, else 0.
* Load risk: a beta distribution is fitted (by its first two moments) to
  the measured utilisation, mean ``mu`` and deviation ``sigma`` as
  fractions of capacity, ``sigma`` scaled by ``sqrt(smoothing window)``
  (the window's deviation is one of smoothed samples) and held below
  ``sqrt(0.99 * mu * (1 - mu))`` (the largest a beta allows). The load
  risk is the probability that the utilisation exceeds what the other
  instances request, ``1 - F(requests / capacity)``; when their limits are
  below the capacity, the probability is conditioned on the utilisation
  staying within them: ``1 - F(requests / capacity) / F(limits /
  capacity)``.

Nothing here reads a clock, a file or the network.
"""

import math

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.scheduler.weighers import load_aware

MAX_SCORE = load_aware.MAX_SCORE
#: Share of a beta distribution's largest variance for a mean that the
#: fitted variance may reach (the released plugin's allowance).
MAX_VARIANCE_ALLOWANCE = 0.99
#: Shape parameters beyond which the beta distribution is replaced by the
#: normal one of the same mean and deviation: the continued fraction
#: would need some sqrt(shape) terms, and the two laws agree there.
NORMAL_SHAPE = 1e7
#: Terms of the continued fraction before it counts as not converged.
MAX_TERMS = 5000
_EPSILON = 1e-15
_TINY = 1e-300

_lgamma = numpy.frompyfunc(math.lgamma, 1, 1)
_erfc = numpy.frompyfunc(math.erfc, 1, 1)


def _floats(values):
    return numpy.asarray(values, dtype=float)


def _guard(values):
    return numpy.where(numpy.abs(values) < _TINY, _TINY, values)


def _continued_fraction(x, a, b):
    """The continued fraction of the incomplete beta function, evaluated
    by the modified Lentz method, every element until it converges (NaN
    where it does not within :data:`MAX_TERMS` terms).
    """
    total = a + b
    c = numpy.ones_like(x)
    d = 1.0 / _guard(1.0 - total * x / (a + 1.0))
    h = d.copy()
    done = numpy.zeros(x.shape, dtype=bool)
    with numpy.errstate(all='ignore'):
        for m in range(1, MAX_TERMS + 1):
            for numerator in (
                    m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (total + m) * x /
                    ((a + 2 * m) * (a + 2 * m + 1))):
                d = 1.0 / _guard(1.0 + numerator * d)
                c = _guard(1.0 + numerator / c)
                step = numpy.where(done, 1.0, d * c)
                h = h * step
            done |= numpy.abs(step - 1.0) < _EPSILON
            if done.all():
                return h
    return numpy.where(done, h, numpy.nan)


def _lower_tail(x, a, b):
    """I_x(a, b) for 0 < x < (a + 1) / (a + b + 2), where the continued
    fraction converges fast.
    """
    log_front = (_floats(_lgamma(a + b)) - _floats(_lgamma(a)) -
                 _floats(_lgamma(b)) + a * numpy.log(x) +
                 b * numpy.log1p(-x))
    return numpy.exp(log_front) * _continued_fraction(x, a, b) / a


def regularized_incomplete_beta(x, a, b):
    """I_x(a, b) = B(x; a, b) / B(a, b), the distribution function of the
    beta law (shapes ``a``, ``b`` > 0) at ``x`` in [0, 1]; arrays in,
    array out. NaN outside the domain, or where the continued fraction
    does not converge.
    """
    x, a, b = numpy.broadcast_arrays(_floats(x), _floats(a), _floats(b))
    result = numpy.full(x.shape, numpy.nan)
    valid = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    result[valid & (x == 0)] = 0.0
    result[valid & (x == 1)] = 1.0
    inner = valid & (x > 0) & (x < 1)
    direct = inner & (x < (a + 1.0) / (a + b + 2.0))
    mirrored = inner & ~direct
    if direct.any():
        result[direct] = _lower_tail(x[direct], a[direct], b[direct])
    if mirrored.any():
        result[mirrored] = 1.0 - _lower_tail(
            1.0 - x[mirrored], b[mirrored], a[mirrored])
    return result


def beta_cdf(x, alpha, beta, mu, sigma):
    """P(X <= x) for X of the beta law (``alpha``, ``beta``) with mean
    ``mu`` and deviation ``sigma``; 0 where it cannot be computed, as the
    released plugin's distribution function answers. Beyond
    :data:`NORMAL_SHAPE` the normal law of the same moments stands in.
    """
    x, alpha, beta, mu, sigma = numpy.broadcast_arrays(
        _floats(x), _floats(alpha), _floats(beta), _floats(mu),
        _floats(sigma))
    normal = numpy.maximum(alpha, beta) > NORMAL_SHAPE
    result = numpy.zeros(x.shape)
    if normal.any():
        z = (mu[normal] - x[normal]) / (sigma[normal] * math.sqrt(2.0))
        result[normal] = 0.5 * _floats(_erfc(z))
    exact = ~normal
    if exact.any():
        result[exact] = regularized_incomplete_beta(
            x[exact], alpha[exact], beta[exact])
    return numpy.where(numpy.isnan(result) | (result < 0) | (result > 1),
                       0.0, result)


def fit_sigma(mu, sigma, window):
    """The deviation of the fitted law: ``sigma * sqrt(window)``, held
    below ``sqrt(0.99 * mu * (1 - mu))`` (0 unless 0 < mu < 1).
    """
    largest = numpy.where((mu > 0) & (mu < 1), mu * (1.0 - mu), 0.0)
    return numpy.minimum(sigma * math.sqrt(window),
                         numpy.sqrt(largest * MAX_VARIANCE_ALLOWANCE))


def below(mu, sigma, threshold):
    """P(utilisation <= ``threshold``) under the beta law of mean ``mu``
    and deviation ``sigma`` (fractions), and the mask of the elements
    where a law was fitted: ``(probability, alpha, beta, fitted)``.

    No law for a mean of 0 or a deviation of 0 (a step at the mean), nor
    when the moments admit none (probability 0).
    """
    mu, sigma, threshold = numpy.broadcast_arrays(
        _floats(mu), _floats(sigma), _floats(threshold))
    step = (mu == 0) | (sigma == 0)
    probability = numpy.where(step & (mu <= threshold), 1.0, 0.0)
    probability = numpy.where(mu == 0, 1.0, probability)
    variance = (sigma * sigma + mu * mu) - mu * mu
    spread = mu * (1.0 - mu)
    fitted = ~step & (mu >= 0) & (mu <= 1) & (variance >= 0) & (
        variance < spread)
    with numpy.errstate(divide='ignore', invalid='ignore'):
        shape = numpy.maximum(spread / variance - 1.0,
                              numpy.finfo(float).smallest_subnormal)
    alpha = numpy.where(fitted, mu * shape, 1.0)
    beta = numpy.where(fitted, (1.0 - mu) * shape, 1.0)
    if fitted.any():
        probability = numpy.where(
            fitted, beta_cdf(threshold, alpha, beta, mu, sigma), probability)
    return probability, alpha, beta, fitted


def load_risks(mu, sigma, requested, limited, capacity, window):
    """The load risk per host of one resource: ``mu``, ``sigma`` the
    measured mean and deviation (fractions of capacity), ``requested`` and
    ``limited`` the requests (capped at the capacity) and limits of the
    instances already on the host, in the capacity's unit.
    """
    mu = numpy.clip(mu, 0.0, 1.0)
    sigma = fit_sigma(mu, numpy.clip(sigma, 0.0, 1.0), window)
    with numpy.errstate(divide='ignore', invalid='ignore'):
        threshold = numpy.clip(requested / capacity, 0.0, 1.0)
        limit_share = limited / capacity
    probability, alpha, beta, fitted = below(mu, sigma, threshold)
    condition = (limited < capacity) & (requested <= limited)
    probability = numpy.where(condition & (limit_share == 0), 1.0,
                              probability)
    within = condition & (limit_share > 0) & fitted
    if within.any():
        limit_probability = beta_cdf(numpy.where(within, limit_share, 1.0),
                                     alpha, beta, mu, sigma)
        within &= limit_probability > 0
        with numpy.errstate(divide='ignore', invalid='ignore'):
            conditioned = numpy.clip(probability / limit_probability,
                                     0.0, 1.0)
        probability = numpy.where(within, conditioned, probability)
    return 1.0 - probability


def limit_risks(requests, limits, capacity):
    """The limit risk per host of one resource: ``requests`` and
    ``limits`` summed over the host's instances and the request.
    """
    requests = numpy.minimum(requests, capacity)
    with numpy.errstate(divide='ignore', invalid='ignore'):
        share = (limits - capacity) / (limits - requests)
    return numpy.where(limits > capacity, share, 0.0)


def resource_risks(usage, placed, request, capacity, weight, window):
    """The total risk per host of one resource, 0-1.

    ``usage``: (mean, deviation, measured) with ``measured`` the mask of
    the hosts with metrics for it (a host without has no load risk);
    ``placed``, ``request``: (requests, limits) of the instances on the
    host and of the request. A host without capacity is at risk 1.
    """
    mu, sigma, measured = usage
    placed, request = _floats(placed), _floats(request)
    capacity = _floats(capacity)
    requested, limited = numpy.minimum(placed[0], capacity), placed[1]
    load_part = numpy.where(
        measured, load_risks(numpy.where(measured, mu, 0.0),
                             numpy.where(measured, sigma, 0.0), requested,
                             limited, capacity, window), 0.0)
    limit_part = limit_risks(placed[0] + request[0], placed[1] + request[1],
                             capacity)
    total = numpy.clip(weight * limit_part + (1.0 - weight) * load_part,
                       0.0, 1.0)
    return numpy.where(capacity > 0, total, 1.0)


def request_cores(vcpus, expected):
    """The vCPUs an instance asks for, as a Kubernetes request: its
    declared expected usage (at most its vCPUs), else its vCPUs.
    """
    if expected is None:
        return float(vcpus)
    return min(float(vcpus), max(float(expected), 0.0))


def _beyond(instances, hidden=()):
    """vCPUs the ``instances`` (but ``hidden``) may use beyond what they
    ask for: their limits minus their requests.
    """
    hidden = {instance.id for instance in hidden}
    total = 0.0
    for instance in instances:
        if instance.id not in hidden:
            vcpus = instance.resources.vcpus
            total += vcpus - request_cores(
                vcpus, getattr(instance, 'expected_vcpus', None))
    return total


def _beyond_all(batch):
    """:func:`_beyond` of every host of ``batch``."""
    if batch.table is None:
        return numpy.array([_beyond(view.host.instances.values(),
                                    getattr(view, 'removed', ()))
                            for view in batch.views()], dtype=float)
    states = batch.table.states
    result = numpy.zeros(len(batch))
    for position, slot in enumerate(batch.slots.tolist()):
        state = states.get(slot)
        if state is not None and state.instances:
            result[position] = _beyond(state.instances.values())
    return result


def _options():
    group = CONF.low_risk_over_commitment
    return (group.smoothing_window_size, group.cpu_risk_limit_weight,
            group.memory_risk_limit_weight)


def _expected(spec):
    return getattr(spec, 'expected_vcpus', None)


def _asks_nothing(spec):
    return spec.resources.vcpus <= 0 and spec.resources.memory_mb <= 0


def _score(cpu_risk, memory_risk):
    return (1.0 - numpy.maximum(cpu_risk, memory_risk)) * MAX_SCORE


class LowRiskOverCommitmentWeigher(load_aware.LoadAwareWeigher):
    """Score 0-100: prefer hosts least at risk from over-commitment.

    Limit-aware and load-aware. Kubernetes' *limits* are the instances'
    vCPUs here (a VM's vCPUs are a hard cap on what it may use) and its
    *requests* their declared expected usage (``expected_vcpus``, at most
    the vCPUs; without one, the vCPUs); memory has no declared usage, so
    its request is its limit, the flavor's RAM. The capacity is the
    host's physical capacity (the metrics' unit), so the vCPUs beyond the
    physical cores (an allocation ratio above 1) are the over-commitment.
    Per resource (see the module): risk = w * limit risk + (1 - w) * load
    risk, the load risk from a beta distribution fitted to the latest
    window's mean (plus the instances placed since, as the other
    load-aware weighers add them) and deviation, scaled by
    sqrt(``smoothing_window_size``). Score = (1 - max(CPU risk, memory
    risk)) * 100.

    Where instances declare no expected usage, requests equal limits and
    the weigher degenerates: the load risk is 0 while the vCPUs fit the
    physical cores (the utilisation, conditioned on staying within the
    limits, stays within the requests) and the limit risk jumps from 0 to
    1 as soon as the vCPUs exceed them; every host not over-committed
    then scores 100, every over-committed one 100 * (1 - w), so it only
    separates over-committed hosts from the others. One exception, as
    upstream: a window without any deviation is a step at its mean, and
    a mean above the instances' share puts all of the load beyond it
    (load risk 1). Memory, which has no declared usage, behaves so always.

    A request of no vCPU and no memory scores 0 everywhere (no
    preference), as the released plugin scores best-effort pods. A host
    whose load is unknown scores 0, a host without capacity for a
    resource is at risk 1 for it; while the metrics source is down every
    host is ranked by best fit on allocations instead.

    Options: ``[low_risk_over_commitment] smoothing_window_size`` (default
    5), ``cpu_risk_limit_weight`` and ``memory_risk_limit_weight`` (0.5);
    ``[filter_scheduler] low_risk_over_commitment_weight_multiplier``
    (default 1.0).
    """

    name = 'low_risk_over_commitment'

    def _weigh_all_loaded(self, batch, spec, snapshot):
        if _asks_nothing(spec):
            return numpy.zeros(len(batch))
        columns = snapshot.columns(batch)
        recent_cores, recent_memory = snapshot.recent(batch)
        used = batch.used
        beyond = _beyond_all(batch)
        window, cpu_weight, memory_weight = _options()
        new = columns['new']
        risks = []
        for resource, recent, placed, request, capacity, weight in (
                ('cpu', recent_cores, (used[0] - beyond, used[0]),
                 (request_cores(spec.resources.vcpus, _expected(spec)),
                  spec.resources.vcpus), columns['physical_cores'],
                 cpu_weight),
                ('memory', recent_memory, (used[1], used[1]),
                 (spec.resources.memory_mb,) * 2,
                 columns['physical_memory_mb'], memory_weight)):
            avg = numpy.where(new, 0.0, columns[resource + '_avg'])
            std = numpy.where(new, 0.0, columns[resource + '_std'])
            measured = ~numpy.isnan(avg)
            usage = (_mean(numpy.where(measured, avg, 0.0), recent,
                           capacity),
                     numpy.where(measured, std, 0.0) / 100.0, measured)
            risks.append(resource_risks(usage, placed, request, capacity,
                                        weight, window))
        known = new | ~numpy.isnan(columns['cpu_avg']) | ~numpy.isnan(
            columns['memory_avg'])
        return numpy.where(known, _score(*risks), 0.0)


def _mean(avg, recent, capacity):
    """Mean utilisation (a fraction): the measured one plus the instances
    the window cannot show yet.
    """
    share = numpy.zeros(numpy.shape(capacity))
    numpy.divide(recent, capacity, out=share,
                 where=numpy.asarray(capacity) > 0)
    return avg / 100.0 + share
