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
:mod:`preemptible_sched.service.scheduler_service`); start-up, signals and
exit codes are every service command's (:mod:`.serving`).
"""

import os
import sys

from preemptible_sched.cmd import serving


def _build(conf):
    from preemptible_sched.service import scheduler_service
    server = scheduler_service.SchedulerService(conf)
    server.exit_when_stuck = _exit_deposed
    return server


def _exit_deposed(why):
    """End the process at once, exit 1: a deposed scheduler that a call
    cut off from its database holds (its supervisor restarts it).
    """
    serving.fail('preemptible-scheduler',
                 'lost the lead of its topic, stopped: %s' % why,
                 serving.EXIT_ERROR)
    sys.stderr.flush()
    os._exit(serving.EXIT_ERROR)


def main(argv=None):
    serving.quiet_eventlet()
    return serving.serve('preemptible-scheduler',
                         sys.argv[1:] if argv is None else argv, _build)


if __name__ == '__main__':
    sys.exit(main())
