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

"""Options of the scheduler itself."""

from oslo_config import cfg

from preemptible_sched.conf import plugins

scheduler_group = cfg.OptGroup(
    'scheduler',
    title='Scheduler options',
    help='General behaviour of the scheduler.')

scheduler_opts = [
    cfg.StrOpt('preemption_strategy',
               default='dual_state',
               help="""
Who may be displaced for a request, which victims are chosen, and how hosts
with victims compare.

The one place the scheduling policy is chosen: the strategy also brings its
own queue policy, weighers and victim action unless ``queue_policy``,
``[filter_scheduler] weighers`` or ``on_victim`` are set.

Possible values:

* A name from the ``preemptible_sched.preemption_strategies`` namespace:
  %(names)s.

  ``dual_state`` (the default): normal requests are filtered on the normal
  view and the cheapest set of preemptible instances is terminated in the
  same pass. ``retry``: the full view first, terminations only when no
  host passes (the two-cycle baseline). ``plain``: a stock filter
  scheduler that never displaces anything. ``qos``: preempt to keep every
  service class at its availability SLO. ``priority``: the Kubernetes
  baseline, a request preempts instances of strictly lower priority.

Related options:

* ``on_victim``, ``queue_policy``, ``[filter_scheduler] weighers``
* ``[preemptible] termination_costs`` (``dual_state``, ``retry``)
* ``[qos] service_classes`` (``qos``, ``priority``)
"""),
    cfg.StrOpt('on_victim',
               choices=[
                   ('terminate', 'Spot semantics: a displaced instance is '
                    'gone for good (state terminated).'),
                   ('requeue', 'QoS semantics: a displaced instance is '
                    'preempted and returns to the pending queue, keeping '
                    'its admission time and accumulated running and '
                    'overhead times; in simulation it then runs only '
                    'the rest of its duration.'),
               ],
               deprecated_opts=[cfg.DeprecatedOpt('on_preempt',
                                                  group='preemptible')],
               help="""
What happens to an instance the scheduler displaces for another request.

Unset: the strategy's own choice (``terminate`` for ``dual_state``,
``retry`` and ``plain``; ``requeue`` for ``qos`` and ``priority``).

Related options:

* ``preemption_strategy``
"""),
    cfg.BoolOpt('terminate_only_when_needed',
                default=True,
                help="""
Whether a request goes to a host with free room, when one passes the
filters, before any host where it would terminate instances.

On (the default), as the preemptible-instances paper says, instances are
terminated only when there are not enough free resources: the termination
cost and the other weighers rank the hosts that need terminations among
themselves, after every host that takes the request as it is. Off, every
host that passes is ranked by the weighers alone, so a cheap termination on
an otherwise better host (more free RAM, say) may win over a free host:
that trades work lost on a preemptible instance for placement quality, and
with Nova-style normalisation a small termination cost next to a large one
can weigh almost nothing.

Related options:

* ``preemption_strategy`` (``dual_state``: ``retry`` and the class-based
  strategies always try free room first)
* ``[filter_scheduler] termination_cost_weight_multiplier``
"""),
    cfg.StrOpt('queue_policy',
               help="""
Order in which pending requests are considered in each pass.

Unset: the strategy's own (``fifo`` for ``dual_state``, ``retry`` and
``plain``; ``qos_slack`` for ``qos``; ``priority`` for ``priority``).

Possible values:

* A name from the ``preemptible_sched.queue_policies`` namespace:
  %(queue_names)s. ``fifo``: oldest first; ``priority``: highest
  request priority first, oldest first among equals; ``qos_slack``:
  at-risk requests first by class importance, then the least slack first.

Related options:

* ``preemption_strategy``, ``on_no_valid_host``
"""),
    cfg.StrOpt('preemption_policy',
               choices=['none', 'billing', 'qos', 'priority'],
               deprecated_for_removal=True,
               deprecated_since='0.2.0',
               deprecated_reason='One option now chooses the policy: '
               '``preemption_strategy``. ``none`` is ``plain``, '
               '``billing`` is ``[preemptible] mode`` (``dual_state`` '
               'by default), ``qos`` and ``priority`` keep their names.',
               help="""
Deprecated: use ``preemption_strategy``. When set, it is translated into a
strategy at start-up; a value that contradicts ``preemption_strategy`` or
``[preemptible] mode`` stops the start-up.
"""),
    cfg.FloatOpt('watchdog_interval',
                 default=10.0,
                 min=0.1,
                 max=86400.0,
                 help="""
Longest time, in seconds, between two scheduling passes.

Passes run on every event (a request arrives, an instance starts, ends or
fails, a host goes up or down, a termination is done) and, when nothing
happens, at least this often, so that time-dependent policies and waiting
requests are looked at again.

Possible values:

* A number of seconds from 0.1 to 86400.
"""),
    cfg.StrOpt('pass_mode',
               default='event',
               choices=[
                   ('event', 'A pass soon after every event, and at least '
                    'every watchdog_interval while requests wait.'),
                   ('quantum', 'Passes only at pass_phase + k * '
                    'pass_quantum, while something waits or runs.'),
               ],
               help="""
When scheduling passes run.

``event`` is what a live scheduler does: every event (a request, an
instance that started or ended, a host that changed) asks for a pass.
``quantum`` runs passes on a fixed grid of times instead, as the
reference-architecture simulator of the SC18 experiments does: a request
arriving between two passes waits for the next one, and the time of that
pass is its recorded submit time.

Related options:

* ``pass_quantum``, ``pass_phase``
"""),
    cfg.FloatOpt('pass_quantum',
                 default=10.0,
                 min=0.001,
                 max=86400.0,
                 help="""
Seconds between two passes when ``pass_mode = quantum``.

Possible values:

* A number of seconds from 0.001 to 86400.

Related options:

* ``pass_mode``, ``pass_phase``
"""),
    cfg.FloatOpt('pass_phase',
                 default=0.0,
                 min=0.0,
                 max=86400.0,
                 help="""
Time of the first pass when ``pass_mode = quantum``: passes run at
``pass_phase + k * pass_quantum`` seconds of the loop's clock, k = 0, 1, ...

The SC18 experiments use a phase of 1 s and a quantum of 10 s on the
trace's own clock (``[replay] time_origin = trace``).

Possible values:

* A number of seconds from 0 to 86400.

Related options:

* ``pass_mode``, ``pass_quantum``
"""),
    cfg.StrOpt('on_no_valid_host',
               default='fail',
               choices=[
                   ('fail', 'Nova semantics: the request fails at once '
                    'with the reason.'),
                   ('wait', 'Batch semantics: the request stays pending '
                    'and is tried again in every pass until it fits.'),
               ],
               help="""
What happens to a request no host can take, even after terminations.

Related options:

* ``watchdog_interval``
"""),
    cfg.BoolOpt('try_every_request',
                default=False,
                help="""
Whether a pass asks the filter scheduler about every request of its queue,
even those an earlier failure in the same pass shows cannot be placed.

False (the default): once a request finds no host, stage T1 drops from the
rest of the pass every request of the same kind (no constraints, zone,
group or SLA level, one instance, the same preemptibility, service class
and priority) that is no smaller on any resource; on a full cloud a pass
over a long queue then costs about as much as a short one. True: every
queued request gets its own filtering (R4) and weighing (R5), and a queue
policy whose order does not change with time (``fifo``, ``srtf``,
``priority``) sorts the whole queue again at every pass (T2) instead of
keeping it in order as requests come and go, as the simulator of the SC18
reference-architecture experiments does, so the time of a pass grows with
the length of the queue. The decisions are the same either way (a dropped
request would have found no host; both orders are the same); only the
time spent per pass, in ``stages.csv``, differs.

Related options:

* ``on_no_valid_host`` (with ``fail``, a request that finds no host
  fails instead of waiting, unless it was preempted)
* ``pass_mode``
"""),
    cfg.IntOpt('max_attempts',
               default=3,
               min=1,
               max=1000,
               help="""
How many times an instance is scheduled before a failing spawn fails it.

When the compute side reports that a spawn failed, the request goes back to
the pending queue until it has been tried this many times.

Possible values:

* A positive integer up to 1000; 1 means never retry.
"""),
    cfg.FloatOpt('compute_deadline',
                 default=600.0,
                 min=1.0,
                 max=86400.0,
                 help="""
Seconds the compute side has to answer a ``spawn`` or a ``terminate``.

Every spawn and every termination the scheduler asks for (a victim's, or
an instance's whose request was deleted) gets an answer by then, or the
scheduler asks the host what it really runs (``list_instances``) and
settles: a victim that is gone is confirmed, one still there is asked to
terminate again (rolled back after three attempts); an instance that never
arrived is spawned elsewhere, one that runs is taken as started. A host
that cannot be asked is asked again a deadline later. The clock is the
scheduler's (virtual in the simulator).

A message lost on the way (a crashed agent, a broker restart) therefore
delays a decision by at most this long, never forever. Keep it above the
slowest boot plus ``[preemptible] termination_grace_seconds``: an answer
that is merely slow is settled early, harmlessly but with an extra
``list_instances`` call.

Possible values:

* A number of seconds from 1 to 86400.
"""),
    cfg.IntOpt('random_seed',
               default=0,
               help="""
Seed of the random generator that picks among the best
``[filter_scheduler] host_subset_size`` hosts.

Two runs with the same seed, configuration and input make the same
decisions.

Possible values:

* Any integer.
"""),
]


plugins.fill_names(scheduler_opts)


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)


def list_opts():
    return {scheduler_group: scheduler_opts}
