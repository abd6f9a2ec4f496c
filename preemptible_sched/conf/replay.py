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

"""Options of ``[replay]``: how a trace's times are replayed.

Read by the simulator (``preemptible-sched simulate`` and ``experiment``)
when it reads a workload; the scheduler itself never sees them.
"""

from oslo_config import cfg

replay_group = cfg.OptGroup(
    'replay',
    title='Workload replay',
    help='How the simulator replays the times of a workload trace.')

replay_opts = [
    cfg.StrOpt('time_origin',
               default='first_request',
               choices=[
                   ('first_request', 'Shift every time so the first '
                    'request arrives at 0 s.'),
                   ('trace', 'Keep the times as the trace writes them '
                    '(negative times are refused).'),
               ],
               help="""
Where the simulated clock starts relative to the trace.

Traces start at arbitrary offsets, so by default the times are shifted to
put the first request at 0 s. Keep the trace's own times when passes run
on a grid aligned to them (``[scheduler] pass_mode = quantum`` with a
``pass_phase``), as in the SC18 experiments.

Related options:

* ``[scheduler] pass_phase``
"""),
    cfg.StrOpt('task_submit',
               default='task',
               choices=[
                   ('task', 'Each task enters the queue at its own submit '
                    'time.'),
                   ('workflow', 'Every task of a workflow enters the queue '
                    'at the workflow\'s submit time.'),
               ],
               help="""
When the tasks of a workflow trace enter the queue.

A workflow's submit time is the one its trace gives (the Workflow Trace
Archive's ``workflows`` table), else the earliest submit time of its
tasks. Dependencies hold either way: a task is only placed once the tasks
it depends on have ended. The SC18 experiments use ``task``.
"""),
    cfg.IntOpt('sample_users',
               default=0,
               min=0,
               max=1000,
               help="""
Sample the workload by user in this many k-means clusters (0: replay
every user).

As the QoS-driven scheduler paper did with the Google 2011 trace: each
user is described by their number of requests and the variances of
their CPU, memory and duration requests (standardised), the users are
clustered with k-means and ``sample_share`` of each cluster's users is
kept with all their requests. Every request needs a user (the Google
``task_events`` username, the canonical CSV's ``user`` column). Applied
before ``--limit``.

Related options:

* ``sample_share``
* ``sample_seed``
"""),
    cfg.FloatOpt('sample_share',
                 default=0.1,
                 min=0.0,
                 max=1.0,
                 help="""
Share of each cluster's users kept by ``sample_users`` (at least one user
of each non-empty cluster).

Related options:

* ``sample_users``
"""),
    cfg.IntOpt('sample_seed',
               default=0,
               min=0,
               max=2 ** 32 - 1,
               help="""
Seed of the k-means seeding and of the draw of the users kept by
``sample_users``: one seed, one sample.

Related options:

* ``sample_users``
"""),
]


def register_opts(conf):
    conf.register_group(replay_group)
    conf.register_opts(replay_opts, group=replay_group)


def list_opts():
    return {replay_group: replay_opts}
