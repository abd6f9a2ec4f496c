import os
import unittest
from unittest import mock

import fixtures

from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plots
from tests import base

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'
SLOS = {'gold': 1.0, 'bronze': 0.5}


def record(record_id, service_class, availability):
    return metrics.InstanceRecord(
        id=record_id, service_class=service_class, preemptible=False,
        submit_s=0.0, end_s=100.0, running_s=0.0, pending_s=0.0,
        overhead_s=0.0, availability=availability, preemptions=0,
        terminated=False, host=None)


RECORDS = [record('a', 'gold', 1.0), record('b', 'gold', 0.7),
           record('c', 'bronze', 0.4), record('d', None, 0.9),
           record('e', 'bronze', None), record('f', 'other', 0.2)]


class PlotTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path

    def path(self, name):
        return os.path.join(self.directory, name)


@unittest.skipUnless(plots.available(), 'matplotlib is not installed')
class TestPlots(PlotTestCase):

    def assertPng(self, path):
        with open(path, 'rb') as stream:
            self.assertEqual(PNG_SIGNATURE, stream.read(8))
        self.assertGreater(os.path.getsize(path), 1000)

    def test_availability_by_instance(self):
        path = self.path('by_instance.png')
        plots.availability_by_instance(
            path, {'qos': RECORDS, 'priority': RECORDS[:2]}, SLOS)
        self.assertPng(path)

    def test_availability_by_instance_needs_a_run(self):
        self.assertRaises(ValueError, plots.availability_by_instance,
                          self.path('x.png'), {}, SLOS)

    def test_availability_cdf(self):
        path = self.path('cdf.png')
        plots.availability_cdf(path, RECORDS, SLOS, 'qos')
        self.assertPng(path)

    def test_availability_cdf_without_records(self):
        path = self.path('cdf.png')
        plots.availability_cdf(path, [], SLOS, 'qos')
        self.assertPng(path)

    def test_utilisation_over_time(self):
        path = self.path('utilisation.png')
        plots.utilisation_over_time(
            path, [(0, 0.0, 0.0), (10, 0.5, 0.25), (30, 1.0, 0.75)])
        self.assertPng(path)

    def test_class_colours_do_not_depend_on_the_subset(self):
        self.assertEqual(
            plots._class_colours({'bronze'}, SLOS)['bronze'],
            plots._class_colours({'gold', 'bronze', 'x'}, SLOS)['bronze'])


class TestWithoutMatplotlib(PlotTestCase):

    def test_writers_do_nothing(self):
        with mock.patch.object(plots, '_matplotlib', return_value=None):
            self.assertFalse(plots.available())
            plots.availability_by_instance(self.path('a.png'),
                                           {'qos': RECORDS}, SLOS)
            plots.availability_cdf(self.path('b.png'), RECORDS, SLOS, 'qos')
            plots.utilisation_over_time(self.path('c.png'), [(0, 0.5, 0.5)])
        self.assertEqual([], os.listdir(self.directory))
