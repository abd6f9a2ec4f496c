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

from preemptible_sched.conf import filter_scheduler
from preemptible_sched.conf import load
from preemptible_sched.conf import plugins
from preemptible_sched.conf import preemptible
from preemptible_sched.conf import qos
from preemptible_sched.conf import scheduler

nova_group = cfg.OptGroup(
    'preemptible_sched',
    title='Preemptible instances in Nova',
    help="""
Options of ``preemptible_sched.nova``: the preemption-aware scheduler manager
(``preemptible-nova-scheduler``), its filters and weighers listed in
``[filter_scheduler]``, and the flavor extra specs
``preemptible_sched:preemptible`` and ``preemptible_sched:service_class``.
""")

#: Core options whose meaning is the same in Nova: declared once, in the
#: core's ``conf`` modules, registered in ``[preemptible_sched]`` too, and
#: copied by :func:`apply` into the core's group of the same option.
SHARED = {
    'termination_costs': preemptible.preemptible_group.name,
    'billing_period_seconds': preemptible.preemptible_group.name,
    'termination_grace_seconds': preemptible.preemptible_group.name,
    'terminate_only_when_needed': scheduler.scheduler_group.name,
    'kubernetes_integer_scores':
        filter_scheduler.filter_scheduler_group.name,
}

#: Core groups registered whole on Nova's configuration (their names are
#: not Nova's) and copied into the core's: the options of the weighers
#: and of the ``qos`` strategy.
SHARED_GROUPS = ((load.tlp_group, load.tlp_opts),
                 (load.lvrb_group, load.lvrb_opts),
                 (load.lroc_group, load.lroc_opts))


def _shared_opts():
    declared = (preemptible.preemptible_opts + scheduler.scheduler_opts +
                filter_scheduler.filter_scheduler_opts)
    return [opt for opt in declared if opt.name in SHARED]


#: What an operator writes for the old name of ``dual_state``.
STRATEGY_ALIASES = {'preemptible': 'dual_state'}

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
               default='dual_state',
               help="""
Who may displace whom: a preemption strategy of the
``preemptible_sched.preemption_strategies`` entry points (%(names)s), the
same ones the standalone scheduler and the simulator run.

``dual_state`` (the default): servers of preemptible flavors are displaced
for servers of normal flavors, the cheapest set by ``termination_costs``,
chosen in the same pass that places the request. ``retry``: the same, only
once the full view has no room. ``plain``: nothing is ever displaced.
``priority``: a server displaces servers of strictly lower priority (its
flavor's service class), as Kubernetes does. ``qos``: a request at risk of
missing its class's availability SLO displaces servers with more slack
(``[qos]`` and ``[service_class_<name>]``). ``priority`` and ``qos`` follow
the flavors' ``preemptible_sched:service_class`` and ignore
``preemptible_sched:preemptible``; they take the retry path in either
``mode`` (the servers they displace hold standard classes). A new boot may
displace; moves, rebuilds and unshelves never do.

``preemptible`` is the deprecated name of ``dual_state``.

Related options:

* ``on_victim``
* ``service_classes``
"""),
    cfg.IntOpt('random_seed',
               help="""
Seed of the draw among the best ``[filter_scheduler] host_subset_size``
hosts (and of ties) in the decisions that may displace servers. Unset, each
scheduler process seeds it at random; set, a scheduler replays the same
draws for the same requests (tests, investigations).
"""),
    cfg.StrOpt('on_victim',
               choices=[('terminate', 'delete the victim'),
                        ('requeue', 'shelve and offload the victim (its '
                         'allocations freed, the server kept) and unshelve '
                         'it when room returns')],
               help="""
What happens to a displaced server. Unset: the strategy's own default,
``terminate`` under ``dual_state``, ``retry`` and ``plain``, ``requeue``
under ``priority`` and ``qos``.

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

Unset: oslo.concurrency locks (file locks in ``[oslo_concurrency]
lock_path``) serialise the workers of one host only; run one scheduler
host, or set this. The backend's client library must be installed: the
extra of the same name (``pip install '.[redis]'``, or ``etcd``,
``zookeeper``, ``memcached``). ``preemptible-nova-scheduler`` loads the
backend and connects once at start, and stops with one line if it cannot.

Related options:

* ``lock_timeout``
"""),
    cfg.FloatOpt('lock_timeout',
                 default=60.0,
                 min=0.0,
                 help="""
Longest wait, in seconds, for a decision lock; a request that waits longer
fails with NoValidHost ("The scheduler is busy.").

The conductors call ``select_destinations`` with Nova's ``[DEFAULT]
long_rpc_timeout`` (1800 s) and a heartbeat every half
``rpc_response_timeout``, so a scheduler waiting for a lock keeps its
request; a scheduler that dies is noticed after ``rpc_response_timeout``
and the boot fails then (its decision, if journaled, is rolled back and
its victims left alone).
"""),
    cfg.StrOpt('journal_connection',
               default='sqlite:///$state_path/preemptible_sched.sqlite',
               secret=True,
               help="""
SQLAlchemy URL of the database that journals every decision before its
first deletion (the tables ``nova_decisions`` and ``nova_victims``). A
MariaDB or PostgreSQL database must be created by hand first; its tables
are created by ``preemptible-sched-manage --config-file nova.conf db
sync``, or on first use. Every scheduler host must use the same database:
a server named by one open decision cannot be named by another, and the
next scheduler to start finishes or rolls back what a dead one left.
MariaDB (``mysql+pymysql://...``) or PostgreSQL
(``postgresql+psycopg2://...``) for more than one scheduler host.
"""),
    cfg.IntOpt('victim_attempts',
               default=3,
               min=1,
               help="""
How many times a victim's deletion (or shelving) is asked for before it is
given up on.

A victim is dealt with only once its server is gone (or shelved and
offloaded); when the compute host fails the deletion (the server back with
no task under way, or in ERROR), the periodic task asks again, up to this
many times in all, then logs an error and sends the notification
``preemptible_sched.victim_failed``. Until then the server stays a victim
of its decision: no other decision names it.

Related options:

* ``termination_poll_interval``
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
]

plugins.fill_names(nova_opts)

#: Every weigher of the ``preemptible_sched.weighers`` entry points is a
#: Nova weigher (:mod:`preemptible_sched.nova.weighers`) with its
#: multiplier here, ``<name>_weight_multiplier``.
ALL_OPTS = (_shared_opts() + plugins.cost_opts() + nova_opts +
            plugins.weigher_opts(related='weight_classes'))


def register_opts(conf):
    """Register the group on ``conf`` (Nova's configuration), with the
    core's groups its plugins read: ``[qos]`` and ``[service_class_<name>]``
    (the ``qos`` strategy) and those of :data:`SHARED_GROUPS` (the
    load-aware weighers). Idempotent.
    """
    if nova_group.name not in conf:
        conf.register_group(nova_group)
        conf.register_opts(ALL_OPTS, group=nova_group)
    if qos.qos_group.name not in conf:
        qos.register_opts(conf)
    for group, opts in SHARED_GROUPS:
        if group.name not in conf:
            conf.register_group(group)
            conf.register_opts(opts, group=group)


def apply(nova_conf, core_conf):
    """Copy what the core plugins read from ``nova_conf`` into the core's
    configuration object.

    In a Nova process the core's object is never parsed, so the values set
    in ``nova.conf`` (:data:`SHARED`, the cost multipliers and
    :data:`SHARED_GROUPS`) are put there as overrides.
    """
    # The cost multipliers are plugin options, registered on first need.
    plugins.register_opts(core_conf)
    group = nova_conf[nova_group.name]
    for name, core_group in SHARED.items():
        core_conf.set_override(name, group[name], group=core_group)
    for opt in plugins.cost_opts():
        core_conf.set_override(opt.name, group[opt.name],
                               group=preemptible.preemptible_group.name)
    for shared, opts in SHARED_GROUPS:
        for opt in opts:
            core_conf.set_override(opt.name, nova_conf[shared.name][opt.name],
                                   group=shared.name)


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
    return ([(nova_group, ALL_OPTS)] + list(qos.list_opts().items()) +
            list(SHARED_GROUPS))
