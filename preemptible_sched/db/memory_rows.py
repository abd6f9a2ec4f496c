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

"""The rows of the simulator's store
(:class:`~preemptible_sched.db.memory.MemoryStore`): one read-only class
per table (:data:`ROWS`), made from its SQLAlchemy model.

A row is a plain object whose ``__dict__`` holds its columns as the
database stores them: floats, integers and booleans converted as the
database returns them, JSON as its text, decoded on each read (a new
object every time). It has the methods of the SQLAlchemy rows
(:class:`~.models.InstanceMixin`...). It is read-only: a change is made
on a copy (:meth:`Row.edit`), which the store installs (:meth:`Row.freeze`)
once the whole call succeeded.
"""

import json

import sqlalchemy as sa

from preemptible_sched.db import models

# json.dumps(value) with its defaults, as SQLAlchemy's JSON type writes it,
# without the call that checks the arguments.
_encode = json.JSONEncoder().encode

# Which Python type the database returns for a column's type.
_CONVERSIONS = ((sa.Boolean, bool), (sa.Integer, int), (sa.Float, float))


class _Converted:
    """A column stored as the database returns it (float, int, bool);
    read as a plain attribute.
    """

    __slots__ = ('name', 'convert')

    def __init__(self, name, convert):
        self.name = name
        self.convert = convert

    def __set__(self, row, value):
        row.__dict__[self.name] = None if value is None else \
            self.convert(value)


class _Json:
    """A JSON column: stored as its text, decoded on each read (a new
    object every time, as the database would give).
    """

    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def __get__(self, row, owner=None):
        if row is None:
            return self
        text = row.__dict__[self.name]
        return None if text is None else json.loads(text)

    def __set__(self, row, value):
        # None as ``null``, as SQLAlchemy's JSON type stores it.
        row.__dict__[self.name] = _encode(value)


class Row:
    """A read-only row of a :class:`~.memory.MemoryStore`; its
    ``__dict__`` holds every column as the database stores it.
    """

    #: The table's name, its columns, and the key column.
    table = None
    columns = ()
    key = None
    #: (column, type it is stored as or None, whether it is JSON) of
    #: every column.
    stored = ()
    #: The class of the copies being changed (see :meth:`edit`).
    Editable = None

    def __setattr__(self, name, value):
        raise AttributeError('%s rows of the memory store are read-only: '
                             'change them through the store' % self.table)

    def __repr__(self):
        value = vars(self).get(self.key)
        return '<%s %s=%r>' % (type(self).__name__, self.key, value)

    @classmethod
    def new(cls, columns):
        """A new row to insert, ``columns`` a dict of every column."""
        row = object.__new__(cls.Editable)
        values = vars(row)
        get = columns.get
        for name, convert, is_json in cls.stored:
            value = get(name)
            if is_json:
                value = _encode(value)
            elif convert is not None and value is not None:
                value = convert(value)
            values[name] = value
        return row

    def edit(self):
        """A copy to change (then install with :meth:`freeze`)."""
        row = object.__new__(self.Editable)
        row.__dict__.update(self.__dict__)
        return row

    def freeze(self, frozen):
        object.__setattr__(self, '__class__', frozen)


def _row_class(model, *mixins):
    """The read-only row class of ``model``, with its ``Editable``."""
    table = model.__table__
    namespace = {'table': table.name, 'key': table.primary_key.columns[0].key,
                 'columns': tuple(column.key for column in table.columns),
                 '__doc__': 'A row of %s.' % table.name}
    stored = []
    for column in table.columns:
        convert = None
        if isinstance(column.type, sa.JSON):
            namespace[column.key] = _Json(column.key)
        else:
            for kind, convert in _CONVERSIONS:
                if isinstance(column.type, kind):
                    namespace[column.key] = _Converted(column.key, convert)
                    break
            else:
                convert = None
        stored.append((column.key, convert,
                       isinstance(column.type, sa.JSON)))
    namespace['stored'] = tuple(stored)
    frozen = type(model.__name__, (Row,) + mixins, namespace)
    frozen.Editable = type(model.__name__, (frozen,), {
        '__setattr__': object.__setattr__, '__slots__': ()})
    return frozen


#: The row classes, by table, in the order rows are written (parents
#: first).
ROWS = {cls.table: cls for cls in (
    _row_class(models.Host, models.HostMixin),
    _row_class(models.Request, models.RequestMixin),
    _row_class(models.Instance, models.InstanceMixin),
    _row_class(models.Decision, models.DecisionMixin),
    _row_class(models.Event))}
