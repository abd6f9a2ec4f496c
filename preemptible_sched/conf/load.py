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

"""Options of the load-aware plugins (Trimaran) and their checks; the
load watcher's own are in :mod:`.load_watcher`.

The option names follow the arguments of the released Trimaran plugins
(``TargetLoadPackingArgs``, ``LoadVariationRiskBalancingArgs``), so an
operator who knows those finds them here. Bounds that oslo.config cannot
express (an open interval) are checked by :func:`problems`, which the
start-up checks call: every bad field is reported at once.
"""

from oslo_config import cfg

tlp_group = cfg.OptGroup(
    'target_load_packing',
    title='Target load packing weigher',
    help="""
Options of the ``target_load_packing`` weigher, which packs hosts up to a
target CPU utilisation measured by the load watcher.
""")

tlp_opts = [
    cfg.FloatOpt('target_utilization',
                 default=40.0,
                 min=0.0,
                 max=100.0,
                 help="""
Target CPU utilisation of a host, in % of its physical cores.

Hosts whose predicted utilisation (measured, plus the instances placed
since the metrics' window, plus the request) is closest to this from below
score highest; above it the score falls to 0 at 100 %. 40 is the released
plugin's default: it leaves room for the variation a 15-minute average
hides.

Possible values:

* A number strictly between 0 and 100.

Related options:

* ``default_multiplier``
* ``[filter_scheduler] target_load_packing_weight_multiplier``
"""),
    cfg.FloatOpt('default_multiplier',
                 default=1.5,
                 min=0.0,
                 max=1000.0,
                 help="""
Multiplier of an instance's declared expected CPU usage.

The predicted CPU of an instance is ``min(vcpus, expected * multiplier)``
when its flavor or request declares an expected usage, else its vCPUs (a
VM's vCPUs are a hard cap). 1.5 is the released plugin's default: it
leaves headroom for bursts above the declared usage. Both load-aware
weighers and the ``load_threshold`` filter use it.

Possible values:

* A number greater than 0.
"""),
]

lvrb_group = cfg.OptGroup(
    'load_variation_risk_balancing',
    title='Load variation risk balancing weigher',
    help="""
Options of the ``load_variation_risk_balancing`` weigher, which spreads the
risk of a host running out: its average and variation of utilisation.
""")

lvrb_opts = [
    cfg.FloatOpt('safe_variance_margin',
                 default=1.0,
                 min=0.0,
                 max=100.0,
                 help="""
How many standard deviations of utilisation count as risk (eta).

Per resource, the risk is the mean utilisation (with the request) plus this
many standard deviations; 0 ignores the variation.

Possible values:

* A number >= 0 (1 is the released plugin's default).

Related options:

* ``safe_variance_sensitivity``, ``formula``
"""),
    cfg.FloatOpt('safe_variance_sensitivity',
                 default=1.0,
                 min=0.0,
                 max=100.0,
                 help="""
Sensitivity to the standard deviation, for the ``upstream`` formula.

The deviation (a fraction) is raised to the power 1/sensitivity before it
is scaled by ``safe_variance_margin``: above 1 small deviations weigh
more, below 1 less; 0 ignores any deviation below 100 %. The ``kep``
formula does not use it.

Possible values:

* A number >= 0 (1 is the released plugin's default).
"""),
    cfg.StrOpt('formula',
               default='kep',
               choices=[('kep', 'the design document: score = (1 - '
                         'min(mu + margin * sigma, 1)) * 100'),
                        ('upstream', 'the released plugin: score = (1 - '
                         '(min(mu, 1) + min(margin * sigma^(1/sensitivity)'
                         ', 1)) / 2) * 100')],
               help="""
Which risk formula scores a host.

Both score each resource with metrics (CPU, memory) and keep the lowest;
``kep`` sends a host to 0 as soon as mean plus margin deviations reach its
capacity, ``upstream`` averages mean and deviation, so it never scores
below 0 before the mean is full.
"""),
]

threshold_group = cfg.OptGroup(
    'load_threshold',
    title='Load threshold filter',
    help="""
Options of the opt-in ``load_threshold`` filter: a hard cap on predicted
CPU utilisation.
""")

threshold_opts = [
    cfg.FloatOpt('max_cpu_utilization',
                 default=90.0,
                 min=0.0,
                 max=100.0,
                 help="""
Reject hosts whose predicted CPU utilisation would exceed this, in % of
their physical cores.

The prediction is the one ``target_load_packing`` uses: the measured
15-minute average, plus the instances placed since, plus the request.
Hosts whose load is unknown pass (the filter cannot judge them), and so
does every host while the metrics source is down, so that an outage of
the metrics does not stop scheduling.

Possible values:

* A number greater than 0, up to 100.
"""),
]


def register_opts(conf):
    for group, opts in list_opts().items():
        conf.register_group(group)
        conf.register_opts(opts, group=group)


def list_opts():
    return {tlp_group: tlp_opts, lvrb_group: lvrb_opts,
            threshold_group: threshold_opts, lroc_group: lroc_opts}


def problems(conf, at):
    """Bounds oslo.config cannot express, one line per bad field."""
    found = []
    target = conf.target_load_packing.target_utilization
    if not 0.0 < target < 100.0:
        found.append('%s = %g: must be strictly between 0 and 100' % (
            at('target_load_packing', 'target_utilization'), target))
    multiplier = conf.target_load_packing.default_multiplier
    if not multiplier > 0.0:
        found.append('%s = %g: must be greater than 0' % (
            at('target_load_packing', 'default_multiplier'), multiplier))
    threshold = conf.load_threshold.max_cpu_utilization
    if not threshold > 0.0:
        found.append('%s = %g: must be greater than 0' % (
            at('load_threshold', 'max_cpu_utilization'), threshold))
    return found


lroc_group = cfg.OptGroup(
    'low_risk_over_commitment',
    title='Low risk over-commitment weigher',
    help="""
Options of the ``low_risk_over_commitment`` weigher, which prefers the
hosts least at risk from over-commitment: from the instances' vCPUs beyond
their declared expected usage (limits beyond requests) and from the
measured utilisation.
""")

_RISK_LIMIT_WEIGHT_HELP = """
Share of the %s risk that comes from the limits, the rest from the
measured load.

Per resource, risk = weight * limit risk + (1 - weight) * load risk. The
limit risk is the share of the room the instances may use beyond their
requests that the host's physical %s cannot hold; the load risk is the
probability, from a beta distribution fitted to the measured utilisation,
that the utilisation exceeds what the instances request. 1 looks at the
limits only, 0 at the load only.

Possible values:

* A number from 0 to 1 (0.5 is the released plugin's default).

Related options:

* ``smoothing_window_size``
"""

lroc_opts = [
    cfg.IntOpt('smoothing_window_size',
               default=5,
               min=1,
               max=1000,
               help="""
Number of samples over which the load source smoothed each utilisation
sample, so that the standard deviation the weigher reads is that of
averages over so many samples.

The deviation of the fitted beta distribution is the measured one times
the square root of this (a mean of n samples varies sqrt(n) times less
than one sample). 5 is the released plugin's default (a Prometheus rate
over 5 scrapes); 1 takes the deviation as measured.

Possible values:

* An integer from 1 to 1000.

Related options:

* ``cpu_risk_limit_weight``, ``memory_risk_limit_weight``
"""),
    cfg.FloatOpt('cpu_risk_limit_weight',
                 default=0.5,
                 min=0.0,
                 max=1.0,
                 help=_RISK_LIMIT_WEIGHT_HELP % ('CPU', 'cores')),
    cfg.FloatOpt('memory_risk_limit_weight',
                 default=0.5,
                 min=0.0,
                 max=1.0,
                 help=_RISK_LIMIT_WEIGHT_HELP % ('memory', 'memory')),
]
