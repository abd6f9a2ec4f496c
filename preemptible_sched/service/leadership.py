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

"""The leader's side of its lease: checked often, given up in time.

The database server drops the lock of a leader that has not talked to it
for ``[service] leader_lease_seconds`` (:mod:`preemptible_sched.db.
leadership`). The leader checks its lock every quarter of that, and takes
itself for deposed (``on_lost``) when a check fails or when two thirds of
the lease have passed since the last check that succeeded began: before
the server can have dropped the lock, so it stops acting before a standby
can begin. A check that hangs (a cut network) counts as failed when that
time is up.
"""

import logging
import threading
import time

LOG = logging.getLogger(__name__)

#: Of the lease: how often the lock is checked, and after how long
#: without a successful check the leader stops.
CHECK_EVERY = 0.25
GIVE_UP_AFTER = 2.0 / 3.0


class Keeper:
    """Checks ``lease`` (a :class:`~preemptible_sched.db.leadership.
    Lease`) in a thread of its own; calls ``on_lost(why)`` once when the
    lead is lost, then stops checking.
    """

    def __init__(self, lease, lease_seconds, on_lost,
                 monotonic=time.monotonic):
        self.lease = lease
        self.lease_seconds = lease_seconds
        self.on_lost = on_lost
        self._monotonic = monotonic
        self._stopped = threading.Event()
        self._thread = None

    def start(self):
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name='leader-lease')
        self._thread.start()

    def stop(self):
        self._stopped.set()

    def _run(self):
        give_up = self.lease_seconds * GIVE_UP_AFTER
        last_good = self._monotonic()
        while not self._stopped.wait(self.lease_seconds * CHECK_EVERY):
            began = self._monotonic()
            held = self._check(last_good + give_up - began)
            if self._stopped.is_set():
                return
            if held:
                last_good = began
                continue
            if held is None:
                why = ('no check of the scheduler lock succeeded for %.1f '
                       's' % (self._monotonic() - last_good))
            else:
                why = 'the database no longer holds the scheduler lock'
            self.on_lost(why)
            return

    def _check(self, timeout):
        """The lease's check, waited for ``timeout`` s at most: its
        answer, or None when it did not come in time.
        """
        if timeout <= 0:
            return None
        answer = {}
        done = threading.Event()

        def check():
            answer['held'] = self.lease.check()
            done.set()
        threading.Thread(target=check, daemon=True,
                         name='leader-lease-check').start()
        if not done.wait(timeout):
            return None
        return answer['held']
