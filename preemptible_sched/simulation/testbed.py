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


"""The paper's evaluation on the emulated blade testbed.

Random normal and preemptible requests, with exponentially distributed
inter-arrival times and durations, are submitted to the real scheduler loop
running on the fake compute driver (four emulated IBM HS21 blades) under a
virtual clock, until the first normal request that needs a termination.
:class:`Testbed` runs that procedure and returns its report: every host
with its instances (run time in minutes, preemptible ones marked) and which
instances were terminated, at what cost, to make room; :func:`to_table`
renders it. ``preemptible-sched testbed`` is the command.
"""

import random
import textwrap

from preemptible_sched import clock as clock_mod
from preemptible_sched.compute import fake
from preemptible_sched.conf import CONF
from preemptible_sched.db import api as db_api
from preemptible_sched import extras
from preemptible_sched.loop import scheduler_loop
from preemptible_sched import objects

#: The flavors requests are drawn from, by the name ``--flavors`` gives.
FLAVOR_SETS = {'medium': ('medium',), 'mixed': ('small', 'medium', 'large')}

tabulate = extras.optional_module('tabulate')


class Testbed:
    """The evaluation procedure; :meth:`run` returns the report (a dict)."""

    def __init__(self, seed=1, flavors='medium', preemptible_share=0.5,
                 mean_interarrival=600.0, mean_duration=4 * 3600.0,
                 max_requests=10000, store=None):
        self.rng = random.Random(seed)
        self.flavors = [objects.FLAVORS[name] for name in FLAVOR_SETS[flavors]]
        self.flavor_set = flavors
        self.preemptible_share = preemptible_share
        self.mean_interarrival = mean_interarrival
        self.mean_duration = mean_duration
        self.max_requests = max_requests
        self.seed = seed
        self.clock = clock_mod.VirtualClock()
        self.driver = fake.FakeDriver(self.clock, seed=seed)
        self.store = store or db_api.Store('sqlite://')
        self.store.upgrade()
        self.loop = scheduler_loop.SchedulerLoop(self.clock, self.driver,
                                                 self.store)
        self.loop.decision_observers.append(self._observe)
        self.submitted = 0
        self.report = None

    def _observe(self, entry, decision, now):
        if self.report is not None or entry.spec.preemptible:
            return
        if not any(s.terminate for s in decision.selections):
            return
        self.report = self._snapshot(entry, decision, now)

    def _snapshot(self, entry, decision, now):
        selection = decision.selections[0]
        costs = dict(zip(selection.terminate, selection.plan.costs))
        hosts = []
        for state in self.loop.host_manager.get_all_host_states():
            instances = []
            members = list(state.instances.values())
            if state.name == selection.host:
                # The books already show the decision; show the host as it
                # was when the request arrived.
                members = [i for i in members
                           if i.id != selection.instance.id] + \
                    list(selection.plan.victims)
            for instance in sorted(members, key=lambda i: i.started_at):
                instances.append({
                    'id': instance.id, 'flavor': instance.flavor,
                    'preemptible': instance.preemptible,
                    'vcpus': instance.resources.vcpus,
                    'memory_mb': instance.resources.memory_mb,
                    'disk_gb': instance.resources.disk_gb,
                    'runtime_s': instance.runtime(now),
                    'runtime_min': round(instance.runtime(now) / 60.0, 1),
                    'terminated': instance.id in costs,
                })
            hosts.append({'name': state.name,
                          'vcpus': state.capacity.vcpus,
                          'memory_mb': state.capacity.memory_mb,
                          'disk_gb': state.capacity.disk_gb,
                          'instances': instances})
        return {
            'seed': self.seed, 'flavors': self.flavor_set,
            'strategy': self.loop.scheduler.strategy.name,
            'termination_costs': list(CONF.preemptible.termination_costs),
            'billing_period_s': CONF.preemptible.billing_period_seconds,
            'time_s': now, 'requests_submitted': self.submitted,
            'request': {'id': entry.id, 'flavor': entry.spec.flavor,
                        'preemptible': False},
            'placed_on': selection.host,
            'terminated': [{'id': victim.id, 'host': selection.host,
                            'runtime_min': round(victim.runtime(now) / 60.0,
                                                 1),
                            'cost': costs[victim.id]}
                           for victim in selection.plan.victims],
            'hosts': hosts,
        }

    def _submit_next(self):
        if self.report is not None or self.submitted >= self.max_requests:
            return
        flavor = self.rng.choice(self.flavors)
        preemptible = self.rng.random() < self.preemptible_share
        duration = self.rng.expovariate(1.0 / self.mean_duration)
        self.submitted += 1
        self.loop.submit(objects.RequestSpec(
            'req-%04d' % self.submitted, flavor.resources, preemptible,
            flavor=flavor.name), duration=duration, image='cirros')
        self.clock.call_later(
            self.rng.expovariate(1.0 / self.mean_interarrival),
            self._submit_next)

    def run(self):
        self.loop.start()
        self._submit_next()
        while self.report is None and self.submitted < self.max_requests:
            if not self.clock.step():
                break
        if self.report is not None:
            # Let the decision complete: victims gone, new instance booted.
            deadline = self.clock.now() + 600
            while (self._new_instance_state() in ('pending', 'building') and
                   self.clock.now() < deadline and self.clock.step()):
                pass
            self.report['new_instance_state'] = self._new_instance_state()
            self.report['victim_states'] = {
                victim['id']: self.store.get_instance(victim['id']).state
                for victim in self.report['terminated']}
        self.loop.stop()
        return self.report

    def _new_instance_state(self):
        request_id = self.report['request']['id']
        states = {row.id: row.state
                  for row in self.store.list_instances(request_id=request_id)}
        return states.get(request_id)


#: The scheduler configuration of the original evaluation; a --config-file
#: still overrides each of these.
PAPER_DEFAULTS = {
    'filter_scheduler': {'enabled_filters': ['compute', 'resources'],
                         'weighers': ['termination_cost']},
    'scheduler': {'preemption_strategy': 'dual_state'},
    'preemptible': {'termination_costs': ['billing_period'],
                    'billing_period_seconds': 3600},
}


def set_paper_defaults(conf):
    for group, values in PAPER_DEFAULTS.items():
        for name, value in values.items():
            conf.set_default(name, value, group=group)


#: What each termination cost counts (see
#: preemptible_sched/scheduler/termination_costs/): (unit after a number, what
#  a cost of that plugin is).
COST_UNITS = {
    'billing_period': ('s', 'seconds of its current {period} billing period '
                       'an instance forfeits (periods are billed whole; the '
                       'one it is terminated in is not charged)'),
    'runtime': ('s', 'seconds an instance had run, lost with it'),
    'count': ('instances', 'one per instance terminated'),
    'priority': ('', 'the priority of an instance (higher is more '
                 'valuable)'),
    'qos_slack': ('', 'how close an instance is to breaking its SLO (1 at '
                  'its safety margin, more once at risk)'),
}


def _multiplier(name):
    """``[preemptible] <name>_cost_multiplier``, 1.0 if not registered."""
    return getattr(CONF.preemptible, '%s_cost_multiplier' % name, 1.0)


def cost_unit(report):
    """``(unit, sentence)``: the unit of the victims' termination costs,
    and a sentence saying what the cost is.

    With one cost plugin at multiplier 1 the cost is in that plugin's
    unit (``billing_period``: seconds of the billing period forfeited);
    otherwise it is a weighted sum, which has no single unit.
    """
    names = list(report['termination_costs'])
    period = '%g-min' % (report['billing_period_s'] / 60.0)

    def meaning(name):
        return COST_UNITS.get(name, ('', 'see the plugin'))[1].format(
            period=period)

    if len(names) == 1 and _multiplier(names[0]) == 1:
        unit = COST_UNITS.get(names[0], ('',))[0]
        return unit, 'Termination cost (%s): %s.' % (names[0],
                                                     meaning(names[0]))
    return '', ('Termination cost: a weighted sum with no single unit, '
                '%s.' % '; '.join('%g × %s: %s' % (
                    _multiplier(name), name, meaning(name))
                    for name in names))


def to_table(report):
    lines = ['Emulated testbed: %d blades, flavors %s, seed %d, strategy %s, '
             'termination costs %s (billing period %g min)' % (
                 len(report['hosts']), report['flavors'], report['seed'],
                 report['strategy'], ', '.join(report['termination_costs']),
                 report['billing_period_s'] / 60.0),
             'After %d requests, at t = %.1f min, normal request %s (%s) '
             'needs room:' % (report['requests_submitted'],
                              report['time_s'] / 60.0,
                              report['request']['id'],
                              report['request']['flavor']), '']
    headers = ('Host', 'Instance', 'Flavor', 'Kind', 'Run time (min)',
               'Terminated')
    rows = []
    for host in report['hosts']:
        for instance in host['instances']:
            rows.append((host['name'], instance['id'], instance['flavor'],
                         'preemptible' if instance['preemptible']
                         else 'normal', '%.1f' % instance['runtime_min'],
                         'yes' if instance['terminated'] else ''))
        if not host['instances']:
            rows.append((host['name'], '-', '', '', '', ''))
    table = tabulate.tabulate(
        rows, headers, tablefmt='simple', disable_numparse=True,
        colalign=('left', 'left', 'left', 'left', 'right', 'left'))
    lines.extend(line.rstrip() for line in table.splitlines())
    unit, meaning = cost_unit(report)
    lines.append('')
    lines.append('Placed on %s, terminating %s.' % (
        report['placed_on'], ', '.join(
            '%s (ran %.1f min, cost %s)' % (
                v['id'], v['runtime_min'],
                ('%.1f %s' % (v['cost'], unit)).strip())
            for v in report['terminated'])))
    lines.extend(textwrap.wrap(
        meaning + ' The scheduler terminates the cheapest set of '
        'preemptible instances that makes room.', 79))
    lines.append('The new instance is %s.' % report.get('new_instance_state'))
    return '\n'.join(lines)
