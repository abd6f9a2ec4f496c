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


"""Load-aware weighers against ``least_requested``, on real utilisation.

Every configuration replays the same requests on the same hosts under the
virtual clock; the fake compute driver makes each instance replay the CPU
utilisation of a Bitbrains VM (``[fake_driver] utilization_model =
replay`` on a Bitbrains directory), the load watcher collects it on the
virtual clock (so the weighers see it with the metrics' lag), and every
``sample_s`` seconds the experiment records, per host, whether it carries
instances and its real CPU utilisation. For each configuration:

* ``mean_hosts_used`` / ``peak_hosts_used``: hosts carrying at least one
  instance, over the samples;
* ``host_minutes_over_target`` / ``host_minutes_over_100``: the share of
  the used host-samples whose real CPU exceeded the target X % or 100 %
  of the host's cores (possible because vCPUs are overcommitted);
* ``requests_waited``: the share of requests that waited for room
  (pending more than ``WAIT_S``), and ``never_placed``.

:func:`compare` runs the configurations; :func:`table` and :func:`plot`
present the result.
"""

import dataclasses

from preemptible_sched.conf import CONF
from preemptible_sched import extras
from preemptible_sched.simulation import plot_canvas
from preemptible_sched.simulation import plots
from preemptible_sched.simulation import runner

tabulate = extras.optional_module('tabulate')

#: A request pending longer than this (s) waited for room.
WAIT_S = 1.0

#: The configurations compared: name -> weighers.
CONFIGURATIONS = {
    'least_requested': ['least_requested'],
    'target_load_packing': ['target_load_packing'],
    'load_variation_risk_balancing': ['load_variation_risk_balancing'],
    'low_risk_over_commitment': ['low_risk_over_commitment'],
}


@dataclasses.dataclass
class Outcome:
    """What one configuration did."""

    name: str
    times: list
    hosts_used: list
    mean_hosts_used: float
    peak_hosts_used: int
    host_minutes_over_target: float
    host_minutes_over_100: float
    requests: int
    requests_waited: float
    never_placed: int

    def summary(self):
        return {key: value for key, value in dataclasses.asdict(self).items()
                if key not in ('times', 'hosts_used')}


class _Recorder:
    """Per sample: hosts used, and the used hosts' real CPU."""

    def __init__(self, target):
        self.target = target
        self.times = []
        self.hosts_used = []
        self.used_samples = 0
        self.over_target = 0
        self.over_100 = 0

    def __call__(self, simulation, now):
        used = 0
        driver = simulation.driver
        for name, state in simulation.loop.host_manager.host_states.items():
            if not state.instances:
                continue
            used += 1
            cpu, _ = driver.host_utilization(name)
            if cpu is None:
                continue
            self.used_samples += 1
            self.over_target += cpu > self.target
            self.over_100 += cpu > 100.0
        self.times.append(now)
        self.hosts_used.append(used)


def run_one(name, weighers, items, hosts, until, seed, sample_s):
    """Replay ``items`` with ``weighers``; an :class:`Outcome`."""
    CONF.set_override('weighers', weighers, group='filter_scheduler')
    try:
        recorder = _Recorder(CONF.target_load_packing.target_utilization)
        simulation = runner.Simulation(items, hosts, until=until, seed=seed,
                                       sample_interval=sample_s,
                                       on_sample=recorder)
        result = simulation.run()
    finally:
        CONF.clear_override('weighers', group='filter_scheduler')
    records = result.records
    waited = sum(1 for record in records if record.pending_s > WAIT_S)
    samples = max(1, recorder.used_samples)
    used = recorder.hosts_used
    return Outcome(
        name=name, times=recorder.times, hosts_used=used,
        mean_hosts_used=sum(used) / len(used) if used else 0.0,
        peak_hosts_used=max(used) if used else 0,
        host_minutes_over_target=recorder.over_target / samples,
        host_minutes_over_100=recorder.over_100 / samples,
        requests=len(records),
        requests_waited=waited / len(records) if records else 0.0,
        never_placed=result.never_placed)


def compare(items, hosts, until, seed=0, sample_s=60.0,
            configurations=None):
    """Run every configuration on the same ``items`` and ``hosts``."""
    configurations = configurations or CONFIGURATIONS
    return [run_one(name, weighers, items, hosts, until, seed, sample_s)
            for name, weighers in configurations.items()]


def table(outcomes, target, tablefmt='rst'):
    """The comparison as a table (reStructuredText by default)."""
    rows = [(o.name, '%.1f' % o.mean_hosts_used, o.peak_hosts_used,
             '%.1f %%' % (100 * o.host_minutes_over_target),
             '%.2f %%' % (100 * o.host_minutes_over_100),
             '%.1f %%' % (100 * o.requests_waited), o.never_placed)
            for o in outcomes]
    return tabulate.tabulate(
        rows, headers=('weigher', 'hosts used (mean)', 'hosts used (peak)',
                       'host-minutes > %g %% CPU' % target,
                       'host-minutes > 100 % CPU', 'requests that waited',
                       'never placed'),
        tablefmt=tablefmt)


def plot(outcomes, path):
    """Hosts used over time, one line per configuration, to ``path``;
    the figure, or None when matplotlib is not available.
    """
    if not plots.available():
        return None
    with plot_canvas.saved_figure(path, figsize=(8, 3.5)) as figure:
        axes = figure.add_subplot()
        for outcome in outcomes:
            axes.step([t / 3600.0 for t in outcome.times],
                      outcome.hosts_used, where='post', label=outcome.name)
        axes.set_xlabel('time (h)')
        axes.set_ylabel('hosts used')
        axes.legend(loc='best', fontsize='small')
        axes.grid(alpha=0.3)
        figure.tight_layout()
    return figure
