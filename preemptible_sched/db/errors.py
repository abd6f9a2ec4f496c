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

"""What the store raises: a row that is not there, one that is there
already, a change the journal refuses, a schema that is not the newest.

The methods of :class:`~preemptible_sched.db.api.Store` (and of the
simulator's :class:`~preemptible_sched.db.memory.MemoryStore`) raise
them; a write that raises one has written nothing.
"""

from preemptible_sched import exception


class NotFound(exception.PreemptibleSchedException, LookupError):
    """No row with this key."""

    def __init__(self, kind, key):
        self.kind = kind
        self.key = key
        super().__init__('%s %r not found' % (kind, key))


class Duplicate(exception.PreemptibleSchedException, ValueError):
    """A row with this key exists already; nothing was written."""


class Refused(exception.PreemptibleSchedException, ValueError):
    """The change would break an invariant of the journal; nothing was
    written. The message lists every reason at once.
    """

    def __init__(self, what, reasons):
        self.reasons = list(reasons)
        super().__init__('%s refused: %s' % (what, '; '.join(self.reasons)))


class NoJournal(exception.PreemptibleSchedException, RuntimeError):
    """A memory store without a database was asked what only its journal
    would hold (its events).
    """


class SchemaOutOfDate(exception.PreemptibleSchedException):
    """The database's schema is not the newest this code knows."""

    def __init__(self, store, current, head):
        self.current = current
        self.head = head
        super().__init__(
            '%r is at schema revision %s, the newest is %s: run '
            '"preemptible-sched-manage db sync" (or set [database] '
            'auto_migrate = true)' % (store, current or 'none (empty)', head))
