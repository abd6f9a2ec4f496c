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

"""When a Nova victim was taken.

``nova_victims.taken_at`` (seconds since the epoch) is set when a
scheduler takes a victim to act on it; another scheduler takes it again
only once that is a lease old (the first one is then taken for dead).
Victims taken before have none, and may be taken again at once, as
before.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('nova_victims') as batch:
        batch.add_column(sa.Column('taken_at', sa.Double(), nullable=True))


def downgrade():
    with op.batch_alter_table('nova_victims') as batch:
        batch.drop_column('taken_at')
