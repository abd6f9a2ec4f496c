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

"""Sampling a workload by user, as the QoS-driven scheduler paper did.

The paper shrank the Google 2011 trace while keeping its mix of users:
it described each user by the number of requests and the variances of
their CPU, memory and duration, grouped the users with k-means and kept a
share of each group. :func:`sample` does the same: the four features are
standardised (zero mean, unit variance over the users; a constant feature
becomes 0), clustered with :func:`kmeans`, and ``share`` of each
cluster's users (at least one) is drawn; every request of a kept user is
kept. Requests that run until the end (no duration) leave the duration
variance out; a user with no duration at all has variance 0.

Neither scipy nor scikit-learn is a dependency, so :func:`kmeans` is
Lloyd's algorithm with k-means++ seeding on numpy (the best of
:data:`RESTARTS` runs), seeded, and deterministic for a seed.
"""

import collections

import numpy

from preemptible_sched import exception

#: The per-user features, in order.
FEATURES = ('requests', 'cpu_variance', 'memory_variance',
            'duration_variance')
MAX_ITERATIONS = 300
#: Runs of k-means kept from (the best one), as scikit-learn's n_init.
RESTARTS = 10


def kmeans(points, k, rng, restarts=RESTARTS):
    """``(labels, centres)`` of ``points`` (an n x d array) in ``k``
    clusters: of ``restarts`` runs of k-means++ seeding then Lloyd's
    iterations until no point changes cluster, the one with the least
    within-cluster sum of squares (the first on a tie): Lloyd's stops at
    a local optimum, and restarts make a poor one unlikely. ``rng`` is a
    :class:`numpy.random.Generator`; ties go to the lower cluster number.
    Needs ``1 <= k <= n``.
    """
    points = numpy.asarray(points, dtype=float)
    count = len(points)
    if not 1 <= k <= count:
        raise ValueError('k must be within 1..%d, got %d' % (count, k))
    best = None
    for _ in range(restarts):
        labels, centres = _lloyd(points, k, rng)
        inertia = ((points - centres[labels]) ** 2).sum()
        if best is None or inertia < best[0]:
            best = (inertia, labels, centres)
    return best[1], best[2]


def _lloyd(points, k, rng):
    """One k-means++ seeding and Lloyd's iterations from it."""
    count = len(points)
    centres = [points[rng.integers(count)]]
    for _ in range(1, k):
        # k-means++: the next centre is drawn with probability
        # proportional to the squared distance to the nearest centre.
        distance = _squared_distances(points, numpy.array(centres)).min(1)
        total = distance.sum()
        if total <= 0:
            # Fewer distinct points than k: repeat one; it stays empty.
            centres.append(points[rng.integers(count)])
            continue
        centres.append(points[rng.choice(count, p=distance / total)])
    centres = numpy.array(centres)
    labels = None
    for _ in range(MAX_ITERATIONS):
        new = _squared_distances(points, centres).argmin(1)
        if labels is not None and numpy.array_equal(new, labels):
            break
        labels = new
        for cluster in range(k):
            members = points[labels == cluster]
            if len(members):
                centres[cluster] = members.mean(0)
    return labels, centres


def _squared_distances(points, centres):
    return ((points[:, None, :] - centres[None, :, :]) ** 2).sum(2)


def features(items):
    """``(users, n x 4 array)``: the users (sorted) and their
    :data:`FEATURES`, unstandardised.
    """
    by_user = collections.defaultdict(list)
    for item in items:
        by_user[item.user].append(item)
    users = sorted(by_user)
    rows = []
    for user in users:
        mine = by_user[user]
        durations = [i.duration_s for i in mine if i.duration_s is not None]
        rows.append((len(mine),
                     numpy.var([i.resources.vcpus for i in mine]),
                     numpy.var([i.resources.memory_mb for i in mine]),
                     numpy.var(durations) if durations else 0.0))
    return users, numpy.array(rows, dtype=float)


def standardise(table):
    """Each column to zero mean and unit variance (a constant one to 0)."""
    spread = table.std(0)
    return (table - table.mean(0)) / numpy.where(spread > 0, spread, 1.0)


def sample(items, clusters, share, seed, source='--sample-users'):
    """``(kept items in their order, stats)``: the requests of ``share`` of
    the users of each of ``clusters`` k-means clusters.

    ``stats`` is ``{'users': N, 'kept_users': M, 'clusters': [{'users':
    n, 'kept': m}, ...]}`` by cluster number. Every item needs a ``user``;
    ``clusters`` must not exceed the number of users.
    """
    if any(item.user is None for item in items):
        raise exception.InvalidInput(source, None, 'sampling users needs '
                                     'a user on every request; request %s '
                                     'has none' % next(
                                         i.id for i in items
                                         if i.user is None))
    users, table = features(items)
    if clusters > len(users):
        raise exception.InvalidInput(
            source, None, '%d clusters of users, but the workload has '
            'only %d users' % (clusters, len(users)))
    rng = numpy.random.default_rng(seed)
    labels, _ = kmeans(standardise(table), clusters, rng)
    kept = set()
    summary = []
    for cluster in range(clusters):
        members = [users[i] for i in numpy.flatnonzero(labels == cluster)]
        take = min(len(members), max(1, int(share * len(members) + 0.5)))
        if not members:
            take = 0
        chosen = rng.choice(len(members), size=take, replace=False) \
            if take else []
        kept.update(members[i] for i in chosen)
        summary.append({'users': len(members), 'kept': take})
    return ([item for item in items if item.user in kept],
            {'users': len(users), 'kept_users': len(kept),
             'clusters': summary})
