"""Options of preemptible instances: scheduling mode and termination costs."""

from oslo_config import cfg

preemptible_group = cfg.OptGroup(
    'preemptible',
    title='Preemptible instances',
    help="""
How the scheduler makes room for normal requests on hosts that carry
preemptible instances, and how it prices terminating one.
""")

MODES = ('dual_state', 'retry', 'plain')

preemptible_opts = [
    cfg.StrOpt('mode',
               default='dual_state',
               choices=[
                   ('dual_state', 'One pass: normal requests are filtered on '
                    'the normal view, and the cheapest termination set is '
                    'chosen in the same pass.'),
                   ('retry', 'Filter on the full view first; only when no '
                    'host passes, a second pass on the normal view '
                    'terminates (the two-cycle baseline).'),
                   ('plain', 'A stock filter scheduler: full view only, '
                    'never terminates anything.'),
               ],
               help="""
How a normal request finds room on hosts full of preemptible instances.

Related options:

* ``termination_costs``
"""),
    cfg.ListOpt('termination_costs',
                default=['billing_period'],
                help="""
Termination-cost plugins that price the loss of one preemptible instance.

The cost of an instance is the sum over these plugins of
``<name>_cost_multiplier`` times the plugin's cost; the termination selector
picks, on the chosen host, the set of preemptible instances of least total
cost whose removal lets the request fit.

Possible values:

* A list of names from ``preemptible_sched.termination_costs``:
  ``billing_period``, ``count``, ``runtime``, ``priority``.
"""),
    cfg.IntOpt('billing_period_seconds',
               default=3600,
               min=1,
               help="""
Length of the billing period, in seconds, for the ``billing_period`` cost.

Providers bill whole periods and do not charge the partial period of an
instance they terminate, so terminating an instance forfeits its run time
modulo this period.

Possible values:

* A positive number of seconds (3600 bills by the hour).
"""),
    cfg.FloatOpt('termination_grace_seconds',
                 default=0.0,
                 min=0.0,
                 help="""
Seconds between the termination notice and the termination itself.

Before terminating a preemptible instance the scheduler emits an
``instance.termination_notice`` notification (as spot markets warn their
users); the victims are terminated this long after it. The new instance is
spawned only once every victim is confirmed gone.

Possible values:

* 0 (terminate at once) or a positive number of seconds (public spot
  offers give 30 to 120 s).
"""),
    cfg.StrOpt('on_preempt',
               default='terminate',
               choices=[
                   ('terminate', 'Spot semantics: a displaced instance is '
                    'gone for good (state terminated).'),
                   ('requeue', 'QoS semantics: a displaced instance is '
                    'preempted and returns to the pending queue, keeping '
                    'its admission time and accumulated running and '
                    'overhead times.'),
               ],
               help="""
What happens to an instance the scheduler displaces for another request.

Related options:

* ``[scheduler] preemption_policy``
"""),
    cfg.FloatOpt('qos_slack_cost_multiplier',
                 default=1.0,
                 min=0.0,
                 help="""
Multiplier of the ``qos_slack`` termination cost.
"""),
    cfg.FloatOpt('billing_period_cost_multiplier',
                 default=1.0,
                 min=0.0,
                 help="""
Multiplier of the ``billing_period`` termination cost.
"""),
    cfg.FloatOpt('count_cost_multiplier',
                 default=1.0,
                 min=0.0,
                 help="""
Multiplier of the ``count`` termination cost (1 per terminated instance).
"""),
    cfg.FloatOpt('runtime_cost_multiplier',
                 default=1.0,
                 min=0.0,
                 help="""
Multiplier of the ``runtime`` termination cost (seconds run so far).
"""),
    cfg.FloatOpt('priority_cost_multiplier',
                 default=1.0,
                 min=0.0,
                 help="""
Multiplier of the ``priority`` termination cost (the instance's priority).
"""),
]


def register_opts(conf):
    conf.register_group(preemptible_group)
    conf.register_opts(preemptible_opts, group=preemptible_group)


def list_opts():
    return {preemptible_group: preemptible_opts}
