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

"""The cores an instance is declared to use.

``instances.expected_vcpus`` is its request's declared use (the
load-aware weighers' ``expected_vcpus``), kept with the instance so that
a restarted scheduler weighs its hosts as before. Instances stored before
declared nothing (NULL): the weighers predict their use, as they did.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from alembic import op
import sqlalchemy as sa

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('expected_vcpus', sa.Double(),
                                   nullable=True))


def downgrade():
    with op.batch_alter_table('instances') as batch:
        batch.drop_column('expected_vcpus')
