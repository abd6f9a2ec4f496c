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

"""A soak under faults: the scheduler loop on random clouds, checked.

Each scenario is drawn from its seed alone: a small cloud of fake blades
(2 to 6 hosts of random sizes), a random workload (normal and preemptible
requests, some for two or three instances, some with durations, some
deleted mid-way), a preemption strategy (``dual_state``, ``retry``, ``qos``
or ``priority``), a few options, and faults. The production
:class:`~preemptible_sched.loop.scheduler_loop.SchedulerLoop` runs it on a
:class:`~preemptible_sched.clock.VirtualClock`, its store on an SQLite file,
so that a restart is a new loop on a new store handle of the same file.

Faults (counted per kind when they actually happen, see
:data:`tests.soak.faults.FAULTS`):

* the compute side refuses a spawn at once, fails it at the end of its boot
  (``fail_next_spawns``), fails a termination
  (``fail_next_terminations``), or crashes an instance
  (``crash_instance``); hosts go down and come back;
* spawn and terminate messages are lost
  (:class:`~tests.soak.faults.SoakDriver` swallows the call);
* reports are delayed (hence reordered), duplicated or lost on their way
  to the loop (:class:`~tests.soak.faults.EventProxy`, which stands where
  the message bus does); reports that answer nothing the loop asked for
  (an instance that ended or crashed while running, a host going down or
  up) are never lost: no deadline could recover them;
* the scheduler crashes at the executor's crash points (``crash_hook``)
  and between events, and restarts, after a random downtime, from the
  database alone; the reports that waited for it reach it before its first
  step (with ``--late-held-reports``, over a while after it, as a broker's
  backlog does: see :data:`tests.soak.faults.EXTRA_FAULTS`).

After the workload the faults stop, every host comes back, and the clock
runs on for a while (``settle``) so that deadlines and watchdogs can finish
what the faults left open. Then the invariants
(:data:`tests.soak.invariants.INVARIANTS`) are checked against the store,
the loop's books and what the fake blades really run. Run it as::

    python -m tests.soak --scenarios 10000 --jobs 2

It prints its figures as JSON on stdout and exits 1 when an invariant was
broken. ``--seed S --scenarios 1 --trace`` replays one scenario with a log
of everything that happened; ``--minimize`` finds, for the first violating
seeds, the fault kinds the violation needs.

The harness is in parts: :mod:`tests.soak.scenarios` (what a seed
draws), :mod:`tests.soak.faults` (the misbehaving compute side and
message bus), :mod:`tests.soak.invariants` (the checks),
:mod:`tests.soak.run` (one scenario), :mod:`tests.soak.campaign` (many,
in worker processes, and their figures) and :mod:`tests.soak.cli` (the
command line).
"""
