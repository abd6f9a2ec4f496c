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

import os
import unittest
from unittest import mock

from preemptible_sched.simulation import comparison_plots
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import experiment_plan
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plot_canvas
from preemptible_sched.simulation import plots
from tests.unit.simulation import test_plots

POLICIES = ['qos', 'priority']


def rows(factors, values=None):
    """A comparison row per (size factor, policy) of workload ``w``."""
    values = values or {'gold_slo_fulfillment': (0.9, 0.1),
                        'bronze_slo_fulfillment': (0.5, None),
                        'none_slo_fulfillment': (None, None)}
    return [experiment.ComparisonRow(
        workload='w', size_factor=factor, policy=policy, seeds=2,
        values=values) for factor in factors for policy in POLICIES]


def plan(size_factors):
    """A plan of workload ``w`` under both policies, one seed."""
    return experiment_plan.Plan(
        workloads={'w': ('w.csv', [])}, policies=POLICIES,
        size_factors=size_factors, seeds=[0], hosts={},
        classes=['gold', 'bronze'], slos=test_plots.SLOS, jobs=1)


@unittest.skipUnless(plots.available(), 'matplotlib cannot be imported')
class TestFulfilment(test_plots.PlotTestCase):

    def test_fulfilment_lines_take_the_colour_of_their_class(self):
        path = self.path('fulfilment.png')
        figure = comparison_plots.fulfilment_by_size_factor(
            path, rows((0.8, 1.0)), ['gold', 'bronze', metrics.NO_CLASS])
        self.assertPng(path)
        self.assertUnits(figure)
        expected = plots.class_colours(['gold', 'bronze'])
        self.assertEqual(
            {'gold': {expected['gold']}, 'bronze': {expected['bronze']}},
            test_plots.panel_colours(figure))
        # The policies differ by style, and the legend says which is which.
        legend = figure.legends[0]
        self.assertEqual(['qos', 'priority'],
                         [text.get_text() for text in legend.get_texts()])

    def test_hosts_given_outright_are_one_named_level(self):
        figure = comparison_plots.fulfilment_by_size_factor(
            self.path('fulfilment.png'), rows([None]), ['gold', 'bronze'])
        figure.canvas.draw()
        self.assertEqual(
            [experiment.FIXED],
            [label.get_text() for label in figure.axes[0].get_xticklabels()])


@unittest.skipUnless(plots.available(), 'matplotlib cannot be imported')
class TestWrite(test_plots.PlotTestCase):

    def records(self, records):
        return {experiment.Cell('w', policy, None, 0): records
                for policy in POLICIES}

    def test_the_figures_of_every_workload_and_level(self):
        comparison_plots.write(self.directory, plan([None]), rows([None]),
                               ['gold', 'bronze'],
                               self.records(test_plots.RECORDS))
        self.assertEqual(['availability_w_fixed.png', 'fulfilment_w.png'],
                         sorted(os.listdir(self.directory)))
        for name in os.listdir(self.directory):
            self.assertPng(self.path(name))

    def test_nothing_without_classes(self):
        classless = [record for record in test_plots.RECORDS
                     if not record.service_class]
        comparison_plots.write(self.directory, plan([None]), rows([None]),
                               ['gold', 'bronze'], self.records(classless))
        self.assertEqual([], os.listdir(self.directory))


class TestWithoutMatplotlib(test_plots.PlotTestCase):

    def test_writers_do_nothing(self):
        with mock.patch.object(plot_canvas, 'matplotlib_parts',
                               return_value=None):
            self.assertIsNone(comparison_plots.fulfilment_by_size_factor(
                self.path('d.png'), [], []))
            comparison_plots.write(
                self.directory, plan([None]), rows([None]),
                ['gold', 'bronze'],
                {experiment.Cell('w', policy, None, 0): test_plots.RECORDS
                 for policy in POLICIES})
        self.assertEqual([], os.listdir(self.directory))
