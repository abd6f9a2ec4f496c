"""``preemptible-nova-scheduler``: Nova's scheduler service, preemption-aware.

A drop-in replacement for ``nova-scheduler``: the same service (binary
``nova-scheduler``, topic ``scheduler``, the same ``nova.conf`` and
``[scheduler] workers``), run with
:class:`preemptible_sched.nova.manager.PreemptibleSchedulerManager`.
"""

# nova-scheduler's own module first: importing it picks Nova's concurrency
# backend before anything else is loaded, as the stock command does.
from nova.cmd import scheduler as nova_scheduler_cmd  # noqa: F401

import sys

from nova import config
import nova.conf
from nova import objects
from nova.scheduler import rpcapi
from nova import service
from nova import thread_pool_factory
from nova import version
from oslo_concurrency import processutils
from oslo_log import log as logging
from oslo_reports import guru_meditation_report as gmr
from oslo_reports import opts as gmr_opts

CONF = nova.conf.CONF

MANAGER = 'preemptible_sched.nova.manager.PreemptibleSchedulerManager'


def main(argv=None):
    config.parse_args(sys.argv if argv is None else argv)
    logging.setup(CONF, 'nova')
    objects.register_all()
    gmr_opts.set_defaults(CONF)
    objects.Service.enable_min_version_cache()
    gmr.TextGuruMeditation.setup_autorun(version, conf=CONF)
    server = service.Service.create(binary='nova-scheduler',
                                    topic=rpcapi.RPC_TOPIC, manager=MANAGER)
    workers = CONF.scheduler.workers or processutils.get_worker_count()
    # The workers are forked: they must not inherit this process's pools.
    thread_pool_factory.reset_all_executors()
    service.serve(server, workers=workers)
    service.wait()


if __name__ == '__main__':
    sys.exit(main())
