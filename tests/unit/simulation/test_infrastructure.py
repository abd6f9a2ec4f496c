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

import gzip
import os
import random
from unittest import mock

import fixtures

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched import objects
from preemptible_sched.simulation import infrastructure
from preemptible_sched.simulation.traces import reading
from preemptible_sched.simulation.traces import records
from tests import base

# The real machine lists live beside the checkout, in ../shared/data.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(os.path.dirname(REPO), 'shared', 'data')

MACHINE_EVENTS = ('0,1,0,P1,0.5,0.25\n'
                  '0,2,0,P1,0.5,0.25\n'
                  '0,3,0,,,\n'              # no capacity: ignored
                  '10,2,2,P1,1,0.5\n'       # machine 2 grows
                  '20,1,1,P1,,\n'           # machine 1 removed...
                  '30,4,0,P2,0.25,0.125\n'
                  '40,1,0,P1,0.5,0.5\n')    # ...and added back


def item(item_id, submit, duration, vcpus, memory_mb=0.0):
    return records.WorkloadItem(item_id, submit, duration,
                                objects.Resources(vcpus, memory_mb))


def sizes(hosts):
    return [(h.name, h.vcpus, h.memory_mb, h.disk_gb, dict(h.attributes))
            for h in hosts]


class FileMixin:

    def write(self, name, text):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path, name)
        with open(path, 'w', encoding='utf-8') as stream:
            stream.write(text)
        return path

    def assertInvalid(self, reader, text, field, message_part):
        path = self.write('hosts.csv', text)
        error = self.assertRaises(exception.InvalidInput, reader, path)
        self.assertEqual(path, error.source)
        self.assertEqual(field, error.field)
        self.assertIn(message_part, error.message)
        return error


class TestReadInfrastructure(FileMixin, base.TestCase):

    def test_hosts(self):
        path = self.write('hosts.csv',
                          'name,vcpus,memory_mb,disk_gb,attributes\n'
                          'a,8,16384,500,zone=a;ssd=true\n'
                          'b,2.5,4096,,\n')
        self.assertEqual(
            [('a', 8.0, 16384.0, 500.0, {'zone': 'a', 'ssd': 'true'}),
             ('b', 2.5, 4096.0, 0.0, {})],
            sizes(infrastructure.read_infrastructure(path)))

    def test_disk_and_attributes_may_be_left_out(self):
        path = self.write('hosts.csv', 'name,vcpus,memory_mb\nc,1,512\n')
        self.assertEqual([('c', 1.0, 512.0, 0.0, {})],
                         sizes(infrastructure.read_infrastructure(path)))

    def test_duplicate_name(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb\na,1,1\na,2,2\n',
                           'line 3: field name', "duplicate id 'a'")

    def test_duplicate_header_column(self):
        # The second "name" used to win silently.
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb,name\na,1,1,b\n',
                           'line 1: field name',
                           'duplicate column (also field 1)')

    def test_negative_size(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb\na,-1,1\n',
                           'line 2: field vcpus', 'must be >= 0')

    def test_missing_column(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus\na,1\n', 'line 1: field memory_mb',
                           'missing required column')

    def test_unknown_column(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb,ram\na,1,1,1\n',
                           'line 1: field ram', 'unknown column')

    def test_bad_attributes(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb,attributes\na,1,1,ssd\n',
                           'line 2: field attributes', 'key=value')

    def test_no_hosts(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb\n', None,
                           'no hosts in the file')

    def test_missing_file(self):
        error = self.assertRaises(exception.InvalidInput,
                                  infrastructure.read_infrastructure,
                                  '/nonexistent/hosts.csv')
        self.assertEqual('/nonexistent/hosts.csv: cannot read file: No '
                         'such file or directory', str(error))


class TestHostsFromFlavor(base.TestCase):

    def test_identical_hosts(self):
        self.assertEqual(
            [('host-0001', 4.0, 8192.0, 80.0, {}),
             ('host-0002', 4.0, 8192.0, 80.0, {}),
             ('host-0003', 4.0, 8192.0, 80.0, {})],
            sizes(infrastructure.hosts_from_flavor(3, '4:8192:80')))

    def test_disk_is_optional(self):
        self.assertEqual([('host-0001', 0.5, 512.0, 0.0, {})],
                         sizes(infrastructure.hosts_from_flavor(1,
                                                                '0.5:512')))

    def test_bad_flavor(self):
        for flavor in ('4', '4:8:1:1', 'four:8', '4:', '0:8', '4:-8',
                       '4:8:-1', 'inf:8', '4:nan', ''):
            error = self.assertRaises(exception.InvalidInput,
                                      infrastructure.hosts_from_flavor, 2,
                                      flavor)
            self.assertEqual('--host-flavor', error.source)
            self.assertIn(repr(flavor), error.message)

    def test_bad_count(self):
        error = self.assertRaises(exception.InvalidInput,
                                  infrastructure.hosts_from_flavor, 0,
                                  '4:8192')
        self.assertEqual('--hosts', error.source)


class TestReadMachines(FileMixin, base.TestCase):

    def test_alibaba_nodes(self):
        path = self.write('nodes.csv', 'sn,cpu_milli,memory_mib,gpu,model\n'
                          'n0,32000,262144,0,\nn1,96500,393216,8,G2\n')
        self.assertEqual(
            [('n0', 32.0, 262144.0, 0.0, {'gpu': '0'}),
             ('n1', 96.5, 393216.0, 0.0, {'gpu': '8', 'model': 'G2'})],
            sizes(infrastructure.read_machines(path)))

    def test_duplicate_header_column(self):
        self.assertInvalid(infrastructure.read_machines,
                           'sn,cpu_milli,memory_mib,sn\nn0,1,1,n1\n',
                           'line 1: field sn',
                           'duplicate column (also field 1)')

    def check_machine_events(self, path):
        self.assertEqual(
            [('2', 1.0, 0.5, 0.0, {'platform': 'P1'}),
             ('4', 0.25, 0.125, 0.0, {'platform': 'P2'}),
             ('1', 0.5, 0.5, 0.0, {'platform': 'P1'})],
            sizes(infrastructure.read_machines(path)))

    def test_google_machine_events(self):
        self.check_machine_events(self.write(
            'machine_events.csv', 'Time stamp,Machine ID,Event type,'
            'Platform ID,capacity:CPU,capacity:memory\n' + MACHINE_EVENTS))

    def test_google_machine_events_without_header(self):
        self.check_machine_events(self.write('part-00000-of-00001.csv',
                                             MACHINE_EVENTS))

    def test_canonical(self):
        path = self.write('hosts.csv', 'name,vcpus,memory_mb\nc,1,512\n')
        self.assertEqual([('c', 1.0, 512.0, 0.0, {})],
                         sizes(infrastructure.read_machines(path)))

    def test_unknown_header(self):
        self.assertInvalid(infrastructure.read_machines,
                           'host,cpus\na,1\n', None,
                           'cannot tell the machine list format')

    def test_google_bad_event(self):
        self.assertInvalid(infrastructure.read_machines,
                           MACHINE_EVENTS + '50,1,7,P1,1,1\n',
                           'line 8: field event type', 'expected 0, 1 or 2')

    def test_google_bad_capacity(self):
        self.assertInvalid(infrastructure.read_machines, '0,1,0,P1,half,1\n',
                           'line 1: field CPU capacity', "'half'")

    def test_alibaba_bad_gpu(self):
        self.assertInvalid(infrastructure.read_machines,
                           'sn,cpu_milli,memory_mib,gpu,model\n'
                           'n0,1000,1024,eight,G2\n',
                           'line 2: field gpu', 'not a number')

    def test_alibaba_missing_column(self):
        self.assertInvalid(infrastructure.read_machines,
                           'sn,cpu_milli\nn0,1000\n',
                           'line 1: field memory_mib',
                           'missing required column')

    def test_unknown_format_option(self):
        error = self.assertRaises(exception.InvalidInput,
                                  infrastructure.read_machines, 'x.csv',
                                  'yaml')
        self.assertIn("unknown format 'yaml'", error.message)


class TestPeakDemand(base.TestCase):

    # vCPUs running: 1 on [0, 5), 3 on [5, 10), 6 on [10, 12) (a ends as
    # c starts), 6.5 on [12, 15), 4.5 on [15, 20), then 0.5 (d) for ever.
    # Memory peaks earlier: 150 on [5, 10).
    ITEMS = [item('a', 0, 10, 1, 100), item('b', 5, 10, 2, 50),
             item('c', 10, 10, 4, 10), item('d', 12, None, 0.5)]

    def test_peaks_per_resource(self):
        self.assertEqual((6.5, 150.0, 0.0),
                         infrastructure.peak_demand(self.ITEMS))

    def test_until_cuts_what_starts_at_or_after_it(self):
        self.assertEqual((6.0, 150.0, 0.0),
                         infrastructure.peak_demand(self.ITEMS, until=12))

    def test_end_equal_to_start_does_not_overlap(self):
        items = [item('x', 0, 10, 1), item('y', 10, 10, 1),
                 item('z', 20, 5, 1)]
        self.assertEqual((1.0, 0.0, 0.0),
                         infrastructure.peak_demand(items))

    def test_zero_duration_occupies_nothing(self):
        items = [item('zero', 5, 0, 10), item('long', 0, 10, 1),
                 item('later', 20, 1, 2)]
        self.assertEqual((2.0, 0.0, 0.0), infrastructure.peak_demand(items))

    def test_open_ended_items_add_up(self):
        items = [item('p', 0, None, 1), item('q', 100, None, 2)]
        self.assertEqual((3.0, 0.0, 0.0), infrastructure.peak_demand(items))
        self.assertEqual((1.0, 0.0, 0.0),
                         infrastructure.peak_demand(items, until=100))

    def test_nothing(self):
        self.assertEqual((0.0, 0.0, 0.0), infrastructure.peak_demand([]))


class TestSizeFromWorkload(base.TestCase):

    MACHINES = [objects.Host('small', 2, 100),
                objects.Host('big', 8, 1000, attributes={'gpu': '8'})]

    def check(self, items, factor, resource, seed=1):
        hosts = infrastructure.size_from_workload(items, self.MACHINES,
                                                  factor, seed)
        target = factor * getattr(infrastructure.peak_demand(items),
                                  resource)
        amounts = [getattr(h, resource) for h in hosts]
        self.assertGreaterEqual(sum(amounts), target)
        self.assertLess(sum(amounts[:-1]), target)
        return hosts

    def test_cpu_bound(self):
        # Peak 10 vCPUs = 2 mean machines, 500 MB = 0.9: CPU drives.
        items = [item('a', 0, 10, 6, 300), item('b', 5, 10, 4, 200)]
        self.check(items, 1.5, 'vcpus')

    def test_memory_bound(self):
        items = [item('a', 0, 10, 1, 5000)]
        self.check(items, 1.0, 'memory_mb')

    def test_names_are_unique_and_keep_the_machine(self):
        hosts = self.check([item('a', 0, 10, 40)], 1.0, 'vcpus', seed=3)
        self.assertEqual(len(hosts), len({h.name for h in hosts}))
        by_name = {m.name: m for m in self.MACHINES}
        for number, host in enumerate(hosts, start=1):
            prefix, _, original = host.name.partition('-')
            self.assertEqual('m%04d' % number, prefix)
            self.assertEqual((by_name[original].vcpus,
                              by_name[original].memory_mb,
                              dict(by_name[original].attributes)),
                             (host.vcpus, host.memory_mb,
                              dict(host.attributes)))
            self.assertIsNot(by_name[original].attributes, host.attributes)

    def test_same_seed_same_hosts(self):
        items = [item('a', 0, 10, 40, 100)]
        runs = [infrastructure.size_from_workload(items, self.MACHINES,
                                                  1.0, seed)
                for seed in (5, 5, 6, 7, 8, 9)]
        self.assertEqual(runs[0], runs[1])
        self.assertGreater(len({tuple(h.name for h in run)
                                for run in runs}), 1)

    def test_no_demand_gives_one_machine(self):
        hosts = infrastructure.size_from_workload([], self.MACHINES, 2.0, 1)
        self.assertEqual(1, len(hosts))

    def test_bad_factor(self):
        for factor in (0, -1.0):
            error = self.assertRaises(
                exception.InvalidInput, infrastructure.size_from_workload,
                [item('a', 0, 1, 1)], self.MACHINES, factor, 1)
            self.assertEqual('--size-factor', error.source)

    def test_machines_without_the_resource(self):
        error = self.assertRaises(
            exception.InvalidInput, infrastructure.size_from_workload,
            [item('a', 0, 1, 1, 10)], [objects.Host('m', 4, 0)], 1.0, 1)
        self.assertIn('no memory_mb', error.message)


#: machine_attributes rows: time, machine, name, value, deleted.
MACHINE_ATTRIBUTES = ('Time stamp,Machine ID,Attribute name,'
                      'Attribute value,Attribute deleted\n'
                      '0,2,kernel,3,0\n'
                      '0,2,rack,r1,0\n'
                      '0,4,kernel,5,0\n'
                      '0,9,kernel,7,0\n'        # machine 9 is not listed
                      '50,2,kernel,4,0\n'       # kernel updated...
                      '20,2,kernel,9,0\n'       # ...an older row loses
                      '60,2,rack,,1\n'          # rack deleted
                      '70,4,ssd,,0\n'           # empty value kept
                      '80,1,gpu,1,\n')          # empty flag: not deleted


class TestMachineAttributes(FileMixin, base.TestCase):

    def setUp(self):
        super().setUp()
        self.events = self.write('machine_events.csv', MACHINE_EVENTS)

    def test_latest_value_deletion_and_unlisted_machines(self):
        path = self.write('machine_attributes.csv', MACHINE_ATTRIBUTES)
        self.assertEqual(
            {'2': {'kernel': '4'}, '4': {'kernel': '5', 'ssd': ''},
             '1': {'gpu': '1'}},
            infrastructure.machine_attributes(path, {'1', '2', '4'}))

    def test_hosts_get_them_and_keep_platform(self):
        path = self.write('machine_attributes.csv.gz', '')
        with gzip.open(path, 'wt') as stream:
            stream.write(MACHINE_ATTRIBUTES)
        hosts = infrastructure.read_machines(self.events,
                                             attributes=path)
        self.assertEqual(
            [('2', {'platform': 'P1', 'kernel': '4'}),
             ('4', {'platform': 'P2', 'kernel': '5', 'ssd': ''}),
             ('1', {'platform': 'P1', 'gpu': '1'})],
            [(h.name, h.attributes) for h in hosts])

    def test_bad_deleted_flag(self):
        path = self.write('machine_attributes.csv', '0,2,kernel,3,yes\n')
        error = self.assertRaises(exception.InvalidInput,
                                  infrastructure.read_machines, self.events,
                                  attributes=path)
        self.assertEqual((path, 'line 1: field attribute deleted'),
                         (error.source, error.field))

    def test_wrong_field_count(self):
        path = self.write('machine_attributes.csv', '0,2,kernel,3\n')
        error = self.assertRaises(exception.InvalidInput,
                                  infrastructure.machine_attributes, path,
                                  {'2'})
        self.assertIn('expected 5 machine_attributes fields',
                      error.message)

    def test_only_with_google_machines(self):
        hosts = self.write('hosts.csv', 'name,vcpus,memory_mb\nc,1,512\n')
        path = self.write('machine_attributes.csv', MACHINE_ATTRIBUTES)
        error = self.assertRaises(exception.InvalidInput,
                                  infrastructure.read_machines, hosts,
                                  attributes=path)
        self.assertIn('Google machine_events', error.message)


class TestRealMachines(base.TestCase):
    """The machine lists in ../shared/data."""

    def path(self, *parts):
        if not os.path.isdir(DATA):
            self.skipTest('real traces not found at %s' % DATA)
        return os.path.join(DATA, *parts)

    def test_alibaba_nodes(self):
        hosts = infrastructure.read_machines(self.path(
            'alibaba_gpu_v2023', 'openb_node_list_all_node.csv'))
        self.assertEqual(1523, len(hosts))
        self.assertEqual(('openb-node-0000', 32.0, 262144.0, 0.0,
                          {'gpu': '0'}), sizes(hosts)[0])
        # 310 CPU-only nodes have no GPU model.
        self.assertEqual(1213, sum('model' in h.attributes for h in hosts))

    def test_google_machine_events(self):
        hosts = infrastructure.read_machines(self.path(
            'google2011_first_rows', 'machine_events.csv'))
        self.assertEqual(1523, len(hosts))
        self.assertEqual({0.5}, {h.vcpus for h in hosts})
        self.assertEqual({0.4995, 0.2493, 0.1241},
                         {h.memory_mb for h in hosts})

    def test_google_machine_attributes(self):
        hosts = infrastructure.read_machines(
            self.path('google2011_first_rows', 'machine_events.csv'),
            attributes=self.path('google2011_first_rows',
                                 'machine_attributes.csv'))
        by_name = {h.name: h.attributes for h in hosts}
        # 42 attribute rows for machine 5, 21 for machine 381128 (whose
        # last row has an empty deleted flag), plus the platform.
        self.assertEqual(43, len(by_name['5']))
        self.assertEqual(22, len(by_name['381128']))
        self.assertEqual(40, sum(len(a) > 1 for a in by_name.values()))

    def test_size_alibaba_cluster_for_a_pod_prefix(self):
        machines = infrastructure.read_machines(self.path(
            'alibaba_gpu_v2023', 'openb_node_list_all_node.csv'))
        items = reading.read_workload(self.path(
            'alibaba_gpu_v2023', 'openb_pod_list_default.csv'), limit=1000)
        peak = infrastructure.peak_demand(items)
        hosts = infrastructure.size_from_workload(items, machines, 1.0, 42)
        # CPU drives: ~666 vCPUs at peak against ~86 per machine.
        self.assertGreaterEqual(sum(h.vcpus for h in hosts), peak.vcpus)
        self.assertLess(sum(h.vcpus for h in hosts[:-1]), peak.vcpus)


class TestHostileHosts(FileMixin, base.TestCase):
    """Regressions of issue 11: absurd host lists and values are refused
    on one line, and no cloud grows without bound.
    """

    def test_absurd_host_count_is_refused(self):
        error = self.assertRaises(exception.InvalidInput,
                                  infrastructure.hosts_from_flavor,
                                  100000000, '4:8000')
        self.assertEqual('--hosts: must be <= 100000, got 100000000',
                         str(error))

    def test_host_count_must_be_an_integer(self):
        self.assertRaises(exception.InvalidInput,
                          infrastructure.hosts_from_flavor, 2.0, '4:8000')

    def test_absurd_flavor_is_refused(self):
        self.assertRaises(exception.InvalidInput,
                          infrastructure.hosts_from_flavor, 1, '4:1e300')

    def test_absurd_size_in_a_file_is_refused(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb\nh,1e10,1000\n',
                           'line 2: field vcpus', 'must be <= 1e+09')

    def test_too_many_hosts_in_a_file_are_refused(self):
        with mock.patch.object(limits, 'MAX_HOSTS', 2):
            self.assertInvalid(
                infrastructure.read_infrastructure,
                'name,vcpus,memory_mb\na,1,1\nb,1,1\nc,1,1\n', 'line 4',
                'more than 2 hosts')

    def test_fifo_is_refused_without_blocking(self):
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'hosts.csv')
        os.mkfifo(path)
        error = self.assertRaises(exception.InvalidInput,
                                  infrastructure.read_infrastructure, path)
        self.assertIn('not a regular file (a FIFO)', str(error))

    def test_infinite_size_factor_is_refused(self):
        for factor in (float('inf'), float('nan'), 1e6, 0, -1):
            error = self.assertRaises(
                exception.InvalidInput, infrastructure.size_from_workload,
                [item('a', 0, 10, 1)], [objects.Host('m', 4, 100)], factor,
                0)
            self.assertEqual('--size-factor', error.source)

    def test_sample_beyond_the_host_bound_is_refused_at_once(self):
        with mock.patch.object(random.Random, 'choice',
                               side_effect=AssertionError('sampled')):
            error = self.assertRaises(
                exception.InvalidInput, infrastructure.size_from_workload,
                [item('a', 0, 10, 1e9)], [objects.Host('m', 1, 100)],
                900.0, 0)
        self.assertIn('needs more than 100000 hosts', str(error))


class TestCpuSpeed(FileMixin, base.TestCase):

    def test_optional_cpu_mhz_column(self):
        path = self.write('hosts.csv', 'name,vcpus,memory_mb,cpu_mhz\n'
                          'fast,4,0,4100\nslow,2,0,3500.5\nplain,2,0,\n')
        self.assertEqual(
            [('fast', 4100.0), ('slow', 3500.5), ('plain', None)],
            [(host.name, host.cpu_mhz) for host
             in infrastructure.read_infrastructure(path)])

    def test_zero_speed(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb,cpu_mhz\na,1,1,0\n',
                           'line 2: field cpu_mhz', 'must be > 0')

    def test_not_a_speed(self):
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb,cpu_mhz\na,1,1,nan\n',
                           'line 2: field cpu_mhz', 'is not a number')
        self.assertInvalid(infrastructure.read_infrastructure,
                           'name,vcpus,memory_mb,cpu_mhz\na,1,1,1e7\n',
                           'line 2: field cpu_mhz', 'must be <=')

    def test_shipped_sc18_machines(self):
        hosts = infrastructure.read_infrastructure(os.path.join(
            REPO, 'etc', 'preemptible-sched', 'experiments', 'sc18',
            'infrastructure.csv'))
        # 16 x 4 cores at 4100 MHz listed first, then 16 x 2 at 3500.
        self.assertEqual([(4.0, 4100.0)] * 16 + [(2.0, 3500.0)] * 16,
                         [(host.vcpus, host.cpu_mhz) for host in hosts])
