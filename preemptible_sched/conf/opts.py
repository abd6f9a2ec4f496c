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

"""The option list for oslo-config-generator and the docs."""

from preemptible_sched.conf import compute
from preemptible_sched.conf import database
from preemptible_sched.conf import fake_driver
from preemptible_sched.conf import filter_scheduler
from preemptible_sched.conf import load
from preemptible_sched.conf import load_watcher
from preemptible_sched.conf import metrics
from preemptible_sched.conf import plugins
from preemptible_sched.conf import preemptible
from preemptible_sched.conf import qos
from preemptible_sched.conf import replay
from preemptible_sched.conf import scheduler
from preemptible_sched.conf import service
from preemptible_sched.conf import sla

_MODULES = (compute, database, fake_driver, filter_scheduler, preemptible,
            load, load_watcher, metrics, qos, replay, scheduler, service,
            sla)


def list_opts():
    """Return ``[(group, [opts])]`` for every group of the project."""
    opts = []
    generated = plugins.list_opts()
    for module in _MODULES:
        for group, group_opts in module.list_opts().items():
            opts.append((group, list(group_opts) +
                         generated.get(getattr(group, 'name', group), [])))
    return opts
