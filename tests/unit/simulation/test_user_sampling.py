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

import numpy

from preemptible_sched import exception
from preemptible_sched import objects
from preemptible_sched.simulation.traces import records
from preemptible_sched.simulation import user_sampling
from tests import base


def item(item_id, user, vcpus, memory=1.0, duration=10.0):
    return records.WorkloadItem(item_id, 0.0, duration,
                                objects.Resources(vcpus, memory), user=user)


def population():
    """Three obvious kinds of user.

    - 'steady' users a..f: 2 identical requests each (all variances 0);
    - 'heavy' users g..i: 20 requests each, also identical;
    - 'erratic' users j..l: 2 requests of 1 and 9 vCPUs (variance 16).
    """
    items = []
    for user in 'abcdef':
        items += [item('%s%d' % (user, i), user, 1.0) for i in range(2)]
    for user in 'ghi':
        items += [item('%s%d' % (user, i), user, 1.0) for i in range(20)]
    for user in 'jkl':
        items += [item(user + '0', user, 1.0), item(user + '1', user, 9.0)]
    return items


class TestKMeans(base.TestCase):

    def test_obvious_clusters(self):
        points = [[0, 0], [0, 1], [1, 0], [10, 10], [10, 11], [11, 10]]
        for seed in range(10):
            labels, centres = user_sampling.kmeans(
                points, 2, numpy.random.default_rng(seed))
            # The two triangles, whichever number each gets.
            self.assertEqual(len(set(labels[:3])), 1)
            self.assertEqual(len(set(labels[3:])), 1)
            self.assertNotEqual(labels[0], labels[3])
            numpy.testing.assert_allclose(
                sorted(map(tuple, centres)),
                [(1 / 3, 1 / 3), (31 / 3, 31 / 3)])

    def test_one_cluster_is_the_mean(self):
        labels, centres = user_sampling.kmeans(
            [[0.0], [2.0], [7.0]], 1, numpy.random.default_rng(0))
        self.assertEqual([0, 0, 0], list(labels))
        numpy.testing.assert_allclose([[3.0]], centres)

    def test_more_clusters_than_distinct_points(self):
        labels, _ = user_sampling.kmeans(
            [[1.0], [1.0], [1.0]], 2, numpy.random.default_rng(0))
        self.assertEqual(1, len(set(labels)))

    def test_k_out_of_range(self):
        rng = numpy.random.default_rng(0)
        self.assertRaises(ValueError, user_sampling.kmeans, [[1.0]], 2, rng)
        self.assertRaises(ValueError, user_sampling.kmeans, [[1.0]], 0, rng)


class TestFeatures(base.TestCase):

    def test_count_and_variances(self):
        items = [item('x0', 'u', 1.0, 10.0, 5.0),
                 item('x1', 'u', 3.0, 30.0, 15.0),
                 item('x2', 'u', 2.0, 20.0, None),   # runs to the end
                 item('y0', 'v', 4.0, 8.0, None)]
        users, table = user_sampling.features(items)
        self.assertEqual(['u', 'v'], users)
        # u: cpu 1,3,2 -> var 2/3; memory 10,30,20 -> 200/3;
        # durations 5,15 (the open one left out) -> 25. v: one request.
        numpy.testing.assert_allclose(
            [[3, 2 / 3, 200 / 3, 25], [1, 0, 0, 0]], table)

    def test_standardise(self):
        numpy.testing.assert_allclose(
            [[-1, 0], [1, 0]],
            user_sampling.standardise(numpy.array([[1.0, 5], [3.0, 5]])))


class TestSample(base.TestCase):

    def test_clusters_found_and_share_of_each_kept(self):
        kept, stats = user_sampling.sample(population(), 3, 0.34, seed=7)
        self.assertEqual(12, stats['users'])
        # 6 steady users keep round(0.34 x 6) = 2, 3 heavy and 3 erratic
        # users keep round(1.02) = 1 each.
        self.assertEqual([(1, 3), (1, 3), (2, 6)], sorted(
            (c['kept'], c['users']) for c in stats['clusters']))
        self.assertEqual(4, stats['kept_users'])
        users = {i.user for i in kept}
        self.assertEqual(2, len(users & set('abcdef')))
        self.assertEqual(1, len(users & set('ghi')))
        self.assertEqual(1, len(users & set('jkl')))
        # Every request of a kept user, in the workload's order.
        self.assertEqual([i.id for i in population() if i.user in users],
                         [i.id for i in kept])
        self.assertEqual(2 * 2 + 20 + 2, len(kept))

    def test_at_least_one_user_of_each_cluster(self):
        # 0.1 x 3 rounds to 0 and 0.1 x 6 to 1: one user of each cluster.
        kept, stats = user_sampling.sample(population(), 3, 0.1, seed=2)
        self.assertEqual([(1, 3), (1, 3), (1, 6)], sorted(
            (c['kept'], c['users']) for c in stats['clusters']))
        self.assertEqual(3, len({i.user for i in kept}))

    def test_features_are_standardised(self):
        # Ten users: 2 or 20 requests, memory variances 0..4 x 10^6 MB^2.
        # Raw, memory swamps the request count; standardised, the count
        # (two tight groups) splits the users, and a share of 1/5 keeps
        # one user of each count.
        items = []
        for user in range(10):
            count, level = (2, 20)[user // 5], user % 5
            items += [item('u%d-%02d' % (user, i), 'u%d' % user, 1.0,
                           1000.0 + (2000 * level ** 0.5 if i % 2 else 0))
                      for i in range(count)]
        _, table = user_sampling.features(items)
        numpy.testing.assert_allclose([0, 1e6, 2e6, 3e6, 4e6] * 2,
                                      table[:, 2])
        for seed in range(10):
            kept, stats = user_sampling.sample(items, 2, 0.2, seed)
            self.assertEqual([(1, 5), (1, 5)], sorted(
                (c['kept'], c['users']) for c in stats['clusters']))
            counts = sorted(sum(i.user == user for i in kept)
                            for user in {i.user for i in kept})
            self.assertEqual([2, 20], counts, seed)

    def test_seeded_and_reproducible(self):
        first = user_sampling.sample(population(), 3, 0.5, seed=3)
        again = user_sampling.sample(population(), 3, 0.5, seed=3)
        self.assertEqual([i.id for i in first[0]], [i.id for i in again[0]])
        self.assertEqual(first[1], again[1])
        draws = {frozenset(i.user for i in user_sampling.sample(
            population(), 3, 0.5, seed=seed)[0]) for seed in range(20)}
        self.assertGreater(len(draws), 1)

    def test_whole_share_keeps_everyone(self):
        kept, stats = user_sampling.sample(population(), 2, 1.0, seed=0)
        self.assertEqual(len(population()), len(kept))
        self.assertEqual(12, stats['kept_users'])

    def test_needs_users(self):
        items = population() + [item('anon', None, 1.0)]
        error = self.assertRaises(exception.InvalidInput,
                                  user_sampling.sample, items, 2, 0.5, 0)
        self.assertIn('request anon has none', error.message)

    def test_more_clusters_than_users(self):
        error = self.assertRaises(exception.InvalidInput,
                                  user_sampling.sample, population(), 13,
                                  0.5, 0)
        self.assertIn('only 12 users', error.message)
