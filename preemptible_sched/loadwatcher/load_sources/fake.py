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


"""Emulated hosts replaying real VM utilisation (Bitbrains)."""

import os
import random

from preemptible_sched.compute import fake_config
from preemptible_sched.compute import utilization
from preemptible_sched.conf import CONF
from preemptible_sched.loadwatcher import load_sources as sources


class FakeSource(sources.MetricsSource):
    """``[load_watcher] fake_hosts`` emulated hosts, each replaying the CPU
    utilisation of one VM of a Bitbrains trace by wall-clock time.

    Host ``i`` (named as the fake compute driver names its blades) replays
    VM ``i`` of the trace (cycling when there are more hosts than VMs) from
    a starting sample drawn from ``seed``; its memory utilisation is the
    constant ``[load_watcher] fake_memory_percent`` (the Bitbrains samples
    of the OpenDC layout carry no memory use). For trying the watcher out
    and for tests: it needs no cloud.
    """

    name = 'fake'

    def __init__(self, hosts=None, trace=None, seed=0, memory_percent=None):
        conf = CONF.load_watcher
        count = conf.fake_hosts if hosts is None else hosts
        trace = trace or conf.fake_trace
        if os.path.isdir(trace):
            traces = utilization.read_bitbrains_directory(trace)
        else:
            traces = [utilization.TraceUtilization.from_file(trace)]
        rng = random.Random(seed)
        self.memory_percent = (conf.fake_memory_percent
                               if memory_percent is None else memory_percent)
        self.hosts = []
        for index in range(count):
            replayed = traces[index % len(traces)]
            self.hosts.append((fake_config.blade_name(index), replayed,
                               rng.randrange(len(replayed.times))))

    def collect(self, now):
        return {name: (100.0 * trace.share(offset, now),
                       self.memory_percent)
                for name, trace, offset in self.hosts}
