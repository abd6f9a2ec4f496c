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

"""Options of the scheduler service and the compute agents (oslo.messaging).

The messaging transport itself is configured with oslo.messaging's own
options (``[DEFAULT] transport_url``, ``[oslo_messaging_rabbit]``,
``[oslo_messaging_notifications]``...), which it registers when the service
builds its transport; see :mod:`preemptible_sched.service`. This group holds
what is ours: topic names, timeouts, and how the service runs its clock.
"""

from oslo_config import cfg

#: ``transport_url`` when none is configured: in-process messaging, enough
#: for tests and for a scheduler that runs its blades itself.
DEFAULT_TRANSPORT_URL = 'fake://'

service_group = cfg.OptGroup(
    'service',
    title='Scheduler service and compute agents',
    help="""
How ``preemptible-scheduler``, ``preemptible-compute`` and the
``preemptible-sched submit|list|show|delete`` client find each other over
oslo.messaging, and how fast the service's clock runs. The transport is
oslo.messaging's ``[DEFAULT] transport_url``: ``fake://`` (in-process) unless
configured, ``rabbit://USER:PASSWORD@HOST:5672/`` for RabbitMQ.
""")

service_opts = [
    cfg.StrOpt('scheduler_topic',
               default='preemptible-scheduler',
               help="""
Topic the scheduler service listens on for client requests.

The clients (``preemptible-sched submit`` ...) send ``submit``, ``show``,
``list`` and ``delete`` here. The compute agents report their hosts and
instance events on ``<scheduler_topic>_reports``, a topic of its own so that
reports are handled one at a time, in the order they arrive.

Possible values:

* A topic name; give every scheduler sharing a broker a name of its own.

Related options:

* ``compute_topic``
"""),
    cfg.StrOpt('compute_topic',
               default='preemptible-compute',
               help="""
Topic the compute agents listen on, one server per host name.

The scheduler casts ``spawn`` and ``terminate`` to ``<compute_topic>`` on
server ``<host>``, and calls ``list_instances`` there.

Possible values:

* A topic name, the same for the scheduler and its agents.

Related options:

* ``scheduler_topic``
"""),
    cfg.FloatOpt('rpc_timeout',
                 default=30.0,
                 min=0.1,
                 max=3600.0,
                 help="""
Seconds (wall clock) to wait for the answer to a call.

Applies to the client's calls to the scheduler and to the scheduler's
``list_instances`` calls to the agents (made at start-up, to recover the
decisions a crash left open). An agent that does not answer in time stops
the scheduler's start: it cannot know what that host runs.

Possible values:

* A positive number of seconds, at most 3600.
"""),
    cfg.FloatOpt('heartbeat_interval',
                 default=10.0,
                 min=0.1,
                 max=3600.0,
                 help="""
Seconds (wall clock) between two registrations of a compute agent.

An agent registers its host with the scheduler when it starts, when the
scheduler asks (at the scheduler's start-up) and then this often, so a
scheduler that started after it still learns about its host.

Possible values:

* A positive number of seconds, at most 3600.

Related options:

* ``host_wait_seconds``
"""),
    cfg.IntOpt('heartbeat_misses',
               default=3,
               min=1,
               max=1000,
               help="""
Heartbeats an agent may miss before the scheduler takes its host as
unreachable.

A host whose agent has not registered for ``heartbeat_misses *
heartbeat_interval`` seconds gets no new instances and its pending
decisions are rolled back; its instances are kept as they are. When the
agent registers again the scheduler asks it what it runs and reconciles:
what still runs runs on, what is gone ends, and anything the scheduler no
longer expects there is terminated. An agent that registers with a new boot
id restarted with an empty blade: its instances are lost.

Possible values:

* A positive number of heartbeats.

Related options:

* ``heartbeat_interval``
"""),
    cfg.FloatOpt('host_wait_seconds',
                 default=30.0,
                 min=0.0,
                 max=86400.0,
                 help="""
Seconds (wall clock) the scheduler waits at start-up for the hosts it knows.

A restarted scheduler must ask every host it had placed instances on what
runs there before it completes or rolls back the decisions it had left open.
It waits this long for the agents of the hosts in its database to register;
a host that did not is taken as down, and its instances as lost.

Possible values:

* 0 (do not wait) or a positive number of seconds up to 86400, larger
  than ``heartbeat_interval``.

Related options:

* ``heartbeat_interval``
"""),
    cfg.FloatOpt('leader_lease_seconds',
                 default=6.0,
                 min=2.0,
                 max=300.0,
                 help="""
Seconds (wall clock) the database keeps the lead of a scheduler that stopped
talking to it.

Any number of schedulers may run on one ``scheduler_topic`` and database:
one leads, the others wait as standbys. The lead is a lock in the database
server. When the leader dies the server drops it at once and a standby takes
over within ``standby_poll_seconds``; when the leader is cut off from the
database (network, frozen process) the server drops it after this many
seconds without a word from the leader, and the leader, which checks its lock
every quarter of it, stops acting after two thirds of it. A standby that
takes over begins a new term: writes of the old leader fail from then on.

Possible values:

* A number of seconds from 2 to 300. Shorter leases take over sooner after a
  network cut; a leader frozen for longer than this (swap, a debugger) loses
  the lead.

Related options:

* ``standby_poll_seconds``
"""),
    cfg.FloatOpt('standby_poll_seconds',
                 default=1.0,
                 min=0.1,
                 max=60.0,
                 help="""
Seconds (wall clock) between two tries of a standby scheduler to take the lead.

A scheduler that finds another one leading its topic waits as a standby and
tries again this often; the time a standby takes over after the leader's
death is at most this plus its start-up (recovery from the journal, the
agents registering).

Possible values:

* A number of seconds from 0.1 to 60.

Related options:

* ``leader_lease_seconds``
"""),
    cfg.FloatOpt('time_scale',
                 default=1.0,
                 min=0.001,
                 max=1000.0,
                 help="""
How much faster than the wall clock the service's clock runs.

Boot and termination times of the fake driver, the termination grace
period, the watchdog and instance durations are all read on this clock: 10
makes a 2-second boot take 0.2 s. Use 1 in production; larger values make
tests and demonstrations fast. The scheduler and its agents must use the
same value.

Possible values:

* A positive number up to 1000; 1.0 is real time.

Related options:

* ``[preemptible] termination_grace_seconds``,
  ``[fake_driver] termination_seconds``
"""),
    cfg.StrOpt('compute_driver',
               default='rpc',
               help="""
Compute driver of the scheduler service.

Possible values:

* ``rpc``: the hosts are ``preemptible-compute`` agents, reached over the
  messaging transport (a real deployment, or the emulated testbed as
  separate processes).
* ``fake``: the service emulates the ``[fake_driver]`` blades itself, in
  its own process (a self-contained demonstration).
* Any other name registered in ``preemptible_sched.compute_drivers``.
"""),
    cfg.FloatOpt('startup_timeout',
                 default=60.0,
                 min=1.0,
                 max=86400.0,
                 help="""
Seconds (wall clock) a service waits at start-up for its database and its
message broker.

``preemptible-scheduler`` checks that ``[database] connection`` answers
and, unless the transport is ``fake://``, that a broker of ``[DEFAULT]
transport_url`` accepts connections; ``preemptible-compute`` checks the
broker. Each is tried again every second until it answers or this time is
up; then the service exits with code 1 and one line saying what could not
be reached. SIGTERM and SIGINT stop the wait at once (exit code 0).
``preemptible-sched-manage`` and ``preemptible-sched-status`` wait as long
for the database.

Possible values:

* A number of seconds from 1 to 86400.

Related options:

* ``[database] connection``, ``[DEFAULT] transport_url``
"""),
]


def register_opts(conf):
    conf.register_group(service_group)
    conf.register_opts(service_opts, group=service_group)


def list_opts():
    return {service_group: service_opts}


def report_topic(conf):
    """The topic agents report on: ``<scheduler_topic>_reports``."""
    return '%s_reports' % conf.service.scheduler_topic
