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

"""``preemptible-sched decide``: one decision on a snapshot, explained."""

import json

from oslo_config import cfg

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched.hosts import load
from preemptible_sched.loadwatcher import provider
from preemptible_sched import objects
from preemptible_sched.queue.queue_policies import promethee
from preemptible_sched.scheduler import filter_scheduler as scheduler
from preemptible_sched.service_classes import qos
from preemptible_sched.service_classes import sla
from preemptible_sched.simulation import scenario as scenario_mod


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'decide', help='Explain what the scheduler decides on a snapshot.')
    parser.add_argument('--scenario', required=True, metavar='FILE',
                        help='Scenario file (JSON or YAML): hosts, their '
                        'instances and one request.')
    parser.add_argument('--format', choices=('json', 'table'),
                        default='json', help='Output format.')
    parser.set_defaults(func=run)


def decide(scenario):
    """Run the configured scheduler on ``scenario``: ``(Decision, strategy
    name, the hosts' load as the load-aware plugins saw it or None)``.

    The decision's ``on_victim`` attribute says what its victims become
    (``terminate`` or ``requeue``, the strategy's choice).

    For an SLA request, the decision's ``sla`` attribute explains the
    queue, the sizing and the copies (see :func:`explain_sla`).
    """
    checks.require_valid(CONF, scenario.path)
    # Requests and instances take their class's priority as in the loop.
    classes = qos.Classes()
    request = classes.admit(scenario.request, scenario.path,
                            'request.service_class')
    queue = [classes.admit(spec, scenario.path,
                           'queue[%d].service_class' % index)
             for index, spec in enumerate(scenario.queue)]
    sched = scheduler.FilterScheduler()
    for host in scenario.hosts:
        sched.host_manager.add_host(host)
    for host_name, instance in scenario.placements:
        sched.host_manager.add_instance(host_name,
                                        classes.prioritised(instance))
    snapshot = load_explained = None
    if provider.reads_load(sched) or scenario.load_windows():
        # Only then: building the snapshot warns about every host without
        # metrics, which means nothing to a scheduler that reads none.
        snapshot = load.build(
            scenario.now,
            [(host.name, host.vcpus, host.memory_mb)
             for host in scenario.hosts],
            scenario.load_windows(),
            {host_name for host_name, _ in scenario.placements},
            multiplier=CONF.target_load_packing.default_multiplier)
        # Explained before the decision adds its own instances.
        load_explained = snapshot.explain(sched.host_manager.batch())
    spec, explained = explain_sla(request, queue, sched.host_manager)
    if spec is None:
        decision = scheduler.Decision(request, [], [],
                                      explained['skipped'])
    else:
        decision = sched.select_destinations(
            spec, explain=True,
            context=objects.PassContext(now=scenario.now, load=snapshot))
    if explained is not None:
        explained['copies'] = [
            {'copy': index, 'candidates': [host.name for host in report
                                           if host.passed]}
            for index, report in enumerate(decision.reports)]
        if not decision.placed and spec is not None:
            explained['skipped'] = _why_skipped(spec, explained['copies'])
    decision.sla = explained
    # What the victims become: the strategy's choice, shown as it is.
    decision.on_victim = sched.strategy.on_victim
    return decision, sched.strategy.name, load_explained


def explain_sla(request, queue, host_manager):
    """``(spec to place, explanation)`` of ``request``.

    The explanation (None without an SLA) holds the PROMETHEE II flows of
    the request and of the other pending requests ``queue``, highest
    first, and for a moldable request its sizing (N, band, wc, sum of p,
    raw and clamped r); the spec is the request with its copies and
    cores, or None (the explanation's ``skipped`` says why) when it
    cannot be sized.
    """
    if request.sla is None:
        return request, None
    queue = [request] + list(queue)
    flows = sla.promethee([sla.criteria(spec.sla or promethee.BEST_EFFORT)
                           for spec in queue], sla.weights())
    ranked = sorted(zip(queue, flows), key=lambda pair: -pair[1].net)
    explained = {'queue': [{'id': spec.id, 'phi_plus': flow.plus,
                            'phi_minus': flow.minus, 'phi': flow.net}
                           for spec, flow in ranked],
                 'sizing': None, 'skipped': None}
    spec = sla.with_copies(request)
    if spec.moldable:
        sizing = sla.size(spec, host_manager.get_all_host_states(), queue)
        if sizing is None:
            explained['skipped'] = (
                'not sized: no host up in category %s to measure N on'
                % sla.category(spec))
            return None, explained
        explained['sizing'] = sizing.as_dict()
        spec = sla.sized(spec, sizing)
    return spec, explained


def _why_skipped(spec, copies):
    for entry in copies:
        if not entry['candidates']:
            return ('copy %d of %d: no host of category %s can take %g '
                    'cores now (the others hold its earlier copies or '
                    'lack room); it waits' % (
                        entry['copy'] + 1, spec.num_instances,
                        sla.category(spec), spec.resources.vcpus))
    return None


def _hosts(report):
    return [{'name': host.name,
             'view': host.view,
             'passed': host.passed,
             'failed_filter': host.failed_filter,
             'weights': {name: {'raw': parts['raw'],
                                'normalized': parts['normalized']}
                         for name, parts in (host.weights or {}).items()},
             'total_weight': host.total_weight,
             'terminate': host.terminate} for host in report]


def _on_victim(decision):
    return getattr(decision, 'on_victim', None) or 'terminate'


def to_dict(decision, load_explained=None):
    """The JSON answer; ``terminate`` lists the victims, whatever becomes
    of them, and ``on_victim`` says what does (``terminate``, ``requeue``).
    """
    result = {
        'result': 'placed' if decision.placed else 'no_valid_host',
        'on_victim': _on_victim(decision),
        'selected': [{'instance': s.instance.id, 'host': s.host,
                      'terminate': s.terminate,
                      'termination_cost': s.plan.cost}
                     for s in decision.selections],
        'hosts': _hosts(decision.reports[0]) if decision.reports else [],
    }
    if len(decision.reports) > 1:
        result['passes'] = [_hosts(report) for report in decision.reports]
    if decision.reason:
        result['reason'] = decision.reason
    if getattr(decision, 'sla', None) is not None:
        result['sla'] = decision.sla
    if load_explained is not None:
        result['load'] = load_explained
    return result


def _load_lines(explained):
    """The load table of ``decide --format table``."""
    lines = ['', 'Load (15-minute window, %% of the host)%s:' % (
        '' if explained['fallback'] is None else
        ' -- fallback to best fit on allocations: %s'
        % explained['fallback'])]
    for name, host in explained['hosts'].items():
        figures = ', '.join('%s %s' % (resource, '-' if host[resource] is None
                                       else 'avg %.4g std %.4g' % (
                                           host[resource]['avg'],
                                           host[resource]['std']))
                            for resource in ('cpu', 'memory'))
        recent = host.get('recent_vcpus')
        lines.append('  %s: %s; %s%s%s' % (
            name, host['status'], figures,
            '; placed since the window: %.4g vCPU predicted' % recent
            if recent else '',
            ''.join('; %s' % problem for problem in host['problems'])))
    return lines


def _number(value):
    return '-' if value is None else '%.4g' % value


def to_table(decision, spec, strategy, load_explained=None):
    res = spec.resources
    lines = ['Request %s: %s%s, %g vCPU, %g MB, %g GB, x%d (strategy %s)'
             % (spec.id, 'preemptible' if spec.preemptible else 'normal',
                ' %s' % spec.flavor if spec.flavor else '', res.vcpus,
                res.memory_mb, res.disk_gb, spec.num_instances, strategy)]
    action = _on_victim(decision)
    if decision.placed:
        lines.append('Result: placed')
        for s in decision.selections:
            lines.append('  %s -> %s, %s: %s' % (
                s.instance.id, s.host, action,
                ', '.join(s.terminate) or 'nothing'))
    else:
        lines.append('Result: no valid host (%s)' % decision.reason)
    lines += _sla_lines(getattr(decision, 'sla', None))
    for number, report in enumerate(decision.reports):
        weigher_names = []
        for host in report:
            for name in host.weights or ():
                if name not in weigher_names:
                    weigher_names.append(name)
        header = ['host', 'view', 'passed', 'failed filter'] + [
            '%s raw/norm' % name for name in weigher_names] + [
            'total', action]
        rows = [header]
        for host in report:
            weights = host.weights or {}
            rows.append(
                [host.name, host.view, 'yes' if host.passed else 'no',
                 host.failed_filter or ''] +
                ['%s/%s' % (_number(weights[n]['raw']),
                            _number(weights[n]['normalized']))
                 if n in weights else '' for n in weigher_names] +
                [_number(host.total_weight),
                 '' if host.terminate is None else
                 ', '.join(host.terminate) or '-'])
        widths = [max(len(row[i]) for row in rows)
                  for i in range(len(header))]
        lines.append('')
        lines.append('Instance %d:' % (number + 1))
        for row in rows:
            lines.append('  '.join(cell.ljust(width) for cell, width
                                   in zip(row, widths)).rstrip())
    if load_explained is not None:
        lines += _load_lines(load_explained)
    return '\n'.join(lines)


def _sla_lines(explained):
    if explained is None:
        return []
    lines = ['', 'SLA queue (PROMETHEE II, highest phi first):']
    for entry in explained['queue']:
        lines.append('  %-20s phi+ %.4f  phi- %.4f  phi %+.4f' % (
            entry['id'], entry['phi_plus'], entry['phi_minus'],
            entry['phi']))
    sizing = explained['sizing']
    if sizing:
        lines.append('Sizing: N %(N)d, band %(band)s, wc %(wc)d, sum p '
                     '%(sum_p)d, p %(p)d: raw r %(raw_r)d, r %(r)d'
                     % sizing)
    for entry in explained.get('copies', ()):
        lines.append('Copy %d candidates: %s' % (
            entry['copy'] + 1, ', '.join(entry['candidates']) or 'none'))
    if explained['skipped']:
        lines.append('Skipped: %s' % explained['skipped'])
    return lines


def run(args):
    scenario = scenario_mod.load(args.scenario, CONF)
    scenario.apply_config(CONF)
    try:
        decision, strategy, load_explained = decide(scenario)
    except exception.ConfigProblems as error:
        # One line per problem, each once (a name given twice in a list
        # is one problem).
        raise exception.ConfigProblems(dict.fromkeys(error.problems))
    except exception.UnknownPlugin as error:
        if error.option in scenario.config.get(error.group, {}) and \
                CONF.get_location(error.option, error.group).location == \
                cfg.Locations.set_default:
            raise exception.InvalidInput(
                scenario.path, 'config.%s.%s' % (error.group, error.option),
                str(error).split(': ', 1)[1])
        raise
    if args.format == 'json':
        print(json.dumps(to_dict(decision, load_explained), indent=2))
    else:
        print(to_table(decision, decision.spec, strategy,
                       load_explained))
    return 0 if decision.placed else 1
