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


"""The ``[fake_driver]`` options the fake compute driver is built from.

The blades it emulates when it is not given its hosts (``host_count``
identical blades ``host-A``, ``host-B``, ... of ``vcpus`` / ``memory_mb``
/ ``disk_gb``), its boot-time lists and its utilisation model. Read once,
when a :class:`~preemptible_sched.compute.fake.FakeDriver` is built: a bad
boot-time list or utilisation trace raises
:class:`~preemptible_sched.exception.InvalidInput` there.
"""

import os
import string

from preemptible_sched.compute import utilization
from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched import objects


def blade_name(index):
    """``host-A`` ... ``host-Z`` for indexes 0..25, then ``host-27``..."""
    if index < len(string.ascii_uppercase):
        return 'host-%s' % string.ascii_uppercase[index]
    return 'host-%d' % (index + 1)


def default_hosts():
    """The blades of ``[fake_driver]``, as :class:`objects.Host`."""
    conf = CONF.fake_driver
    return [objects.Host(name=blade_name(index), vcpus=conf.vcpus,
                         memory_mb=conf.memory_mb, disk_gb=conf.disk_gb)
            for index in range(conf.host_count)]


def boot_times(option):
    """The boot times ``[fake_driver] <option>`` lists, as floats."""
    values = [float(value) for value in getattr(CONF.fake_driver, option)]
    if not values:
        raise exception.InvalidInput('[fake_driver] %s' % option, None,
                                     'needs at least one boot time')
    return values


def utilization_model():
    """The utilisation model ``[fake_driver]`` configures.

    Raises :class:`InvalidInput` for a ``replay`` without a trace or with a
    malformed one, so a bad configuration stops the driver at start-up.
    """
    conf = CONF.fake_driver
    if conf.utilization_model == 'constant':
        return utilization.ConstantUtilization(conf.utilization_share)
    if conf.utilization_model == 'random_walk':
        return utilization.RandomWalkUtilization(conf.utilization_share,
                                                 conf.utilization_step,
                                                 conf.utilization_interval)
    if not conf.utilization_trace:
        raise exception.InvalidInput(
            '[fake_driver] utilization_trace', None,
            'required when utilization_model = replay')
    if os.path.isdir(conf.utilization_trace):
        return utilization.PooledTraceUtilization.from_directory(
            conf.utilization_trace)
    return utilization.TraceUtilization.from_file(conf.utilization_trace)
