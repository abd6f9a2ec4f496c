"""Options of the scheduler itself."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup(
    'scheduler',
    title='Scheduler options',
    help='General behaviour of the scheduler.')

scheduler_opts = [
    cfg.StrOpt('queue_policy',
               default='fifo',
               help="""
Order in which pending requests are considered in each pass.

Possible values:

* A name from the ``preemptible_sched.queue_policies`` namespace:
  ``fifo`` (oldest first), ``priority`` (highest request priority first,
  oldest first among equals) or ``qos_slack`` (at-risk requests first by
  class importance, then the least slack first).

Related options:

* ``on_no_valid_host``
"""),
    cfg.StrOpt('preemption_policy',
               default='billing',
               help="""
Which running instances a request may displace, and how they are chosen.

Possible values:

* A name from the ``preemptible_sched.preemption_policies`` namespace:
  ``none`` (nothing is ever displaced: a stock filter scheduler),
  ``billing`` (spot semantics: normal requests terminate the cheapest set of
  instances flagged preemptible, under ``[preemptible] mode`` and
  ``termination_costs``), ``qos`` (the QoS-driven policy: instances are
  preempted to keep every service class at its availability SLO) or
  ``priority`` (the Kubernetes baseline: a request preempts instances of
  strictly lower priority, lowest first).

Related options:

* ``[preemptible] on_preempt``
* ``queue_policy`` (``qos_slack`` goes with ``qos``, ``priority`` with
  ``priority``)
* ``[qos] service_classes``
"""),
    cfg.FloatOpt('watchdog_interval',
                 default=10.0,
                 min=0.1,
                 help="""
Longest time, in seconds, between two scheduling passes.

Passes run on every event (a request arrives, an instance starts, ends or
fails, a host goes up or down, a termination is done) and, when nothing
happens, at least this often, so that time-dependent policies and waiting
requests are looked at again.

Possible values:

* A positive number of seconds.
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
    cfg.IntOpt('max_attempts',
               default=3,
               min=1,
               help="""
How many times an instance is scheduled before a failing spawn fails it.

When the compute side reports that a spawn failed, the request goes back to
the pending queue until it has been tried this many times.

Possible values:

* A positive integer; 1 means never retry.
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


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)


def list_opts():
    return {scheduler_group: scheduler_opts}
