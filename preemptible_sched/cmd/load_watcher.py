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


"""``preemptible-sched load-watcher``: the load watcher on its own.

Collects per-host utilisation from ``[load_watcher] source`` (or
``--source``), keeps the windows in ``[load_watcher] state_file`` and serves
``GET /watcher`` on ``--bind`` (127.0.0.1:2020 by default) until stopped
(SIGINT or SIGTERM, within seconds whatever it is doing: collections
run in a thread of their own, each bounded by its source's deadline).
``--source fake --hosts N`` serves N emulated hosts replaying Bitbrains
VMs' utilisation: no cloud needed.

Exit codes: 0 stopped on a signal; 1 the collection stopped on an
error; 2 bad input (one line of stderr).
"""

import logging
import os
import signal
import threading

from preemptible_sched import clock as clock_mod
from preemptible_sched.conf import checks
from preemptible_sched.conf import CONF
from preemptible_sched.conf import load_watcher as watcher_conf
from preemptible_sched import exception
from preemptible_sched.loadwatcher import api
from preemptible_sched.loadwatcher import load_sources as sources
from preemptible_sched.loadwatcher import store as store_mod
from preemptible_sched.loadwatcher import watcher as watcher_mod

LOG = logging.getLogger(__name__)

DEFAULT_BIND = '127.0.0.1:2020'


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'load-watcher', help='Serve per-host utilisation windows over HTTP '
        '(the load watcher the load-aware weighers read).')
    parser.add_argument('--bind', metavar='HOST:PORT', default=DEFAULT_BIND,
                        help='Address to listen on (default %s; port 0 '
                        'picks a free one, printed at start).'
                        % DEFAULT_BIND)
    parser.add_argument('--source', metavar='NAME', default=None,
                        help='Source plugin (default: [load_watcher] '
                        'source): compute, fake, prometheus.')
    parser.add_argument('--hosts', metavar='N', type=int, default=None,
                        help='With --source fake: how many emulated hosts '
                        '(default: [load_watcher] fake_hosts).')
    parser.add_argument('--trace', metavar='PATH', default=None,
                        help='With --source fake: the Bitbrains directory '
                        'or file to replay (default: [load_watcher] '
                        'fake_trace).')
    parser.add_argument('--state-file', metavar='PATH', default=None,
                        help='SQLite file of the windows (default: '
                        '[load_watcher] state_file).')
    parser.set_defaults(func=run)


def _source(args):
    name = args.source or CONF.load_watcher.source
    if name == 'compute':
        raise exception.InvalidInput(
            '--source', None, 'the compute source runs inside the '
            'scheduler service; alone, use fake or prometheus')
    kwargs = {}
    if name == 'fake':
        if args.hosts is not None and args.hosts < 1:
            raise exception.InvalidInput('--hosts', None,
                                         'must be at least 1')
        trace = args.trace or CONF.load_watcher.fake_trace
        if not os.path.exists(trace):
            raise exception.InvalidInput(trace, None, 'no Bitbrains trace '
                                         'here (give --trace PATH)')
        kwargs = {'hosts': args.hosts, 'trace': trace}
    try:
        return sources.load(name, **kwargs)
    except exception.UnknownPlugin as error:
        if args.source is None:
            raise
        raise exception.InvalidInput('--source', None, 'unknown source %r '
                                     '(valid: %s)' % (name,
                                                      ', '.join(error.valid)))


#: Seconds the command waits, once stopped, for a collection under way
#: (each is bounded by its source's deadline; past this it is dropped).
STOP_WAIT = 5.0


def _collect(clock, watcher, failed):
    """The collecting thread: the watcher's clock, until stopped."""
    try:
        clock.call_soon(watcher.start, clock)
        clock.run()
    except Exception as error:      # not a source failure: a bug
        LOG.debug('Load watcher collection stopped', exc_info=True)
        failed.append(error)


def run(args):
    checks.require_valid(CONF)
    # From the start: a signal during the set-up stops the command too.
    stopping = threading.Event()
    previous = {signum: signal.signal(signum, lambda *_: stopping.set())
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        return _serve(args, stopping)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _serve(args, stopping):
    host, port = watcher_conf.parse_bind(args.bind, '--bind')
    source = _source(args)
    path = (os.path.expanduser(args.state_file) if args.state_file
            else watcher_conf.state_file(CONF))
    store = store_mod.WatcherStore(path)
    watcher = watcher_mod.LoadWatcher(
        source, store, CONF.load_watcher.scrape_interval,
        CONF.load_watcher.window_refresh)
    app = api.WatcherApp(watcher, CONF.load_watcher.max_request_bytes)
    try:
        server = api.serve_in_thread(app, host, port)
    except OSError as error:
        store.close()
        raise exception.InvalidInput('--bind', None, 'cannot listen on '
                                     '%s: %s' % (args.bind, error.strerror))
    # The first line says where it listens (port 0 picks one).
    print('load watcher (source %s) on http://%s:%d/watcher, state in %s'
          % (source.name, host, server.server_port, path), flush=True)
    # Collections run in a thread of their own: however long one takes
    # (at most its source's deadline), this thread stays free to stop.
    clock = clock_mod.RealClock()
    failed = []
    collector = threading.Thread(target=_collect,
                                 args=(clock, watcher, failed),
                                 name='load-watcher-collect', daemon=True)
    collector.start()
    try:
        while not stopping.wait(0.5) and collector.is_alive():
            pass
    finally:
        clock.stop()
        watcher.stop()
        server.shutdown()
        server.server_close()
        collector.join(STOP_WAIT)
        if collector.is_alive():
            LOG.warning('Stopped during a collection from %s: its '
                        'samples are dropped', source.name)
        # Stopped, the watcher writes no more (a late collection is
        # dropped).
        store.close()
    if failed:
        LOG.error('Load watcher collection failed: %s: %s',
                  type(failed[0]).__name__, failed[0])
        return 1
    return 0
