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

"""The work an instance has done, in reference seconds.

``instances.work_s`` is the part of its request's duration (a run time at
the reference speed) that an instance's runs so far have done: each run
adds its host seconds scaled by the host's speed over the reference, so
that a requeued instance runs only what is left, in one unit, on a host
of any speed. Instances stored before have the running time they
accumulated (host seconds, as the remaining run time was counted then).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from alembic import op
import sqlalchemy as sa

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('work_s', sa.Double(), nullable=False,
                                   server_default=sa.text('0')))
    op.execute('UPDATE instances SET work_s = running_s')


def downgrade():
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('work_s')
