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

"""The preemptible classes, the views of a provider summary, and the
``preemptible-nova-one-pass`` command (all Nova-free).
"""

import contextlib
import io
import os

import fixtures
import yaml

from preemptible_sched.nova import one_pass_cmd
from preemptible_sched.nova import resource_classes as rc
from tests import base


class TestViews(base.TestCase):

    def test_summary_gives_capacity_normal_and_full_use(self):
        # 10 vCPUs, 4 used by normal servers and 6 by preemptible ones;
        # 8192 MB, 2048 + 6144; disk 1028 GB, 10 + 30; a PCI class is
        # ignored.
        summary = {'resources': {
            'VCPU': {'capacity': 10, 'used': 4},
            'MEMORY_MB': {'capacity': 8192, 'used': 2048},
            'DISK_GB': {'capacity': 1028, 'used': 10},
            'CUSTOM_PREEMPTIBLE_VCPU': {'capacity': 10, 'used': 6},
            'CUSTOM_PREEMPTIBLE_MEMORY_MB': {'capacity': 8192,
                                             'used': 6144},
            'CUSTOM_PREEMPTIBLE_DISK_GB': {'capacity': 1028, 'used': 30},
            'CUSTOM_PCI_GPU': {'capacity': 2, 'used': 1}}}
        capacity, normal, full = rc.views(summary)
        self.assertEqual({'VCPU': 10, 'MEMORY_MB': 8192, 'DISK_GB': 1028},
                         capacity)
        self.assertEqual({'VCPU': 4, 'MEMORY_MB': 2048, 'DISK_GB': 10},
                         normal)
        self.assertEqual({'VCPU': 10, 'MEMORY_MB': 8192, 'DISK_GB': 40},
                         full)

    def test_custom_amounts_count_as_standard_ones(self):
        self.assertEqual(
            {'VCPU': 3, 'MEMORY_MB': 512, 'DISK_GB': 0},
            rc.standard_amounts({'VCPU': 1, 'CUSTOM_PREEMPTIBLE_VCPU': 2,
                                 'CUSTOM_PREEMPTIBLE_MEMORY_MB': 512,
                                 'CUSTOM_GPU': 1}))
        self.assertTrue(rc.uses_custom({'CUSTOM_PREEMPTIBLE_VCPU': 2}))
        self.assertFalse(rc.uses_custom({'VCPU': 2,
                                         'CUSTOM_PREEMPTIBLE_VCPU': 0}))


class TestFlavorSpecs(base.TestCase):

    def test_standard_classes_zeroed_custom_ones_asked(self):
        self.assertEqual(
            {'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
             'resources:DISK_GB': '0',
             'resources:CUSTOM_PREEMPTIBLE_VCPU': '2',
             'resources:CUSTOM_PREEMPTIBLE_MEMORY_MB': '4096',
             'resources:CUSTOM_PREEMPTIBLE_DISK_GB': '41'},
            rc.flavor_extra_specs(2, 4096, rc.flavor_disk_gb(40, 0, 512)))

    def test_disk_counts_root_ephemeral_and_swap_rounded_up(self):
        # 20 + 5 GB, and 1025 MB of swap is 2 GB.
        self.assertEqual(27, rc.flavor_disk_gb(20, 5, 1025))

    def test_diskless_flavor_asks_no_custom_disk(self):
        specs = rc.flavor_extra_specs(1, 512, 0)
        self.assertEqual('0', specs['resources:DISK_GB'])
        self.assertNotIn('resources:CUSTOM_PREEMPTIBLE_DISK_GB', specs)

    def test_fractional_size_refused(self):
        self.assertRaises(ValueError, rc.flavor_extra_specs, 1.5, 512, 0)


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = one_pass_cmd.main(list(argv))
        except SystemExit as error:
            code = error.code
    return code, out.getvalue(), err.getvalue()


class TestCommand(base.TestCase):

    def test_provider_config_carries_the_node_own_figures(self):
        code, out, err = run('provider-config', '--vcpus', '48',
                             '--memory-mb', '257000', '--disk-gb', '2000',
                             '--reserved-memory-mb', '4096',
                             '--cpu-allocation-ratio', '4')
        self.assertEqual((0, ''), (code, err))
        config = yaml.safe_load(out)
        self.assertEqual({'schema_version': '1.0'}, config['meta'])
        provider, = config['providers']
        self.assertEqual({'uuid': '$COMPUTE_NODE'},
                         provider['identification'])
        self.assertEqual(
            [{'CUSTOM_PREEMPTIBLE_VCPU': {
                'total': 48, 'reserved': 0, 'min_unit': 1, 'max_unit': 48,
                'step_size': 1, 'allocation_ratio': 4.0}},
             {'CUSTOM_PREEMPTIBLE_MEMORY_MB': {
                 'total': 257000, 'reserved': 4096, 'min_unit': 1,
                 'max_unit': 257000, 'step_size': 1,
                 'allocation_ratio': 1.0}},
             {'CUSTOM_PREEMPTIBLE_DISK_GB': {
                 'total': 2000, 'reserved': 0, 'min_unit': 1,
                 'max_unit': 2000, 'step_size': 1,
                 'allocation_ratio': 1.0}}],
            provider['inventories']['additional'])

    def test_provider_config_written_to_a_file(self):
        folder = self.useFixture(fixtures.TempDir()).path
        target = os.path.join(folder, 'preemptible.yaml')
        code, out, err = run('provider-config', '--vcpus', '10',
                             '--memory-mb', '8192', '--disk-gb', '1028',
                             '--output', target)
        self.assertEqual((0, '', ''), (code, out, err))
        with open(target) as found:
            self.assertEqual(3, len(yaml.safe_load(found)['providers'][0]
                                    ['inventories']['additional']))
        self.assertEqual(['preemptible.yaml'], os.listdir(folder))

    def test_bad_numbers_one_line_nothing_written(self):
        folder = self.useFixture(fixtures.TempDir()).path
        target = os.path.join(folder, 'preemptible.yaml')
        for option, value in (('--vcpus', '-1'), ('--vcpus', 'nan'),
                              ('--vcpus', '2.5'),
                              ('--ram-allocation-ratio', '0'),
                              ('--ram-allocation-ratio', 'inf')):
            argv = {'--vcpus': '10', '--memory-mb': '8192',
                    '--disk-gb': '1028'}
            argv[option] = value
            code, out, err = run('provider-config', '--output', target,
                                 *[item for pair in argv.items()
                                   for item in pair])
            self.assertEqual(2, code, option)
            self.assertEqual(1, len(err.splitlines()), err)
            self.assertIn(option, err)
            self.assertEqual([], os.listdir(folder))

    def test_flavor_properties(self):
        code, out, err = run('flavor-properties', '--vcpus', '2', '--ram',
                             '4096', '--disk', '40')
        self.assertEqual((0, ''), (code, err))
        self.assertEqual(
            '--property preemptible_sched:preemptible=true '
            '--property resources:VCPU=0 '
            '--property resources:CUSTOM_PREEMPTIBLE_VCPU=2 '
            '--property resources:MEMORY_MB=0 '
            '--property resources:CUSTOM_PREEMPTIBLE_MEMORY_MB=4096 '
            '--property resources:DISK_GB=0 '
            '--property resources:CUSTOM_PREEMPTIBLE_DISK_GB=40\n', out)
