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

"""The requests and their instances, in the store.

:class:`RequestStoreMixin` holds the methods of
:class:`~preemptible_sched.db.api.Store` on them: adding a request (with
one pending instance row per instance), reading and changing requests,
reading instances and changing them under the instance state machine
(:mod:`~preemptible_sched.db.states`). Like every write of the store they
are made through its hooks (``_changes``, ``_edit``, ``_insert``; and
``_check_new_request``, defined here), so the simulator's
:class:`~preemptible_sched.db.memory.MemoryStore` runs them as they are.
:func:`project_scope` says which project the requests a thread adds
belong to.
"""

import contextlib
import threading

from oslo_db import exception as db_exc
import sqlalchemy as sa
from sqlalchemy import exc as sa_exc

from preemptible_sched.db import deadlock
from preemptible_sched.db import errors
from preemptible_sched.db import models
from preemptible_sched.db import states
from preemptible_sched import wire

#: States in which an instance has left the system.
ENDED_STATES = ('ended', 'terminated', 'preempted', 'error', 'deleted')

#: Columns :meth:`RequestStoreMixin.update_instance` may change.
INSTANCE_FIELDS = frozenset(
    column.key for column in models.Instance.__table__.columns) - {'id'}


# The project of the requests a thread adds; see project_scope().
_PROJECT_SCOPE = threading.local()


@contextlib.contextmanager
def project_scope(project_id):
    """Requests this thread adds in the block, with no project of their
    own, belong to ``project_id``.

    The scheduler service submits a request through the loop, which knows
    nothing of projects, in its clock's thread: the request is stored
    with its project in the same transaction.
    """
    previous = getattr(_PROJECT_SCOPE, 'project_id', None)
    _PROJECT_SCOPE.project_id = project_id
    try:
        yield
    finally:
        _PROJECT_SCOPE.project_id = previous


def refuse_duplicates(request_id, exists, taken):
    """Raise :class:`~.errors.Duplicate` if the request ``exists`` already
    or any of its instance ids is ``taken`` (a sorted list).
    """
    if exists:
        raise errors.Duplicate('request %r exists already' % request_id)
    if taken:
        shown = ', '.join(taken[:5]) + (
            ' and %d more' % (len(taken) - 5) if len(taken) > 5 else '')
        raise errors.Duplicate('instances of request %r exist already: %s'
                               % (request_id, shown))


def scoped_project():
    """The project of :func:`project_scope` in this thread, else
    ``models.DEFAULT_PROJECT``.
    """
    return (getattr(_PROJECT_SCOPE, 'project_id', None) or
            models.DEFAULT_PROJECT)


def as_tuple(value):
    """A tuple of states from one state or an iterable of them."""
    if isinstance(value, str):
        return (value,)
    return tuple(value)


class RequestStoreMixin:
    """The requests and instances of a
    :class:`~preemptible_sched.db.api.Store` (a base class of it: its
    methods run in the store's transactions, through its hooks).
    """

    # Requests.

    @deadlock.retried
    def add_request(self, spec, at, duration_s=None, image=None,
                    project_id=None):
        """Store :class:`objects.RequestSpec` ``spec``, pending.

        One ``pending`` instance row per instance of the request is created
        in the same transaction. The request belongs to ``project_id``;
        when None, to the project of the enclosing :func:`project_scope`
        of this thread, else to ``models.DEFAULT_PROJECT``. Raises
        :class:`~.errors.Duplicate` if the request or one of its instances
        exists already.
        """
        if spec.num_instances < 1:
            raise ValueError('request %r asks for %r instances'
                             % (spec.id, spec.num_instances))
        if project_id is None:
            project_id = scoped_project()
        instance_ids = [spec.instance_id(i)
                        for i in range(spec.num_instances)]
        if len(set(instance_ids)) != len(instance_ids):
            raise errors.Duplicate('request %r names an instance twice: %s'
                                   % (spec.id, ', '.join(instance_ids)))
        try:
            with self._changes() as unit:
                self._check_new_request(unit, spec.id, instance_ids)
                request = self._insert(unit, models.Request, dict(
                    id=spec.id, project_id=project_id,
                    spec=wire.spec_to_dict(spec),
                    duration_s=duration_s, image=image, status='pending',
                    reason=None, attempts=0, submitted_at=at, updated_at=at))
                for instance_id in instance_ids:
                    self._new_instance(unit, spec, instance_id, at)
        except (sa_exc.IntegrityError, db_exc.DBDuplicateEntry) as e:
            raise errors.Duplicate('request %r or one of its instances '
                                   'exists already' % spec.id) from e
        return request

    @staticmethod
    def _check_new_request(session, request_id, instance_ids):
        refuse_duplicates(
            request_id, session.get(models.Request, request_id) is not None,
            sorted(session.scalars(
                sa.select(models.Instance.id)
                .where(models.Instance.id.in_(instance_ids))).all()))

    def _new_instance(self, unit, spec, instance_id, at):
        return self._insert(unit, models.Instance, dict(
            id=instance_id, request_id=spec.id, host=None, state='pending',
            preemptible=bool(spec.preemptible),
            vcpus=spec.resources.vcpus, memory_mb=spec.resources.memory_mb,
            disk_gb=spec.resources.disk_gb, flavor=spec.flavor,
            service_class=spec.service_class, group=spec.group,
            priority=spec.priority, expected_vcpus=spec.expected_vcpus,
            created_at=at, updated_at=at,
            scheduled_at=None, started_at=None, ended_at=None,
            running_s=0.0, pending_s=0.0, overhead_s=0.0, work_s=0.0,
            preemptions=0, decision_id=None, terminated_by=None,
            displaced_by=None, reason=None))

    def get_request(self, request_id):
        with self._transaction() as session:
            return self._get(session, models.Request, request_id)

    def list_requests(self, status=None, project_id=None):
        """Requests, oldest first; only those in ``status`` (one status or
        several) and of ``project_id`` if given.
        """
        query = sa.select(models.Request).order_by(
            models.Request.submitted_at, models.Request.id)
        if status is not None:
            query = query.where(models.Request.status.in_(as_tuple(status)))
        if project_id is not None:
            query = query.where(models.Request.project_id == project_id)
        with self._transaction() as session:
            return list(session.scalars(query))

    @deadlock.retried
    def set_request_status(self, request_id, status, at, reason=None):
        if status not in models.REQUEST_STATUSES:
            raise ValueError('unknown request status %r (valid: %s)'
                             % (status, ', '.join(models.REQUEST_STATUSES)))
        with self._changes() as unit:
            request = self._edit(unit, models.Request, request_id)
            request.status = status
            request.reason = reason
            request.updated_at = at
        return request

    @deadlock.retried
    def set_request_size(self, request_id, spec, duration_s, at):
        """Fix the size of a moldable request once it is placed: its spec
        (``spec``, with the cores it was given), its run time and the
        resources of its instances still waiting to be spawned.
        """
        resources = spec.resources
        with self._changes() as unit:
            request = self._edit(unit, models.Request, request_id)
            request.spec = wire.spec_to_dict(spec)
            request.duration_s = duration_s
            request.updated_at = at
            for instance_id in spec.instance_ids:
                instance = self._edit(unit, models.Instance, instance_id)
                instance.vcpus = resources.vcpus
                instance.memory_mb = resources.memory_mb
                instance.disk_gb = resources.disk_gb
                instance.updated_at = at
        return request

    @deadlock.retried
    def increment_attempts(self, request_id):
        """Count one more scheduling attempt; returns the new count."""
        with self._changes() as unit:
            request = self._edit(unit, models.Request, request_id)
            request.attempts += 1
        return request.attempts

    # Instances.

    def get_instance(self, instance_id):
        with self._transaction() as session:
            return self._get(session, models.Instance, instance_id)

    def list_instances(self, states=None, host=None, request_id=None):
        """Instances in admission order, filtered by every argument given.

        ``states`` is one state or several.
        """
        query = sa.select(models.Instance).order_by(
            models.Instance.created_at, models.Instance.id)
        if states is not None:
            query = query.where(models.Instance.state.in_(as_tuple(states)))
        if host is not None:
            query = query.where(models.Instance.host == host)
        if request_id is not None:
            query = query.where(models.Instance.request_id == request_id)
        with self._transaction() as session:
            return list(session.scalars(query))

    @deadlock.retried
    def update_instance(self, instance_id, at=None, **fields):
        """Set ``fields`` (column names) of an instance.

        With ``at`` (the time of the change) ``updated_at`` is set, and a
        change of state fills in the time it implies unless given:
        ``started_at`` on entering ``running``, ``ended_at`` on entering
        one of :data:`ENDED_STATES`. The accumulated times and counters
        (``running_s``, ``preemptions``...) are the caller's to compute.
        Unknown fields or states raise :class:`ValueError`; a change of
        state the instance state machine does not allow (see
        :mod:`preemptible_sched.db.states`) raises
        :class:`~preemptible_sched.db.states.IllegalTransition`, with
        nothing written.
        """
        unknown = sorted(set(fields) - INSTANCE_FIELDS)
        if unknown:
            raise ValueError('unknown instance fields: %s (valid: %s)'
                             % (', '.join(unknown),
                                ', '.join(sorted(INSTANCE_FIELDS))))
        state = fields.get('state')
        if 'state' in fields and state not in models.INSTANCE_STATES:
            raise ValueError('unknown instance state %r (valid: %s)'
                             % (state, ', '.join(models.INSTANCE_STATES)))
        with self._changes() as unit:
            instance = self._edit(unit, models.Instance, instance_id)
            old_state = instance.state
            if state is not None:
                states.check(instance_id, old_state, state)
            for name, value in fields.items():
                setattr(instance, name, value)
            if at is not None:
                instance.updated_at = at
                if state is not None and state != old_state:
                    if state == 'running' and 'started_at' not in fields:
                        instance.started_at = at
                    if state in ENDED_STATES and 'ended_at' not in fields:
                        instance.ended_at = at
        return instance
