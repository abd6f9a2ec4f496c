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

"""The base of the tests against the multi-process cloud of :mod:`.cloud`.

One cloud serves every test of the test process (``tox -e nova-real``
runs them in one process): it is started by the first test, in a
temporary folder, and stopped at the process's exit; the folder is kept
(and named on stderr) when a test failed, or in
``PSCHED_TEST_KEEP_LOGS``. Between tests every server is deleted and
Placement is awaited empty; a test class names the configuration its
scheduler runs with (``SCHEDULER``, layered on top of ``nova.conf``), and
the scheduler is restarted when it changes. A test sees the lines each
process logged during it, attached to its result.

Tests drive the compute and Placement APIs only and assert from them,
from the scheduler's journal (``[preemptible_sched] journal_connection``)
and from the processes' logs. Every wait is a bounded poll.
"""

import atexit
import collections
import concurrent.futures
import configparser
import datetime
import hashlib
import os
import shutil
import sys
import tempfile

import sqlalchemy as sa
from testtools import content

from tests import base
from tests.nova_real import cloud as cloud_mod

#: Longest wait for a server to settle, or anything else to happen.
WAIT = 180.0
POLL = 0.5
#: The log line preemptible-nova-scheduler writes (at debug level) once
#: its RPC server consumes requests.
SERVING = 'Join ServiceGroup membership for this service'
CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
PREEMPTIBLE = {'VCPU': 'CUSTOM_PREEMPTIBLE_VCPU',
               'MEMORY_MB': 'CUSTOM_PREEMPTIBLE_MEMORY_MB',
               'DISK_GB': 'CUSTOM_PREEMPTIBLE_DISK_GB'}
#: os-hypervisors field names of each class: (total, used).
HYPERVISOR = {'VCPU': ('vcpus', 'vcpus_used'),
              'MEMORY_MB': ('memory_mb', 'memory_mb_used'),
              'DISK_GB': ('local_gb', 'local_gb_used')}


#: Where run folders go: read before any test, since oslotest points
#: ``tempfile`` at a folder of each test's own, deleted after it.
RUNS = tempfile.gettempdir()


def epoch(stamp):
    """Seconds since the epoch of an API time stamp (UTC, whole seconds
    kept: ``2026-01-01T00:00:00Z`` or ``2026-01-01T00:00:00.000000``).
    """
    moment = datetime.datetime.strptime(stamp[:19], '%Y-%m-%dT%H:%M:%S')
    return moment.replace(tzinfo=datetime.timezone.utc).timestamp()


class _Shared:
    """The cloud of this process, and whether a test failed."""

    cloud = None
    error = None
    failed = False


def shared_cloud():
    """The cloud of this test process, started on first use."""
    if _Shared.error is not None:
        raise RuntimeError('the cloud did not start: %s' % _Shared.error)
    if _Shared.cloud is None:
        folder = tempfile.mkdtemp(prefix='nova-real-', dir=RUNS)
        cloud = cloud_mod.Cloud(folder, tied=True)
        atexit.register(_shutdown, cloud)
        try:
            cloud.up()
        except Exception as error:
            _Shared.error = error
            _Shared.failed = True
            raise
        _Shared.cloud = cloud
    return _Shared.cloud


def _shutdown(cloud):
    try:
        cloud.down()
    finally:
        keep = os.environ.get('PSCHED_TEST_KEEP_LOGS')
        if keep:
            shutil.copytree(cloud.path('logs'), os.path.join(
                keep, os.path.basename(cloud.dir)), dirs_exist_ok=True)
        if _Shared.failed:
            sys.stderr.write('nova-real: a test failed; the cloud\'s logs '
                             'are kept in %s\n' % cloud.path('logs'))
        else:
            shutil.rmtree(cloud.dir, ignore_errors=True)


def write_ini(path, groups):
    parser = configparser.ConfigParser()
    for group, values in groups.items():
        parser[group] = {name: str(value) for name, value in values.items()}
    with open(path, 'w') as out:
        parser.write(out)


class Journal:
    """Read-only access to the scheduler's journal database."""

    def __init__(self, url):
        self.engine = sa.create_engine(url, poolclass=sa.pool.NullPool)

    def decisions(self):
        """``{id: row}``: every decision with its victims, as dicts."""
        with self.engine.connect() as connection:
            found = {row.id: dict(row._mapping, victims={})
                     for row in connection.execute(sa.text(
                         'SELECT * FROM nova_decisions'))}
            for row in connection.execute(sa.text(
                    'SELECT * FROM nova_victims')):
                found[row.decision_id]['victims'][row.victim] = dict(
                    row._mapping)
        return found


class NovaRealTestCase(base.TestCase):
    """A test on the shared cloud."""

    #: ``{group: {option: value}}`` layered on nova.conf for the
    #: scheduler of this class's tests (None: the test starts its own).
    SCHEDULER = {}

    def setUp(self):
        super().setUp()
        why = cloud_mod.unreachable()
        if why:
            self.skipTest(why)
        self.addOnException(self._mark_failed)
        self.cloud = shared_cloud()
        self.compute = self.cloud.compute
        self.placement = self.cloud.placement
        self.flavors = self.cloud.state['flavors']
        self.journal = Journal(self.cloud.db_url('journal', 'utf8mb4'))
        self.addCleanup(self.journal.engine.dispose)
        self._attach_logs_from({name: self._log_size(name)
                                for name in os.listdir(
                                    self.cloud.path('logs'))})
        self.stop_extra_schedulers()
        self.delete_all_servers()
        if self.SCHEDULER is not None:
            self.use_scheduler(self.SCHEDULER)
        self.known = set(self.journal.decisions())

    def _mark_failed(self, exc_info):
        _Shared.failed = True

    # -- logs -------------------------------------------------------------

    def _log_size(self, name):
        return os.path.getsize(self.cloud.path('logs', name))

    def _attach_logs_from(self, offsets):
        def attach():
            for name in sorted(os.listdir(self.cloud.path('logs'))):
                with open(self.cloud.path('logs', name), 'rb') as stream:
                    stream.seek(offsets.get(name, 0))
                    text = stream.read().decode('utf-8', 'replace')
                if text:
                    self.addDetail(name, content.text_content(text))
        self.addCleanup(attach)

    def log_since(self, name, offset):
        with open(self.cloud.path('logs', '%s.log' % name), 'rb') as stream:
            stream.seek(offset)
            return stream.read().decode('utf-8', 'replace')

    # -- the scheduler ----------------------------------------------------

    def use_scheduler(self, settings):
        """Run the scheduler with ``settings`` on top of nova.conf
        (restarting it when it runs with others).
        """
        groups = {'DEFAULT': {'debug': 'true'}}
        for group, values in settings.items():
            groups.setdefault(group, {}).update(values)
        text = repr(sorted((g, sorted(v.items()))
                           for g, v in groups.items()))
        mode = 'mode-%s' % hashlib.sha256(text.encode()).hexdigest()[:8]
        write_ini(self.cloud.path('etc', '%s.conf' % mode), groups)
        running = 'scheduler' in self.cloud.running
        if running and self.cloud.state.get('scheduler_mode') == mode:
            return
        if running:
            self.cloud.stop('scheduler')
        self.cloud.state['scheduler_mode'] = mode
        # Not what Cloud.use_schedulers started any more.
        self.cloud.state.pop('schedulers', None)
        self.start_scheduler()

    def start_scheduler(self, name='scheduler', host=None):
        """Start a scheduler with the current mode; return once it
        consumes requests.
        """
        offset = (self._log_size('%s.log' % name) if os.path.exists(
            self.cloud.path('logs', '%s.log' % name)) else 0)
        self.cloud.start_scheduler(name, self.cloud.state['scheduler_mode'],
                                   host=host)
        self.wait_for(lambda: SERVING in self.log_since(name, offset),
                      '%s serving' % name)

    def stop_extra_schedulers(self):
        extra = [name for name in self.cloud.running
                 if name.startswith('scheduler-')]
        if extra:
            self.cloud.stop(*extra)

    def kill_scheduler(self, name='scheduler'):
        self.cloud.kill(name)

    # -- waiting ----------------------------------------------------------

    def wait_for(self, predicate, what, timeout=WAIT, interval=POLL):
        """Poll until ``predicate()`` is true and return it; fail after
        ``timeout`` s, or as soon as a process of the cloud died.
        """
        try:
            return cloud_mod.wait_for(predicate, what, timeout, interval,
                                      alive=self.cloud.dead)
        except RuntimeError as error:
            self.fail(str(error))

    # -- servers ----------------------------------------------------------

    def boot(self, flavor, name, count=1, host=None):
        """Boot ``count`` servers of ``flavor`` (a name) in one request;
        their ids.
        """
        extra = {'host': host} if host else {}
        reply = self.compute.boot(name, self.flavors[flavor],
                                  self.cloud.state['image'], count, **extra)
        if count == 1:
            return [reply]
        servers = self.wait_for(
            lambda: self.compute.servers(reservation_id=reply),
            'the servers of reservation %s' % reply)
        self.assertEqual(count, len(servers))
        return [server['id'] for server in servers]

    def wait_for_status(self, ids, status, timeout=WAIT):
        """Wait until every server of ``ids`` has ``status``; return them
        (``{id: server}``). Fails early on ERROR when waiting for another
        status.
        """
        def settled():
            servers = {server['id']: server
                       for server in self.compute.servers()
                       if server['id'] in ids}
            failed = [server for server in servers.values()
                      if server['status'] == 'ERROR' and status != 'ERROR']
            if failed:
                self.fail('server %s went to ERROR: %s' % (
                    failed[0]['id'], failed[0].get('fault')))
            if len(servers) == len(ids) and all(
                    s['status'] == status for s in servers.values()):
                return servers
            return None
        return self.wait_for(settled, '%s %s' % (sorted(ids), status),
                             timeout)

    def wait_until_deleted(self, ids, timeout=WAIT):
        ids = set(ids)
        self.wait_for(lambda: not ids & {server['id'] for server in
                                         self.compute.servers()},
                      'servers %s deleted' % sorted(ids), timeout)

    def fill(self, flavor, per_host=4, hosts=None):
        """``per_host`` servers of ``flavor`` on each of ``hosts``, one
        request per host, each awaited ACTIVE before the next is sent (two
        requests handled at once by a scheduler that has just started
        can hang in Nova's first scatter-gather over the cells);
        ``{id: server}``.
        """
        servers = {}
        for host in self.cloud.hosts if hosts is None else hosts:
            ids = self.boot(flavor, 'fill-%s' % host, per_host, host=host)
            servers.update(self.wait_for_status(ids, 'ACTIVE'))
        return servers

    def boot_concurrently(self, flavor, count):
        """``count`` single-server requests at once; their ids."""
        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            futures = [pool.submit(self.boot, flavor, 'burst-%d' % index)
                       for index in range(count)]
            return [future.result()[0] for future in futures]

    def delete_all_servers(self):
        """Delete every server; wait until they are gone and Placement
        holds no allocation.
        """
        for server in self.compute.servers():
            self.compute.delete_server(server['id'])
        self.wait_for(lambda: not self.compute.servers(),
                      'every server deleted')
        self.wait_for(lambda: not any(self.usages().values()),
                      'Placement empty')

    def delete_actions(self, server_id):
        return [action for action in self.compute.actions(server_id)
                if action['action'] == 'delete']

    # -- Placement and Nova views -----------------------------------------

    def providers(self):
        return self.cloud.state['providers']

    def usages(self):
        """``{host: {class: used}}`` of the classes in use."""
        return {host: {rc: used for rc, used in
                       self.placement.usages(uuid).items() if used}
                for host, uuid in self.providers().items()}

    def capacities(self, host):
        """``{class: (total - reserved) * allocation_ratio}``."""
        return {rc: (inv['total'] - inv['reserved']) * inv[
            'allocation_ratio'] for rc, inv in self.placement.inventories(
                self.providers()[host]).items()}

    def expected_use(self):
        """``{host: {class: amount}}`` the servers on each host hold by
        their flavors (every class counted as the standard one).
        """
        use = {host: dict.fromkeys(CLASSES, 0) for host in self.cloud.hosts}
        for server in self.compute.servers():
            host = server['OS-EXT-SRV-ATTR:host']
            if host is None:
                continue        # not placed, or shelved and offloaded
            flavor = server['flavor']
            use[host]['VCPU'] += flavor['vcpus']
            use[host]['MEMORY_MB'] += flavor['ram']
            use[host]['DISK_GB'] += flavor['disk']
        return use

    def _views_agree(self):
        expected = self.expected_use()
        return self.nova_use() == expected == self.placement_use()

    def nova_use(self):
        """``{host: {class: used}}`` from os-hypervisors."""
        return {hypervisor['hypervisor_hostname']: {
            rc: hypervisor[used] for rc, (_total, used) in
            HYPERVISOR.items()} for hypervisor in self.compute.hypervisors()}

    def placement_use(self):
        """``{host: {class: used}}``, the preemptible classes counted in
        their standard ones.
        """
        use = {}
        for host, usages in self.usages().items():
            use[host] = {rc: usages.get(rc, 0) + usages.get(PREEMPTIBLE[rc],
                                                            0)
                         for rc in CLASSES}
        return use

    def assert_within_capacity(self, settle=WAIT / 3):
        """No host over capacity, in Nova's view (os-hypervisors) nor in
        Placement's (standard and preemptible usage together within the
        standard capacity), once both agree with the servers' flavors (or
        ``settle`` seconds have passed).
        """
        try:
            cloud_mod.wait_for(self._views_agree, 'the views to agree',
                               settle)
        except RuntimeError:
            pass            # judged below, whatever they say
        nova, placement = self.nova_use(), self.placement_use()
        over = []
        for host in self.cloud.hosts:
            capacity = self.capacities(host)
            for rc in CLASSES:
                if nova[host][rc] > capacity[rc]:
                    over.append('%s: Nova uses %s %s of %s' % (
                        host, nova[host][rc], rc, capacity[rc]))
                if placement[host][rc] > capacity[rc]:
                    over.append('%s: Placement uses %s %s (%s) of %s' % (
                        host, placement[host][rc], rc, self.usages()[host],
                        capacity[rc]))
        self.assertEqual([], over, 'hosts over capacity')
        self.assertEqual(self.expected_use(), nova,
                         "Nova's view against the servers")
        self.assertEqual(self.expected_use(), placement,
                         "Placement's view against the servers")

    # -- victims ----------------------------------------------------------

    def new_decisions(self, reason=None):
        """The journal's decisions since the test began."""
        return {key: row for key, row in self.journal.decisions().items()
                if key not in self.known and reason in (None, row['reason'])}

    def decision_for(self, server_id):
        """The decision (since the test began) made for ``server_id``."""
        for row in self.new_decisions('preempt').values():
            if server_id in row['request']:
                return row
        return None

    def assert_deleted_once(self, victims):
        """Every server of ``victims`` is gone, deleted exactly once (its
        instance actions), and named by exactly one decision.
        """
        self.wait_until_deleted(victims)
        named = collections.Counter(
            victim for row in self.new_decisions().values()
            for victim in row['victims'])
        for victim in victims:
            self.assertEqual(1, len(self.delete_actions(victim)),
                             'delete actions of victim %s' % victim)
            self.assertEqual(1, named[victim],
                             'decisions naming victim %s' % victim)
