"""Options of the filter scheduler: which filters and weighers run, and how."""

from oslo_config import cfg

filter_scheduler_group = cfg.OptGroup(
    'filter_scheduler',
    title='Filter scheduler options',
    help="""
Which filters and weighers decide where a request goes. Filters remove hosts
that cannot take the request; weighers rank the hosts that are left. Names
are the entry points of the ``preemptible_sched.filters`` and
``preemptible_sched.weighers`` namespaces.
""")

filter_scheduler_opts = [
    cfg.ListOpt('enabled_filters',
                default=['compute', 'availability_zone', 'resources',
                         'attributes', 'affinity', 'anti_affinity'],
                help="""
Filters run, in this order, on every host for every instance requested.

A normal request is filtered on the host's normal view (only non-preemptible
instances count as used); a preemptible request on the full view. A host
passes when every filter passes. Cheap filters first make a pass faster.

Possible values:

* A list of names from the ``preemptible_sched.filters`` namespace:
  ``compute``, ``resources``, ``attributes``, ``affinity``,
  ``anti_affinity``, ``num_instances``, ``availability_zone``, or a
  third-party filter registered there.

Related options:

* ``weighers``
"""),
    cfg.ListOpt('weighers',
                default=['ram', 'cpu', 'termination_cost'],
                help="""
Weighers that rank the hosts that passed the filters, always on the full view.

Each weigher's raw weights are normalised to [0, 1] over the passing hosts
and multiplied by its ``<name>_weight_multiplier``; the host with the
highest sum wins.

Possible values:

* A list of names from the ``preemptible_sched.weighers`` namespace:
  ``ram``, ``cpu``, ``disk``, ``num_instances``, ``preemptible_count``,
  ``termination_cost``, ``least_requested``, ``balanced_allocation``.

Related options:

* ``<name>_weight_multiplier``
"""),
    cfg.IntOpt('host_subset_size',
               default=1,
               min=1,
               help="""
Size of the set of best hosts the destination is picked from at random.

With 1 the best host always wins; larger values spread concurrent schedulers
over several good hosts. The random choice is seeded by
``[scheduler] random_seed`` so a decision can be reproduced.

Possible values:

* An integer of 1 or more; larger than the number of hosts means all hosts.
"""),
    cfg.IntOpt('max_instances_per_host',
               default=50,
               min=1,
               help="""
Maximum number of instances (of any kind, full view) a host may carry.

Used by the ``num_instances`` filter only.

Possible values:

* A positive integer.
"""),
    cfg.FloatOpt('ram_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of the ``ram`` weigher (free RAM on the full view).

Positive spreads instances over hosts, negative stacks them. Host aggregate
metadata with the same key overrides it for the hosts of the aggregate.
"""),
    cfg.FloatOpt('cpu_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of the ``cpu`` weigher (free vCPUs on the full view).

Positive spreads, negative stacks. Aggregate metadata may override it.
"""),
    cfg.FloatOpt('disk_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of the ``disk`` weigher (free disk on the full view).

Positive spreads, negative stacks. Aggregate metadata may override it.
"""),
    cfg.FloatOpt('num_instances_weight_multiplier',
                 default=-1.0,
                 help="""
Multiplier of the ``num_instances`` weigher (instances on the host).

Negative (the default) prefers hosts with fewer instances; positive packs.
Aggregate metadata may override it.
"""),
    cfg.FloatOpt('preemptible_count_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of the ``preemptible_count`` weigher.

The raw weight is minus the smallest number of preemptible instances that
must be terminated for the request to fit (0 when it fits). Positive prefers
hosts where fewer instances die. Aggregate metadata may override it.
"""),
    cfg.FloatOpt('termination_cost_weight_multiplier',
                 default=10.0,
                 help="""
Multiplier of the ``termination_cost`` weigher.

The raw weight is minus the cost of the cheapest termination set on the host
(0 when the request fits without terminating). The default of 10.0 makes it
dominate the resource weighers (each worth at most 1.0 by default), so the
cheapest termination wins and free room breaks ties. Aggregate metadata may
override it.

Related options:

* ``[preemptible] termination_costs``
"""),
    cfg.FloatOpt('least_requested_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of the ``least_requested`` weigher (Kubernetes 1.9 scoring).

Positive spreads. Aggregate metadata may override it.
"""),
    cfg.FloatOpt('balanced_allocation_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of the ``balanced_allocation`` weigher (Kubernetes 1.9 scoring).

Positive prefers hosts whose CPU and memory use stay balanced. Aggregate
metadata may override it.
"""),
    cfg.FloatOpt('allocation_score_weight_multiplier',
                 default=1.0,
                 help="""
Multiplier of the ``allocation_score`` weigher: the mean of
``least_requested`` and ``balanced_allocation``, the host ranking of the
QoS-driven and priority-based policies.

Aggregate metadata may override it.
"""),
]


def register_opts(conf):
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)


def list_opts():
    return {filter_scheduler_group: filter_scheduler_opts}
