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

"""Service classes: availability SLOs and how hard the scheduler keeps them.

``[qos] service_classes`` lists the classes; each has its own group
``[service_class_<name>]``. The three classes of the QoS-driven scheduler
(gold, silver, bronze) come with their published defaults; any other name
must at least set ``slo`` and ``importance``.
"""

from oslo_config import cfg

qos_group = cfg.OptGroup(
    'qos',
    title='Service classes',
    help='Availability SLO service classes and QoS-driven preemption.')

qos_opts = [
    cfg.ListOpt('service_classes',
                default=['gold', 'silver', 'bronze'],
                help="""
Names of the service classes requests may carry.

Each name has its options in the group ``[service_class_<name>]`` (``slo``,
``importance``, ``priority``, ``safety_margin``,
``overhead_threshold_extra``).

Related options:

* ``default_service_class``
"""),
    cfg.StrOpt('default_service_class',
               help="""
Class of a request that names none.

Unset, such a request has no SLO: the QoS-driven policy never considers it
at risk and may preempt it for any request of a class.

Possible values:

* Empty, or one of ``service_classes``.
"""),
    cfg.FloatOpt('preempt_exempt_seconds',
                 default=120.0,
                 min=0.0,
                 help="""
Seconds an instance runs, after each start, before the QoS-driven policy
may preempt it again (Slurm calls this ``PreemptExemptTime``).

When the cloud is full every class sits near its SLO and the times to
violation of all instances bunch up at the safety margin; the literal
policy then preempts an instance that will itself be at risk a few seconds
later, and the allocation overhead of that churn eats the capacity the
SLOs need. This bounds how often one slot can change hands. Ignored (0)
under ``literal_policy``.

Related options:

* ``[service_class_<name>] safety_margin``
* ``literal_policy``
"""),
    cfg.BoolOpt('literal_policy',
                default=False,
                help="""
Run the QoS-driven policy as the paper states it, without the two rules this
project adds.

The published rule lets any pending request displace the instances it
precedes in the queue order whenever it does not fit, and has no exempt
time. This project adds two rules by default: only an at-risk request (time
to violation below its class's safety margin) may preempt, and an instance
may not be preempted again within ``preempt_exempt_seconds`` of its start.
On a saturated cloud the literal policy makes instances change hands every
few seconds, and the allocation overhead of that churn costs the classes
their SLOs (see the simulation guide's figures on the validation workload).
True turns both rules off, for studying the published policy: every request
may preempt and the exempt time is 0. Its passes also run on every
``[scheduler] watchdog_interval`` while requests wait, since the queue order
between a request and a running instance can change with time alone.

Possible values:

* False (the two rules, the default) or True (the literal policy).

Related options:

* ``preempt_exempt_seconds``
"""),
    cfg.BoolOpt('preempt_booting',
                default=False,
                help="""
Whether the ``qos`` and ``priority`` preemption strategies may choose an
instance that is still booting as a victim.

By default only instances that have started running are victims: a booting
instance has accumulated no running time, and preempting it throws away
the allocation overhead already spent on it. The Kubernetes scheduler,
which the ``priority`` baseline models, does consider pods that are still
starting; True does the same (for ``qos``, a booting instance is past no
exempt time: that counts from a start). The ``spot`` strategies always
consider booting preemptible instances.

Possible values:

* False (running instances only, the default) or True.

Related options:

* ``[scheduler] preemption_strategy``
* ``preempt_exempt_seconds``
"""),
    cfg.FloatOpt('slo_tolerance',
                 default=0.01,
                 min=0.0,
                 max=1.0,
                 help="""
How far below its class's SLO an instance's availability may be and still
count as fulfilling it, in reports (``slo_fulfillment``).

Availability counts only running time, so the boot time alone keeps every
instance below 1.0: with no tolerance a gold SLO of 1.0 could never be met.
The QoS paper publishes no tolerance; 0.01 is this project's choice: on the
validation workload every gold instance reaches at least 0.99 under both
policies, and only its boot time keeps it from 1.0.
Reports give the strict share (availability at least the SLO, the
published definition) beside it as ``slo_fulfillment_strict``.
"""),
    cfg.FloatOpt('gini_window_seconds',
                 default=3600.0,
                 min=1.0,
                 max=365 * 86400.0,
                 help="""
Width of the windows of the windowed Gini coefficient, in seconds.

Reports give, per class, the Gini coefficient of availability over every
request (``gini``) and over the requests active at about the same time
(``gini_windowed``): the run is cut into windows of this width, the Gini is
computed among the requests active in each window (at least two) and
averaged over the windows. Requests far apart in time saw different loads;
the windowed figure says how evenly the scheduler treated requests that
competed with each other, as the QoS paper describes its Gini.

Possible values:

* Seconds, at least 1; a window as long as the run gives ``gini``.
"""),
]

#: Published defaults of the QoS-driven scheduler's classes:
#: name -> (slo, importance, priority).
DEFAULT_CLASSES = {
    'gold': (1.0, 1, 3.0),
    'silver': (0.9, 2, 2.0),
    'bronze': (0.5, 3, 1.0),
}


def class_group(name):
    return cfg.OptGroup(
        'service_class_%s' % name,
        title='Service class %s' % name,
        help='Options of the service class %r.' % name)


def class_opts(name):
    """The options of one class, with that class's defaults."""
    slo, importance, priority = DEFAULT_CLASSES.get(name, (None,) * 3)
    return [
        cfg.FloatOpt('slo', default=slo, min=0.0, max=1.0, help="""
Availability objective: the share of the time since admission an instance
of this class should spend running (1.0 means always).
"""),
        cfg.IntOpt('importance', default=importance, min=1, help="""
Rank of the class: 1 is the most important. The QoS-driven queue puts
at-risk requests of more important classes first, and only a more important
class may preempt an instance that is at risk itself.
"""),
        cfg.FloatOpt('priority', default=priority, help="""
Priority of the class for the Kubernetes-style ``priority`` policies
(higher preempts lower). Unset, it is the number of classes + 1 minus
``importance``.
"""),
        cfg.FloatOpt('safety_margin', default=10.0, min=0.0, help="""
Seconds of slack below which an instance of this class is *at risk*: its
time to violation (how long it could still wait without breaking its SLO)
is smaller than this.
"""),
        cfg.FloatOpt('overhead_threshold_extra', default=0.0, help="""
Added to ``1 - slo`` to give the preemption overhead ratio (allocation
overhead / (overhead + running time)) at which an instance of this class is
no longer preempted. 0 bounds the time lost to preemptions by what the SLO
allows; gold (slo 1.0) is then never preempted.
"""),
    ]


def register_class(conf, name):
    """Register ``[service_class_<name>]`` unless it exists already."""
    group = class_group(name)
    if group.name not in conf:
        conf.register_group(group)
        conf.register_opts(class_opts(name), group=group)
    return group.name


def register_opts(conf):
    conf.register_group(qos_group)
    conf.register_opts(qos_opts, group=qos_group)
    for name in DEFAULT_CLASSES:
        register_class(conf, name)


def list_opts():
    opts = {qos_group: qos_opts}
    for name in DEFAULT_CLASSES:
        opts[class_group(name)] = class_opts(name)
    return opts
