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

import io
import json
import os
import re
import unittest
from unittest import mock

import fixtures
from matplotlib import colors

from preemptible_sched.cmd import sched
from preemptible_sched.simulation import comparison_plots
from preemptible_sched.simulation import experiment
from preemptible_sched.simulation import metrics
from preemptible_sched.simulation import plot_canvas
from preemptible_sched.simulation import plots
from tests import base

PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'
SLOS = {'gold': 1.0, 'bronze': 0.5}
CONFIGURED = ['gold', 'silver', 'bronze']


def record(record_id, service_class, availability, preemptible=False):
    return metrics.InstanceRecord(
        id=record_id, service_class=service_class, preemptible=preemptible,
        submit_s=0.0, end_s=100.0, running_s=0.0, pending_s=0.0,
        overhead_s=0.0, availability=availability, preemptions=0,
        terminated=False, host=None)


RECORDS = [record('a', 'gold', 1.0), record('b', 'gold', 0.7),
           record('c', 'bronze', 0.4), record('d', None, 0.9),
           record('e', 'bronze', None), record('f', 'other', 0.2),
           record('g', None, 0.3, preemptible=True)]


def hex_colour(colour):
    return colors.to_hex(colour)


def labelled_colours(figure):
    """Legend label (class, without its ``(n=...)``) -> set of colours of
    the lines drawn under that label.
    """
    found = {}
    for ax in figure.axes:
        for line in ax.get_lines():
            label = line.get_label()
            if label.startswith('_'):
                continue
            found.setdefault(label.split(' (n=')[0], set()).add(
                hex_colour(line.get_color()))
    return found


def panel_colours(figure):
    """Panel title (a class) -> set of colours of every line in it, and
    of its title.
    """
    found = {}
    for ax in figure.axes:
        colours = {hex_colour(line.get_color()) for line in ax.get_lines()}
        colours.add(hex_colour(ax.title.get_color()))
        found[ax.get_title()] = colours
    return found


def axis_labels(figure):
    figure.canvas.draw()
    return [label for ax in figure.axes
            for label in (ax.get_xlabel(), ax.get_ylabel()) if label]


class PlotTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.directory = self.useFixture(fixtures.TempDir()).path

    def path(self, name):
        return os.path.join(self.directory, name)

    def assertPng(self, path):
        with open(path, 'rb') as stream:
            self.assertEqual(PNG_SIGNATURE, stream.read(8))
        self.assertGreater(os.path.getsize(path), 1000)

    def assertUnits(self, figure):
        for label in axis_labels(figure):
            self.assertRegex(label, r'\(.+\)$')


class TestClassColours(base.TestCase):

    def test_configured_classes_first_in_their_order(self):
        colours = plots.class_colours({'zinc', 'bronze', 'alpha'},
                                      CONFIGURED)
        self.assertEqual(['gold', 'silver', 'bronze', 'alpha', 'zinc'],
                         list(colours))

    def test_classless_groups_last_in_grey(self):
        colours = plots.class_colours(
            {metrics.NO_CLASS, plots.NO_CLASS_PREEMPTIBLE,
             plots.NO_CLASS_NORMAL, 'zinc'}, CONFIGURED)
        self.assertEqual(
            ['gold', 'silver', 'bronze', 'zinc', plots.NO_CLASS_NORMAL,
             plots.NO_CLASS_PREEMPTIBLE, metrics.NO_CLASS], list(colours))
        for name in plots.NO_CLASS_COLOURS:
            self.assertNotIn(colours[name], plots.PALETTE)

    def test_a_class_keeps_its_colour_whatever_else_is_drawn(self):
        alone = plots.class_colours({'bronze'}, CONFIGURED)
        crowded = plots.class_colours(
            {'gold', 'bronze', 'x', plots.NO_CLASS_NORMAL}, CONFIGURED)
        self.assertEqual(alone['bronze'], crowded['bronze'])
        self.assertEqual(len(set(crowded.values())), len(crowded))

    def test_default_is_the_configured_order(self):
        self.flags(group='qos', service_classes=['bronze', 'gold'])
        self.assertEqual(['bronze', 'gold'],
                         list(plots.class_colours({'gold'}))[:2])

    def test_group_of(self):
        self.assertEqual('gold', plots.group_of(RECORDS[0]))
        self.assertEqual(plots.NO_CLASS_NORMAL, plots.group_of(RECORDS[3]))
        self.assertEqual(plots.NO_CLASS_PREEMPTIBLE,
                         plots.group_of(RECORDS[6]))


@unittest.skipUnless(plots.available(), 'matplotlib cannot be imported')
class TestPlots(PlotTestCase):

    def test_availability_by_instance(self):
        path = self.path('by_instance.png')
        figure = plots.availability_by_instance(
            path, {'qos': RECORDS, 'priority': RECORDS[:2]}, SLOS)
        self.assertPng(path)
        self.assertUnits(figure)
        colours = labelled_colours(figure)
        self.assertEqual({'gold', 'bronze', 'other', plots.NO_CLASS_NORMAL,
                          plots.NO_CLASS_PREEMPTIBLE}, set(colours))
        # Legend in class order: configured, others, then no class.
        self.assertEqual(['gold', 'bronze', 'other', plots.NO_CLASS_NORMAL,
                          plots.NO_CLASS_PREEMPTIBLE],
                         [text.get_text()
                          for text in figure.legends[0].get_texts()])

    def test_availability_by_instance_needs_a_run(self):
        self.assertRaises(ValueError, plots.availability_by_instance,
                          self.path('x.png'), {}, SLOS)

    def test_availability_cdf(self):
        path = self.path('cdf.png')
        figure = plots.availability_cdf(path, RECORDS, SLOS, 'qos')
        self.assertPng(path)
        self.assertUnits(figure)
        self.assertIn('%', figure.axes[0].get_xticklabels()[-1].get_text())

    def test_availability_cdf_without_records(self):
        path = self.path('cdf.png')
        plots.availability_cdf(path, [], SLOS, 'qos')
        self.assertPng(path)

    def test_utilisation_in_hours(self):
        path = self.path('utilisation.png')
        figure = plots.utilisation_over_time(
            path, [(0, 0.0, 0.0), (1800, 0.5, 0.25), (7200, 1.0, 0.75)])
        self.assertPng(path)
        ax = figure.axes[0]
        self.assertEqual('Simulated time (h)', ax.get_xlabel())
        self.assertAlmostEqual(2.0, ax.get_lines()[0].get_xdata()[-1])
        self.assertUnits(figure)

    def test_utilisation_in_days_without_offset(self):
        # A month starting far from 0 s: days, and no "+1e6" offset.
        start = 10 * 86400.0
        figure = plots.utilisation_over_time(
            self.path('utilisation.png'),
            [(start + day * 86400.0, 0.5, 0.5) for day in range(30)])
        ax = figure.axes[0]
        self.assertEqual('Simulated time (days)', ax.get_xlabel())
        figure.canvas.draw()
        self.assertEqual('', ax.xaxis.get_offset_text().get_text())
        self.assertAlmostEqual(39.0, ax.get_lines()[0].get_xdata()[-1])


class TestWithoutMatplotlib(PlotTestCase):

    def test_writers_do_nothing(self):
        with mock.patch.object(plot_canvas, 'matplotlib_parts',
                               return_value=None):
            self.assertFalse(plots.available())
            self.assertIsNone(plots.availability_by_instance(
                self.path('a.png'), {'qos': RECORDS}, SLOS))
            plots.availability_cdf(self.path('b.png'), RECORDS, SLOS, 'qos')
            plots.utilisation_over_time(self.path('c.png'), [(0, 0.5, 0.5)])
        self.assertEqual([], os.listdir(self.directory))


WORKLOAD = (
    'id,submit_s,duration_s,vcpus,memory_mb,disk_gb,service_class,'
    'preemptible,constraints\n'
    'g1,0,,2,2000,0,gold,false,\n'
    'b1,5,,2,2000,0,bronze,false,\n'
    's1,10,,2,2000,0,silver,false,\n'
    'n1,15,3000,1,1000,0,,false,\n'
    'p1,20,,1,1000,0,,true,\n'
    'g2,600,,2,2000,0,gold,false,\n'
    'b2,900,1800,2,2000,0,bronze,false,\n')


@unittest.skipUnless(plots.available(), 'matplotlib cannot be imported')
class TestFiguresOfOneRun(PlotTestCase):
    """Every figure of one small simulated run, drawn by the command.

    Three classes and requests without a class, normal and preemptible,
    on two hosts too small for all of them, for two hours: each class
    must have one colour in every figure (those ``simulate`` writes and
    the experiment's fulfilment figure of the same summary), and the axes
    must say their units, time in hours.
    """

    def setUp(self):
        super().setUp()
        workload = self.path('mixed.csv')
        with open(workload, 'w') as stream:
            stream.write(WORKLOAD)
        self.output = self.path('out')
        self.figures = {}
        names = ('availability_by_instance', 'availability_cdf',
                 'utilisation_over_time')
        patches = [mock.patch.object(plots, name, side_effect=self._keep(
            name, getattr(plots, name))) for name in names]
        err = io.StringIO()
        with patches[0], patches[1], patches[2], \
                mock.patch('sys.stdout', io.StringIO()), \
                mock.patch('sys.stderr', err):
            code = sched.main([
                'simulate', '--workload', workload, '--hosts', '2',
                '--host-flavor', '4:4000:0', '--until', '7200',
                '--policy', 'qos', '--seed', '0', '--output', self.output])
        self.assertEqual(0, code, err.getvalue())
        with open(os.path.join(self.output, 'summary.json')) as stream:
            self.summary = json.load(stream)
        classes = experiment.ordered_classes(CONFIGURED, [self.summary])
        rows = experiment.aggregate(
            {experiment.Cell('mixed', 'qos', None, 0): self.summary},
            classes)
        self.figures['fulfilment'] = (
            comparison_plots.fulfilment_by_size_factor(
                self.path('fulfilment.png'), rows, classes))

    def _keep(self, name, function):
        def draw(*args, **kwargs):
            figure = function(*args, **kwargs)
            self.figures[name] = figure
            return figure
        return draw

    def test_every_figure_was_drawn(self):
        self.assertEqual(
            ['availability_by_instance.png', 'availability_cdf.png',
             'utilisation.png'],
            sorted(name for name in os.listdir(self.output)
                   if name.endswith('.png')))
        self.assertEqual(4, len([figure for figure in self.figures.values()
                                 if figure is not None]))

    def test_one_colour_per_class_in_every_figure(self):
        expected = plots.class_colours(
            ['gold', 'silver', 'bronze', plots.NO_CLASS_NORMAL,
             plots.NO_CLASS_PREEMPTIBLE])
        seen = {}
        for name in ('availability_by_instance', 'availability_cdf'):
            for label, colours in labelled_colours(
                    self.figures[name]).items():
                seen.setdefault(label, set()).update(colours)
        for label, colours in panel_colours(
                self.figures['fulfilment']).items():
            seen.setdefault(label, set()).update(colours)
        self.assertEqual(
            {'gold', 'silver', 'bronze', plots.NO_CLASS_NORMAL,
             plots.NO_CLASS_PREEMPTIBLE}, set(seen))
        for label, colours in seen.items():
            self.assertEqual({expected[label]}, colours, label)
        # Five groups, five colours.
        self.assertEqual(5, len({colour for colours in seen.values()
                                 for colour in colours}))

    def test_one_order_per_class_in_every_legend(self):
        order = ['gold', 'silver', 'bronze', plots.NO_CLASS_NORMAL,
                 plots.NO_CLASS_PREEMPTIBLE]
        for name in ('availability_by_instance', 'availability_cdf'):
            legend = self.figures[name].legends[0]
            self.assertEqual(order, [text.get_text().split(' (n=')[0]
                                     for text in legend.get_texts()], name)
        self.assertEqual(['gold', 'silver', 'bronze'],
                         [ax.get_title()
                          for ax in self.figures['fulfilment'].axes])

    def test_axes_have_units_and_time_is_in_hours(self):
        for name, figure in self.figures.items():
            for label in axis_labels(figure):
                self.assertRegex(label, r'\(.+\)$', name)
            for ax in figure.axes:
                self.assertEqual('', ax.xaxis.get_offset_text().get_text())
                self.assertEqual('', ax.yaxis.get_offset_text().get_text())
        ax = self.figures['utilisation_over_time'].axes[0]
        self.assertEqual('Simulated time (h)', ax.get_xlabel())
        self.assertAlmostEqual(2.0, max(ax.get_xlim()), places=2)
        self.assertFalse(any(re.search(r'\(s\)', label)
                             for figure in self.figures.values()
                             for label in axis_labels(figure)))


class TestPalettes(base.TestCase):

    def test_users_of_the_gantt_chart_never_look_like_a_class(self):
        class_colours = set(plots.PALETTE) | set(
            plots.NO_CLASS_COLOURS.values())
        self.assertEqual(set(), set(plots.USER_PALETTE) & class_colours)
        self.assertEqual(len(plots.USER_PALETTE),
                         len(set(plots.USER_PALETTE)))

    def test_has_classes(self):
        self.assertFalse(plots.has_classes(
            {plots.NO_CLASS_NORMAL, plots.NO_CLASS_PREEMPTIBLE}))
        self.assertFalse(plots.has_classes(()))
        self.assertTrue(plots.has_classes({'gold', plots.NO_CLASS_NORMAL}))

    def test_the_gantt_chart_colours_users_with_their_own_palette(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        records = [metrics.InstanceRecord(
            id='r%d' % index, service_class=None, preemptible=False,
            submit_s=0.0, end_s=10.0 + index, running_s=10.0, pending_s=0.0,
            overhead_s=0.0, availability=1.0, preemptions=0,
            terminated=False, host='h1', user=user, cores=2.0,
            copies='h1', start_s=float(index))
            for index, user in enumerate(('alice', 'bob', 'carol'))]
        figure = plots.sla_gantt(os.path.join(tmp, 'gantt.png'), records,
                                 'SLA requests')
        legend = {line.get_label(): hex_colour(line.get_color())
                  for line in figure.axes[0].get_legend().get_lines()}
        self.assertEqual(dict(zip(('alice', 'bob', 'carol'),
                                  plots.USER_PALETTE)), legend)
