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

"""``preemptible-scheduler``: the scheduler loop behind oslo.messaging.

The service builds, from the configuration:

* the :class:`~preemptible_sched.db.api.Store` (``[database]``), migrated
  to the newest schema;
* a real clock sped up by ``[service] time_scale``, resumed from the
  latest time the store recorded, so a restarted scheduler's timeline never
  goes back;
* the compute driver ``[service] compute_driver`` (``rpc``: remote
  ``preemptible-compute`` agents; ``fake``: emulated blades in-process);
* the :class:`~preemptible_sched.loop.scheduler_loop.SchedulerLoop`, with a
  :class:`~.notifications.Notifier`.

It serves the client API (``submit``, ``show``, ``list``, ``delete``) on
``[service] scheduler_topic`` and, with the ``rpc`` driver, the agents'
reports on ``<scheduler_topic>_reports`` (one thread, so reports are handled
in the order they arrive). The clock runs in the thread calling
:meth:`SchedulerService.run` and every callback of the loop runs there:
``submit`` and ``delete`` are handed over with
:class:`~preemptible_sched.service.ClockBridge`; ``show`` and ``list`` read
the store directly (it is thread-safe).

Every message, on both topics, is checked by its JSON schema
(:mod:`.schemas`) before it reaches the loop, the driver or the store; a
bad call is answered ``InvalidInput``, a bad report dropped, each logged on
one line. Requests belong to the project of the caller's context, and
:mod:`preemptible_sched.service.policy` decides who may see and delete them.

Start-up with the ``rpc`` driver: serve the reports, ask every agent to
register, wait up to ``[service] host_wait_seconds`` for the hosts the
store knows, then start the loop, which recovers every decision a crash
left open (asking the agents what runs), and only then take requests.
"""

import logging
import os
import socket
import threading
import time

import oslo_messaging

from preemptible_sched import clock as clock_mod
from preemptible_sched.compute import rpc as compute_rpc
from preemptible_sched.conf import load_watcher as watcher_conf
from preemptible_sched.conf import service as service_conf
from preemptible_sched.db import api as db_api
from preemptible_sched.db import errors as db_errors
from preemptible_sched.db import leadership
from preemptible_sched.db import models
from preemptible_sched.db import request_store
from preemptible_sched import exception
from preemptible_sched import loadables
from preemptible_sched.loadwatcher import api as watcher_api
from preemptible_sched.loadwatcher import provider
from preemptible_sched.loadwatcher import store as store_mod
from preemptible_sched.loop import scheduler_loop
from preemptible_sched import service
from preemptible_sched.service import compute_reports
from preemptible_sched.service import endpoint_guards
from preemptible_sched.service import leadership as lead_keeper
from preemptible_sched.service import metrics as service_metrics
from preemptible_sched.service import notifications
from preemptible_sched.service import payload_checks
from preemptible_sched.service import policies as api_policies
from preemptible_sched.service import policy
from preemptible_sched.service import request_views
from preemptible_sched.service import rpcapi
from preemptible_sched.service import submissions

LOG = logging.getLogger(__name__)

DRIVER_NAMESPACE = 'preemptible_sched.compute_drivers'

#: Longest request or instance id the store holds.
MAX_ID_LENGTH = models.NAME_LENGTH


class ServiceClock(clock_mod.RealClock):
    """A :class:`RealClock` that starts no earlier than ``not_before``.

    The times in the store are readings of the previous run's clock, which
    ran ``time_scale`` times faster than the wall clock: resuming from the
    latest of them keeps run times, overheads and the journal's order
    consistent across restarts.
    """

    def __init__(self, time_scale=1.0, not_before=None):
        super().__init__(time_scale)
        if not_before is not None and not_before > self._epoch:
            self._epoch = float(not_before)


def load_driver_class(name):
    """The compute driver class registered as ``name``."""
    return loadables.plugin_class(DRIVER_NAMESPACE, name, 'service',
                                  'compute_driver')


# -- the client API ----------------------------------------------------------

class SchedulerEndpoint(endpoint_guards.GuardedEndpoint):
    """The client API of the scheduler service (RPC API 1.0).

    Every argument and the context are checked by their schemas
    (:mod:`.schemas`) before anything else; a refusal is ``InvalidInput``
    (the client's ``BadRequest``), logged on one line. The caller's
    project and roles come from the context
    (:func:`preemptible_sched.service.policy.credentials`); the rules are those
    of :mod:`preemptible_sched.service.policies`. A request the caller may not
    show or delete because it belongs to another project is answered
    ``NotFound``, as if it did not exist.

    ``submit`` is idempotent on the request id: the same id with the same
    request returns the stored request, the same id with another request
    (or of another project) is refused naming what differs.
    """

    target = oslo_messaging.Target(version=rpcapi.RPC_API_VERSION)

    def __init__(self, scheduler):
        self._scheduler = scheduler

    def _authorize(self, ctxt, action, project_id):
        return policy.authorize(ctxt, action, {'project_id': project_id},
                                conf=self._scheduler.conf)

    def _request(self, ctxt, action, request_id):
        """The row of ``request_id`` if ``ctxt`` may do ``action`` on it."""
        request = self._scheduler.store.get_request(request_id)
        target = {'project_id': request.project_id}
        if not policy.authorize(ctxt, action, target, do_raise=False,
                                conf=self._scheduler.conf):
            if request.project_id != policy.project_of(ctxt):
                # Another project's: not disclosed.
                raise db_errors.NotFound('request', request_id)
            raise policy.PolicyNotAuthorized(action)
        return request

    @endpoint_guards.checked_call('scheduler', db_errors.Duplicate,
                                  policy.PolicyNotAuthorized,
                                  service.NotReady)
    def submit(self, ctxt, spec, duration=None, image=None):
        request_spec = submissions.request_spec_from_wire(spec)
        project_id = policy.project_of(ctxt)
        self._authorize(ctxt, api_policies.SUBMIT, project_id)
        bridge = self._scheduler.bridge
        deadline = time.monotonic() + bridge.timeout
        return bridge.call(self._submit, request_spec, duration, image,
                           project_id, deadline)

    def _submit(self, spec, duration, image, project_id, deadline):
        """In the clock's thread, so one submit of an id at a time, and
        the request described as submitted: the pass it asks for runs
        after this returns, so a new request reads ``pending``.
        """
        if time.monotonic() > deadline:
            # The caller has stopped waiting: submitting now would place
            # a request it was told failed.
            raise service.NotReady('the scheduler loop was busy for too '
                                   'long: request %s not submitted'
                                   % spec.id)
        store = self._scheduler.store
        try:
            existing = store.get_request(spec.id)
        except db_errors.NotFound:
            existing = None
        if existing is not None:
            source = 'request %s' % spec.id
            if existing.project_id != project_id:
                raise exception.InvalidInput(
                    source, 'id', 'taken by a request of another project')
            differences = submissions.submit_differences(existing, spec,
                                                         duration, image)
            if differences:
                raise exception.InvalidInput(
                    source, None, 'exists already with a different %s'
                    % ', '.join(differences))
            LOG.info('Request %s submitted again: it exists already',
                     spec.id)
            return request_views.describe_request(store, existing.id,
                                                  existing)
        with request_store.project_scope(project_id):
            request_id = self._scheduler.loop.submit(spec, duration, image)
        return request_views.describe_request(store, request_id)

    @endpoint_guards.checked_call('scheduler', db_errors.NotFound,
                                  policy.PolicyNotAuthorized)
    def show(self, ctxt, request_id):
        request = self._request(ctxt, api_policies.SHOW, request_id)
        return request_views.describe_request(self._scheduler.store,
                                              request.id, request)

    @endpoint_guards.checked_call('scheduler', policy.PolicyNotAuthorized)
    def list(self, ctxt, status=None):
        project_id = policy.project_of(ctxt)
        self._authorize(ctxt, api_policies.LIST, project_id)
        every_project = policy.authorize(
            ctxt, api_policies.LIST_ALL_PROJECTS,
            {'project_id': project_id}, do_raise=False,
            conf=self._scheduler.conf)
        store = self._scheduler.store
        return [request_views.describe_request(store, request.id, request)
                for request in store.list_requests(
                    status=status,
                    project_id=None if every_project else project_id)]

    @endpoint_guards.checked_call('scheduler', db_errors.NotFound,
                                  policy.PolicyNotAuthorized,
                                  service.NotReady)
    def delete(self, ctxt, request_id):
        request = self._request(ctxt, api_policies.DELETE, request_id)
        self._scheduler.bridge.call(self._scheduler.loop.delete, request.id)
        return request_views.describe_request(self._scheduler.store,
                                              request.id)


# -- the service -------------------------------------------------------------

class SchedulerService(service.Service):
    """The scheduler loop, its clock, driver and store, served over RPC.

    ``transport`` and ``notification_transport`` default to the configured
    ones (in-process tests pass their own); ``store`` to ``[database]`` (a
    given store is not disposed of).
    """

    def __init__(self, conf, transport=None, notification_transport=None,
                 store=None):
        # Configuration first: a misspelt driver is reported before the
        # database is touched.
        load_driver_class(conf.service.compute_driver)
        owns_store = store is None
        self.store = store or db_api.Store.from_config(conf)
        # One scheduler leads a database and topic; the others wait here
        # as standbys, before they migrate or recover anything.
        try:
            self._lease = self._lead(conf)
        except BaseException:
            if owns_store:
                self.store.dispose()
            raise
        if conf.database.auto_migrate or self.store.is_in_memory:
            self.store.upgrade()
        else:
            self.store.require_head()
        self.epoch = self.store.begin_term(conf.service.scheduler_topic,
                                           self.holder, time.time())
        LOG.info('Leading topic %s on database %s: epoch %d%s',
                 conf.service.scheduler_topic, self._database(),
                 self.epoch, '' if self._standby_since is None else
                 ' (after %.1f s as a standby)'
                 % (time.monotonic() - self._standby_since))
        super().__init__(conf, ServiceClock(
            conf.service.time_scale, not_before=self.store.latest_time()),
            transport)
        # Undone by shutdown() after the servers, the loop and the load
        # watcher, last first.
        self.on_shutdown(LOG.info, 'Scheduler service stopped')
        if owns_store:
            self.on_shutdown(self.store.dispose)
        self.on_shutdown(self._lease.release)
        self._keeper = lead_keeper.Keeper(
            self._lease, conf.service.leader_lease_seconds, self.depose)
        self.on_shutdown(self._keeper.stop)
        self.notifier = notifications.Notifier(
            notification_transport or
            service.get_notification_transport(conf))
        self.driver = self._make_driver(conf.service.compute_driver)
        self.loop = scheduler_loop.SchedulerLoop(
            self.clock, self.driver, self.store, notifier=self.notifier)
        self.load_watcher = self._load_provider(conf)
        self.metrics = service_metrics.attach(self)
        self.on_shutdown(self.loop.stop)

    #: ``host:pid`` of this scheduler, as the leadership table names it
    holder = '%s:%d' % (socket.gethostname(), os.getpid())

    def _database(self):
        return self.store.engine.url.render_as_string(hide_password=True)

    def _lead(self, conf):
        """Wait until this scheduler leads its topic (a standby until
        then): the lease. SIGTERM ends the wait (the command's signal
        handler interrupts it).
        """
        topic = conf.service.scheduler_topic
        self._standby_since = None

        def standby():
            self._standby_since = time.monotonic()
            leader = self.store.leader(topic)
            LOG.info('Standby: %s leads topic %s on database %s; taking '
                     'over when it stops (trying every %g s)',
                     'scheduler %s (epoch %d)' % (leader[1], leader[0])
                     if leader else 'another scheduler', topic,
                     self._database(), conf.service.standby_poll_seconds)
        return leadership.campaign(
            self.store.engine.url, topic,
            lease=None if self.store.is_sqlite else
            conf.service.leader_lease_seconds,
            poll=conf.service.standby_poll_seconds, on_standby=standby)

    def depose(self, why):
        """This scheduler lost the lead (``why``): stop acting at once
        (no write, no command to an agent) and stop the service; it exits
        with an error. From any thread.
        """
        self.store.depose(why)
        compute_api = getattr(self.driver, 'compute_api', None)
        if compute_api is not None:
            compute_api.deposed = True
        self.deposed = why
        self.stop()
        if self.exit_when_stuck is not None:
            # A thread blocked on a database cut off (a write, the lock's
            # release) would hold the process: it must go, so that its
            # supervisor starts it again as a standby.
            timer = threading.Timer(self.conf.service.leader_lease_seconds,
                                    self._exit_stuck, (why,))
            timer.daemon = True
            timer.start()

    #: set by the command: ``exit_when_stuck(why)`` ends the process when
    #: a deposed service has not stopped within the lease (None: never)
    exit_when_stuck = None

    def _exit_stuck(self, why):
        LOG.error('Lost the lead and still not stopped after %g s (a call '
                  'to the database or the broker does not return): exiting',
                  self.conf.service.leader_lease_seconds)
        self.exit_when_stuck(why)

    @property
    def remote(self):
        """Whether the hosts are remote agents (the ``rpc`` driver)."""
        return isinstance(self.driver, compute_rpc.RPCComputeDriver)

    def _heartbeat_timeout(self):
        """Clock seconds without a heartbeat after which an agent is
        unreachable (the options are wall-clock seconds).
        """
        service_opts = self.conf.service
        return (service_opts.heartbeat_interval *
                service_opts.heartbeat_misses * self.clock.time_scale)

    def _load_provider(self, conf):
        """Give the loop a load provider when a load-aware plugin runs:
        the watcher at ``[load_watcher] url``, or one of its own
        collecting from the driver (returned, started with the loop).
        """
        if not provider.reads_load(self.loop.scheduler):
            return None
        if conf.load_watcher.url:
            self.loop.load_provider = provider.over_http(self.driver)
            return None
        self.loop.load_provider, watcher = provider.in_process(
            self.driver, store_mod.WatcherStore(watcher_conf.state_file(conf)))
        self.load_watcher_server = None
        if conf.load_watcher.bind:
            host, port = watcher_conf.parse_bind(conf.load_watcher.bind)
            self.load_watcher_server = watcher_api.serve_in_thread(
                watcher_api.WatcherApp(watcher,
                                       conf.load_watcher.max_request_bytes),
                host, port)
            self.on_shutdown(self.load_watcher_server.server_close)
            self.on_shutdown(self.load_watcher_server.shutdown)
        self.on_shutdown(watcher.stop)
        return watcher

    def _make_driver(self, name):
        cls = load_driver_class(name)
        if issubclass(cls, compute_rpc.RPCComputeDriver):
            driver = cls(self.clock,
                         compute_api=rpcapi.ComputeAPI(
                             self.transport, self.conf, epoch=self.epoch),
                         known_hosts=[row.to_object()
                                      for row in self.store.hosts()],
                         heartbeat_timeout=self._heartbeat_timeout())
        else:
            driver = cls(self.clock)
        driver.name = name
        return driver

    def start(self):
        """Serve, wait for the known hosts, and start the loop (soon, in
        the clock's thread).
        """
        self._keeper.start()
        self.metrics_server = service_metrics.serve(self)
        server = socket.gethostname()
        if self.remote:
            # One thread: the reports are handled in the order they came.
            self.serve(service_conf.report_topic(self.conf), server,
                       compute_reports.ComputeReportsEndpoint(
                           self.driver, check=self.metrics.observe_reports(
                               payload_checks.check_report)),
                       override_pool_size=1)
            self.driver.announce()
            missing = self.driver.wait_for_hosts(
                self.conf.service.host_wait_seconds)
            if missing:
                LOG.warning('No agent registered for %s within %g s: '
                            'taken as down', ', '.join(missing),
                            self.conf.service.host_wait_seconds)
        self.serve(self.conf.service.scheduler_topic, server,
                   SchedulerEndpoint(self))
        self.clock.call_soon(self._start_loop)

    def stop(self):
        """Stop the clock and cut short a call waiting for an agent (from
        any thread, a signal handler too).
        """
        super().stop()
        self.driver.stop()

    def _start_loop(self):
        if self.load_watcher is not None:
            self.load_watcher.start(self.clock)
        self.loop.start()
        if self.remote:
            self.driver.start_delivery()
        # Said before the bridge opens: whoever sees ready() has the line.
        LOG.info('Scheduler service ready: %d host(s), %d pending '
                 'request(s)', len(self.loop.host_manager.host_states),
                 len(self.loop.pending))
        self.bridge.open()
