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

"""comparison.csv and paired.csv: an experiment's rows for programs.

:func:`write_comparison_csv` writes the :class:`.experiment.ComparisonRow`
of :func:`.experiment.aggregate`, one per (workload, size factor, policy),
:func:`write_paired_csv` the :class:`.experiment.PairedRow` of
:func:`.experiment.paired_differences`. Numbers have at most 6 decimals;
a statistic a row does not have is an empty cell.
"""

import csv

from preemptible_sched.simulation import experiment

KEY_COLUMNS = ('workload', 'size_factor', 'policy', 'seeds')

PAIRED_COLUMNS = ('workload', 'size_factor', 'policy', 'baseline', 'metric',
                  'pairs', 'mean_difference', 'std_difference',
                  'ci95_low', 'ci95_high')


def _number(value):
    """A CSV number: empty for None, at most 6 decimals."""
    if value is None:
        return ''
    text = ('%.6f' % value).rstrip('0').rstrip('.')
    return '0' if text == '-0' else text


def comparison_columns(classes, with_std, workflow=False, with_ci=False):
    """The header of comparison.csv; ``<metric>_std`` after each metric
    when ``with_std``, then ``<metric>_ci95`` (the half-width of the 95 %
    confidence interval of the mean) when ``with_ci``.
    """
    columns = list(KEY_COLUMNS)
    for name in experiment.metric_names(classes, workflow):
        columns += ([name] + ([name + '_std'] if with_std else []) +
                    ([name + '_ci95'] if with_ci else []))
    return columns


def write_comparison_csv(path, rows, classes, with_std, with_ci=False):
    workflow = experiment.has_workflows(rows)
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(comparison_columns(classes, with_std, workflow,
                                           with_ci))
        for row in rows:
            cells = [row.workload, experiment.level_label(row.size_factor),
                     row.policy, row.seeds]
            for name in experiment.metric_names(classes, workflow):
                mean, std = row.values[name]
                cells += ([_number(mean)] +
                          ([_number(std)] if with_std else []) +
                          ([_number(row.ci95.get(name))] if with_ci
                           else []))
            writer.writerow(cells)


def write_paired_csv(path, rows):
    with open(path, 'w', newline='') as stream:
        writer = csv.writer(stream, lineterminator='\n')
        writer.writerow(PAIRED_COLUMNS)
        for row in rows:
            diff = row.difference
            writer.writerow([row.workload,
                             experiment.level_label(row.size_factor),
                             row.policy, row.baseline, row.metric, diff.n,
                             _number(diff.mean), _number(diff.std),
                             _number(diff.low), _number(diff.high)])
