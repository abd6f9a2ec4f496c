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

"""The names in the configuration files that nothing registered.

:func:`unknown_names` compares the groups and options in the files, read
with oslo.config's own parser (:mod:`.config_files`), with those
registered on the configuration object, their deprecated names and the
options of the libraries (:data:`LIBRARY_NAMESPACES`): a misspelling is
reported with the closest known name, and a library's option this command
does not register has its value checked all the same. It is the second
per-option half of the start-up checks (:mod:`.checks`), after
:func:`.parsing.value_problems`.
"""

import difflib
import importlib.metadata
import logging
import warnings

from preemptible_sched.conf import config_files
from preemptible_sched.conf import parsing

LOG = logging.getLogger(__name__)

#: ``oslo.config.opts`` namespaces of the libraries whose options may sit in
#: our configuration files although the command at hand did not register
#: them (``transport_url`` for ``preemptible-sched decide``, say).
LIBRARY_NAMESPACES = (
    'oslo.config', 'oslo.log', 'oslo.messaging', 'oslo.policy',
    'oslo.concurrency', 'oslo.middleware', 'oslo.db', 'oslo.service.service',
    'oslo.service.periodic_task', 'oslo.service.sslutils',
    'oslo.service.wsgi', 'keystonemiddleware.auth_token', 'osprofiler',
    'oslo.reports', 'oslo.versionedobjects', 'oslo.limit')

#: Groups libraries register only when they are used (or that are not
#: installed here); their options are not checked unless the group is
#: registered by then.
LIBRARY_GROUPS = frozenset((
    'oslo_messaging_rabbit', 'oslo_messaging_notifications',
    'oslo_messaging_amqp', 'oslo_messaging_kafka', 'oslo_messaging_metrics',
    'oslo_messaging_tracing', 'oslo_policy', 'oslo_concurrency',
    'oslo_middleware', 'oslo_reports', 'oslo_versionedobjects',
    'oslo_limit', 'keystone_authtoken', 'cors', 'healthcheck', 'profiler',
    'ssl', 'service_user', 'oslo_db'))

#: oslo.db's options: they may share ``[database]`` with ours (a file
#: written for several services); preemptible_sched uses only its own.
OSLO_DB_OPTIONS = frozenset((
    'backend', 'sqlite_synchronous', 'sqlite_db', 'slave_connection',
    'asyncio_connection', 'asyncio_slave_connection', 'mysql_sql_mode',
    'mysql_wsrep_sync_wait', 'mysql_enable_ndb', 'connection_recycle_time',
    'idle_timeout', 'min_pool_size', 'max_pool_size', 'max_retries',
    'retry_interval', 'max_overflow', 'connection_debug', 'connection_trace',
    'pool_timeout', 'use_db_reconnect', 'db_retry_interval',
    'db_inc_retry_interval', 'db_max_retry_interval', 'db_max_retries',
    'connection_parameters', 'use_tpool'))


def _table(pairs):
    """``{group: {name: opt}}`` of ``[(group name, opt)]``, deprecated
    names included.
    """
    table = {}
    for group, opt in pairs:
        group = config_files.normalize_group(group or 'DEFAULT')
        for other_group, name in parsing.names_of(opt):
            other = config_files.normalize_group(other_group) \
                if other_group else group
            table.setdefault(other, {}).setdefault(name, opt)
    return table


def _library_opts():
    """``[(group name, opt)]`` of the libraries' options (see
    :data:`LIBRARY_NAMESPACES`); those not installed are left out.
    """
    pairs = []
    wanted = set(LIBRARY_NAMESPACES)
    with warnings.catch_warnings():
        # oslo.service's eventlet backend warns when it is imported.
        warnings.simplefilter('ignore')
        backend = logging.getLogger('oslo_service.backend')
        level = backend.level
        backend.setLevel(logging.WARNING)
        try:
            for entry_point in importlib.metadata.entry_points(
                    group='oslo.config.opts'):
                if entry_point.name not in wanted:
                    continue
                try:
                    listed = entry_point.load()()
                except Exception as error:    # a broken library
                    LOG.debug('Options of %s not listed: %s',
                              entry_point.name, error)
                    continue
                for group, opts in listed:
                    name = getattr(group, 'name', group) or 'DEFAULT'
                    pairs += [(name, opt) for opt in opts]
        finally:
            backend.setLevel(level)
    return pairs


_LIBRARY = []


def _library():
    """:func:`_table` of the libraries' options, listed once."""
    if not _LIBRARY:
        _LIBRARY.append(_table(_library_opts()))
    return _LIBRARY[0]


def _closest(name, candidates):
    by_lower = {candidate.lower(): candidate for candidate in candidates}
    match = difflib.get_close_matches(name.lower(), sorted(by_lower), n=1)
    return by_lower[match[0]] if match else None


def _raw_value_problem(opt, values):
    """What is wrong with the raw ``values`` of a library's ``opt`` that
    this command did not register (so did not read), or None.
    """
    values = values if opt.multi else values[-1:]
    if any('$' in value for value in values):
        return None     # a $reference: read by the command that uses it
    try:
        converted = [opt.type(value) for value in values]
    except (ValueError, TypeError) as error:
        return str(error)
    for value in converted:
        if value is None and opt.default is not None and \
                parsing.takes_a_value(opt):
            return 'must not be empty (the default is %s)' % opt.default
        if parsing.non_finite(value):
            return 'must be a finite number, got %s' % (value,)
    return None


def _unregistered(path, sections, registered_table):
    """Problems of the names in one file that nothing registered on the
    configuration object: unknown, or a library's with a bad value.
    """
    library = None
    known = registered_table
    found = []
    for section, options in sections.items():
        group = config_files.normalize_group(section)
        if group in registered_table and all(
                name in registered_table[group] for name in options):
            continue
        if library is None:
            # Only now: listing the libraries' options imports them.
            library = _library()
            known = {name: dict(library.get(name, {}),
                                **registered_table.get(name, {}))
                     for name in set(library) | set(registered_table)}
        if group not in known:
            if group not in LIBRARY_GROUPS:
                close = _closest(group, known)
                found.append('%s: [%s]: unknown group%s' % (
                    path, section, ' (did you mean [%s]?)' % close
                    if close else ''))
            continue
        names = known[group]
        for name, values in options.items():
            if name in registered_table.get(group, ()):
                continue    # read (and checked) by this command
            opt = names.get(name)
            if opt is not None:
                problem = _raw_value_problem(opt, values)
                if problem:
                    found.append(parsing.describe(
                        section, name, path, parsing.mask_passwords(problem)))
                continue
            if group == 'database' and name in OSLO_DB_OPTIONS:
                continue
            close = _closest(name, names)
            if close is None:
                elsewhere = sorted(other for other, others in known.items()
                                   if name in others)
                if elsewhere:
                    close = '[%s] %s' % (elsewhere[0], name)
            found.append('%s: [%s] %s: unknown option%s' % (
                path, section, name, ' (did you mean %s?)' % close
                if close else ''))
    return found


def unknown_names(conf, files=None):
    """One line for every group and option in the configuration files that
    nothing registered: ``FILE: [group] name: unknown option (did you mean
    ...?)``, ``FILE: [group]: unknown group (...)``.

    Known are the options registered on ``conf``, their deprecated names,
    the options of the libraries in :data:`LIBRARY_NAMESPACES` (their
    values are checked too, though this command does not read them) and
    any group a library registers only when used
    (:data:`LIBRARY_GROUPS`). A ``nova.conf``
    (:func:`.config_files.is_nova_conf`) is not checked.
    """
    files = config_files.parsed_files(conf) if files is None else files
    files = [(path, sections) for path, sections in files
             if not config_files.is_nova_conf(sections)]
    registered_table = _table(parsing.registered(conf)) if files else {}
    found = []
    for path, sections in files:
        found += _unregistered(path, sections, registered_table)
    return found
