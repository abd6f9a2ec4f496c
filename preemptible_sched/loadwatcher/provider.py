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


"""The load snapshot of each scheduling pass, from a watcher.

:class:`LoadProvider` turns what a watcher knows (in process, or read over
HTTP with :class:`~.client.WatcherClient`) into the
:class:`~preemptible_sched.hosts.load.LoadSnapshot` one pass reads; the
loop carries it in the pass's context, where the load-aware filters and
weighers find it.
"""

from preemptible_sched.conf import CONF
from preemptible_sched.hosts import load
from preemptible_sched.hosts import load_columns
from preemptible_sched.loadwatcher import client as client_mod
from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched.loadwatcher import watcher as watcher_mod


def reads_load(scheduler):
    """Whether a filter or weigher of ``scheduler`` reads the load."""
    return any(getattr(plugin, 'reads_load', False) for plugin in
               list(scheduler.filter_handler.filters) +
               list(scheduler.weight_handler.weighers))


class LoadProvider:
    """Snapshots for the passes of one scheduler.

    ``latest(now)`` answers ``(windows, problem)``: the per-host metrics of
    the latest window, and why the source cannot be read (None when it
    can). ``driver`` tells the hosts' physical sizes (``host_specs``).
    """

    def __init__(self, latest, driver, health=None):
        self.latest = latest
        self.driver = driver
        self.health = health or load.MetricsHealth()
        #: the snapshot of the latest pass (None before the first)
        self.last = None
        self._physical = {}
        self.columns = load_columns.LoadColumns()

    def _sizes(self, names):
        if any(name not in self._physical for name in names):
            self._physical = {host.name: (host.vcpus, host.memory_mb)
                              for host in self.driver.host_specs()}
        return [self._physical.get(name) for name in names]

    def snapshot(self, now, host_manager):
        """The snapshot at ``now`` of the hosts of ``host_manager`` (kept
        as :attr:`last`). Only the hosts whose metrics,
        occupancy or window age changed since the last one are computed
        again (:class:`~preemptible_sched.hosts.load_columns.LoadColumns`).
        """
        table = host_manager.table
        windows, problem = self.latest(now)
        snapshot = self.columns.update(
            now, table, windows, self._sizes,
            # Cached windows count until they are too old (then every
            # host is stale): only a source that never answered is down.
            source_problem=problem if not windows else None,
            multiplier=CONF.target_load_packing.default_multiplier,
            health=self.health)
        self.last = snapshot
        return snapshot


def in_process(driver, store=None):
    """A :class:`LoadProvider` reading a watcher that collects from
    ``driver``, and that watcher (for the caller to :meth:`start
    <.watcher.LoadWatcher.start>` on its clock).
    """
    conf = CONF.load_watcher
    source = sources.load('compute', driver=driver)
    watcher = watcher_mod.LoadWatcher(source, store, conf.scrape_interval,
                                      conf.window_refresh)

    def latest(now):
        return watcher.latest(), (None if watcher.healthy()
                                  else watcher.source_error)
    return LoadProvider(latest, driver), watcher


def over_http(driver, url=None):
    """A :class:`LoadProvider` reading the watcher at ``url``
    (``[load_watcher] url``) in the background; its first read starts
    now. The client is its ``client``.
    """
    conf = CONF.load_watcher
    client = client_mod.WatcherClient(url or conf.url, conf.cache_seconds,
                                      conf.url_timeout,
                                      conf.max_response_bytes)
    client.prefetch()
    load_provider = LoadProvider(client.latest, driver)
    load_provider.client = client
    return load_provider
