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
