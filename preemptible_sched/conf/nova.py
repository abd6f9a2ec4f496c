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

"""Options an operator sets in ``nova.conf`` for the Nova integration.

They live in the group ``[preemptible_sched]`` of Nova's own configuration
(Nova already owns ``[filter_scheduler]`` and ``[scheduler]``).
:mod:`preemptible_sched.nova` registers them on Nova's configuration and
:func:`apply` copies the ones the core plugins read into the core's
configuration object. This module imports only oslo.config, so the
sample generator and the docs can list the options without Nova installed.
"""

from oslo_config import cfg

from preemptible_sched.conf import plugins
from preemptible_sched.conf import preemptible
from preemptible_sched.conf import qos

nova_group = cfg.OptGroup(
    'preemptible_sched',
    title='Preemptible instances in Nova',
    help="""
Options of ``preemptible_sched.nova``: the preemption-aware scheduler manager
(``preemptible-nova-scheduler``), its filters and weighers listed in
``[filter_scheduler]``, and the flavor extra specs
``preemptible_sched:preemptible`` and ``preemptible_sched:service_class``.
""")

#: Core options whose meaning is the same in Nova: declared once, in
#: :mod:`preemptible_sched.conf.preemptible`, and registered here too.
SHARED = ('termination_costs', 'billing_period_seconds',
          'termination_grace_seconds', 'billing_period_cost_multiplier',
          'count_cost_multiplier', 'runtime_cost_multiplier',
          'priority_cost_multiplier')

_shared_opts = [opt for opt in preemptible.preemptible_opts +
                plugins.cost_opts() if opt.name in SHARED]

MODES = ('retry', 'one_pass')

nova_opts = [
    cfg.StrOpt('mode',
               default='retry',
               choices=[
                   ('retry', 'Nova schedules first; when it ends in '
                    'NoValidHost for a normal request, the manager reads '
                    'every host from Placement and the cell databases '
                    'and runs a second pass on the normal view. Works '
                    'with any flavor.'),
                   ('one_pass', 'Preemptible flavors consume the '
                    'CUSTOM_PREEMPTIBLE_* resource classes and every '
                    'compute node offers them, so Placement answers on '
                    'the normal view: a normal request is placed, and its '
                    'victims chosen, within Nova\'s own pass.')],
               help="""
How a normal request finds room held by preemptible servers.

``one_pass`` needs the preemptible flavors moved to the custom classes
(``preemptible-nova-one-pass flavor-properties``) and a provider
configuration file on every compute host
(``preemptible-nova-one-pass provider-config`` into ``[compute]
provider_config_location``). A preemptible flavor left on the standard
classes still works: a normal request that Placement finds no room for
then takes the ``retry`` path.

Related options:

* ``preempt``
"""),
    cfg.StrOpt('preemption_strategy',
               default='preemptible',
               choices=[
                   ('preemptible', 'Only servers of preemptible flavors '
                    'are displaced, for servers of normal flavors; the '
                    'cheapest set by termination_costs.'),
                   ('priority', 'A server displaces servers of strictly '
                    'lower priority (its flavor\'s service class), as '
                    'Kubernetes does; the fewest at the lowest priorities.'),
                   ('qos', 'QoS-driven: a request at risk of missing its '
                    'service class\'s availability SLO displaces servers '
                    'with more slack ([qos] and [service_class_<name>]).')],
               help="""
Who may displace whom.

``priority`` and ``qos`` follow the flavors'
``preemptible_sched:service_class`` and ignore
``preemptible_sched:preemptible``; they take the retry path in either
``mode`` (the servers they displace hold standard classes). A new boot may
displace; moves, rebuilds and unshelves never do.

Related options:

* ``on_victim``
* ``service_classes``
"""),
    cfg.StrOpt('on_victim',
               choices=[('terminate', 'delete the victim'),
                        ('requeue', 'shelve and offload the victim (its '
                         'allocations freed, the server kept) and unshelve '
                         'it when room returns')],
               help="""
What happens to a displaced server. Unset: ``terminate`` under the
``preemptible`` strategy, ``requeue`` under ``priority`` and ``qos``.

A requeued server is shelved (offloaded at once when Nova's
``shelved_offload_time`` is 0, else by the manager's periodic task) and
marked with the metadata key ``preemptible_sched:requeued``; the periodic
task unshelves such servers, most urgent first, whenever Placement has room
for them.

Related options:

* ``requeue_interval``
"""),
    cfg.IntOpt('requeue_interval',
               default=60,
               min=1,
               help="""
Seconds between two runs of the periodic task that offloads shelved victims
and unshelves requeued servers when room returns.
"""),
    cfg.IntOpt('max_lifetime',
               default=0,
               min=0,
               help="""
Longest time, in seconds, a preemptible server may run since its last
start; 0 for no limit.

The manager's periodic task (every ``housekeeping_interval`` s) terminates
the servers of preemptible flavors that have run this long, oldest first,
each with a termination notice (reason ``max_lifetime``). A server with a
task under way is left for the next run.

Related options:

* ``housekeeping_interval``
"""),
    cfg.FloatOpt('watermark',
                 default=0.0,
                 min=0.0,
                 max=0.9,
                 help="""
Share of the cloud's vCPUs and RAM kept free by terminating preemptible
servers before the cloud is full; 0 turns it off.

The manager's periodic task (every ``housekeeping_interval`` s) adds up
every compute node's capacity and use (every server counted) from
Placement; when less than this share of either is free it terminates
preemptible servers, cheapest first by ``termination_costs``, until it is
(reason ``watermark``). Normal servers then start at once instead of
waiting for a termination.

Related options:

* ``housekeeping_interval``
* ``termination_costs``
"""),
    cfg.IntOpt('housekeeping_interval',
               default=60,
               min=1,
               help="""
Seconds between two runs of the periodic task that enforces
``max_lifetime`` and ``watermark``.
"""),
    cfg.StrOpt('coordination_url',
               secret=True,
               help="""
tooz backend URL of the lock that serialises decisions across every
scheduler host, e.g. ``redis://127.0.0.1:6379``,
``etcd3+http://etcd:2379``, ``zookeeper://zk:2181`` or
``file:///shared/folder``.

Unset: an oslo.concurrency lock (a file lock with ``[oslo_concurrency]
lock_path``) serialises the workers of one host only; run one scheduler
host, or set this. The backend's client library must be installed (for
Redis, ``pip install redis``).

Related options:

* ``lock_timeout``
"""),
    cfg.FloatOpt('lock_timeout',
                 default=60.0,
                 min=0.0,
                 help="""
Longest wait, in seconds, for the decision lock; a request that waits
longer fails with NoValidHost.
"""),
    cfg.StrOpt('journal_connection',
               default='sqlite:///$state_path/preemptible_sched.sqlite',
               secret=True,
               help="""
SQLAlchemy URL of the database that journals every decision before its
first deletion (the tables ``nova_decisions`` and ``nova_victims``,
created on first use). Every scheduler host must use the same database:
a server named by one open decision cannot be named by another, and the
next scheduler to start finishes or rolls back what a dead one left.
MariaDB (``mysql+pymysql://...``) or PostgreSQL
(``postgresql+psycopg2://...``) for more than one scheduler host.
"""),
    cfg.IntOpt('termination_poll_interval',
               default=1,
               min=1,
               help="""
Seconds between two runs of the periodic task that deletes or shelves the
victims whose grace period (``termination_grace_seconds``) has ended. The
scheduler never sleeps through a grace period: the room is claimed for the
request at decision time, and the victims are acted on by this task.
"""),
    cfg.BoolOpt('preempt',
                default=True,
                help="""
Whether a normal request may terminate preemptible servers to find room.

When Placement finds no room for a normal (non-preemptible) request, the
manager looks again at every compute node as it would be without its
preemptible servers, picks a host with the configured filters and weighers,
deletes the cheapest set of preemptible servers there and claims the room
for the request. Off, the manager behaves as Nova's own.

Related options:

* ``termination_costs``
* ``mode``
"""),
    cfg.DictOpt('service_classes',
                default={'gold': '1000', 'silver': '500', 'bronze': '0'},
                help="""
Service classes a flavor may name in ``preemptible_sched:service_class``,
with the priority of each.

The extra-spec validator rejects any other class name. The priority becomes
the ``priority`` of the flavor's servers, which the ``priority`` termination
cost charges (terminating a server of a higher class costs more).

Possible values:

* ``name:priority`` pairs, e.g. ``gold:1000,silver:500,bronze:0``.
"""),
    cfg.FloatOpt('preemptible_count_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of ``PreemptibleCountWeigher``.

The raw weight is minus the fewest preemptible servers that must be deleted
for the request to fit the host (0 when it fits). Positive prefers hosts
where fewer servers die. Aggregate metadata of the same key overrides it.
"""),
    cfg.FloatOpt('termination_cost_weight_multiplier',
                 default=10.0,
                 help="""
Multiplier of ``TerminationCostWeigher``.

The raw weight is minus the cost of the cheapest set of preemptible servers
whose deletion lets the request fit (0 when it fits). The default makes it
dominate Nova's resource weighers (each worth at most 1.0 by default).
Aggregate metadata of the same key overrides it.

Related options:

* ``termination_costs``
"""),
    cfg.FloatOpt('least_requested_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of ``LeastRequestedWeigher`` (Kubernetes' least-requested score
over vCPUs and RAM). Positive spreads. Aggregate metadata of the same key
overrides it.
"""),
    cfg.FloatOpt('balanced_allocation_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of ``BalancedAllocationWeigher`` (Kubernetes' balanced-resource
score). Positive prefers hosts whose CPU and RAM use stay balanced.
Aggregate metadata of the same key overrides it.
"""),
    cfg.FloatOpt('allocation_score_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of ``AllocationScoreWeigher`` (the mean of the least-requested
and balanced-resource scores). Aggregate metadata of the same key overrides
it.
"""),
]

ALL_OPTS = _shared_opts + nova_opts


def register_opts(conf):
    """Register the group on ``conf`` (Nova's configuration), and the
    core's ``[qos]`` and ``[service_class_<name>]`` groups the ``qos``
    strategy reads. Idempotent.
    """
    conf.register_group(nova_group)
    conf.register_opts(ALL_OPTS, group=nova_group)
    if qos.qos_group.name not in conf:
        qos.register_opts(conf)


def apply(nova_conf, core_conf):
    """Copy the shared options from ``nova_conf`` into the core's object.

    The core termination costs read ``[preemptible]`` of the core
    configuration; in a Nova process that object is never parsed, so the
    values set in ``nova.conf`` are put there as overrides.
    """
    # The cost multipliers are plugin options, registered on first need.
    plugins.register_opts(core_conf)
    group = nova_conf[nova_group.name]
    for name in SHARED:
        core_conf.set_override(name, group[name],
                               group=preemptible.preemptible_group.name)


def service_class_priorities(nova_conf):
    """``{class name: priority}`` from ``[preemptible_sched]``.

    Raises ValueError naming the option when a priority is not a number.
    """
    classes = {}
    for name, value in nova_conf[nova_group.name].service_classes.items():
        try:
            classes[name] = float(value)
        except ValueError:
            raise ValueError(
                '[%s] service_classes: the priority of class %r is %r, not '
                'a number' % (nova_group.name, name, value))
    return classes


def list_opts():
    """``[(group, opts)]`` for oslo-config-generator and the docs."""
    return [(nova_group, ALL_OPTS)] + list(qos.list_opts().items())
