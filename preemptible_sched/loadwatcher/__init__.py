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


"""The load watcher: per-host CPU and memory utilisation over time windows.

It collects per-host utilisation from a *source* (the compute driver, a
Prometheus server, or emulated hosts replaying Bitbrains traces), keeps the
samples of the last 15 minutes, recomputes the 5, 10 and 15 minute windows
(sliding, ``[now - d, now]``; a source such as Prometheus may compute the
averages and deviations itself) every ``[load_watcher] window_refresh``
seconds, persists them in a local SQLite file so that a restarted watcher
answers at once with the same data, and serves them over HTTP in the
format the released Trimaran plugins read (:mod:`.payload`, :mod:`.api`).
Each host's metrics carry the time of its own newest sample, so that a
host gone silent goes stale while the others stay fresh.

The scheduler reads it in process (:class:`.watcher.LoadWatcher`) or over
HTTP from any compatible watcher (:class:`.client.WatcherClient`); either
way :mod:`preemptible_sched.hosts.load` turns the latest 15-minute window into
the snapshot one pass reads.
"""

#: The windows the watcher computes: (name in the payload, seconds).
WINDOWS = (('5m', 300.0), ('10m', 600.0), ('15m', 900.0))
#: The window the weighers read.
LATEST = '15m'


def fallbacks(window):
    """``window`` and then the shorter windows, longest first: where a
    reader looks when a host's ``window`` is empty (15 -> 10 -> 5 m, as
    the released load watcher's comment says).
    """
    duration = dict(WINDOWS)[window]
    return [name for name, seconds in sorted(WINDOWS, key=lambda w: -w[1])
            if seconds <= duration]
