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

"""Options of the SLA classes (``[sla]``).

SLA requests carry a level (premium, advanced, best_effort) of four
services: satisfaction time, reputation, resources and replicas (see
:mod:`preemptible_sched.service_classes.sla`). These options weigh the services
in the ``promethee`` queue policy, size moldable requests, count their copies
and price them.
"""

from oslo_config import cfg

sla_group = cfg.OptGroup(
    'sla',
    title='SLA classes',
    help='The PROMETHEE II queue, dynamic sizing, replicas and prices of '
         'SLA requests.')

_WEIGHT_HELP = """
Weight of the %s service in the ``promethee`` queue policy.

The weights are normalised by their sum, so only their ratios count; equal
weights (the default) treat the four services alike.

Possible values:

* 0 (the service is ignored) or a positive number; at least one of the
  four weights must be positive.

Related options:

* ``[scheduler] queue_policy = promethee``
"""

_REPLICAS_HELP = """
Copies of a request whose ``replicas`` service is %s.

Each copy runs on a distinct host of the request's reputation category; the
request waits until that many hosts can take a copy. Whether the number is
the total or the copies besides the first is ``replicas_count``.

Possible values:

* 0 or a positive integer (0 only with ``replicas_count = extra``).
"""

_RATE_HELP = """
Price of one core-hour of a request of the %s class, for the ``per_class``
price function.

A request's class is the level of its reputation service (the hosts it is
entitled to); the price is this rate times the core-hours of every copy.

Possible values:

* 0 or a positive number, in whatever currency the operator bills in.
"""

sla_opts = [
    cfg.FloatOpt('satisfaction_time_weight', default=1.0, min=0.0,
                 max=1e6, help=_WEIGHT_HELP % 'satisfaction time'),
    cfg.FloatOpt('reputation_weight', default=1.0, min=0.0, max=1e6,
                 help=_WEIGHT_HELP % 'reputation'),
    cfg.FloatOpt('resources_weight', default=1.0, min=0.0, max=1e6,
                 help=_WEIGHT_HELP % 'resources'),
    cfg.FloatOpt('replicas_weight', default=1.0, min=0.0, max=1e6,
                 help=_WEIGHT_HELP % 'replicas'),
    cfg.BoolOpt('rerank',
                default=False,
                help="""
Rank the waiting requests again after each placement within a pass.

The ``promethee`` policy ranks the queue by PROMETHEE II net flows, which
are relative to the requests being compared: once a request is placed and
leaves the queue, the order of the others may change (rank reversal). The
published method selects by PROMETHEE II after every placement; with this
option the remaining requests of a pass are ranked again, among those still
waiting, each time one is placed. Off by default, so that configurations
that mix levels keep the order they had, and because it costs one ranking
of the queue per placement instead of one per pass. The shipped SLA
emulation (``etc/preemptible-sched/experiments/sla/``) places every
container alike in both modes: its users are premium, advanced or best
effort in all four services, an order no removal reverses. Other queue
policies are not affected.

Related options:

* ``[scheduler] queue_policy = promethee``
"""),
    cfg.StrOpt('reference_cores',
               default='smallest',
               choices=[
                   ('smallest', 'N is the cores of the smallest up host of '
                                'the cloud'),
                   ('per_category', 'N is the cores of the smallest up host '
                                    'of the request\'s reputation '
                                    'category'),
                   ('configured', 'N is reference_cores_value'),
               ],
               help="""
Where N, the cores of a full allocation, comes from.

Moldable requests get cores in a band of their ``resources`` level:
best_effort [1, N/3], advanced [N/3 + 1, 2N/3], premium [2N/3 + 1, N]
(rounded down). Below 3 cores the bands cannot be apart: with N = 2 they
are 1, 1 and 2 cores, with N = 1 one core each. Hosts without a whole core
do not set N. When the hosts of the categories differ, use
``per_category`` or ``configured``.

Related options:

* ``reference_cores_value``
"""),
    cfg.IntOpt('reference_cores_value', min=3, max=100000,
               help="""
N when ``reference_cores = configured``.

Possible values:

* An integer of at least 3 (each band needs a core).

Related options:

* ``reference_cores``
"""),
    cfg.IntOpt('premium_replicas', default=3, min=0, max=1000,
               help=_REPLICAS_HELP % 'premium'),
    cfg.IntOpt('advanced_replicas', default=2, min=0, max=1000,
               help=_REPLICAS_HELP % 'advanced'),
    cfg.IntOpt('best_effort_replicas', default=1, min=0, max=1000,
               help=_REPLICAS_HELP % 'best_effort'),
    cfg.StrOpt('replicas_count',
               default='total',
               choices=[('total', 'the replicas options count every copy'),
                        ('extra', 'they count the copies besides the '
                                  'first')],
               help="""
How the ``*_replicas`` options count.

Related options:

* ``premium_replicas``, ``advanced_replicas``, ``best_effort_replicas``
"""),
    cfg.StrOpt('price',
               default='per_class',
               help="""
Price function of the SLA invoices.

A name in the ``preemptible_sched.sla_prices`` namespace. ``per_class``
charges a rate per core-hour that depends on the request's class.

Related options:

* ``premium_core_hour_rate``, ``advanced_core_hour_rate``,
  ``best_effort_core_hour_rate``
"""),
    cfg.FloatOpt('premium_core_hour_rate', default=3.0, min=0.0, max=1e9,
                 help=_RATE_HELP % 'premium'),
    cfg.FloatOpt('advanced_core_hour_rate', default=2.0, min=0.0, max=1e9,
                 help=_RATE_HELP % 'advanced'),
    cfg.FloatOpt('best_effort_core_hour_rate', default=1.0, min=0.0,
                 max=1e9, help=_RATE_HELP % 'best_effort'),
]


def register_opts(conf):
    conf.register_group(sla_group)
    conf.register_opts(sla_opts, group=sla_group)


def list_opts():
    return {sla_group: sla_opts}


def problems(conf, at):
    """Every unusable combination of ``[sla]`` options, one line each."""
    found = []
    sla = conf.sla
    weights = [sla.satisfaction_time_weight, sla.reputation_weight,
               sla.resources_weight, sla.replicas_weight]
    if not sum(weights) > 0:
        found.append('%s: at least one of the four SLA weights must be '
                     'positive' % at('sla', 'satisfaction_time_weight'))
    if sla.reference_cores == 'configured' and \
            sla.reference_cores_value is None:
        found.append('%s: reference_cores = configured needs '
                     'reference_cores_value' % at('sla',
                                                  'reference_cores_value'))
    if sla.replicas_count == 'total':
        for level in ('premium', 'advanced', 'best_effort'):
            option = '%s_replicas' % level
            if conf.sla[option] < 1:
                found.append('%s: with replicas_count = total a request '
                             'needs at least 1 copy' % at('sla', option))
    return found
