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

"""What ``simulate --seeds`` reports over its seeds.

Each metric of the runs' summary.json files becomes one
:class:`MetricEstimate`: its mean over the seeds with the half-width of
the two-sided 95 % confidence interval of the mean
(:func:`replications.estimate`), and the value of every seed.
:func:`table` shows them to a person (``98.3 ± 0.9``: the cell format the
documentation quotes, see ``tools/check_doc_figures.py``);
:func:`document` is the content of ``replications.json``.
"""

import dataclasses
import typing

from preemptible_sched.simulation import replications
from preemptible_sched.simulation import report_tables

#: Per class: (summary key, label, formatter).
CLASS_METRICS = (
    ('mean_availability', 'mean availability (%)', report_tables.percent),
    ('slo_fulfillment', 'SLO fulfilment (%)', report_tables.percent),
    ('slo_fulfillment_strict', 'strict SLO fulfilment (%)',
     report_tables.percent),
    ('qos_deficit', 'QoS deficit (pp)', report_tables.percent),
)

#: Run-wide: (summary key, label, formatter).
RUN_METRICS = (
    ('hosts', 'Hosts', report_tables.count),
    ('preemptions', 'Preemptions', report_tables.count),
    ('terminations', 'Terminations', report_tables.count),
    ('never_placed', 'Requests never placed', report_tables.count),
    ('normal_acceptance', 'Normal requests placed (%)',
     report_tables.percent),
    ('preemptible_cpu_hours_lost', 'Preemptible work lost (vCPU h)',
     lambda value: report_tables.number(value, 1)),
)

#: What the table's cells mean, under it.
NOTE = ('Mean over the seeds ± the half-width of the two-sided 95 % '
        'confidence interval of the mean (Student\'s t, n - 1 degrees of '
        'freedom); the interval is the mean minus to the mean plus it. '
        'Two policies differ on a metric when their intervals separate.')


@dataclasses.dataclass(frozen=True)
class MetricEstimate:
    """One metric over the seeds: ``key`` as in replications.json,
    ``label`` as in the table, ``values`` per seed (None where a run has
    none), ``estimate`` their :class:`replications.Estimate`.
    """

    key: str
    label: str
    values: list
    estimate: replications.Estimate
    show: typing.Callable = dataclasses.field(repr=False, compare=False)

    def cell(self):
        """``mean ± half-width`` as the table shows it; the mean alone
        with one value, ``n/a`` with none.
        """
        if self.estimate.mean is None:
            return 'n/a'
        text = self.show(self.estimate.mean)
        if self.estimate.ci95 is not None:
            text += ' ± ' + self.show(self.estimate.ci95)
        return text


#: Per SLA class (summary.json's ``sla.per_class``): (key, label,
#: formatter).
SLA_METRICS = (
    ('mean_cores', 'mean cores', lambda value: report_tables.number(
        value, 2)),
    ('mean_wait_s', 'mean wait (s)', lambda value: report_tables.number(
        value, 1)),
    ('price', 'price', lambda value: report_tables.number(value, 2)),
)


def estimates(summaries):
    """The :class:`MetricEstimate` of every metric of ``summaries`` (one
    summary.json content per seed, in seed order), what the runs are for
    first, as one run's tables put it (:func:`report_tables.run_tables`):
    the workflow measures, the SLA classes' cores, wait and price, the
    availability figures per class (only where the runs have classes),
    then run-wide; metrics no run has are left out.
    """
    found = []
    for key, label, show in report_tables.WORKFLOW_MEASURES:
        found.append(_metric(
            'workflow.' + key, label, show,
            [(summary.get('workflow_metrics') or {}).get(key)
             for summary in summaries]))
    # In the order the runs list them, as one run's SLA table does.
    sla_classes = dict.fromkeys(
        name for summary in summaries
        for name in (summary.get('sla') or {}).get('per_class', {}))
    for name in sla_classes:
        for key, label, show in SLA_METRICS:
            found.append(_metric(
                'sla.%s.%s' % (name, key), 'SLA %s %s' % (name, label),
                show, [(summary.get('sla') or {}).get('per_class', {})
                       .get(name, {}).get(key) for summary in summaries]))
    classes = report_tables.class_order(
        {name: None for summary in summaries
         for name in summary.get('per_class', {})})
    if not report_tables.has_classes(classes):
        classes = []
    for name in classes:
        for key, label, show in CLASS_METRICS:
            found.append(_metric(
                '%s.%s' % (name, key), '%s %s' % (name, label), show,
                [summary.get('per_class', {}).get(name, {}).get(key)
                 for summary in summaries]))
    for key, label, show in RUN_METRICS:
        found.append(_metric(key, label, show,
                             [summary.get(key) for summary in summaries]))
    return [metric for metric in found if metric.estimate.n]


def _metric(key, label, show, values):
    return MetricEstimate(key, label, values,
                          replications.estimate(values), show)


def table(metrics, seeds):
    """The :class:`report_tables.Table` of ``metrics`` over ``seeds``."""
    return report_tables.Table(
        'Over %d seeds (%s)' % (len(seeds), seed_label(seeds)),
        ['Metric', 'Mean ± 95 %', 'Lowest', 'Highest'],
        [[metric.label, metric.cell(),
          metric.show(min(value for value in metric.values
                          if value is not None)),
          metric.show(max(value for value in metric.values
                          if value is not None))]
         for metric in metrics],
        ['left', 'right', 'right', 'right'], NOTE)


def document(metrics, seeds, summary):
    """replications.json: the run's workload and policy (from
    ``summary``, the first seed's), the seeds, and per metric its label,
    n, mean, std, 95 % half-width, interval and value per seed.
    """
    return {
        'workload': summary.get('workload'),
        'policy': summary.get('policy'),
        'seeds': list(seeds),
        'metrics': {
            metric.key: {
                'label': metric.label, 'n': metric.estimate.n,
                'mean': metric.estimate.mean, 'std': metric.estimate.std,
                'ci95': metric.estimate.ci95, 'low': metric.estimate.low,
                'high': metric.estimate.high,
                'values': list(metric.values)}
            for metric in metrics},
    }


def seed_label(seeds):
    """``seeds 0-4`` for a run of consecutive seeds, ``seeds 1, 3, 7``
    otherwise.
    """
    seeds = list(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return 'seeds %d-%d' % (seeds[0], seeds[-1])
    return 'seeds ' + ', '.join(str(seed) for seed in seeds)
