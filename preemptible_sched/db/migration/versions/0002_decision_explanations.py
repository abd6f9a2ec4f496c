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

"""Decisions explain themselves; instances remember who displaced them.

``decisions.strategy`` and ``decisions.explanation`` (per-host verdict
counts, the winner's weights, the victims' costs and the strategy's
reason) are written with the decision; ``instances.displaced_by`` is the
decision whose termination of the instance was confirmed, kept when the
instance is requeued so that ``show`` can say who displaced it and why.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('decisions') as batch:
        batch.add_column(sa.Column('strategy', sa.String(64), nullable=True))
        batch.add_column(sa.Column('explanation', sa.JSON(), nullable=True))
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('displaced_by', sa.Integer(),
                                   nullable=True))
