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

"""A fuzzing campaign against the load watcher's surfaces, in subprocesses.

Each run starts a real process, attacks it, stops it with SIGTERM and
judges it; several run at once. A JSON summary goes to stdout: per
category and in total, the number of

``runs``
    processes run;
``tracebacks``
    runs whose log holds ``Traceback``;
``hangs``
    runs in which something went unanswered past its bound (an HTTP
    request, a submit, the start) or the whole run past ``--timeout``;
``killed``
    runs ended by a signal they were not sent;
``died``
    runs that exited on their own before they were told to stop;
``ignored_sigterms``
    runs still going 10 s after SIGTERM (killed then);
``server_errors``
    runs in which the watcher answered HTTP 500;
``campaign_errors``
    runs the campaign itself failed to make (a bug of this tool);

plus ``exit_codes`` and up to ``--examples`` failing runs per category
(with the seed that replays each: ``--replay CATEGORY:SEED``).

Categories (``CATEGORIES``):

``api``
    ``preemptible-sched load-watcher --source fake`` and its HTTP API:
    hostile paths, queries, methods, headers, bodies and garbage (bad
    UTF-8, NULs, 70 kB lines, negative and huge Content-Length), clients
    sending one byte at a time, hundreds of idle connections, clients
    that never read, bursts of concurrent GETs; SIGTERM at the end or
    while they are connected;
``prometheus``
    ``load-watcher --source prometheus`` against a hostile fake
    Prometheus: the answers that killed it (a list where an object is
    expected, strings or lists in labels, deep nesting, huge integers),
    random mutations of a good instant vector, answers one byte at a
    time, never, cut or not HTTP; ``/watcher/health`` is polled
    throughout; SIGTERM at the end or while a collection is blocked;
``scheduler``
    ``preemptible-scheduler`` with ``[load_watcher] url`` at a hostile
    fake watcher (deep nesting, 400-digit numbers, mutations of a good
    payload, one byte at a time, ...); three requests are submitted over
    the local RabbitMQ and must be answered and placed; then SIGTERM.
    Skipped (said in the summary) when RabbitMQ does not answer.

Usage::

    python tools/fuzz_watcher.py                # full size, 1,500 runs
    python tools/fuzz_watcher.py --quick 5      # 5 runs per category
    python tools/fuzz_watcher.py --categories api,prometheus
    python tools/fuzz_watcher.py --replay prometheus:1234

Exit 0 when no run failed in any of the ways above, 1 otherwise.
"""

import argparse
import collections
import concurrent.futures
import copy
import http.client
import json
import multiprocessing
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The hostile servers and answers are the tests' own.
sys.path.insert(0, REPO)

from preemptible_sched.cmd import serving  # noqa: E402

# Before oslo.messaging is imported (it prints eventlet's warning).
serving.quiet_eventlet()

import oslo_messaging  # noqa: E402

from preemptible_sched.conf import CONF  # noqa: E402
from preemptible_sched import service  # noqa: E402
from preemptible_sched.service import rpcapi  # noqa: E402
from tests import load_helpers  # noqa: E402
from tests.unit.loadwatcher import hostile  # noqa: E402

COMMAND = [sys.executable, '-m', 'preemptible_sched.cmd.sched']
SIZES = {'api': 600, 'prometheus': 600, 'scheduler': 300}
#: How fast a stopped process must be gone (issue 26).
STOP_WITHIN = 10.0
#: The API's deadline of a connection in the runs (seconds).
CONNECTION_TIMEOUT = 2.0
RABBIT_URL = os.environ.get('PSCHED_TEST_RABBIT_URL',
                            'rabbit://guest:guest@127.0.0.1:5672/')
_COUNTERS = ('tracebacks', 'hangs', 'killed', 'died', 'ignored_sigterms',
             'server_errors', 'campaign_errors')


class Run:
    """One process under attack: its findings and its log."""

    def __init__(self, directory, label):
        self.directory = directory
        self.label = label
        self.findings = set()
        self.notes = []
        self.process = None
        self.log_path = os.path.join(directory, 'process.log')
        self.stopping = False

    def fail(self, finding, note):
        self.findings.add(finding)
        if len(self.notes) < 5:
            self.notes.append('%s: %s' % (finding, note))

    def start(self, argv):
        with open(self.log_path, 'w') as log:
            self.process = subprocess.Popen(
                argv, cwd=self.directory, stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=log, text=True,
                start_new_session=True,
                env=dict(os.environ, PYTHONPATH=REPO))
        return self.process

    def log(self):
        with open(self.log_path, errors='replace') as stream:
            return stream.read()

    def wait_for(self, predicate, seconds, what):
        """Poll ``predicate``; False (and judged) if the process died or
        ``seconds`` passed first.
        """
        deadline = time.monotonic() + seconds
        while not predicate():
            if not self.alive():
                return False
            if time.monotonic() > deadline:
                self.fail('hangs', '%s: not within %g s' % (what, seconds))
                return False
            time.sleep(0.1)
        return True

    def alive(self):
        if self.process.poll() is None:
            return True
        if not self.stopping:
            self.fail('died', 'exited %s on its own' % self.process.returncode)
        return False

    def stop(self):
        """SIGTERM, then judge how it ended."""
        self.stopping = True
        if self.process.poll() is None:
            code, _ = hostile.stop_with_sigterm(self.process, STOP_WITHIN)
            if code is None:
                self.fail('ignored_sigterms', 'running %g s after SIGTERM'
                          % STOP_WITHIN)
        self.finish()

    def finish(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        code = self.process.wait()
        if not self.stopping:
            self.fail('died', 'exited %s on its own' % code)
        self.process.stdout.close()
        if code < 0 and code != -signal.SIGTERM and \
                'ignored_sigterms' not in self.findings:
            self.fail('killed', 'ended by signal %d' % -code)
        if 'Traceback' in self.log():
            self.fail('tracebacks', self.log()[-600:])
        return code


def _http(port, path, timeout=5.0):
    """``(status, body)`` of ``GET path``, or None when unanswered."""
    try:
        return hostile.http_get(port, path, timeout)
    except (OSError, http.client.HTTPException):
        return None


def _start_watcher(run, config, *args):
    """Start ``load-watcher``; its port, or None (judged)."""
    path = os.path.join(run.directory, 'watcher.conf')
    with open(path, 'w') as stream:
        stream.write('[load_watcher]\nscrape_interval = 1\n'
                     'window_refresh = 1\napi_connection_timeout = %g\n%s'
                     % (CONNECTION_TIMEOUT, config))
    process = run.start(COMMAND + ['load-watcher', '--config-file', path,
                                   '--bind', '127.0.0.1:0', '--state-file',
                                   'state.sqlite'] + list(args))
    line = []
    reader = threading.Thread(target=lambda: line.append(
        process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(60.0)
    if not line or 'http://127.0.0.1:' not in line[0]:
        if run.alive():
            run.fail('hangs', 'no start within 60 s')
        return None
    return int(line[0].split('http://127.0.0.1:')[1].split('/')[0])


# -- The watcher's HTTP API ---------------------------------------------------

PATHS = (b'/watcher', b'/watcher/health', b'/', b'/watcher/', b'//watcher',
         b'/watcher/../watcher', b'/%ff', b'/watcher%ff', b'/watcher\xff',
         b'/\xc3(', b'/%c3%28', b'/%00', b'/watcher%00', b'*',
         b'/' + b'a' * 70000, b'/' + b'%' * 3000, b'http://x/watcher',
         b'/watcher;x', b'/%c0%af', b'/\xf0\x9f\x98\x80', b'/\x1b[31m',
         b'/watcher/health/..', b'/watcher\r\n', b'')
QUERIES = (b'', b'host=host-A', b'host=%ff', b'host=\xff', b'host=\xfe\xff',
           b'host=' + b'a' * 9000, b'host=' + b'%41' * 3000,
           b'host=&host=x', b'host', b'=', b'&&&', b'host=%', b'host=%g0',
           b'host=\x00', b'host=host-A%00', b'host=%e2%80%a8',
           b'a=' + b'b' * 100 + b'&' * 5000, b'host=%c3%28',
           b'host=h%C3%A9', b'host=' + b'\xff' * 100)
METHODS = (b'GET', b'GET', b'GET', b'HEAD', b'POST', b'PUT', b'DELETE',
           b'OPTIONS', b'TRACE', b'CONNECT', b'get', b'G\xffT', b'X' * 5000,
           b'', b'GET GET', b'PATCH')
VERSIONS = (b'HTTP/1.0', b'HTTP/1.1', b'HTTP/1.1', b'HTTP/2.0', b'HTTP/0.9',
            b'', b'HTTP/1.1.1', b'HTTPS/1.1', b'HTTP/x', b'HTTP/1.0 extra')
HEADERS = (b'Host: x', b'Content-Length: 10', b'Content-Length: -1',
           b'Content-Length: 99999999999999999999', b'Content-Length: x',
           b'Content-Length: 100000', b'Transfer-Encoding: chunked',
           b'X: ' + b'y' * 70000, b'\xff: \xfe', b'Expect: 100-continue',
           b'Connection: keep-alive', b'no colon', b' continuation',
           b'Host: \x00', b'Content-Type: application/json; charset=\xff')


def _request(rng):
    """A hostile HTTP request (bytes) and what it is."""
    if rng.random() < 0.08:
        garbage = bytes(rng.randrange(256) for _ in range(rng.choice(
            (1, 16, 300, 5000))))
        return garbage + rng.choice((b'', b'\r\n\r\n')), 'garbage'
    path = rng.choice(PATHS)
    query = rng.choice(QUERIES)
    target = path + (b'?' + query if query and rng.random() < 0.7 else b'')
    line = b' '.join(part for part in (rng.choice(METHODS), target,
                                       rng.choice(VERSIONS)) if part)
    headers = [rng.choice(HEADERS) for _ in range(rng.choice(
        (0, 0, 1, 2, 3, 150)))]
    body = rng.choice((b'', b'', b'{}', b'x' * 9000, b'\xff' * 10))
    ending = rng.choice((b'\r\n', b'\r\n', b'\n'))
    return (ending.join([line] + headers) + ending * 2 + body,
            'request %r' % line[:60])


def _send_one(run, port, data, drip=None, read=True):
    """Send ``data`` (one byte every ``drip`` s); the answer must come,
    or the connection be closed, within the deadline.
    """
    bound = CONNECTION_TIMEOUT + 5.0
    try:
        sock = socket.create_connection(('127.0.0.1', port), timeout=bound)
    except OSError as error:
        if not run.stopping:
            run.fail('hangs', 'connect: %s' % error)
        return
    started = time.monotonic()
    try:
        if drip:
            for index in range(len(data)):
                sock.sendall(data[index:index + 1])
                time.sleep(drip)
                if time.monotonic() - started > bound:
                    break
        else:
            sock.sendall(data)
        if not read:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
            time.sleep(CONNECTION_TIMEOUT + 0.5)
        sock.settimeout(max(0.1, bound - (time.monotonic() - started)))
        answer = hostile.read_until_closed(sock)
    except socket.timeout:
        if not run.stopping:
            run.fail('hangs', 'neither answered nor closed within %g s: %r'
                     % (bound, data[:80]))
        return
    except OSError:
        return          # cut by the server: fine
    finally:
        sock.close()
    if answer.split(b'\r\n', 1)[0].split(b' ')[1:2] == [b'500']:
        run.fail('server_errors', '500 for %r' % data[:80])


def _idle(run, port, count, hold):
    socks = []
    try:
        for _ in range(count):
            sock = socket.create_connection(('127.0.0.1', port), timeout=10)
            sock.sendall(b'GET /watcher HTTP/1.1\r\n')
            socks.append(sock)
        time.sleep(0.2)
        started = time.monotonic()
        if _http(port, '/watcher/health', timeout=10.0) is None and \
                not run.stopping:
            run.fail('hangs', 'health unanswered beside %d idle '
                     'connections' % count)
        time.sleep(max(0.0, hold - (time.monotonic() - started)))
    except OSError:
        pass
    finally:
        for sock in socks:
            sock.close()


def _burst(run, port, count):
    with concurrent.futures.ThreadPoolExecutor(count) as pool:
        answers = list(pool.map(lambda _: _http(port, '/watcher', 20.0),
                                range(count)))
    if not run.stopping:
        unanswered = answers.count(None)
        if unanswered:
            run.fail('hangs', '%d of %d concurrent GETs unanswered'
                     % (unanswered, count))
    if any(answer and answer[0] == 500 for answer in answers):
        run.fail('server_errors', '500 in a burst')


def run_api(run, rng, shared):
    port = _start_watcher(run, '', '--source', 'fake', '--hosts', '3',
                          '--trace', shared['trace'])
    if port is None:
        return
    attacks = []
    labels = []
    for _ in range(rng.randint(3, 8)):
        kind = rng.choices(('one', 'drip', 'noread', 'idle', 'burst'),
                           (70, 10, 5, 8, 7))[0]
        data, label = _request(rng)
        if kind == 'one':
            attacks.append((_send_one, (run, port, data)))
        elif kind == 'drip':
            attacks.append((_send_one, (run, port, data[:200],
                                        rng.choice((0.05, 0.3)))))
        elif kind == 'noread':
            attacks.append((_send_one, (run, port, b'GET /watcher '
                                        b'HTTP/1.0\r\n\r\n', None, False)))
            label = 'a client that does not read'
        elif kind == 'idle':
            count = rng.choice((50, 200, 600))
            attacks.append((_idle, (run, port, count,
                                    CONNECTION_TIMEOUT + 1)))
            label = '%d idle connections' % count
        else:
            count = rng.choice((50, 150, 300))
            attacks.append((_burst, (run, port, count)))
            label = '%d concurrent GETs' % count
        labels.append('%s %s' % (kind, label))
    run.label = '; '.join(labels)[:300]
    during = rng.random() < 0.25
    threads = [threading.Thread(target=target, args=args, daemon=True)
               for target, args in attacks]
    for thread in threads:
        thread.start()
    if during:
        time.sleep(rng.uniform(0.1, 1.5))
        run.label += '; SIGTERM during the attack'
        run.stop()
    for thread in threads:
        thread.join(60.0)
        if thread.is_alive():
            run.fail('hangs', 'an attack still going after 60 s')
    if not during and run.alive():
        run.stop()


# -- A hostile Prometheus and a hostile watcher -------------------------------

_DEEP = '__deep__'
_HUGE = '__huge__'
HOSTILE_VALUES = ([], {}, '', 'x', None, True, False, -1, 0, 1e308,
                  float('nan'), float('inf'), 'NaN', '+Inf', '9' * 400,
                  [[[]]], {'a': {'b': []}}, '\u2028\x00\x1b', 'h' * 5000,
                  [1, 2, 3], _DEEP, _HUGE)


def _places(document, prefix=()):
    found = [prefix]
    if isinstance(document, dict):
        for key, value in document.items():
            found += _places(value, prefix + (key,))
    elif isinstance(document, list):
        for index, value in enumerate(document):
            found += _places(value, prefix + (index,))
    return found


def _mutated(rng, document):
    """``document`` with 1 to 3 places set to hostile values, as bytes."""
    for _ in range(rng.randint(1, 3)):
        places = [place for place in _places(document) if place]
        if not places:
            break
        place = rng.choice(places)
        target = document
        for part in place[:-1]:
            target = target[part]
        # A copy: the values are shared by every run of this process.
        target[place[-1]] = copy.deepcopy(rng.choice(HOSTILE_VALUES))
    text = json.dumps(document).encode()
    depth = rng.choice((40, 2000, 100000))
    text = text.replace(b'"%s"' % _DEEP.encode(),
                        b'[' * depth + b']' * depth)
    return text.replace(b'"%s"' % _HUGE.encode(),
                        rng.choice((b'9' * 400, b'-' + b'9' * 5000,
                                    b'1e400', b'1' + b'0' * 30)))


def _answers(rng, named, good):
    """2 to 6 hostile answers: named ones, mutations of ``good()``, and
    good ones, sent whole, one byte at a time, never, cut or raw.
    """
    answers = []
    for _ in range(rng.randint(2, 6)):
        pick = rng.random()
        if pick < 0.35:
            name = rng.choice(sorted(named))
            body, label = named[name], name
        elif pick < 0.85:
            body, label = _mutated(rng, good()), 'mutated'
        else:
            body, label = json.dumps(good()).encode(), 'good'
        mode = rng.choices((hostile.WHOLE, hostile.DRIP, hostile.STALL,
                            hostile.CUT, hostile.RAW), (70, 10, 5, 8, 7))[0]
        status = rng.choices((200, 400, 500, 503, 302, 204),
                             (80, 5, 5, 4, 3, 3))[0]
        answers.append(hostile.Answer(body, status, mode,
                                      delay=rng.choice((0.01, 0.05, 0.3))))
        answers[-1].label = '%s %s %d' % (label, mode, status)
    return answers


def _good_vector(rng):
    hosts = ['compute-%02d' % index for index in range(rng.randint(1, 4))]
    return lambda: json.loads(hostile.good_prometheus_body(hosts, '42'))


def run_prometheus(run, rng, shared):
    answers = _answers(rng, hostile.PROMETHEUS_BODIES, _good_vector(rng))
    stalls = any(answer.mode == hostile.STALL for answer in answers)
    timeout = 300.0 if stalls and rng.random() < 0.4 else rng.choice(
        (0.5, 1.0, 2.0))
    run.label = '%s; timeout %g' % (', '.join(a.label for a in answers),
                                    timeout)
    server = hostile.HostileServer(answers)
    try:
        port = _start_watcher(run, 'prometheus_url = %s\n'
                              'prometheus_timeout = %g\n'
                              % (server.url, timeout),
                              '--source', 'prometheus')
        if port is None:
            return
        during = timeout == 300.0 or rng.random() < 0.2
        bound = time.monotonic() + min(60.0, len(answers) * (
            min(timeout, 2.0) + 1.5) + 5.0)
        while run.alive() and time.monotonic() < bound:
            if len(server.requests) > len(answers) or (
                    during and server.requests):
                break
            answer = _http(port, '/watcher/health', timeout=5.0)
            if answer is None:
                run.fail('hangs', '/watcher/health unanswered within 5 s')
                break
            if answer[0] not in (200, 503):
                run.fail('server_errors', 'health: %d %r' % answer)
            time.sleep(0.25)
        if run.alive():
            answer = _http(port, '/watcher', timeout=5.0)
            if answer is None:
                run.fail('hangs', '/watcher unanswered within 5 s')
            elif answer[0] not in (200, 404):
                run.fail('server_errors', '/watcher: %d' % answer[0])
            if during:
                run.label += '; SIGTERM during a collection'
            run.stop()
    finally:
        server.close()


def _good_payload(rng):
    hosts = ['host-%s' % letter for letter in 'ABCD'[:rng.randint(1, 4)]]
    return lambda: hostile.watcher_payload(int(time.time()) - 30, hosts)


def _rabbit_unreachable():
    """None if RabbitMQ answers at ``RABBIT_URL``, else why not."""
    service.register_messaging_opts(CONF)
    why = hostile.broker_unreachable(
        oslo_messaging.TransportURL.parse(CONF, RABBIT_URL))
    return why and 'RabbitMQ does not answer at %s' % why


def run_scheduler(run, rng, shared):
    answers = _answers(rng, hostile.WATCHER_BODIES, _good_payload(rng))
    run.label = ', '.join(answer.label for answer in answers)
    run_id = 'fuzz-watcher-%s' % uuid.uuid4().hex[:10]
    database = os.path.join(run.directory, 'state.sqlite')
    shutil.copyfile(shared['database'], database)
    server = hostile.HostileServer(answers)
    options = {
        'DEFAULT': {'transport_url': RABBIT_URL, 'control_exchange': run_id},
        'service': {'scheduler_topic': run_id + '-scheduler',
                    'compute_topic': run_id + '-compute',
                    'rpc_timeout': 20.0},
        'oslo_messaging_rabbit': {'amqp_auto_delete': True},
    }
    path = os.path.join(run.directory, 'scheduler.conf')
    with open(path, 'w') as stream:
        stream.write(
            '[DEFAULT]\ntransport_url = %s\ncontrol_exchange = %s\n'
            '[database]\nconnection = sqlite:///%s\n'
            '[service]\ncompute_driver = fake\ntime_scale = 10\n'
            'scheduler_topic = %s-scheduler\ncompute_topic = %s-compute\n'
            '[filter_scheduler]\nweighers = target_load_packing\n'
            '[load_watcher]\nurl = %s\ncache_seconds = 0\n'
            'url_timeout = %g\n[oslo_messaging_rabbit]\n'
            'amqp_auto_delete = true\n[oslo_messaging_notifications]\n'
            'driver = noop\n' % (RABBIT_URL, run_id, database, run_id,
                                 run_id, server.url,
                                 rng.choice((0.5, 1.0, 3.0))))
    transport = None
    try:
        run.start([sys.executable, '-m', 'preemptible_sched.cmd.scheduler',
                   '--config-file', path])
        if not run.wait_for(lambda: 'Scheduler service ready' in
                            run.log(), 90.0, 'ready'):
            return
        service.register_messaging_opts(CONF)
        for group, values in options.items():
            for name, value in values.items():
                CONF.set_override(name, value, None if group == 'DEFAULT'
                                  else group)
        transport = service.get_rpc_transport(CONF)
        api = rpcapi.SchedulerAPI(transport, CONF)
        names = ['r%d' % number for number in range(3)]
        for name in names:
            try:
                api.submit({'id': name, 'resources': {
                    'vcpus': 1, 'memory_mb': 1000, 'disk_gb': 10}})
            except rpcapi.ServiceTimeout:
                run.fail('hangs', 'submit %s unanswered' % name)
                return
        if run.wait_for(lambda: all(api.show(name)['status'] == 'placed'
                                    for name in names), 30.0, 'placed'):
            run.stop()
    except rpcapi.ServiceUnavailable as error:
        run.fail('hangs', 'scheduler unreachable: %s' % error)
    finally:
        if transport is not None:
            transport.cleanup()
        for group, values in options.items():
            for name in values:
                CONF.clear_override(name, None if group == 'DEFAULT'
                                    else group)
        server.close()


CATEGORIES = {'api': run_api, 'prometheus': run_prometheus,
              'scheduler': run_scheduler}


# -- Running ------------------------------------------------------------------

def run_case(args):
    """Run one case in a fresh directory; ``(category, seed, findings)``."""
    category, seed, timeout, base, shared = args
    directory = tempfile.mkdtemp(prefix='run.', dir=base)
    run = Run(directory, '')
    rng = random.Random('%s:%d' % (category, seed))

    def attack():
        try:
            CATEGORIES[category](run, rng, shared)
        except Exception as error:      # the campaign's own bug: counted
            run.fail('campaign_errors', repr(error)[:300])
    worker = threading.Thread(target=attack, daemon=True)
    started = time.monotonic()
    try:
        worker.start()
        worker.join(timeout)
        if worker.is_alive():
            run.fail('hangs', 'the run still going after %g s' % timeout)
        if run.process is not None and run.process.returncode is None:
            if run.process.poll() is None:
                run.stop()
            else:
                run.finish()
    except Exception as error:      # the campaign's own bug: counted
        run.fail('campaign_errors', repr(error)[:300])
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    code = None if run.process is None else run.process.returncode
    return category, seed, {
        'findings': sorted(run.findings), 'code': code,
        'label': run.label, 'notes': run.notes,
        'elapsed': round(time.monotonic() - started, 1)}


def _shared_files(base, categories):
    shared = {'trace': load_helpers.make_bitbrains(
        tempfile.mkdtemp(dir=base),
        {1: (1000, [100, 200, 300]), 2: (2000, [500, 700])})}
    if 'scheduler' in categories:
        shared['database'] = os.path.join(base, 'template.sqlite')
        path = os.path.join(base, 'template.conf')
        with open(path, 'w') as stream:
            stream.write('[database]\nconnection = sqlite:///%s\n'
                         % shared['database'])
        subprocess.run([sys.executable, '-m', 'preemptible_sched.cmd.manage',
                        '--config-file', path, 'db', 'sync'], check=True,
                       capture_output=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=REPO))
    return shared


#: The options: (flags, argparse keywords).
OPTIONS = (
    ('--quick', dict(type=int, metavar='N',
                     help='N runs per category (a smoke run).')),
    ('--categories', dict(default=','.join(CATEGORIES),
                          help='Comma-separated categories (default: all: '
                          '%(default)s).')),
    ('--replay', dict(metavar='CATEGORY:SEED',
                      help='Run one case again (as a failure names it).')),
    ('--jobs', dict(type=int, default=2, help='Runs at once (default 2).')),
    ('--timeout', dict(type=float, default=180.0,
                       help='Seconds before a run counts as a hang '
                       '(default 180).')),
    ('--seed', dict(type=int, default=2026,
                    help='Seed of the generators (default 2026).')),
    ('--examples', dict(type=int, default=5,
                        help='Failing runs shown per category (default 5).')),
    ('--progress', dict(type=int, default=100, metavar='N',
                        help='Say on stderr every N runs how far it got '
                        '(default 100; 0: never).')),
)


def _cases(parser, args):
    """``(categories, [(category, seed)])`` the arguments ask for."""
    if args.replay:
        category, _, seed = args.replay.partition(':')
        if category not in CATEGORIES or not seed.isdigit():
            parser.error('--replay: CATEGORY:SEED, CATEGORY one of %s'
                         % ', '.join(CATEGORIES))
        return [category], [(category, int(seed))]
    names = [name.strip() for name in args.categories.split(',')
             if name.strip()]
    unknown = sorted(set(names) - set(CATEGORIES))
    if unknown:
        parser.error('unknown categories: %s (known: %s)' % (
            ', '.join(unknown), ', '.join(CATEGORIES)))
    return names, [(name, args.seed * 100000 + index) for name in names
                   for index in range(SIZES[name] if args.quick is None
                                      else args.quick)]


class Tally:
    """Counts of one category, or of all."""

    def __init__(self):
        self.counts = collections.Counter({name: 0 for name in
                                           ('runs',) + _COUNTERS})
        self.exit_codes = collections.Counter()

    def add(self, result):
        self.counts['runs'] += 1
        self.counts.update(result['findings'])
        self.exit_codes[str(result['code'])] += 1

    def merge(self, other):
        self.counts.update(other.counts)
        self.exit_codes.update(other.exit_codes)

    def as_dict(self):
        return dict(self.counts, exit_codes=dict(self.exit_codes))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n\n')[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag, keywords in OPTIONS:
        parser.add_argument(flag, **keywords)
    args = parser.parse_args(argv)
    names, cases = _cases(parser, args)
    skipped = {}
    why = 'scheduler' in names and _rabbit_unreachable()
    if why:
        skipped['scheduler'] = why
        names.remove('scheduler')
        cases = [case for case in cases if case[0] != 'scheduler']
    started = time.monotonic()
    base = tempfile.mkdtemp(prefix='fuzz-watcher.')
    tallies = {name: Tally() for name in names}
    failures = collections.defaultdict(list)
    try:
        shared = _shared_files(base, names)
        with multiprocessing.Pool(args.jobs) as pool:
            for done, (category, seed, result) in enumerate(
                    pool.imap_unordered(run_case, [
                        (category, seed, args.timeout, base, shared)
                        for category, seed in cases]), start=1):
                tallies[category].add(result)
                if args.progress and (done % args.progress == 0 or
                                      done == len(cases)):
                    sys.stderr.write('%d/%d runs, %.0f s\n' % (
                        done, len(cases), time.monotonic() - started))
                if result['findings'] and \
                        len(failures[category]) < args.examples:
                    failures[category].append(dict(
                        result, replay='%s:%d' % (category, seed)))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    total = Tally()
    for tally in tallies.values():
        total.merge(tally)
    json.dump({'categories': {name: tally.as_dict()
                              for name, tally in tallies.items()},
               'total': total.as_dict(), 'skipped': skipped,
               'failures': dict(failures),
               'elapsed_s': round(time.monotonic() - started, 1),
               'seed': args.seed, 'jobs': args.jobs,
               'timeout_s': args.timeout},
              sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write('\n')
    return 1 if any(total.counts[name] for name in _COUNTERS) else 0


if __name__ == '__main__':
    sys.exit(main())
