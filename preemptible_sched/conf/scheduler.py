"""Options of the scheduler itself."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup(
    'scheduler',
    title='Scheduler options',
    help='General behaviour of the scheduler.')

scheduler_opts = [
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
