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

"""Options of the fake compute driver (the emulated blade testbed)."""

from oslo_config import cfg
from oslo_config import types

fake_driver_group = cfg.OptGroup(
    'fake_driver',
    title='Fake compute driver',
    help="""
The ``fake`` compute driver emulates the IBM HS21 blade testbed of the
original evaluation: identical blades, boot times sampled from measured
figures, and per-instance CPU utilisation. It runs on whatever clock it is
given, so the same options serve the simulator (virtual time) and the
``preemptible-compute --driver fake`` agent (real time, optionally scaled).
""")

#: Longest boot, termination or sampling interval, in seconds: a day.
MAX_SECONDS = 86400.0

fake_driver_opts = [
    cfg.IntOpt('host_count',
               default=4,
               min=1,
               max=10000,
               help="""
Number of blades the driver owns when it is not given its hosts.

The blades are named ``host-A``, ``host-B``, ... ``host-Z``, then
``host-27``, ``host-28``, ... Four blades (``host-A`` to ``host-D``) are what
the evaluation tables were produced on.

Possible values:

* A positive integer up to 10000 (each blade is emulated in the process).

Related options:

* ``vcpus``, ``memory_mb``, ``disk_gb``
"""),
    cfg.IntOpt('vcpus',
               default=8,
               min=1,
               help="""
CPUs of each emulated blade.

An HS21 blade has two quad-core Xeon E5345, hence 8.

Possible values:

* A positive integer.

Related options:

* ``[compute] cpu_allocation_ratio`` and ``reserved_host_cpus`` apply on
  top, for the scheduler and for the driver's own refusal to overcommit.
"""),
    cfg.IntOpt('memory_mb',
               default=16384,
               min=1,
               help="""
Memory of each emulated blade, in MB.

16384 MB is what makes exactly four ``medium`` instances (4000 MB each) fit
a blade, as in the evaluation.

Possible values:

* A positive number of MB.

Related options:

* ``[compute] ram_allocation_ratio``, ``reserved_host_memory_mb``
"""),
    cfg.IntOpt('disk_gb',
               default=500,
               min=0,
               help="""
Disk of each emulated blade, in GB.

500 GB is large enough that disk never limits the ``small``, ``medium`` and
``large`` flavors of the evaluation before CPU or memory does.

Possible values:

* A non-negative number of GB.

Related options:

* ``[compute] disk_allocation_ratio``, ``reserved_host_disk_gb``
"""),
    cfg.ListOpt('boot_times_hot',
                item_type=types.Float(min=0.0, max=MAX_SECONDS),
                default=[1.5, 1.8, 1.9, 2.0, 2.0, 2.0, 2.1, 2.3, 2.6, 3.2],
                help="""
Boot times, in seconds, of an instance whose image the host has run before.

Each boot draws one value uniformly from this list (seeded, so a run can be
reproduced). The default (median 2.0 s, mean 2.14 s) together with the
slower cold starts reproduces the allocation overhead measured on the
testbed: mean about 2.4 s, median 2 s.

Possible values:

* A non-empty list of numbers of seconds from 0 to 86400.

Related options:

* ``boot_times_cold``
"""),
    cfg.ListOpt('boot_times_cold',
                item_type=types.Float(min=0.0, max=MAX_SECONDS),
                default=[2.5, 3.0, 3.5, 4.0, 4.5, 6.0],
                help="""
Boot times, in seconds, of an instance whose image is new to the host.

The image must be fetched first, so these are slower than the hot ones.
Which boots are hot is ``hot_start``'s choice.

Possible values:

* A non-empty list of numbers of seconds from 0 to 86400.

Related options:

* ``boot_times_hot``, ``hot_start``
"""),
    cfg.StrOpt('hot_start',
               default='instance',
               choices=[
                   ('instance', 'a boot is hot when this instance has run '
                    'on this host before (a restart in place); its first '
                    'boot on any host, a preempted instance restarting on '
                    'another host included, is cold'),
                   ('image', 'a boot is hot when the host has run an '
                    'instance of the same image before (an image cache '
                    'shared by every instance)'),
               ],
               help="""
When a boot draws from ``boot_times_hot`` rather than ``boot_times_cold``.

The QoS paper's allocation overhead is hot when the instance itself ran on
the host before (its container and image are there) and cold otherwise, so
a preempted instance restarting elsewhere pays a cold start: ``instance``,
the default. ``image`` models a host-wide image cache instead, where every
instance of an image the host has run starts hot (the behaviour of releases
before this option), which makes almost every boot hot when the workload
names no images.

Related options:

* ``boot_times_hot``, ``boot_times_cold``
"""),
    cfg.FloatOpt('termination_seconds',
                 default=0.5,
                 min=0.0,
                 max=MAX_SECONDS,
                 help="""
Time, in seconds, from a termination request to the instance being gone.

Possible values:

* A number of seconds from 0 to 86400; 0 terminates at once (still
  reported through the clock, never from inside the request).
"""),
    cfg.StrOpt('utilization_model',
               default='constant',
               choices=[
                   ('constant', 'Every running instance uses '
                    '``utilization_share`` of its vCPUs.'),
                   ('random_walk', 'A seeded random walk per instance, '
                    'starting at ``utilization_share``, moving at most '
                    '``utilization_step`` every ``utilization_interval`` '
                    'seconds, bounded to [0, 1].'),
                   ('replay', 'Replay the trace in ``utilization_trace`` '
                    'by the instance\'s running time, each instance from '
                    'its own seeded starting sample.'),
               ],
               help="""
How the CPU utilisation each instance reports is produced.

The utilisation is the share (0 to 1) of the instance's vCPUs it uses,
reported by ``list_instances`` for running instances (0 while building).

Related options:

* ``utilization_share``, ``utilization_step``, ``utilization_interval``,
  ``utilization_trace``
"""),
    cfg.FloatOpt('utilization_share',
                 default=0.5,
                 min=0.0,
                 max=1.0,
                 help="""
CPU utilisation of every instance with the ``constant`` model, and the
starting point of each walk with the ``random_walk`` model.

Possible values:

* A share between 0.0 and 1.0.

Related options:

* ``utilization_model``
"""),
    cfg.FloatOpt('utilization_step',
                 default=0.05,
                 min=0.0,
                 max=1.0,
                 help="""
Largest change of utilisation per step of the ``random_walk`` model.

Each step adds a value drawn uniformly from [-step, +step]; the result is
clamped to [0, 1].

Possible values:

* A share between 0.0 (constant) and 1.0.

Related options:

* ``utilization_interval``, ``utilization_model``
"""),
    cfg.FloatOpt('utilization_interval',
                 default=300.0,
                 min=1.0,
                 help="""
Seconds of running time between two steps of the ``random_walk`` model.

The default of 300 s is the sampling interval of the Bitbrains traces.
The walk depends only on the instance's running time, never on when it is
looked at, so reading it does not change a run.

Possible values:

* A number of seconds of 1 or more.

Related options:

* ``utilization_step``, ``utilization_model``
"""),
    cfg.StrOpt('utilization_trace',
               help="""
Path of the utilisation trace the ``replay`` model replays.

A CSV file in the Bitbrains GWA-T-12 format: ``;``-separated, with the
header ``Timestamp [ms]; CPU cores; CPU capacity provisioned [MHZ];
CPU usage [MHZ]; ...`` (columns are found by name; without a header the
first, third and fourth columns are used). The utilisation of a sample is
CPU usage / CPU capacity provisioned, clamped to [0, 1]; each sample holds
until the next one, and the trace loops. The timestamps of the published
traces are Unix seconds despite the ``[ms]`` in the header, and are read as
seconds. A malformed file stops the driver at start-up with an error naming
the file and the line.

A directory is read as a Bitbrains trace in the OpenDC layout
(``tasks.parquet`` with each VM's ``cpu_capacity``, ``fragments.parquet``
with its five-minute ``cpu_usage`` samples, as in the ``bitbrains_small``
data set): each instance then replays one VM, drawn from the seeded
generator.

Possible values:

* A path to a readable trace file or directory; required with
  ``replay``.

Related options:

* ``utilization_model``
"""),
    cfg.IntOpt('random_seed',
               default=0,
               help="""
Seed of the driver's random draws (boot times, walks, replay offsets) when
the code creating the driver does not pass its own.

The same seed and the same sequence of requests give the same event times.

Possible values:

* Any integer.
"""),
    cfg.FloatOpt('reference_cpu_mhz',
                 min=1.0,
                 max=1e6,
                 help="""
Core speed, in MHz, that the run times of a workload are given for.

When set, an instance with a duration of ``d`` seconds on a host whose
``cpu_mhz`` is known runs ``d * reference_cpu_mhz / cpu_mhz`` seconds
(faster hosts finish sooner); hosts of unknown speed run it in ``d``.
Unset (the default), every host runs it in ``d``. The SC18 experiments
use 4000 MHz.

Possible values:

* A speed in MHz from 1 to 1000000, or unset.

Related options:

* ``integer_durations``
"""),
    cfg.BoolOpt('integer_durations',
                default=False,
                help="""
Round the scaled run time down to whole seconds.

``floor(d * reference_cpu_mhz / cpu_mhz)``, as the SC18 simulator does
(an 11 s task takes 10 s at 4100 MHz and 12 s at 3500 MHz for a
reference of 4000 MHz). Only used with ``reference_cpu_mhz``.

Related options:

* ``reference_cpu_mhz``
"""),
]


def register_opts(conf):
    conf.register_group(fake_driver_group)
    conf.register_opts(fake_driver_opts, group=fake_driver_group)


def list_opts():
    return {fake_driver_group: fake_driver_opts}
