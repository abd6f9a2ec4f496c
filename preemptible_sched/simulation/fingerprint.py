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

"""A stable digest of a cell's inputs: what decides whether a finished
cell of an earlier run may be kept.

:func:`digest` hashes (SHA-256) a canonical form of Python values as the
simulator holds them (workload items, hosts, numbers, strings, the
dataclasses and named tuples they are made of): the same value gives the
same digest in every process and on every machine, whatever the order
of a set or the hash seed. Floats go in as ``repr`` (exact), dictionaries
by sorted key.
"""

import dataclasses
import enum
import hashlib

#: Pieces of canonical text hashed at once.
_PARTS = 4096


_SCALARS = (type(None), bool, int, str)


def _names(kind):
    """The field names of a dataclass or named tuple type, cached."""
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = (
            tuple(field.name for field in dataclasses.fields(kind))
            if dataclasses.is_dataclass(kind) else kind._fields)
    return names


_FIELDS = {}


def _key_text(key):
    """A dictionary key as text, for sorting and hashing."""
    return repr(key) if type(key) in _SCALARS else digest(key)


def _feed(update, value):
    """Feed the canonical form of ``value`` to ``update``."""
    kind = type(value)
    if kind in _SCALARS:
        update(repr(value))
    elif kind is float:
        update('f' + repr(value))
    elif isinstance(value, enum.Enum):
        update('e' + repr(str(value.value)))
    elif (dataclasses.is_dataclass(kind) or
          (issubclass(kind, tuple) and hasattr(kind, '_fields'))):
        update(kind.__name__ + '(')
        for name in _names(kind):
            update(name + '=')
            _feed(update, getattr(value, name))
            update(',')
        update(')')
    elif isinstance(value, (list, tuple)):
        update('[')
        for item in value:
            _feed(update, item)
            update(',')
        update(']')
    elif isinstance(value, dict) or hasattr(value, 'items'):
        update('{')
        for text, key in sorted((_key_text(key), key) for key in value):
            update(text + ':')
            _feed(update, value[key])
            update(',')
        update('}')
    elif isinstance(value, (set, frozenset)):
        update('S[' + ','.join(sorted(digest(item) for item in value)) +
               ']')
    elif isinstance(value, bytes):
        update('b' + value.hex())
    else:
        raise TypeError('no stable digest of %s' % kind.__name__)


class _Sink:
    """Collects the canonical text and hashes it in large pieces."""

    def __init__(self):
        self.sha = hashlib.sha256()
        self.parts = []

    def __call__(self, text):
        self.parts.append(text)
        if len(self.parts) >= _PARTS:
            self.flush()

    def flush(self):
        self.sha.update(''.join(self.parts).encode('utf-8'))
        self.parts = []


def digest(value):
    """The SHA-256 (hex) of the canonical form of ``value``."""
    sink = _Sink()
    _feed(sink, value)
    sink.flush()
    return sink.sha.hexdigest()
