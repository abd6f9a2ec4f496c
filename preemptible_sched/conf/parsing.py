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

"""Reading the configuration files, and what is wrong in them.

:class:`ConfigOpts` is oslo.config's, with every value read once when the
files are parsed: a value that cannot be used (``debug = maybe``, ``nan``
for a number, an unknown ``$reference``, an empty number) stops the
command there, with one line naming the file, the group and the option,
before anything (logging included) reads it. oslo.config itself would
report some of these only when the value is first used, some with a
traceback, and a bad value of a command-line option in a file (``debug``)
with exit code 1 and no file name.

:func:`value_problems` and :func:`unknown_names` are the per-option halves
of the start-up checks (:mod:`.checks`): the first reads every registered
option again (options registered since, by plugins or libraries,
included), the second compares the names in the files, read with
oslo.config's own parser, with the registered ones.
"""

import difflib
import glob
import importlib.metadata
import logging
import math
import os
import re
import warnings

from oslo_config import cfg
from oslo_config import types

from preemptible_sched import exception
from preemptible_sched.input_limits import regular_files

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

#: The group of ``nova.conf``: a file with it is Nova's, whose options are
#: not ours to know (``preemptible-sched-status`` reads such files).
NOVA_GROUP = 'preemptible_sched'
#: Groups that only Nova's configuration has: a file with one of them is a
#: ``nova.conf`` (``[api_database]`` too, so that a nova.conf without our
#: group yet is never taken for the standalone scheduler's file).
NOVA_ONLY_GROUPS = (NOVA_GROUP, 'api_database')

#: Largest configuration file read, in bytes: a sample with every option of
#: Nova and of its libraries, help included, is some 300 KB.
MAX_CONFIG_BYTES = 4 * 1024 * 1024

_DETAIL = re.compile(r"detail='([^']*)'")
_PASSWORD = re.compile(r'(?P<head>[a-zA-Z][\w+.-]*://[^:/@\s]*:)[^/\s]*@')


def mask_passwords(text):
    """``text`` with the password of every URL in it replaced by ``***``."""
    return _PASSWORD.sub(r'\g<head>***@', str(text))


class BadValues(cfg.ConfigFileValueError):
    """Option values that cannot be used, every one of them.

    ``problems`` holds one line per value, each naming the file, the group
    and the option; ``str()`` joins them with ``; ``.
    """

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__('; '.join(self.problems))


def _normalize_group(name):
    return name if name == 'DEFAULT' else name.lower()


def registered(conf):
    """``(group name, opt)`` of every option registered on ``conf``."""
    # oslo.config has no public iterator over the option objects.
    for info in list(conf._opts.values()):
        yield 'DEFAULT', info['opt']
    for group in list(conf._groups.values()):
        for info in list(group._opts.values()):
            yield group.name, info['opt']


def config_files(conf):
    """The configuration files ``conf`` read, in the order it read them."""
    try:
        files = list(conf.config_file or ())
        dirs = conf.config_dir or ()
    except (cfg.NoSuchOptError, cfg.Error, AttributeError):
        return []
    if isinstance(dirs, str):
        dirs = [dirs]
    for directory in dirs:
        files += sorted(glob.glob(os.path.join(directory, '*.conf')))
    return [os.path.abspath(os.path.expanduser(path)) for path in files]


def file_problem(path):
    """What makes ``path`` unfit to be read as a configuration file, on
    one line, or None: not a regular file (a FIFO would block the reader,
    ``/dev/zero`` fill the memory, a directory or a symbolic link loop
    give a traceback), or larger than :data:`MAX_CONFIG_BYTES`. A file
    that does not exist is left to oslo.config, which reports it.
    """
    path = os.path.expanduser(path)
    if not os.path.lexists(path):
        return None
    try:
        # Opened without blocking (a FIFO with no writer); one byte read,
        # for a file that cannot be (/proc/self/mem).
        with regular_files.open_regular(path) as stream:
            size = os.fstat(stream.fileno()).st_size
            stream.read(1)
    except exception.InvalidInput as error:
        return error.message
    except OSError as error:
        return 'cannot read file: %s' % (error.strerror or error)
    if size > MAX_CONFIG_BYTES:
        return 'file too large: %d bytes (limit %d)' % (
            size, MAX_CONFIG_BYTES)
    return None


def parse_file(path):
    """``{section: {name: [values]}}`` of one file, as oslo.config reads
    it; None when it cannot be read (:func:`file_problem` included).
    """
    if file_problem(path) is not None:
        return None
    sections = {}
    try:
        cfg.ConfigParser(path, sections).parse()
    except (OSError, UnicodeDecodeError, cfg.Error, ValueError):
        return None
    return sections


def is_nova_conf(sections):
    """Whether a file of ``sections`` (:func:`parse_file`) is Nova's."""
    return any(_normalize_group(section) in NOVA_ONLY_GROUPS
               for section in sections)


def candidate_files(args, default_files=(), default_dirs=()):
    """The files oslo.config would read for the command line ``args``:
    the defaults, then every ``--config-file``, then the ``*.conf`` of
    every ``--config-dir``, in that order.
    """
    files, dirs = [], []
    args = list(args or ())
    for index, arg in enumerate(args):
        for flag, into in (('--config-file', files),
                           ('--config-dir', dirs)):
            if arg == flag and index + 1 < len(args):
                into.append(args[index + 1])
            elif arg.startswith(flag + '='):
                into.append(arg.split('=', 1)[1])
    files = list(default_files or ()) + files
    for directory in list(default_dirs or ()) + dirs:
        files += sorted(glob.glob(os.path.join(directory, '*.conf')))
    return files


def nova_files(args):
    """The files of ``--config-file`` and ``--config-dir`` in ``args``
    that are Nova's (:func:`is_nova_conf`).
    """
    found = []
    for path in candidate_files(args):
        sections = parse_file(os.path.expanduser(path))
        if sections is not None and is_nova_conf(sections):
            found.append(path)
    return found


def parsed_files(conf):
    """``[(path, sections)]`` of the files ``conf`` read."""
    parsed = []
    for path in config_files(conf):
        sections = parse_file(path)
        if sections is not None:
            parsed.append((path, sections))
    return parsed


def _names_of(opt):
    """The names ``opt`` is read under, in its own group or others:
    ``[(group or None, name)]``.
    """
    names = [(None, opt.dest)]
    for deprecated in opt.deprecated_opts:
        names.append((deprecated.group, deprecated.name or opt.dest))
    return names


def source_of(conf, group, opt, files=None):
    """The last file that sets ``[group] opt`` (under any of its names),
    or None.
    """
    found = None
    for path, sections in files if files is not None else \
            parsed_files(conf):
        normalized = {_normalize_group(section): values
                      for section, values in sections.items()}
        for other_group, name in _names_of(opt):
            values = normalized.get(_normalize_group(other_group or group))
            if values and name in values:
                found = path
    return found


def describe(group, name, source, message):
    """``SOURCE: [group] name: message`` (``source`` may be None)."""
    return '%s[%s] %s: %s' % ('%s: ' % source if source else '', group,
                              name, message)


def where(conf, group, name, defaults_source=None):
    """``[group] name`` prefixed by what set it: the file or environment
    variable, or ``defaults_source: config.group.name`` for a default set
    from a scenario file's ``config``.
    """
    try:
        location = conf.get_location(name, None if group == 'DEFAULT'
                                     else group)
    except (cfg.Error, ValueError, RecursionError):
        location = None
    if location is not None and location.detail and location.location in (
            cfg.Locations.user, cfg.Locations.environment):
        return '%s: [%s] %s' % (location.detail, group, name)
    if location is not None and defaults_source and \
            location.location == cfg.Locations.set_default:
        return '%s: config.%s.%s' % (defaults_source, group, name)
    return '[%s] %s' % (group, name)


def _non_finite(value):
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return any(_non_finite(item) for item in value)
    if isinstance(value, dict):
        return any(_non_finite(item) for item in value.values())
    return False


def _takes_a_value(opt):
    """Whether ``opt`` is a number or a boolean, which empty makes None."""
    return isinstance(opt.type, (types.Number, types.Boolean))


def _read(conf, group, opt):
    # Not conf[name]: for [DEFAULT] it turns every error into "no such
    # option".
    return conf._get(opt.dest, None if group == 'DEFAULT' else group)


def check_value(conf, group, opt, defaults_source=None, files=None):
    """The problem with the value of ``[group] opt`` as one line, or None."""
    try:
        value = _read(conf, group, opt)
    except (cfg.ConfigFileValueError, cfg.ConfigSourceValueError) as error:
        text = str(error)
        detail = _DETAIL.search(text)
        reason = text.split(' is not valid: ', 1)[-1]
        source = detail.group(1) if detail and detail.group(1) else \
            source_of(conf, group, opt, files)
        return describe(group, opt.dest, source, mask_passwords(reason))
    except cfg.NoSuchOptError as error:
        # Only a $reference can name an option that does not exist.
        return describe(group, opt.dest, source_of(conf, group, opt, files),
                        '$%s refers to no option (write $$ for a literal $)'
                        % error.opt_name)
    except cfg.TemplateSubstitutionError as error:
        return describe(group, opt.dest, source_of(conf, group, opt, files),
                        '%s (write $$ for a literal $)'
                        % mask_passwords(error.msg))
    except RecursionError:
        return describe(group, opt.dest, source_of(conf, group, opt, files),
                        'its $references never end')
    except (cfg.Error, ValueError) as error:
        return describe(group, opt.dest, source_of(conf, group, opt, files),
                        mask_passwords(error))
    if value is None and opt.default is not None and _takes_a_value(opt):
        return '%s: must not be empty (the default is %s)' % (
            where(conf, group, opt.dest, defaults_source), opt.default)
    if _non_finite(value):
        return '%s: must be a finite number, got %s' % (
            where(conf, group, opt.dest, defaults_source), (
                            ', '.join(str(item) for item in value)
                            if isinstance(value, (list, tuple))
                            else value))
    return None


def value_problems(conf, defaults_source=None, skip=None):
    """One line for every registered option whose value cannot be used.

    ``skip(opt)`` true leaves an option out.
    """
    files = parsed_files(conf)
    found = []
    for group, opt in sorted(registered(conf),
                             key=lambda item: (item[0], item[1].dest)):
        if isinstance(opt, cfg.SubCommandOpt) or (skip and skip(opt)):
            continue
        problem = check_value(conf, group, opt, defaults_source, files)
        if problem:
            found.append(problem)
    return found


def _deprecated(opt):
    """Whether reading ``opt`` may log a deprecation warning."""
    return bool(opt.deprecated_for_removal or opt.deprecated_opts)


def _option(conf, name):
    """``[DEFAULT] name``, or None when not registered or not usable."""
    if name not in conf:
        return None
    try:
        return conf._get(name)
    except (cfg.Error, ValueError, RecursionError):
        return None


def logging_problems(conf):
    """One line for each logging option (oslo.log's) that would stop
    logging from being set up: a ``log_config_append`` that cannot be
    read (or is not a regular file, or is too large: :func:`file_problem`),
    a ``log_file`` or ``log_dir`` in a directory that does not exist.
    """
    found = []

    def problem(name, message):
        found.append('%s: %s' % (where(conf, 'DEFAULT', name), message))

    append = _option(conf, 'log_config_append')
    if append:
        path = os.path.expanduser(append)
        unfit = file_problem(path) if os.path.lexists(path) else None
        if unfit is not None:
            problem('log_config_append', '%s: %s' % (append, unfit))
        elif not os.path.isfile(path) or not os.access(path, os.R_OK):
            problem('log_config_append', 'no readable file %s' % append)
    log_dir = _option(conf, 'log_dir')
    if log_dir and not os.path.isdir(os.path.expanduser(log_dir)):
        problem('log_dir', 'no directory %s' % log_dir)
        return found
    log_file = _option(conf, 'log_file')
    if log_file:
        path = os.path.expanduser(os.path.join(log_dir or '', log_file))
        directory = os.path.dirname(path) or '.'
        if os.path.isdir(path):
            problem('log_file', '%s is a directory' % path)
        elif not os.path.isdir(directory):
            problem('log_file', 'no directory %s' % directory)
    return found


# -- names -------------------------------------------------------------------

def _table(pairs):
    """``{group: {name: opt}}`` of ``[(group name, opt)]``, deprecated
    names included.
    """
    table = {}
    for group, opt in pairs:
        group = _normalize_group(group or 'DEFAULT')
        for other_group, name in _names_of(opt):
            other = _normalize_group(other_group) if other_group else group
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
                _takes_a_value(opt):
            return 'must not be empty (the default is %s)' % opt.default
        if _non_finite(value):
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
        group = _normalize_group(section)
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
                    found.append(describe(section, name, path,
                                          mask_passwords(problem)))
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
    (:data:`LIBRARY_GROUPS`). A ``nova.conf`` (:func:`is_nova_conf`) is
    not checked.
    """
    files = parsed_files(conf) if files is None else files
    files = [(path, sections) for path, sections in files
             if not is_nova_conf(sections)]
    registered_table = _table(registered(conf)) if files else {}
    found = []
    for path, sections in files:
        found += _unregistered(path, sections, registered_table)
    return found


# -- the configuration object ------------------------------------------------

class ConfigOpts(cfg.ConfigOpts):
    """oslo.config's ``ConfigOpts``: a file that cannot be read, or a value
    that cannot be used, raises a :class:`cfg.Error` naming the file (and
    the option) when the files are parsed.
    """

    def __call__(self, *args, **kwargs):
        super().__call__(*args, **kwargs)
        # Options that log a deprecation when read are checked by the
        # start-up checks, once logging is set up.
        found = value_problems(self, skip=_deprecated)
        found += logging_problems(self)
        if found:
            raise BadValues(found)

    def _parse_cli_opts(self, args):
        # oslo.config parses each --config-file (and each *.conf of a
        # --config-dir) while it parses the command line: check them first.
        for path in candidate_files(args, self.default_config_files,
                                    self.default_config_dirs):
            problem = file_problem(path)
            if problem is not None:
                raise cfg.ConfigFileParseError(path, problem)
        return super()._parse_cli_opts(args)

    def _parse_config_files(self):
        try:
            return super()._parse_config_files()
        except UnicodeDecodeError as error:
            path = self._undecodable() or 'a configuration file'
            raise cfg.ConfigFileParseError(
                path, 'not UTF-8 text (byte 0x%02x at offset %d)' % (
                    error.object[error.start], error.start)) from None
        except OSError as error:
            raise cfg.ConfigFileParseError(
                error.filename or 'a configuration file',
                error.strerror or str(error)) from None

    def _candidate_files(self):
        return candidate_files(self._args, self.default_config_files,
                               self.default_config_dirs)

    def _undecodable(self):
        for path in self._candidate_files():
            try:
                with open(os.path.expanduser(path), 'rb') as stream:
                    stream.read().decode('utf-8')
            except UnicodeDecodeError:
                return path
            except OSError:
                continue
        return None

    def _validate_cli_options(self, namespace):
        # oslo.config writes "argument --debug: Invalid ..." and exits 1.
        for opt, group in sorted(self._all_cli_opts(),
                                 key=lambda item: item[0].name):
            group_name = group.name if group else None
            try:
                value, location = opt._get_from_namespace(namespace,
                                                          group_name)
            except KeyError:
                continue
            source = location.detail if location is not None and \
                location.location == cfg.Locations.user else None
            try:
                self._convert_value(
                    self._substitute(value, group=group,
                                     namespace=namespace), opt)
            except (ValueError, cfg.Error, RecursionError) as error:
                reason = str(error) if not isinstance(
                    error, RecursionError) else 'its $references never end'
                raise BadValues([describe(
                    group_name or 'DEFAULT', opt.dest, source,
                    mask_passwords(reason))]) from None
