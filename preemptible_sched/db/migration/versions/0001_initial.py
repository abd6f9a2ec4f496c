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

"""Initial schema: hosts, requests, instances, decisions, events.

Revision ID: 0001
Revises:
Create Date: 2024-06-01
"""

from alembic import op
import sqlalchemy as sa

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None

NAME = sa.String(255)
STATE = sa.String(32)
# Transactions and foreign keys need InnoDB; ids and reasons may be any
# Unicode.
MYSQL = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}


def upgrade():
    op.create_table(
        'hosts',
        sa.Column('name', NAME, nullable=False),
        sa.Column('vcpus', sa.Double(), nullable=False),
        sa.Column('memory_mb', sa.Double(), nullable=False),
        sa.Column('disk_gb', sa.Double(), nullable=False),
        sa.Column('attributes', sa.JSON(), nullable=False),
        sa.Column('availability_zone', NAME, nullable=True),
        sa.Column('enabled', sa.Boolean(), nullable=False),
        sa.Column('up', sa.Boolean(), nullable=False),
        sa.Column('updated_at', sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint('name', name='pk_hosts'),
        **MYSQL,
    )
    op.create_table(
        'requests',
        sa.Column('id', NAME, nullable=False),
        sa.Column('spec', sa.JSON(), nullable=False),
        sa.Column('duration_s', sa.Double(), nullable=True),
        sa.Column('image', NAME, nullable=True),
        sa.Column('status', STATE, nullable=False),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.Column('attempts', sa.Integer(), nullable=False,
                  server_default=sa.text('0')),
        sa.Column('submitted_at', sa.Double(), nullable=False),
        sa.Column('updated_at', sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint('id', name='pk_requests'),
        **MYSQL,
    )
    op.create_table(
        'instances',
        sa.Column('id', NAME, nullable=False),
        sa.Column('request_id', NAME, nullable=False),
        sa.Column('host', NAME, nullable=True),
        sa.Column('state', STATE, nullable=False),
        sa.Column('preemptible', sa.Boolean(), nullable=False),
        sa.Column('vcpus', sa.Double(), nullable=False),
        sa.Column('memory_mb', sa.Double(), nullable=False),
        sa.Column('disk_gb', sa.Double(), nullable=False),
        sa.Column('flavor', NAME, nullable=True),
        sa.Column('service_class', NAME, nullable=True),
        sa.Column('group', NAME, nullable=True),
        sa.Column('priority', sa.Double(), nullable=False,
                  server_default=sa.text('0')),
        sa.Column('created_at', sa.Double(), nullable=False),
        sa.Column('scheduled_at', sa.Double(), nullable=True),
        sa.Column('started_at', sa.Double(), nullable=True),
        sa.Column('ended_at', sa.Double(), nullable=True),
        sa.Column('updated_at', sa.Double(), nullable=True),
        sa.Column('running_s', sa.Double(), nullable=False,
                  server_default=sa.text('0')),
        sa.Column('pending_s', sa.Double(), nullable=False,
                  server_default=sa.text('0')),
        sa.Column('overhead_s', sa.Double(), nullable=False,
                  server_default=sa.text('0')),
        sa.Column('preemptions', sa.Integer(), nullable=False,
                  server_default=sa.text('0')),
        sa.Column('decision_id', sa.Integer(), nullable=True),
        sa.Column('terminated_by', sa.Integer(), nullable=True),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_instances'),
        sa.ForeignKeyConstraint(['request_id'], ['requests.id'],
                                name='fk_instances_request_id_requests'),
        **MYSQL,
    )
    op.create_index('ix_instances_host_state', 'instances',
                    ['host', 'state'])
    op.create_index('ix_instances_state', 'instances', ['state'])
    op.create_index('ix_instances_request_id', 'instances', ['request_id'])
    op.create_table(
        'decisions',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('request_id', NAME, nullable=False),
        sa.Column('instance_id', NAME, nullable=False),
        sa.Column('host', NAME, nullable=False),
        sa.Column('victims', sa.JSON(), nullable=False),
        sa.Column('confirmed', sa.JSON(), nullable=False),
        sa.Column('state', STATE, nullable=False),
        sa.Column('created_at', sa.Double(), nullable=False),
        sa.Column('updated_at', sa.Double(), nullable=False),
        sa.Column('reason', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_decisions'),
        sa.ForeignKeyConstraint(['request_id'], ['requests.id'],
                                name='fk_decisions_request_id_requests'),
        sa.ForeignKeyConstraint(['instance_id'], ['instances.id'],
                                name='fk_decisions_instance_id_instances'),
        **MYSQL,
    )
    op.create_index('ix_decisions_state', 'decisions', ['state'])
    op.create_index('ix_decisions_request_id', 'decisions', ['request_id'])
    op.create_index('ix_decisions_instance_id', 'decisions', ['instance_id'])
    op.create_table(
        'events',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('at', sa.Double(), nullable=False),
        sa.Column('kind', NAME, nullable=False),
        sa.Column('request_id', NAME, nullable=True),
        sa.Column('instance_id', NAME, nullable=True),
        sa.Column('host', NAME, nullable=True),
        sa.Column('payload', sa.JSON(), nullable=True),
        sa.PrimaryKeyConstraint('id', name='pk_events'),
        **MYSQL,
    )
    op.create_index('ix_events_kind', 'events', ['kind'])
