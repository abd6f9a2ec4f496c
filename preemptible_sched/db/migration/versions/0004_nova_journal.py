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

"""The journal of the Nova scheduler manager.

``nova_decisions`` holds each decision that terminates servers, written
before the first of them is touched; ``nova_victims`` its servers, with a
unique ``open_victim`` column set while the decision may still act on the
server, so that no two open decisions of any schedulers name the same
server.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'nova_decisions',
        sa.Column('id', sa.String(36), primary_key=True),
        sa.Column('scheduler', sa.String(255), nullable=False),
        sa.Column('reason', sa.String(32), nullable=False),
        sa.Column('request', sa.JSON, nullable=False),
        sa.Column('created_at', sa.Double(), nullable=False),
        sa.Column('terminate_at', sa.Double(), nullable=False),
        sa.Column('state', sa.String(16), nullable=False),
    )
    op.create_index(op.f('ix_nova_decisions_state'), 'nova_decisions',
                    ['state'])
    op.create_table(
        'nova_victims',
        sa.Column('decision_id', sa.String(36),
                  sa.ForeignKey('nova_decisions.id',
                                name=op.f('fk_nova_victims_decision_id_'
                                          'nova_decisions')),
                  primary_key=True),
        sa.Column('victim', sa.String(36), primary_key=True),
        sa.Column('host', sa.String(255), nullable=True),
        sa.Column('action', sa.String(16), nullable=False),
        sa.Column('state', sa.String(16), nullable=False),
        sa.Column('open_victim', sa.String(36), nullable=True),
        sa.UniqueConstraint('open_victim',
                            name=op.f('uq_nova_victims_open_victim')),
    )


def downgrade():
    op.drop_table('nova_victims')
    op.drop_index(op.f('ix_nova_decisions_state'), 'nova_decisions')
    op.drop_table('nova_decisions')
