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

"""Errors the scheduler reports to its callers."""


class PreemptibleSchedException(Exception):
    """Base of every error raised on purpose by preemptible_sched."""


class InvalidInput(PreemptibleSchedException):
    """Bad user input: a file, a field in it, or an option value.

    ``source`` names the file (or option group), ``field`` the place in it
    (a JSON path such as ``hosts[2].instances[0].flavor`` or a line), so the
    message alone tells the user what to fix.
    """

    def __init__(self, source, field, message):
        self.source = source
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self):
        where = self.source
        if self.field:
            where = '%s: %s' % (where, self.field)
        return '%s: %s' % (where, self.message)


class UnknownPlugin(InvalidInput):
    """A configured plugin name is not registered in its namespace."""

    def __init__(self, group, option, namespace, names, valid):
        self.group = group
        self.option = option
        self.namespace = namespace
        self.names = sorted(names)
        self.valid = sorted(valid)
        super().__init__(
            '[%s] %s' % (group, option), None,
            'unknown %s %s (valid: %s)' % (
                namespace, ', '.join(repr(n) for n in self.names),
                ', '.join(self.valid)))


class NoValidHost(PreemptibleSchedException):
    """No host can take the request, even after terminating instances."""

    def __init__(self, reason):
        self.reason = reason
        super().__init__('No valid host was found. %s' % reason)


class ConfigProblems(InvalidInput):
    """Options that are wrong or contradict each other, all of them.

    ``problems`` holds one line per problem; the commands print each on
    its own line of stderr and exit 2.
    """

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__('configuration', None, '; '.join(self.problems))


class StartupFailed(PreemptibleSchedException):
    """A service could not start: its database or its message broker did
    not answer in time (``[service] startup_timeout``).

    The message is one line, without a password; the services print it and
    exit with code 1.
    """


class Stopping(BaseException):
    """The service is stopping: a wait on a remote peer was cut short.

    Raised in the clock's thread by a call that would otherwise hold the
    stop until its RPC timeout. A BaseException, like KeyboardInterrupt,
    so that no ``except Exception`` on the way takes it for an
    unreachable host and acts on it: the callback ends where it stood, as
    if the process had been killed there, and the journal makes the next
    run finish what it left.
    """


class MissingExtra(PreemptibleSchedException):
    """A command needs a library of an extra that is not installed.

    The message is one line naming the library and the extra that installs
    it; the commands print it and exit with code 2.
    """

    def __init__(self, extra, library, reason=None):
        self.extra = extra
        self.library = library
        super().__init__(
            "needs %s (%s), which the '%s' extra installs: pip install "
            "'.[%s]' from a checkout of preemptible-sched" % (
                library, reason or 'not installed', extra, extra))


class Deposed(BaseException):
    """This scheduler lost the lead of its topic: another one took over
    (see :mod:`preemptible_sched.db.leadership`).

    Raised by a write of a store whose term ended, so that the scheduler
    stops before it acts on anything more; a BaseException for the same
    reason as :class:`Stopping`. The service stops and exits 1.
    """
