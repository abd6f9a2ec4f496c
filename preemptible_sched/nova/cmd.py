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

"""``preemptible-nova-scheduler``: Nova's scheduler service, preemption-aware.

A drop-in replacement for ``nova-scheduler``: the same service (binary
``nova-scheduler``, topic ``scheduler``, the same ``nova.conf`` and
``[scheduler] workers``), run with
:class:`preemptible_sched.nova.manager.PreemptibleSchedulerManager`.

Once ``nova.conf`` is read, the tooz backend of ``[preemptible_sched]
coordination_url`` is checked (:func:`.coordination.check_backend`): the
command exits with one line on stderr, code 2 when the backend's client
library is not installed (the line names the extra to install) or the
backend is unknown, code 1 when it does not answer.
"""

import sys

try:
    # nova-scheduler's own module first: importing it picks Nova's
    # concurrency backend before anything else is loaded, as the stock
    # command does.
    from nova.cmd import scheduler as nova_scheduler_cmd  # noqa: F401
    import nova.conf
    from nova import config
    from nova import objects
    from nova.scheduler import rpcapi
    from nova import service
    from nova import thread_pool_factory
    from nova import version
    from oslo_concurrency import processutils
    from oslo_log import log as logging
    from oslo_reports import guru_meditation_report as gmr
    from oslo_reports import opts as gmr_opts

    from preemptible_sched.nova import config as nova_config
    from preemptible_sched.nova import coordination
except ImportError as error:     # the ``nova`` extra is not installed
    MISSING = error
else:
    MISSING = None


MANAGER = 'preemptible_sched.nova.manager.PreemptibleSchedulerManager'


def main(argv=None):
    if MISSING is not None:
        sys.stderr.write(
            "preemptible-nova-scheduler: needs Nova (%s); install the nova "
            "extra: pip install '.[nova]' from a checkout of "
            "preemptible-sched\n" % MISSING)
        return 2
    CONF = nova.conf.CONF
    config.parse_args(sys.argv if argv is None else argv)
    try:
        coordination.check_backend(
            nova_config.CONF.preemptible_sched.coordination_url)
    except coordination.BackendUnavailable as error:
        sys.stderr.write('preemptible-nova-scheduler: %s\n' % error)
        return 1 if error.installed else 2
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
