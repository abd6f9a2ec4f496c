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


"""The load watcher as a WSGI application, for any WSGI server.

:func:`init_application` reads the configuration, builds the watcher of
``[load_watcher] source`` (``fake`` or ``prometheus``; ``compute`` runs
only inside ``preemptible-scheduler``) with its windows in
``[load_watcher] state_file``, starts collecting in a thread of its own,
and returns the :class:`~preemptible_sched.loadwatcher.api.WatcherApp`
(``GET /watcher``, ``/watcher/health``, ``/metrics``). Under gunicorn::

    gunicorn --workers 1 --threads 4 --bind 127.0.0.1:2020 \
        'preemptible_sched.loadwatcher.wsgi:init_application()'

``application`` is the same, for servers that want a module-level
callable (``preemptible_sched.loadwatcher.wsgi:application``); it is
built at its first request.

The configuration files are those of ``PSCHED_CONFIG_FILE`` (paths
separated by commas) if set, else oslo.config's defaults for the
project ``preemptible-sched`` (``/etc/preemptible-sched/
preemptible-sched.conf``...). Run **one** worker process: a second one
would collect again and write the same state file (threads are fine).
A configuration that cannot be used stops the worker with one line per
problem on stderr and exit code 3 (gunicorn then stops as well).
"""

import atexit
import logging
import os
import sys
import threading

from oslo_config import cfg

from preemptible_sched import clock as clock_mod
from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import load_watcher as watcher_conf
from preemptible_sched.conf import parsing
from preemptible_sched import exception
from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched.loadwatcher import store as store_mod
from preemptible_sched.loadwatcher import watcher as watcher_mod

LOG = logging.getLogger(__name__)

#: The environment variable naming the configuration files.
CONFIG_ENV = 'PSCHED_CONFIG_FILE'
#: Exit code of a worker that cannot start (gunicorn's "worker failed to
#: boot": the master stops instead of starting it again).
EXIT_BOOT_ERROR = 3
#: Seconds a stopping worker waits for a collection under way.
STOP_WAIT = 5.0
PROG = 'preemptible-sched-load-watcher-wsgi'


def _args(environ):
    paths = [path.strip() for path in
             environ.get(CONFIG_ENV, '').split(',') if path.strip()]
    args = []
    for path in paths:
        args += ['--config-file', path]
    return args


def _fail(lines):
    for line in lines:
        print('%s: %s' % (PROG, line), file=sys.stderr, flush=True)
    raise SystemExit(EXIT_BOOT_ERROR)


def _source(conf):
    name = conf.load_watcher.source
    if name == 'compute':
        raise exception.InvalidInput(
            '[load_watcher] source', None, 'the compute source runs '
            'inside the scheduler service; alone, use fake or prometheus')
    if name == 'fake' and not os.path.exists(conf.load_watcher.fake_trace):
        raise exception.InvalidInput(
            '[load_watcher] fake_trace', None, 'no Bitbrains trace at %s'
            % conf.load_watcher.fake_trace)
    return sources.load(name)


def _collect(clock, watcher):
    try:
        clock.call_soon(watcher.start, clock)
        clock.run()
    except Exception:   # noqa: B902 not a source failure: a bug
        LOG.exception('Load watcher collection stopped')


def _stop(clock, watcher, thread, store):
    clock.stop()
    watcher.stop()
    thread.join(STOP_WAIT)
    store.close()


def init_application(argv=None, environ=None):
    """The load watcher's WSGI application, collecting from now on.

    ``argv`` (oslo.config arguments) defaults to the ``--config-file`` of
    each path in ``PSCHED_CONFIG_FILE`` of ``environ`` (``os.environ``).
    """
    if argv is None:
        argv = _args(os.environ if environ is None else environ)
    try:
        CONF(argv, project='preemptible-sched', prog=PROG)
    except parsing.BadValues as error:
        _fail(error.problems)
    except cfg.Error as error:
        _fail([' '.join(str(error).split())])
    if not logging.getLogger().handlers:
        logging.basicConfig(
            level=logging.INFO, stream=sys.stderr,
            format='%(asctime)s %(levelname)s %(name)s %(message)s')
    try:
        checks.require_valid(CONF)
        source = _source(CONF)
    except exception.ConfigProblems as error:
        _fail(error.problems)
    except (exception.PreemptibleSchedException, ValueError) as error:
        _fail([str(error)])
    conf = CONF.load_watcher
    path = watcher_conf.state_file(CONF)
    store = store_mod.WatcherStore(path)
    watcher = watcher_mod.LoadWatcher(source, store, conf.scrape_interval,
                                      conf.window_refresh)
    app = api.WatcherApp(watcher, conf.max_request_bytes)
    clock = clock_mod.RealClock()
    thread = threading.Thread(target=_collect, args=(clock, watcher),
                              name='load-watcher-collect', daemon=True)
    thread.start()
    atexit.register(_stop, clock, watcher, thread, store)
    LOG.info('Load watcher (source %s) collecting, state in %s',
             source.name, path)
    return app


class _Application:
    """A WSGI callable that builds the watcher at its first request."""

    def __init__(self):
        self._app = None
        self._lock = threading.Lock()

    def __call__(self, environ, start_response):
        if self._app is None:
            with self._lock:
                if self._app is None:
                    self._app = init_application()
        return self._app(environ, start_response)


#: The module-level WSGI callable (built at the first request).
application = _Application()
