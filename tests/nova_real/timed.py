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

"""A scheduler of the test cloud that logs how long each
``select_destinations`` takes, for the benchmarks.

``python -m tests.nova_real.timed nova-scheduler|preemptible-nova-scheduler
--config-file ...`` runs that command's ``main`` unchanged, after wrapping
the ``select_destinations`` of the manager class it serves with (Nova's
``SchedulerManager`` or ``PreemptibleSchedulerManager``) so that every call
logs one INFO line (:data:`LINE`): its wall time (``time.perf_counter``)
and the CPU time of the thread that served it (``time.thread_time``) in
milliseconds, the instances, and ``ok`` or the exception's class. The
method is wrapped on the class, before the service starts, so what RabbitMQ
hands the service is what is timed; nothing else changes.
"""

import functools
import sys
import time

#: The line logged per call (parsed by :func:`parse`).
LINE = ('select_destinations wall_ms=%.3f cpu_ms=%.3f instances=%s '
        'outcome=%s')
PREFIX = 'select_destinations wall_ms='
COMMANDS = ('nova-scheduler', 'preemptible-nova-scheduler')


def wrap(cls):
    """Wrap ``cls.select_destinations`` (its own, not an inherited one)."""
    from oslo_log import log as logging

    log = logging.getLogger('tests.nova_real.timed')
    method = cls.__dict__['select_destinations']

    @functools.wraps(method)
    def timed(self, context, *args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        outcome = 'ok'
        try:
            return method(self, context, *args, **kwargs)
        except BaseException as error:
            outcome = type(error).__name__
            raise
        finally:
            log.info(LINE, (time.perf_counter() - wall) * 1e3,
                     (time.thread_time() - cpu) * 1e3,
                     ','.join(kwargs.get('instance_uuids') or ()) or '-',
                     outcome)

    cls.select_destinations = timed


def parse(text):
    """``[{'wall_ms', 'cpu_ms', 'instances', 'outcome'}]`` of the lines of
    a scheduler log ``text``, in order.
    """
    calls = []
    for line in text.splitlines():
        at = line.find(PREFIX)
        if at < 0:
            continue
        fields = dict(field.split('=', 1)
                      for field in line[at:].split()[1:] if '=' in field)
        try:
            calls.append({
                'wall_ms': float(fields['wall_ms']),
                'cpu_ms': float(fields['cpu_ms']),
                'instances': [uuid for uuid in fields['instances'].split(',')
                              if uuid != '-'],
                'outcome': fields['outcome']})
        except (KeyError, ValueError):
            continue
    return calls


def main(argv):
    if not argv or argv[0] not in COMMANDS:
        sys.stderr.write('usage: python -m tests.nova_real.timed %s '
                         '[--config-file FILE ...]\n' % '|'.join(COMMANDS))
        return 2
    command = argv[0]
    # The command's module first: it picks Nova's concurrency backend
    # before anything else is imported.
    if command == 'nova-scheduler':
        from nova.cmd import scheduler as cmd
        from nova.scheduler import manager
        wrap(manager.SchedulerManager)
    else:
        from preemptible_sched.nova import cmd
        from preemptible_sched.nova import manager
        wrap(manager.PreemptibleSchedulerManager)
    sys.argv = [command] + list(argv[1:])
    return cmd.main()


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
