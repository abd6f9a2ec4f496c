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

from preemptible_sched import constraints
from preemptible_sched.hosts import batch as host_batch
from preemptible_sched import objects
from preemptible_sched.scheduler.filters import attributes_filter
from tests import base


class TestAttributesFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = attributes_filter.AttributesFilter()
        self.state = base.make_host_state(
            attributes={'cpu_arch': 'x86_64', 'gpus': 2},
            aggregates=[
                objects.Aggregate('fast', {'storage': 'ssd',
                                           'network': '10g'}),
                objects.Aggregate('big', {'storage': 'nvme'})])

    def _passes(self, **constraints):
        spec = base.make_spec(constraints=constraints)
        return self.filter.host_passes(self.state.full, spec)

    def test_no_constraints_pass(self):
        self.assertTrue(self._passes())

    def test_attribute_matches(self):
        self.assertTrue(self._passes(cpu_arch='x86_64'))
        self.assertFalse(self._passes(cpu_arch='aarch64'))

    def test_compared_as_strings(self):
        self.assertTrue(self._passes(gpus='2'))
        self.assertFalse(self._passes(gpus='2.0'))

    def test_any_aggregate_value_matches(self):
        self.assertTrue(self._passes(storage='ssd'))
        self.assertTrue(self._passes(storage='nvme'))
        self.assertFalse(self._passes(storage='hdd'))

    def test_every_constraint_must_match(self):
        self.assertTrue(self._passes(cpu_arch='x86_64', network='10g'))
        self.assertFalse(self._passes(cpu_arch='x86_64', network='1g'))

    def test_attribute_mismatch_falls_back_to_aggregates(self):
        state = base.make_host_state(
            attributes={'storage': 'hdd'},
            aggregates=[objects.Aggregate('fast', {'storage': 'ssd'})])
        spec = base.make_spec(constraints={'storage': 'ssd'})
        self.assertTrue(self.filter.host_passes(state.full, spec))

    def test_missing_key_fails_without_adding_it(self):
        self.assertFalse(self._passes(rack='r1'))
        self.assertNotIn('rack', self.state.aggregate_metadata)

    def test_host_without_attributes_fails(self):
        state = base.make_host_state()
        spec = base.make_spec(constraints={'cpu_arch': 'x86_64'})
        self.assertFalse(self.filter.host_passes(state.full, spec))
        self.assertEqual({}, dict(state.aggregate_metadata))


class TestOperators(base.TestCase):
    """``!=``, ``<`` and ``>`` (the Google 2011 operators) on hosts."""

    def setUp(self):
        super().setUp()
        self.filter = attributes_filter.AttributesFilter()
        self.states = [
            base.make_host_state(name, attributes=attributes)
            for name, attributes in (
                ('k4', {'kernel': '4', 'arch': 'x86'}),
                ('k10', {'kernel': '10', 'arch': 'arm'}),
                ('kx', {'kernel': 'beta', 'arch': 'x86'}),
                ('bare', {}))]

    def passed(self, text):
        spec = base.make_spec(constraints=constraints.parse(text))
        return [state.name for state in self.states
                if self.filter.host_passes(state.full, spec)]

    def test_not_equal(self):
        # A host without the attribute has '' and so differs from x86.
        self.assertEqual(['k10', 'bare'], self.passed('arch!=x86'))

    def test_less_and_greater_compare_numbers(self):
        # As strings '10' < '5'; as numbers 10 > 5. 'beta' and a missing
        # kernel are no numbers: neither < nor > holds.
        self.assertEqual(['k4'], self.passed('kernel<5'))
        self.assertEqual(['k10'], self.passed('kernel>5'))
        self.assertEqual(['k4', 'k10'], self.passed('kernel>3.5'))
        self.assertEqual([], self.passed('kernel>10'))

    def test_empty_value_means_missing(self):
        self.assertEqual(['bare'], self.passed('kernel='))
        self.assertEqual(['k4', 'k10', 'kx'], self.passed('kernel!='))

    def test_operators_combine(self):
        self.assertEqual(['k10'], self.passed('kernel>3;arch!=x86'))
        self.assertEqual(['k4'], self.passed('kernel>3;kernel<5'))

    def test_equal_is_unchanged(self):
        self.assertEqual(['k4', 'kx'], self.passed('arch=x86'))
        self.assertEqual({'arch': 'x86', 'gpu': '2'},
                         constraints.parse('arch=x86; gpu=2'))

    def test_aggregate_values_count(self):
        state = base.make_host_state(
            aggregates=[objects.Aggregate('a', {'kernel': '7'})])
        spec = base.make_spec(constraints=constraints.parse('kernel>6'))
        self.assertTrue(self.filter.host_passes(state.full, spec))

    def test_vector_form_agrees(self):
        batch = host_batch.HostBatch.of_views(
            [state.full for state in self.states])
        for text in ('arch=x86', 'arch!=x86', 'kernel<5', 'kernel>5',
                     'kernel=', 'kernel!=', 'kernel>3;arch!=x86'):
            spec = base.make_spec(constraints=constraints.parse(text))
            expected = [self.filter.host_passes(state.full, spec)
                        for state in self.states]
            numpy.testing.assert_array_equal(
                expected, self.filter.filter_all(batch, spec), text)


class TestParse(base.TestCase):

    def test_operators_ride_on_the_key(self):
        self.assertEqual({'a': '1', 'b!': '2', 'c<': '3', 'd>': '4'},
                         constraints.parse('a=1;b!=2;c<3;d>4'))
        self.assertEqual(('b', constraints.NOT_EQUAL),
                         constraints.split('b!'))
        self.assertEqual(('c', constraints.LESS), constraints.split('c<'))
        self.assertEqual(('d', constraints.EQUAL), constraints.split('d'))

    def test_last_value_of_a_repeated_constraint_wins(self):
        # As the key=value form always did.
        self.assertEqual({'k': '2', 'k<': '3'},
                         constraints.parse('k=1;k<5;k=2;k<3'))

    def test_bad_constraints(self):
        for text in ('novalue', '=1', 'k<x', 'k>nan', 'k<=3', 'k!<3'):
            self.assertRaises(constraints.BadConstraint, constraints.parse,
                              text)
