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

"""The term of the leading scheduler, per topic.

``leadership`` holds one row per ``scheduler_topic``: the epoch of the
scheduler leading it (one more at each takeover), who it is and since
when. A leader's writes check the epoch: one that lost the lead cannot
write after its successor began.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'leadership',
        sa.Column('topic', sa.String(255), nullable=False),
        sa.Column('epoch', sa.Integer(), nullable=False),
        sa.Column('holder', sa.String(255), nullable=False),
        sa.Column('since', sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint('topic', name=op.f('pk_leadership')),
        mysql_engine='InnoDB', mysql_charset='utf8mb4')


def downgrade():
    op.drop_table('leadership')
