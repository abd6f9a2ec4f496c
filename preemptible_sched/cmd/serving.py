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

"""How a service command runs: the start-up, the signals and the exit.

:func:`serve` is what ``preemptible-scheduler`` and
``preemptible-compute`` share: the configuration is checked (every problem
on a line of its own); then the database (if the service has one) and,
unless the transport is ``fake://``, the message broker must answer within
``[service] startup_timeout`` seconds
(:mod:`preemptible_sched.service.readiness`); then the service is built and
run. SIGTERM and SIGINT are honoured from the start: before the service
runs they end the start-up at once, after it they stop it cleanly.

Exit codes: 0 stopped on a signal; 1 the database or the broker could not
be reached (one line of stderr), or stopped on an error (logged, with its
traceback: a restart recovers from the database); 2 bad configuration, on
one line of stderr per problem.
"""

import logging as std_logging
import signal
import sys
import threading
import time
import warnings

from oslo_config import cfg
from oslo_log import log as logging

from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import parsing
from preemptible_sched.conf import plugins
from preemptible_sched import exception

LOG = logging.getLogger(__name__)

EXIT_OK, EXIT_ERROR, EXIT_BAD_INPUT = 0, 1, 2

#: Seconds a service that was stopped while starting has to shut down what
#: it had started.
SHUTDOWN_TIMEOUT = 10.0


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


def fail(binary, message, code=EXIT_BAD_INPUT):
    sys.stderr.write('%s: %s\n' % (binary, ' '.join(
        parsing.mask_passwords(message).split())))
    return code


def _fail_each(binary, problems):
    """One line of stderr per problem; the exit code of bad input."""
    for problem in problems:
        fail(binary, problem)
    return EXIT_BAD_INPUT


#: What a check or a build raises for a bad value: one line, exit 2.
_BAD_INPUT = (exception.PreemptibleSchedException, cfg.Error, ValueError)


class _Interrupted(BaseException):
    """SIGTERM or SIGINT while the service was starting.

    A BaseException, like KeyboardInterrupt, so that no ``except
    Exception`` of a library waiting for its server swallows it.
    """


def _cut_short(error):
    """Whether ``error`` was raised while :class:`_Interrupted` unwound
    (a library failing to roll back what the signal interrupted): the
    signal's doing, not an error of the service.
    """
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, _Interrupted):
            return True
        seen.add(id(error))
        error = error.__context__
    return False


def _shutdown_quietly(server):
    """Stop what a service interrupted while starting had started, at most
    :data:`SHUTDOWN_TIMEOUT` seconds.
    """
    def shutdown():
        try:
            server.shutdown()
        except Exception as error:  # it never started: nothing to stop
            LOG.debug('Shutting down a service that did not start: %s',
                      error)

    thread = threading.Thread(target=shutdown, daemon=True)
    thread.start()
    thread.join(SHUTDOWN_TIMEOUT)


class _Signals:
    """SIGTERM and SIGINT for :func:`serve`, from before anything starts.

    Until a service runs, the first signal raises :class:`_Interrupted` in
    the main thread, wherever it waits (the database, the broker, the
    agents); once it runs, a signal stops it (``server.stop()``) and
    ``run()`` returns.
    """

    SIGNALS = (signal.SIGTERM, signal.SIGINT)

    def __init__(self):
        self.stopping = threading.Event()
        self.server = None
        self.done = False
        self._previous = {}

    def install(self):
        if threading.current_thread() is not threading.main_thread():
            return      # only the main thread may handle signals
        for signum in self.SIGNALS:
            self._previous[signum] = signal.signal(signum, self._handle)

    def restore(self):
        self.done = True
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        self._previous = {}

    def _handle(self, signum, frame):
        first = not self.stopping.is_set()
        self.stopping.set()
        server = self.server
        if server is not None:
            server.stop()
            if server.ready:
                return
        if first and not self.done:
            raise _Interrupted(signum)


def wait_until_ready(conf, database, should_stop):
    """Wait for the database (if ``database``) and the broker, together at
    most ``[service] startup_timeout`` seconds. False when stopped.
    """
    from preemptible_sched.service import readiness
    timeout = conf.service.startup_timeout
    deadline = time.monotonic() + timeout
    if database and not readiness.wait_for_database(conf, timeout,
                                                    should_stop):
        return False
    left = max(1.0, deadline - time.monotonic())
    return readiness.wait_for_broker(conf, left, should_stop,
                                     announced=timeout)


def serve(binary, argv, build, cli_opts=(), validate=None, database=True):
    """Parse the configuration, check it, wait for the database (if
    ``database``) and the broker, ``build(CONF)`` a service and run it.

    ``validate(CONF)`` (optional) checks the command's own options after
    the shared checks; it raises InvalidInput, ValueError or cfg.Error.
    The service is a :class:`preemptible_sched.service.Service`, or has
    its ``ready``, ``run()``, ``stop()`` and ``shutdown()``. Returns the
    exit code.
    """
    signals = _Signals()
    signals.install()
    try:
        from preemptible_sched import service
        from preemptible_sched.service import readiness
        CONF.register_cli_opts(cli_opts)
        plugins.register_opts(CONF)
        logging.register_options(CONF)
        service.register_messaging_opts(CONF)
        # Unbuffered, so a killed service leaves its last words in the log.
        CONF.set_default('use_stderr', True)
        logging.set_defaults(
            default_log_levels=logging.get_default_log_levels() +
            ['alembic=WARN'])
        try:
            CONF(argv, project='preemptible-sched', prog=binary)
        except parsing.BadValues as error:
            return _fail_each(binary, error.problems)
        except cfg.Error as error:
            return fail(binary, error)
        try:
            logging.setup(CONF, binary)
        except (cfg.Error, ValueError, OSError,
                logging.LogConfigError) as error:
            return fail(binary, error)
        try:
            checks.require_valid(CONF)
            if validate is not None:
                validate(CONF)
        except exception.ConfigProblems as error:
            return _fail_each(binary, error.problems)
        except _BAD_INPUT as error:
            return fail(binary, error)
        try:
            if not wait_until_ready(CONF, database,
                                    signals.stopping.is_set):
                LOG.info('%s stopped while starting', binary)
                return EXIT_OK
        except exception.StartupFailed as error:
            return fail(binary, error, EXIT_ERROR)
        try:
            server = build(CONF)
        except exception.ConfigProblems as error:
            return _fail_each(binary, error.problems)
        except _BAD_INPUT as error:
            return fail(binary, error)
        except Exception as error:
            if _cut_short(error):
                raise _Interrupted() from error
            if readiness.unreachable(error):
                # The database or broker went away since the wait.
                return fail(binary, 'could not start: %s'
                            % readiness.one_line(error), EXIT_ERROR)
            LOG.exception('%s could not start', binary)
            return EXIT_ERROR
        signals.server = server
        if signals.stopping.is_set():
            raise _Interrupted()
        try:
            server.run()
        except Exception as error:
            if _cut_short(error):
                raise _Interrupted() from error
            LOG.exception('%s stopped on an error', binary)
            return EXIT_ERROR
        if getattr(server, 'deposed', None):
            return fail(binary, 'lost the lead of its topic, stopped: %s'
                        % server.deposed, EXIT_ERROR)
        return EXIT_OK
    except _Interrupted:
        if signals.server is not None:
            _shutdown_quietly(signals.server)
        LOG.info('%s stopped while starting', binary)
        return EXIT_OK
    finally:
        signals.restore()
        CONF.reset()
        CONF.unregister_opts(cli_opts)
