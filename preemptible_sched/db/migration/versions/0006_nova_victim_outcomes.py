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

"""What a Nova victim held, and how often it was acted on.

``nova_victims.consumer`` keeps the victim's Placement consumer (its
allocations, project and user) as read before its decision emptied them,
so that a decision given up (its request died) gives the victim its room
back; ``attempts`` counts the deletions (or shelves) asked for it, retried
until the server is gone. The new states (``requested``: asked, not yet
confirmed; ``spared``: its decision was given up first) need no schema
change.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('nova_victims') as batch:
        batch.add_column(sa.Column('consumer', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('attempts', sa.Integer(), nullable=False,
                                   server_default='0'))


def downgrade():
    with op.batch_alter_table('nova_victims') as batch:
        batch.drop_column('attempts')
        batch.drop_column('consumer')
