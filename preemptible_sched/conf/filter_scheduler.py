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

"""Options of the filter scheduler: which filters and weighers run, and how."""

from oslo_config import cfg

from preemptible_sched.conf import plugins

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
  %(filters)s, or a third-party filter registered there.

Related options:

* ``weighers``
"""),
    cfg.ListOpt('weighers',
                help="""
Weighers that rank the hosts that passed the filters, always on the full view.

Each weigher's raw weights are normalised to [0, 1] over the passing hosts
and multiplied by its ``<name>_weight_multiplier``; the host with the
highest sum wins. Unset: the preemption strategy's own (``ram``, ``cpu``,
``termination_cost`` for ``dual_state``, ``retry`` and ``plain``;
``allocation_score`` for ``qos`` and ``priority``).

Possible values:

* A list of names from the ``preemptible_sched.weighers`` namespace:
  %(weighers)s, or a third-party weigher registered there.

Related options:

* ``<name>_weight_multiplier``
* ``[scheduler] preemption_strategy``
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
    cfg.BoolOpt('kubernetes_integer_scores',
                default=True,
                help="""
Compute the Kubernetes scores as Kubernetes 1.9 does, in integers.

The ``least_requested``, ``balanced_allocation`` and ``allocation_score``
weighers reproduce Kubernetes' default priorities, which count CPU in
millicores and memory in bytes and truncate every score to an integer from
0 to 10: ``(capacity - requested) * 10 // capacity`` per resource (0 when
the request does not fit) and their mean in integer division for
``least_requested``; ``int((1 - |cpu fraction - memory fraction|) * 10)``
for ``balanced_allocation``. Hosts whose scores round to the same integer
are then tied, as they are in Kubernetes, and the tie goes to the seeded
random choice (Kubernetes 1.9 takes them in turn). False scores them with
the exact real-valued formulas, which separate such hosts.

Possible values:

* True (Kubernetes' integers, the QoS paper's model) or False (reals).

Related options:

* ``weighers``
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
    cfg.IntOpt('heap_keep_mb',
               default=64,
               min=0,
               max=1024,
               help="""
Freed C heap, in MiB, the scheduler's process keeps mapped from one pass to
the next (glibc only: ``mallopt``'s trim threshold; blocks up to this size,
32 MiB at most, come from the heap rather than from mappings of their own).

A pass over thousands of hosts allocates and frees megabytes of numpy
temporaries. With glibc's defaults the heap shrinks after each pass and grows
again in the next, and every page it grows by is faulted in and zeroed again:
about 900 page faults and a quarter of the CPU of a saturated decision at
10,000 hosts. Set once per process, when the scheduler is built; the largest
value asked in a process stays.

Possible values:

* 0: leave the C library's defaults.
* A number of MiB; the freed heap kept is memory the process holds.
"""),
]


plugins.fill_names(filter_scheduler_opts)


def register_opts(conf):
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)


def list_opts():
    return {filter_scheduler_group: filter_scheduler_opts}
