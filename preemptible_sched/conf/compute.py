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

"""Defaults for compute hosts that do not report their own values."""

from oslo_config import cfg

compute_group = cfg.OptGroup(
    'compute',
    title='Compute host defaults',
    help="""
Defaults applied to every compute host that does not set the value itself
(a host in a scenario file or an infrastructure file may override each one).
Capacity follows Placement's formula: (total - reserved) * allocation_ratio.
""")

compute_opts = [
    cfg.FloatOpt('cpu_allocation_ratio',
                 default=1.0,
                 min=0.0,
                 help="""
Virtual CPU to physical CPU allocation ratio.

The default of 1.0 matches the blade testbed of the original evaluation,
where exactly four ``medium`` instances fit an 8-CPU blade. Raise it to
overcommit CPUs.

Possible values:

* Any positive float; 0.0 makes every host unusable for CPU.

Related options:

* ``reserved_host_cpus``
"""),
    cfg.FloatOpt('ram_allocation_ratio',
                 default=1.0,
                 min=0.0,
                 help="""
Virtual RAM to physical RAM allocation ratio.

Possible values:

* Any positive float. Values above 1.0 overcommit memory.

Related options:

* ``reserved_host_memory_mb``
"""),
    cfg.FloatOpt('disk_allocation_ratio',
                 default=1.0,
                 min=0.0,
                 help="""
Virtual disk to physical disk allocation ratio.

Possible values:

* Any positive float. Values above 1.0 overcommit disk.

Related options:

* ``reserved_host_disk_gb``
"""),
    cfg.FloatOpt('reserved_host_cpus',
                 default=0.0,
                 min=0.0,
                 help="""
Number of host CPUs kept for the host itself, before the allocation ratio.

Possible values:

* Any non-negative float.
"""),
    cfg.FloatOpt('reserved_host_memory_mb',
                 default=0.0,
                 min=0.0,
                 help="""
Memory in MB kept for the host itself, before the allocation ratio.

The default is 0 because the emulated blades expose exactly the memory the
evaluation assumed (16384 MB, four ``medium`` instances).

Possible values:

* Any non-negative number of MB.
"""),
    cfg.FloatOpt('reserved_host_disk_gb',
                 default=0.0,
                 min=0.0,
                 help="""
Disk in GB kept for the host itself, before the allocation ratio.

Possible values:

* Any non-negative number of GB.
"""),
    cfg.StrOpt('default_availability_zone',
               default='nova',
               help="""
Availability zone of hosts that belong to no aggregate naming one.

Possible values:

* Any zone name.

Related options:

* The ``availability_zone`` filter compares a request's zone with this.
"""),
]


def register_opts(conf):
    conf.register_group(compute_group)
    conf.register_opts(compute_opts, group=compute_group)


def list_opts():
    return {compute_group: compute_opts}
