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


"""Utilisation reported by the scheduler's own compute driver."""

from preemptible_sched.loadwatcher import load_sources as sources


class ComputeSource(sources.MetricsSource):
    """Each host's utilisation as its compute driver reports it
    (``host_utilization``); the fake driver computes it from its
    instances' replayed utilisation. Use it when the watcher runs inside
    the scheduler service or the simulator. A host the driver cannot
    measure is left out (the weighers then treat it as missing).
    """

    name = 'compute'

    def __init__(self, driver):
        self.driver = driver

    def collect(self, now):
        found = {}
        for host in self.driver.host_specs():
            if not host.up:
                continue
            try:
                cpu, memory = self.driver.host_utilization(host.name)
            except Exception as error:   # a driver's own failure
                raise sources.SourceError('compute driver: %s' % error)
            if cpu is not None or memory is not None:
                found[host.name] = (cpu, memory)
        return found
