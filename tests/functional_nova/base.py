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

"""A Nova 34 cloud in one process, scheduled by our manager.

Nova's own functional fixtures: its API behind wsgi-intercept (with the
paste pipeline beside this file, as Nova's wheel ships none), conductor,
the fake virt driver, an in-process Placement and SQLite databases. The
scheduler service runs
:class:`preemptible_sched.nova.manager.PreemptibleSchedulerManager`.

Hosts are ``MediumFakeDriver`` nodes (10 vCPUs, 8192 MB, 1028 GB) with
allocation ratios 1.0 and nothing reserved, so four 2 vCPU / 2048 MB
servers fill one. Time is oslo's override (``now`` seconds after T0), so
run times and billing periods are exact.
"""

import datetime
import os
import time

import fixtures
from nova import test
from nova.tests import fixtures as nova_fixtures
from nova.tests.functional import fixtures as func_fixtures
from nova.tests.functional import integrated_helpers
from oslo_utils import timeutils
import yaml

from preemptible_sched.nova import extra_specs
from preemptible_sched.nova import resource_classes

PASTE_CONFIG = os.path.join(os.path.dirname(__file__), 'api-paste.ini')
MANAGER = 'preemptible_sched.nova.manager.PreemptibleSchedulerManager'
T0 = datetime.datetime(2026, 11, 2, 8, 0, 0)

SPOT = {extra_specs.PREEMPTIBLE: 'true'}


def env_without_nova(test):
    """``os.environ`` with a ``nova`` package first on the path that cannot
    be imported (a script's "Nova missing" path), in a folder ``test``
    cleans up.
    """
    stub = test.useFixture(fixtures.TempDir()).path
    os.mkdir(os.path.join(stub, 'nova'))
    with open(os.path.join(stub, 'nova', '__init__.py'), 'w') as init:
        init.write("raise ImportError('no Nova here')\n")
    path = [stub, os.environ.get('PYTHONPATH', '')]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, path)))


class NovaTestCase(test.TestCase,
                   integrated_helpers.PlacementInstanceHelperMixin):
    """Nova with the preemption-aware scheduler and ``HOSTS`` computes."""

    HOSTS = ('host1', 'host2')
    #: Extra ``nova.conf`` settings: ``{(group or None, name): value}``.
    FLAGS = {}
    #: The one-pass mode: the spot flavor consumes the preemptible classes
    #: and every compute node offers them (a provider config file).
    ONE_PASS = False
    #: The scheduler service's manager class (a dotted path).
    SCHEDULER_MANAGER = MANAGER
    #: MediumFakeDriver's node.
    NODE = {'vcpus': 10, 'memory_mb': 8192, 'disk_gb': 1028}

    def setUp(self):
        self.flags(compute_driver='fake.MediumFakeDriver',
                   cpu_allocation_ratio=1.0, ram_allocation_ratio=1.0,
                   disk_allocation_ratio=1.0, reserved_host_memory_mb=0,
                   reserved_host_disk_mb=0, reserved_host_cpus=0,
                   # Virtual hours pass between boots: services stay up.
                   service_down_time=10 ** 7)
        self.flags(api_paste_config=PASTE_CONFIG, group='wsgi')
        self.flags(instances=100, cores=1000, ram=10 ** 7, group='quota')
        for (group, name), value in self.FLAGS.items():
            self.flags(**{name: value, 'group': group})
        self.journal_path = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'journal.sqlite')
        self.flags(journal_connection='sqlite:///%s' % self.journal_path,
                   group='preemptible_sched')
        if self.ONE_PASS:
            self.flags(mode='one_pass', group='preemptible_sched')
            self.flags(provider_config_location=self.provider_configs(),
                       group='compute')
        super().setUp()
        timeutils.set_time_override(T0)
        self.addCleanup(timeutils.clear_time_override)
        self.useFixture(nova_fixtures.RealPolicyFixture())
        self.useFixture(nova_fixtures.NeutronFixture(self))
        self.useFixture(nova_fixtures.GlanceFixture(self))
        self.useFixture(nova_fixtures.CinderFixture(self))
        self.placement = self.useFixture(func_fixtures.PlacementFixture()).api
        self.useFixture(nova_fixtures.AllServicesCurrent())
        self.notifier = self.useFixture(
            nova_fixtures.NotificationFixture(self))
        self.api_fixture = self.useFixture(
            nova_fixtures.OSAPIFixture(api_version='v2.1'))
        self.api = self.admin_api = self.api_fixture.admin_api
        self.api.microversion = 'latest'
        self.start_service('conductor')
        self.scheduler_service = self.start_service(
            'scheduler', manager=self.SCHEDULER_MANAGER)
        for host in self.HOSTS:
            self._start_compute(host)
        self.spot = self.spot_flavor('spot', 2, 2048, 10)
        self.normal = self._create_flavor(name='normal', vcpu=2,
                                          memory_mb=2048, disk=10,
                                          ephemeral=0)
        self.big = self._create_flavor(name='big', vcpu=4, memory_mb=4096,
                                       disk=20, ephemeral=0)
        self.flavors = {flavor['id']: flavor
                        for flavor in self.api.get_flavors()}

    def provider_configs(self):
        """A folder with the provider config of every compute node."""
        folder = self.useFixture(fixtures.TempDir()).path
        config = resource_classes.provider_config(**self.NODE)
        with open(os.path.join(folder, 'preemptible.yaml'), 'w') as out:
            yaml.safe_dump(config, out)
        return folder

    def spot_flavor(self, name, vcpus, memory_mb, disk):
        specs = dict(SPOT)
        if self.ONE_PASS:
            specs.update(resource_classes.flavor_extra_specs(
                vcpus, memory_mb, disk))
        return self._create_flavor(name=name, vcpu=vcpus,
                                   memory_mb=memory_mb, disk=disk,
                                   ephemeral=0, extra_spec=specs)

    # -- time ------------------------------------------------------------

    def at(self, seconds):
        """Move oslo's clock to T0 + ``seconds``."""
        timeutils.set_time_override(T0 + datetime.timedelta(seconds=seconds))

    # -- servers ---------------------------------------------------------

    def _wait_for_state_change(self, server, expected_status,
                               max_retries=240, **kwargs):
        """Nova's bounded poll with 2 minutes instead of 5 s: a build on a
        loaded 2-core machine took longer (a server still BUILD after its
        scheduling was done).
        """
        return super()._wait_for_state_change(
            server, expected_status, max_retries=max_retries, **kwargs)

    def boot(self, flavor, host=None, name=None, expected_state='ACTIVE'):
        return self._create_server(name=name, flavor_id=flavor, host=host,
                                   networks='none',
                                   expected_state=expected_state)

    def boot_many(self, flavor, count):
        """Boot ``count`` servers in one request; return them, ACTIVE."""
        body = self._build_server(flavor_id=flavor, networks='none')
        body['min_count'] = body['max_count'] = count
        body['return_reservation_id'] = True
        reservation = self.api.post_server({'server': body})
        servers = self.api.get_servers(
            search_opts={'reservation_id': reservation['reservation_id']})
        self.assertEqual(count, len(servers))
        return [self._wait_for_state_change(server, 'ACTIVE')
                for server in servers]

    def fill(self, plan):
        """Boot preemptible servers: ``{name: (host, at seconds)}``, in
        time order. Returns ``{name: server}``.
        """
        servers = {}
        for name, (host, when) in sorted(plan.items(),
                                         key=lambda item: item[1][1]):
            self.at(when)
            servers[name] = self.boot(self.spot, host=host, name=name)
        return servers

    def server_ids(self):
        return {server['id'] for server in self.api.get_servers()}

    def gone_since(self, before, count):
        """The servers of ``before`` that are gone, once ``count`` of them
        are (deletions are asynchronous: a bounded poll, not an assumption
        on their timing); fails if they are not within 20 s.
        """
        for _attempt in range(200):
            gone = before - self.server_ids()
            if len(gone) >= count:
                return gone
            time.sleep(0.1)
        self.fail('%d of %d servers gone after 20 s' % (len(gone), count))

    def assert_no_host_over_capacity(self):
        """Neither Nova (the flavors of the servers on each host) nor
        Placement (every class of each node, a preemptible class counted
        as its standard one) sees any host over its capacity.
        """
        capacity = {'VCPU': self.NODE['vcpus'],
                    'MEMORY_MB': self.NODE['memory_mb'],
                    'DISK_GB': self.NODE['disk_gb']}
        servers = {host: dict.fromkeys(capacity, 0) for host in self.HOSTS}
        for server in self.api.get_servers(detail=True):
            host = server['OS-EXT-SRV-ATTR:host']
            if host is None:
                continue        # shelved and offloaded
            flavor = server['flavor']
            for rc, amount in (('VCPU', flavor['vcpus']),
                               ('MEMORY_MB', flavor['ram']),
                               ('DISK_GB', flavor['disk'])):
                servers[host][rc] += amount
        for host in self.HOSTS:
            found = resource_classes.standard_amounts(
                self._get_provider_usages(
                    self._get_provider_uuid_by_host(host)))
            for rc, total in capacity.items():
                self.assertLessEqual(servers[host][rc], total,
                                     'Nova: %s over its %s' % (host, rc))
                self.assertLessEqual(found[rc], total,
                                     'Placement: %s over its %s' % (host, rc))

    def assert_usages_match_servers(self):
        """Placement usages of every host equal the sum of the flavors of
        the servers on it (a flavor moved to the preemptible classes
        counted in those).
        """
        classes = resource_classes.STANDARD + tuple(
            resource_classes.CUSTOM.values())
        expected = {host: dict.fromkeys(classes, 0) for host in self.HOSTS}
        for server in self.api.get_servers(detail=True):
            if server['OS-EXT-SRV-ATTR:host'] is None:
                continue        # shelved and offloaded: no host, no usage
            flavor = server['flavor']
            usage = expected[server['OS-EXT-SRV-ATTR:host']]
            specs = flavor.get('extra_specs') or {}
            for standard, amount in (('VCPU', flavor['vcpus']),
                                     ('MEMORY_MB', flavor['ram']),
                                     ('DISK_GB', flavor['disk'])):
                custom = resource_classes.CUSTOM[standard]
                if specs.get('resources:%s' % standard) == '0':
                    usage[custom] += int(specs.get('resources:%s' % custom,
                                                   0))
                else:
                    usage[standard] += amount
        for host, usage in expected.items():
            found = self._get_provider_usages(
                self._get_provider_uuid_by_host(host))
            self.assertEqual(
                usage, {rc: found.get(rc, 0) for rc in classes},
                'Placement usages of %s' % host)
            self.assertEqual(set(), set(found) - set(classes))
