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

"""Requests belong to a project.

``requests.project_id`` is the project of the caller who submitted the
request (from the context of its RPC call); the client API's policy lets a
project see and delete only its own requests. Requests stored before
belong to the project ``default``, the project of a caller that names
none, so a deployment without projects behaves as before. Indexed: a
project lists its requests.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from alembic import op
import sqlalchemy as sa

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('requests') as batch:
        batch.add_column(sa.Column('project_id', sa.String(255),
                                   nullable=False,
                                   server_default=sa.text("'default'")))
        batch.create_index('ix_requests_project_id', ['project_id'])
