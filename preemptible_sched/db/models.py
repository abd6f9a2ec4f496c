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

"""The tables of the durable state, as SQLAlchemy 2 declarative models.

The schema is created only by the alembic migrations in
:mod:`preemptible_sched.db.migration`; these models must match them (a unit
test compares the two on every backend).

Times are seconds on the scheduler's clock (which may be virtual), stored
as double-precision floats and always supplied by the caller, never taken
from the database server. Sizes are in the units of
:mod:`preemptible_sched.objects`: vCPUs, MB of memory, GB of disk.
"""

import typing

import sqlalchemy as sa
from sqlalchemy import orm

from preemptible_sched import objects
from preemptible_sched import wire

#: Lifecycle of a request.
REQUEST_STATUSES = ('pending', 'placed', 'failed', 'deleted')

#: Lifecycle of an instance. ``terminating`` marks a victim whose
#: termination was journaled and is in flight.
INSTANCE_STATES = ('pending', 'building', 'running', 'terminating', 'ended',
                   'terminated', 'preempted', 'error', 'deleted')

#: States an instance may be in to be chosen as a victim.
VICTIM_STATES = ('running', 'building')

#: How a confirmed victim ends: terminated for good, or preempted (its
#: request may run it again later).
TERMINATION_STATES = ('terminated', 'preempted')

#: Lifecycle of a decision: journaled, then terminating its victims, then
#: spawning the new instance, then done; or rolled back / failed.
DECISION_STATES = ('journaled', 'terminating', 'spawning', 'done',
                   'rolled_back', 'failed')

#: Decisions a restarted scheduler must complete or roll back.
UNFINISHED_DECISION_STATES = ('journaled', 'terminating', 'spawning')

NAME_LENGTH = 255
STATE_LENGTH = 32

#: The project of a request stored without one (and of every request
#: stored before requests had projects).
DEFAULT_PROJECT = 'default'

# Fixed constraint names, identical on every backend, so that a later
# migration can drop or alter them by name.
NAMING_CONVENTION = {
    'ix': 'ix_%(table_name)s_%(column_0_N_name)s',
    'uq': 'uq_%(table_name)s_%(column_0_N_name)s',
    'ck': 'ck_%(table_name)s_%(constraint_name)s',
    'fk': 'fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s',
    'pk': 'pk_%(table_name)s',
}

# Transactions and foreign keys need InnoDB; ids and reasons may be any
# Unicode.
MYSQL_OPTIONS = {'mysql_engine': 'InnoDB', 'mysql_charset': 'utf8mb4'}

# FLOAT is single precision on MySQL: 7 digits lose the fraction of a
# clock reading such as 1.7e9. Double precision on every backend.
Time = sa.Double
Amount = sa.Double


def _name(nullable=True, **kw):
    return orm.mapped_column(sa.String(NAME_LENGTH), nullable=nullable, **kw)


def _state():
    return orm.mapped_column(sa.String(STATE_LENGTH), nullable=False)


def _time(nullable=True):
    return orm.mapped_column(Time, nullable=nullable)


def _accumulated():
    return orm.mapped_column(Amount, nullable=False, default=0.0,
                             server_default=sa.text('0'))


class Base(orm.DeclarativeBase):
    metadata = sa.MetaData(naming_convention=NAMING_CONVENTION)

    def __repr__(self):
        mapper = sa.inspect(self).mapper
        key = ', '.join('%s=%r' % (column.key, getattr(self, column.key))
                        for column in mapper.primary_key)
        return '<%s %s>' % (type(self).__name__, key)


class HostMixin:
    """What a host row says, whatever store it comes from."""

    def to_object(self):
        """The :class:`objects.Host` this row describes."""
        return objects.Host(name=self.name, vcpus=self.vcpus,
                            memory_mb=self.memory_mb, disk_gb=self.disk_gb,
                            attributes=dict(self.attributes or {}),
                            availability_zone=self.availability_zone,
                            enabled=self.enabled, up=self.up)


class RequestMixin:
    """What a request row says, whatever store it comes from."""

    def request_spec(self):
        """The :class:`objects.RequestSpec` stored in :attr:`spec` (in
        the form of :func:`preemptible_sched.wire.spec_to_dict`).
        """
        return wire.spec_from_dict(self.spec)


class InstanceMixin:
    """What an instance row says, whatever store it comes from."""

    @property
    def resources(self):
        return objects.Resources(self.vcpus, self.memory_mb, self.disk_gb)


class DecisionMixin:
    """What a decision row says, whatever store it comes from."""

    @property
    def unconfirmed(self):
        """Victims whose termination is not confirmed yet, in order."""
        confirmed = self.confirmed
        return [v for v in self.victims if v not in confirmed]


class Host(HostMixin, Base):
    """A compute host as last reported, and whether it is up."""

    __tablename__ = 'hosts'
    __table_args__ = (MYSQL_OPTIONS,)

    name: orm.Mapped[str] = _name(nullable=False, primary_key=True)
    vcpus: orm.Mapped[float] = orm.mapped_column(Amount, nullable=False)
    memory_mb: orm.Mapped[float] = orm.mapped_column(Amount, nullable=False)
    disk_gb: orm.Mapped[float] = orm.mapped_column(Amount, nullable=False)
    attributes: orm.Mapped[dict] = orm.mapped_column(sa.JSON, nullable=False)
    availability_zone: orm.Mapped[typing.Optional[str]] = _name()
    enabled: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, nullable=False)
    up: orm.Mapped[bool] = orm.mapped_column(sa.Boolean, nullable=False)
    updated_at: orm.Mapped[float] = _time(nullable=False)


class Request(RequestMixin, Base):
    """A request for instances, with its :class:`objects.RequestSpec`;
    ``project_id`` is the project it belongs to (who may see and delete
    it).
    """

    __tablename__ = 'requests'
    __table_args__ = (
        sa.Index(None, 'project_id'),
        MYSQL_OPTIONS,
    )

    id: orm.Mapped[str] = _name(nullable=False, primary_key=True)
    project_id: orm.Mapped[str] = _name(
        nullable=False, default=DEFAULT_PROJECT,
        server_default=sa.text("'%s'" % DEFAULT_PROJECT))
    spec: orm.Mapped[dict] = orm.mapped_column(sa.JSON, nullable=False)
    # How long its instances run, when the workload says so (traces do;
    # the QoS policies and shortest-remaining-time-first use it).
    duration_s: orm.Mapped[typing.Optional[float]] = _time()
    image: orm.Mapped[typing.Optional[str]] = _name()
    status: orm.Mapped[str] = _state()
    reason: orm.Mapped[typing.Optional[str]] = orm.mapped_column(sa.Text)
    attempts: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False, default=0, server_default=sa.text('0'))
    submitted_at: orm.Mapped[float] = _time(nullable=False)
    updated_at: orm.Mapped[float] = _time(nullable=False)


class Instance(InstanceMixin, Base):
    """One instance of a request, from admission to its end.

    ``host`` and ``decision_id`` are set when a decision claims a host for
    it (the instance stays ``pending`` until it is spawned);
    ``terminated_by`` is the decision that chose it as a victim (cleared
    when it is requeued); ``displaced_by`` the last decision whose
    termination of it was confirmed (kept).
    ``running_s``, ``pending_s`` and ``overhead_s`` accumulate over the
    instance's whole life, across preemptions; the QoS policies read them.
    ``work_s`` is the part of the request's duration its runs have done,
    in reference seconds (a run's host seconds times the host's speed
    over the reference speed; host seconds when either is unknown): a
    requeued instance runs the duration less it.
    """

    __tablename__ = 'instances'
    __table_args__ = (
        sa.Index(None, 'host', 'state'),
        sa.Index(None, 'state'),
        sa.Index(None, 'request_id'),
        MYSQL_OPTIONS,
    )

    id: orm.Mapped[str] = _name(nullable=False, primary_key=True)
    request_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(NAME_LENGTH), sa.ForeignKey('requests.id'), nullable=False)
    host: orm.Mapped[typing.Optional[str]] = _name()
    state: orm.Mapped[str] = _state()
    preemptible: orm.Mapped[bool] = orm.mapped_column(
        sa.Boolean, nullable=False)
    vcpus: orm.Mapped[float] = orm.mapped_column(Amount, nullable=False)
    memory_mb: orm.Mapped[float] = orm.mapped_column(Amount, nullable=False)
    disk_gb: orm.Mapped[float] = orm.mapped_column(Amount, nullable=False)
    flavor: orm.Mapped[typing.Optional[str]] = _name()
    service_class: orm.Mapped[typing.Optional[str]] = _name()
    group: orm.Mapped[typing.Optional[str]] = _name()
    priority: orm.Mapped[float] = orm.mapped_column(
        Amount, nullable=False, default=0.0, server_default=sa.text('0'))
    #: the cores it is declared to use (its request's ``expected_vcpus``;
    #: None: undeclared)
    expected_vcpus: orm.Mapped[typing.Optional[float]] = orm.mapped_column(
        Amount)
    created_at: orm.Mapped[float] = _time(nullable=False)
    scheduled_at: orm.Mapped[typing.Optional[float]] = _time()
    started_at: orm.Mapped[typing.Optional[float]] = _time()
    ended_at: orm.Mapped[typing.Optional[float]] = _time()
    updated_at: orm.Mapped[typing.Optional[float]] = _time()
    running_s: orm.Mapped[float] = _accumulated()
    pending_s: orm.Mapped[float] = _accumulated()
    overhead_s: orm.Mapped[float] = _accumulated()
    work_s: orm.Mapped[float] = _accumulated()
    preemptions: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, nullable=False, default=0, server_default=sa.text('0'))
    decision_id: orm.Mapped[typing.Optional[int]] = orm.mapped_column(
        sa.Integer)
    terminated_by: orm.Mapped[typing.Optional[int]] = orm.mapped_column(
        sa.Integer)
    displaced_by: orm.Mapped[typing.Optional[int]] = orm.mapped_column(
        sa.Integer)
    reason: orm.Mapped[typing.Optional[str]] = orm.mapped_column(sa.Text)


class Decision(DecisionMixin, Base):
    """One journaled decision: place ``instance_id`` on ``host``, after
    terminating ``victims``; ``confirmed`` lists the victims the compute
    side confirmed gone. ``explanation`` says why (verdict counts per
    filter, the winner's weights, the victims' costs, the strategy's
    reason).
    """

    __tablename__ = 'decisions'
    __table_args__ = (
        sa.Index(None, 'state'),
        sa.Index(None, 'request_id'),
        sa.Index(None, 'instance_id'),
        MYSQL_OPTIONS,
    )

    id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, primary_key=True, autoincrement=True)
    request_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(NAME_LENGTH), sa.ForeignKey('requests.id'), nullable=False)
    instance_id: orm.Mapped[str] = orm.mapped_column(
        sa.String(NAME_LENGTH), sa.ForeignKey('instances.id'),
        nullable=False)
    host: orm.Mapped[str] = _name(nullable=False)
    victims: orm.Mapped[list] = orm.mapped_column(sa.JSON, nullable=False)
    confirmed: orm.Mapped[list] = orm.mapped_column(sa.JSON, nullable=False)
    state: orm.Mapped[str] = _state()
    created_at: orm.Mapped[float] = _time(nullable=False)
    updated_at: orm.Mapped[float] = _time(nullable=False)
    reason: orm.Mapped[typing.Optional[str]] = orm.mapped_column(sa.Text)
    strategy: orm.Mapped[typing.Optional[str]] = orm.mapped_column(
        sa.String(64))
    explanation: orm.Mapped[typing.Optional[dict]] = orm.mapped_column(
        sa.JSON)


class Event(Base):
    """Something that happened, for audit and for the metrics."""

    __tablename__ = 'events'
    __table_args__ = (
        sa.Index(None, 'kind'),
        MYSQL_OPTIONS,
    )

    id: orm.Mapped[int] = orm.mapped_column(
        sa.Integer, primary_key=True, autoincrement=True)
    at: orm.Mapped[float] = _time(nullable=False)
    kind: orm.Mapped[str] = _name(nullable=False)
    request_id: orm.Mapped[typing.Optional[str]] = _name()
    instance_id: orm.Mapped[typing.Optional[str]] = _name()
    host: orm.Mapped[typing.Optional[str]] = _name()
    payload: orm.Mapped[typing.Optional[dict]] = orm.mapped_column(sa.JSON)


class NovaDecision(Base):
    """A decision of the Nova scheduler manager that terminates servers,
    journaled before the first of them is touched (see
    :mod:`preemptible_sched.nova.journal`).
    """

    __tablename__ = 'nova_decisions'

    id = orm.mapped_column(sa.String(36), primary_key=True)
    #: the scheduler host that made it
    scheduler = orm.mapped_column(sa.String(255), nullable=False)
    #: ``preempt``, ``max_lifetime`` or ``watermark``
    reason = orm.mapped_column(sa.String(32), nullable=False)
    #: the uuids of the request's instances (none for the periodic rules)
    request = orm.mapped_column(sa.JSON, nullable=False)
    created_at = orm.mapped_column(Amount, nullable=False)
    #: end of the grace period: when the victims are acted on
    terminate_at = orm.mapped_column(Amount, nullable=False)
    #: ``decided``, ``acting``, ``done``, ``rolled_back`` or ``abandoned``
    state = orm.mapped_column(sa.String(16), nullable=False, index=True)


class NovaVictim(Base):
    """One server a :class:`NovaDecision` deletes or shelves."""

    __tablename__ = 'nova_victims'

    decision_id = orm.mapped_column(
        sa.String(36), sa.ForeignKey('nova_decisions.id'), primary_key=True)
    victim = orm.mapped_column(sa.String(36), primary_key=True)
    host = orm.mapped_column(sa.String(255), nullable=True)
    #: ``delete`` or ``shelve``
    action = orm.mapped_column(sa.String(16), nullable=False)
    #: ``pending``, ``acting``, ``requested``, ``done``, ``gone``,
    #: ``failed`` or ``spared``
    state = orm.mapped_column(sa.String(16), nullable=False)
    #: when a scheduler took it to act on it (s since the epoch); NULL
    #: for a victim taken before revision 0005
    taken_at = orm.mapped_column(Amount, nullable=True)
    #: its Placement consumer before its decision emptied it
    #: (``allocations``, ``project_id``, ``user_id``), to give it back
    consumer = orm.mapped_column(sa.JSON, nullable=True)
    #: how many times its deletion (or shelving) was asked for
    attempts = orm.mapped_column(sa.Integer, nullable=False, default=0,
                                 server_default='0')
    #: the victim's uuid while its decision may still act on it, NULL
    #: after: unique, so no two open decisions ever name the same server
    open_victim = orm.mapped_column(sa.String(36), nullable=True,
                                    unique=True)


class Leadership(Base):
    """The term of the scheduler leading a topic (see
    :mod:`preemptible_sched.db.leadership`).

    ``epoch`` grows by one each time a scheduler takes the lead. A
    leader's writes check it in their transaction and fail once another
    term began: the fencing token of a leader that lost its lock.
    """

    __tablename__ = 'leadership'
    __table_args__ = (MYSQL_OPTIONS,)

    topic = orm.mapped_column(sa.String(NAME_LENGTH), primary_key=True)
    epoch = orm.mapped_column(sa.Integer, nullable=False)
    #: ``host:pid`` of the leader
    holder = orm.mapped_column(sa.String(NAME_LENGTH), nullable=False)
    #: when its term began (wall clock, s since the epoch)
    since = orm.mapped_column(Amount, nullable=False)
