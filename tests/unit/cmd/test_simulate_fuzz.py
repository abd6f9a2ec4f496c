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

"""Fuzz tests of the option checks of ``simulate`` and ``experiment``.

Whatever the option values, the checks either pass (every number then
finite and within its bound) or raise :class:`InvalidInput` on one line
naming the option; the whole command exits 0 or 2, one line on stderr
for 2, never a traceback, nothing written on 2. Settings:
tests/hypothesis_profiles.
"""

import argparse
import io
import math
import os
import shutil
import tempfile
from unittest import mock

from hypothesis import given
from hypothesis import strategies as st

from preemptible_sched.cmd import common
from preemptible_sched.cmd import experiment
from preemptible_sched.cmd import sched
from preemptible_sched.cmd import simulate
from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from tests import base
from tests import fuzz_strategies as hostile
from tests.hypothesis_profiles import fuzz_settings

WORKLOAD = ('id,submit_s,duration_s,vcpus,memory_mb\n'
            'a,0,100,1,100\nb,5,,1,100\n')


def option_values():
    """What argparse could hand over: text, or numbers already."""
    return st.one_of(st.none(), hostile.numbers(), hostile.number_texts())


def maybe_int(value):
    return int(value) if isinstance(value, float) and math.isfinite(
        value) and value == int(value) else value


class OptionsFuzzTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.workload = os.path.join(self.tmp, 'w.csv')
        with open(self.workload, 'w') as stream:
            stream.write(WORKLOAD)


class TestSimulateOptionsFuzz(OptionsFuzzTestCase):

    @fuzz_settings()
    @given(until=option_values(), limit=option_values(),
           hosts=option_values(), size_factor=option_values(),
           seed=option_values(),
           output=st.one_of(hostile.nasty_text(10), st.sampled_from(
               ('', ' ', 'out', 'w.csv', '.', '/', '/proc/x', 'a\0b'))))
    def test_check_options(self, until, limit, hosts, size_factor, seed,
                           output):
        args = argparse.Namespace(
            until=until, limit=maybe_int(limit), hosts=maybe_int(hosts),
            size_factor=size_factor, seed=maybe_int(seed),
            output=os.path.join(self.tmp, output) if output.strip(
                '/') == output and output.strip() else output,
            workload=self.workload, infrastructure=None, machines=None)
        try:
            simulate.check_options(args)
        except exception.InvalidInput as error:
            self.assertNotIn('\n', str(error).strip())
            self.assertTrue(str(error).startswith('--'), str(error))
            return
        for name in ('until', 'size_factor'):
            value = getattr(args, name)
            if value is not None:
                self.assertIsInstance(value, float)
                self.assertTrue(math.isfinite(value))
        if args.until is not None:
            self.assertTrue(0 <= args.until <= limits.MAX_TIME)
        if args.hosts is not None:
            self.assertTrue(1 <= args.hosts <= limits.MAX_HOSTS)
        self.assertTrue(args.output.strip())

    @fuzz_settings(10)
    @given(st.lists(st.tuples(
        st.sampled_from(('--until', '--hosts', '--host-flavor', '--seed',
                         '--limit', '--size-factor', '--output',
                         '--policy', '--class-map', '--default-class',
                         '--workload-format')),
        st.one_of(hostile.number_texts(), hostile.nasty_text(8))),
        max_size=3))
    def test_whole_command(self, options):
        # Relative paths (an --output of "0.0") land in self.tmp.
        self.addCleanup(os.chdir, os.getcwd())
        os.chdir(self.tmp)
        output = os.path.join(self.tmp, 'out')
        argv = ['simulate', '--workload', self.workload, '--no-plots',
                '--hosts', '1', '--host-flavor', '2:1000', '--until',
                '200', '--output', output]
        for option, value in options:
            if option == '--output':
                # Hostile, but never outside self.tmp (we may be root).
                value = value.replace('/', '_').replace('..', '__')
            argv += [option, value]
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            try:
                code = sched.main(argv)
            except SystemExit as error:   # argparse: usage and exit 2
                code = error.code
        err = err.getvalue()
        self.assertIn(code, (0, 2), err)
        self.assertNotIn('Traceback', err)
        written = sorted(set(os.listdir(self.tmp)) - {'w.csv'})
        for name in written:
            path = os.path.join(self.tmp, name)
            if os.path.isdir(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        if code == 2:
            self.assertEqual([], written)
            if not err.startswith('usage:'):
                self.assertEqual(1, len(err.splitlines()), err)
        else:
            self.assertNotIn('nan', out.getvalue().lower().split())
            self.assertTrue(written)
            self.assertEqual([], [name for name in written
                                  if name.startswith('.')])


class TestExperimentOptionsFuzz(OptionsFuzzTestCase):

    @fuzz_settings()
    @given(st.lists(st.one_of(hostile.number_texts(),
                              hostile.nasty_text(6)), max_size=6))
    def test_lists(self, parts):
        text = ','.join(parts)
        for option, parse, check in (
                ('--seeds', common.parse_seeds,
                 lambda v: 0 <= v <= limits.MAX_SEED),
                ('--size-factors', lambda text: experiment.parse_list(
                    text, '--size-factors', experiment._size_factor),
                 lambda v: 0 < v <= limits.MAX_SIZE_FACTOR)):
            try:
                values = parse(text)
            except exception.InvalidInput as error:
                self.assertNotIn('\n', str(error).strip())
                self.assertTrue(str(error).startswith(option))
                continue
            for value in values:
                self.assertTrue(check(value), value)
