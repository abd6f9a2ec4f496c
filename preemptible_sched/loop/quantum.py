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

"""Passes on a quantum grid (``[scheduler] pass_mode = quantum``).

Instead of a pass soon after every event, the loop then passes only at
``pass_phase + k * pass_quantum`` seconds, as the reference architecture's
simulator does: :meth:`QuantumPasses._next_slot` finds the next time of
the grid, :meth:`QuantumPasses._slot` runs the pass there.
"""

import math

from preemptible_sched.conf import CONF


class QuantumPasses:
    """The quantum grid, mixed into the
    :class:`~preemptible_sched.loop.scheduler_loop.SchedulerLoop`, whose
    clock and ``_pass`` it uses.
    """

    def _next_slot(self):
        """The first time ``pass_phase + k * pass_quantum`` (k >= 0)
        not before now and after the last pass of the grid.
        """
        conf = CONF.scheduler
        phase, quantum = conf.pass_phase, conf.pass_quantum
        k = max(0, math.ceil((self.clock.now() - phase) / quantum))
        if self._last_slot is not None:
            k = max(k, round((self._last_slot - phase) / quantum) + 1)
        # Multiplied from the phase each time: no drift from repeated sums.
        return phase + k * quantum

    def _slot(self):
        if not self.alive:
            return
        self._last_slot = self.clock.now()
        self._pass()
