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


"""The load watcher's metrics: collections, bad samples, ages, and
``GET /metrics``.
"""

import math

import webob

from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import metrics
from preemptible_sched.loadwatcher import watcher as watcher_mod
from tests import base
from tests import load_helpers as helpers
from tests.unit.loadwatcher import test_watcher

T0 = helpers.T0


def scripted(values):
    source = test_watcher.ScriptedSource(values)
    return source, watcher_mod.LoadWatcher(source, scrape_interval=60,
                                           window_refresh=60)


class TestWatcherMetrics(base.TestCase):

    def value(self, found, name, **labels):
        return found.registry.get_sample_value(name, labels)

    def test_collections_and_bad_samples(self):
        answers = iter([
            {'h1': (10.0, 20.0), 'h2': (float('nan'), 30.0)},
            {'h1': (-5.0, 20.0), 'h2': (50000.0, None)},
            {'h1': (10.0, 'lots'), 'h2': (None, None)},
        ])
        source, watcher = scripted(lambda now: next(answers))
        found = metrics.of(watcher, now=lambda: T0 + 200)
        watcher.scrape(T0)
        watcher.scrape(T0 + 60)
        source.down = True      # through the wrapper, to the source
        self.assertFalse(watcher.scrape(T0 + 90))
        source.down = False
        watcher.scrape(T0 + 120)
        self.assertEqual(3.0, self.value(
            found, 'psched_watcher_collections_total', outcome='ok'))
        self.assertEqual(1.0, self.value(
            found, 'psched_watcher_collections_total', outcome='failed'))
        bad = {(host, resource): self.value(
            found, 'psched_watcher_bad_samples_total', host=host,
            resource=resource) for host in ('h1', 'h2')
            for resource in ('cpu', 'memory')}
        # NaN and absurd CPU of h2, negative CPU and text memory of h1;
        # missing values are not bad.
        self.assertEqual({('h1', 'cpu'): 1.0, ('h1', 'memory'): 1.0,
                          ('h2', 'cpu'): 2.0, ('h2', 'memory'): None},
                         bad)

    def test_ages_health_and_hosts(self):
        source, watcher = scripted(lambda now: {'h1': (10.0, 20.0),
                                                'h2': (30.0, 40.0)})
        now = [T0]
        found = metrics.of(watcher, now=lambda: now[0])
        self.assertEqual(0.0, self.value(found, 'psched_watcher_healthy'))
        self.assertIsNone(self.value(found,
                                     'psched_watcher_window_age_seconds'))
        watcher.tick(T0)
        watcher.tick(T0 + 60)
        now[0] = T0 + 75
        self.assertEqual(1.0, self.value(found, 'psched_watcher_healthy'))
        self.assertEqual(2.0, self.value(found, 'psched_watcher_hosts'))
        self.assertEqual(15.0, self.value(
            found, 'psched_watcher_window_age_seconds'))
        self.assertEqual(15.0, self.value(
            found, 'psched_watcher_sample_age_seconds', host='h1'))
        # h2 stops reporting: its newest sample ages, h1's does not.
        source.values = lambda now: {'h1': (10.0, 20.0)}
        watcher.tick(T0 + 120)
        now[0] = T0 + 130
        self.assertEqual(10.0, self.value(
            found, 'psched_watcher_sample_age_seconds', host='h1'))
        self.assertEqual(70.0, self.value(
            found, 'psched_watcher_sample_age_seconds', host='h2'))
        source.down = True
        watcher.tick(T0 + 180)
        self.assertEqual(0.0, self.value(found, 'psched_watcher_healthy'))

    def test_ages_on_the_watchers_own_clock(self):
        source, watcher = scripted(lambda now: {'h1': (10.0, 20.0)})

        class Clock:
            def now(self):
                return T0 + 42

            def call_later(self, delay, callback):
                return None
        found = metrics.of(watcher)
        self.assertIsNone(self.value(found,
                                     'psched_watcher_window_age_seconds'))
        watcher.start(Clock())      # ticks at T0 + 42
        self.assertEqual(0.0, self.value(
            found, 'psched_watcher_window_age_seconds'))

    def test_one_metrics_object_per_watcher(self):
        source, watcher = scripted(lambda now: {})
        first = metrics.of(watcher)
        self.assertIs(first, metrics.of(watcher))
        self.assertIs(first, api.WatcherApp(watcher).metrics)
        # The source is wrapped once, and still answers for itself.
        self.assertIs(source, watcher.source._source)
        self.assertEqual('scripted', watcher.source.name)


class TestMetricsPath(base.TestCase):

    def test_get_metrics(self):
        source, watcher = scripted(lambda now: {'h1': (10.0, math.inf)})
        app = api.WatcherApp(watcher)
        watcher.tick(T0)
        response = webob.Request.blank('/metrics').get_response(app)
        self.assertEqual(200, response.status_int)
        self.assertEqual(metrics.CONTENT_TYPE,
                         response.headers['Content-Type'])
        text = response.text
        self.assertIn('psched_watcher_collections_total{outcome="ok"} 1.0',
                      text)
        self.assertIn('psched_watcher_bad_samples_total{host="h1",'
                      'resource="memory"} 1.0', text)
        self.assertIn('psched_watcher_hosts 1.0', text)
        request = webob.Request.blank('/metrics', method='POST')
        self.assertEqual(405, request.get_response(app).status_int)
        self.assertEqual(404, webob.Request.blank(
            '/metrics/x').get_response(app).status_int)
