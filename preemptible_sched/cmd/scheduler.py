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

"""``preemptible-scheduler``: the scheduler service.

Runs the scheduler loop behind oslo.messaging until SIGTERM or SIGINT (see
:mod:`preemptible_sched.service.scheduler_service`). Exit codes: 0 stopped
on a signal; 1 stopped on an error (logged, with its traceback: a restart
recovers from the database); 2 bad configuration, on one line of stderr.
"""

import logging as std_logging
import signal
import sys
import warnings

from oslo_config import cfg
from oslo_log import log as logging

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from preemptible_sched import exception

LOG = logging.getLogger(__name__)

EXIT_OK, EXIT_ERROR, EXIT_BAD_INPUT = 0, 1, 2


def quiet_eventlet():
    """Silence eventlet's deprecation warning and oslo.service's banner.

    oslo.messaging imports oslo.service, which loads its eventlet backend;
    nothing here uses eventlet (the RPC servers run oslo.messaging's
    threading executor), yet the import prints a warning and an INFO line
    on stderr. The messaging modules are therefore imported by the
    commands after this.
    """
    warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')
    std_logging.getLogger('oslo_service.backend').setLevel(
        std_logging.WARNING)


def _fail(binary, message):
    sys.stderr.write('%s: %s\n' % (binary, ' '.join(str(message).split())))
    return EXIT_BAD_INPUT


def serve(binary, argv, build, cli_opts=()):
    """Parse the configuration, ``build(CONF)`` a service and run it.

    The service has ``run()`` (blocks) and ``stop()`` (from a signal
    handler). Returns the exit code.
    """
    CONF.register_cli_opts(cli_opts)
    plugins.register_opts(CONF)
    logging.register_options(CONF)
    # Unbuffered, so a killed service leaves its last words in the log.
    CONF.set_default('use_stderr', True)
    logging.set_defaults(default_log_levels=logging.get_default_log_levels() +
                         ['alembic=WARN'])
    try:
        try:
            CONF(argv, project='preemptible-sched', prog=binary)
        except cfg.Error as error:
            return _fail(binary, error)
        logging.setup(CONF, binary)
        try:
            server = build(CONF)
        except exception.ConfigProblems as error:
            for problem in error.problems:
                _fail(binary, problem)
            return EXIT_BAD_INPUT
        except (exception.PreemptibleSchedException, cfg.Error,
                ValueError) as error:
            return _fail(binary, error)
        except Exception:
            # A database or broker that cannot be reached, say.
            LOG.exception('%s could not start', binary)
            return EXIT_ERROR
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, lambda *_: server.stop())
        try:
            server.run()
        except Exception:
            LOG.exception('%s stopped on an error', binary)
            return EXIT_ERROR
        return EXIT_OK
    finally:
        CONF.reset()
        CONF.unregister_opts(cli_opts)


def _build(conf):
    from preemptible_sched.service import scheduler_service
    checks.require_valid(conf)
    return scheduler_service.SchedulerService(conf)


def main(argv=None):
    quiet_eventlet()
    return serve('preemptible-scheduler',
                 sys.argv[1:] if argv is None else argv, _build)


if __name__ == '__main__':
    sys.exit(main())
