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

"""Options of preemptible instances: scheduling mode and termination costs."""

from oslo_config import cfg

from preemptible_sched.conf import plugins

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
               choices=MODES,
               deprecated_for_removal=True,
               deprecated_since='0.2.0',
               deprecated_reason='Use ``[scheduler] preemption_strategy``, '
               'which takes the same names.',
               help="""
Deprecated: use ``[scheduler] preemption_strategy`` (same names). When set,
it is the strategy; a value that contradicts ``[scheduler]
preemption_strategy`` stops the start-up.
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
  %(costs)s.
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
                 max=86400.0,
                 help="""
Seconds between the termination notice and the termination itself.

Before terminating a preemptible instance the scheduler emits an
``instance.termination_notice`` notification (as spot markets warn their
users); the victims are terminated this long after it. The new instance is
spawned only once every victim is confirmed gone.

Possible values:

* 0 (terminate at once) or a positive number of seconds up to 86400
  (public spot offers give 30 to 120 s).
"""),
]


plugins.fill_names(preemptible_opts)


def register_opts(conf):
    conf.register_group(preemptible_group)
    conf.register_opts(preemptible_opts, group=preemptible_group)


def list_opts():
    return {preemptible_group: preemptible_opts}
