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

"""What the Nova journal (:mod:`.journal`) holds: decisions and victims.

A :class:`Decision` is what :meth:`.journal.Journal.record` writes and
what the journal's reads return, with its :class:`Victim` servers; their
states and the moves between them are the journal's.
"""

import dataclasses
import typing

import sqlalchemy as sa

from preemptible_sched.db import models


@dataclasses.dataclass
class Victim:
    id: str
    host: typing.Optional[str]
    action: str = 'delete'
    state: str = 'pending'
    #: its Placement consumer before the decision emptied it
    #: (``allocations``, ``project_id``, ``user_id``), or None
    consumer: typing.Optional[dict] = None
    attempts: int = 0


@dataclasses.dataclass
class Decision:
    id: str
    scheduler: str
    reason: str
    request: list
    created_at: float
    terminate_at: float
    victims: list
    state: str = 'decided'


def from_row(session, row):
    """The :class:`Decision` of a ``nova_decisions`` row, with its victims
    (read in ``session``).
    """
    victims = session.scalars(
        sa.select(models.NovaVictim)
        .where(models.NovaVictim.decision_id == row.id)
        .order_by(models.NovaVictim.victim)).all()
    return Decision(
        row.id, row.scheduler, row.reason, list(row.request),
        row.created_at, row.terminate_at,
        [Victim(v.victim, v.host, v.action, v.state, v.consumer,
                v.attempts or 0) for v in victims],
        row.state)
