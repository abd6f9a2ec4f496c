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

"""Reading the configuration files, and what is wrong in their values.

:class:`ConfigOpts` is oslo.config's, with every value read once when the
files are parsed: a value that cannot be used (``debug = maybe``, ``nan``
for a number, an unknown ``$reference``, an empty number) stops the
command there, with one line naming the file, the group and the option,
before anything (logging included) reads it. oslo.config itself would
report some of these only when the value is first used, some with a
traceback, and a bad value of a command-line option in a file (``debug``)
with exit code 1 and no file name.

:func:`value_problems` is the first per-option half of the start-up checks
(:mod:`.checks`): it reads every registered option again (options
registered since, by plugins or libraries, included). The second half,
the names in the files that nothing registered, is
:mod:`.unknown_names`; which files a command reads, and reading them with
oslo.config's own parser, :mod:`.config_files`.
"""

import math
import os
import re
import sys

from oslo_config import cfg
from oslo_config import types

from preemptible_sched.conf import config_files

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


def registered(conf):
    """``(group name, opt)`` of every option registered on ``conf``."""
    return [(group, opt) for (group, name), (opt, cli)
            in list(conf.registered_opts.items())]


def names_of(opt):
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
            config_files.parsed_files(conf):
        normalized = {config_files.normalize_group(section): values
                      for section, values in sections.items()}
        for other_group, name in names_of(opt):
            values = normalized.get(
                config_files.normalize_group(other_group or group))
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


def non_finite(value):
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, (list, tuple)):
        return any(non_finite(item) for item in value)
    if isinstance(value, dict):
        return any(non_finite(item) for item in value.values())
    return False


def takes_a_value(opt):
    """Whether ``opt`` is a number or a boolean, which empty makes None."""
    return isinstance(opt.type, (types.Number, types.Boolean))


def _read(conf, group, opt):
    if group != 'DEFAULT':
        return conf[group][opt.dest]
    # conf[name] turns every error of [DEFAULT] but a ValueError into "no
    # such option"; get_location() reads the value alike, letting it out.
    conf.get_location(opt.dest)
    return conf[opt.dest]


def check_value(conf, group, opt, defaults_source=None, files=None):
    """The problem with the value of ``[group] opt`` as one line, or None."""
    try:
        value = _read(conf, group, opt)
    except (cfg.ConfigFileValueError, cfg.ConfigSourceValueError) as error:
        # From the environment (oslo.config's documented variable), a file
        # or the command line; oslo.config raises the error as it handles
        # the ValueError of the conversion, whose text is the reason.
        variable = 'OS_%s__%s' % (group.upper(), opt.dest.upper())
        source = variable if isinstance(error, cfg.ConfigSourceValueError) \
            and variable in os.environ else source_of(conf, group, opt, files)
        return describe(group, opt.dest, source,
                        mask_passwords(error.__context__ or error))
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
    if value is None and opt.default is not None and takes_a_value(opt):
        return '%s: must not be empty (the default is %s)' % (
            where(conf, group, opt.dest, defaults_source), opt.default)
    if non_finite(value):
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
    files = config_files.parsed_files(conf)
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
        # Any error but a ValueError comes out as NoSuchOptError.
        return conf[name]
    except (cfg.Error, ValueError, RecursionError):
        return None


def logging_problems(conf):
    """One line for each logging option (oslo.log's) that would stop
    logging from being set up: a ``log_config_append`` that cannot be
    read (or is not a regular file, or is too large:
    :func:`.config_files.file_problem`),
    a ``log_file`` or ``log_dir`` in a directory that does not exist.
    """
    found = []

    def problem(name, message):
        found.append('%s: %s' % (where(conf, 'DEFAULT', name), message))

    append = _option(conf, 'log_config_append')
    if append:
        path = os.path.expanduser(append)
        unfit = config_files.file_problem(path) if os.path.lexists(
            path) else None
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


# -- the configuration object ------------------------------------------------

class ConfigOpts(cfg.ConfigOpts):
    """oslo.config's ``ConfigOpts``: a file that cannot be read, or a value
    that cannot be used, raises a :class:`cfg.Error` naming the file (and
    the option) when the files are parsed.

    ``registered_opts`` is ``{(group name, dest): (opt, cli)}`` of every
    option registered (oslo.config lists their names, not the options).
    """

    def __init__(self):
        self.registered_opts = {}
        super().__init__()

    def register_opt(self, opt, group=None, cli=False, **kwargs):
        added = super().register_opt(opt, group, cli, **kwargs)
        # Even when not added: a group registered on another configuration
        # object shares its options with it.
        key = getattr(group, 'name', group) or 'DEFAULT', opt.dest
        self.registered_opts[key] = opt, cli or self.registered_opts.get(
            key, (opt, False))[1]
        return added

    def unregister_opt(self, opt, group=None, **kwargs):
        super().unregister_opt(opt, group, **kwargs)
        self.registered_opts.pop(
            (getattr(group, 'name', group) or 'DEFAULT', opt.dest), None)

    def __call__(self, args=None, project=None, prog=None, *,
                 default_config_files=None, default_config_dirs=None,
                 **kwargs):
        self.clear()
        # oslo.config parses each --config-file (and each *.conf of a
        # --config-dir) while it parses the command line: check them first.
        files = config_files.candidate_files(
            sys.argv[1:] if args is None else args,
            cfg.find_config_files(project, prog)
            if default_config_files is None else default_config_files,
            cfg.find_config_dirs(project, prog)
            if default_config_dirs is None else default_config_dirs)
        for path in files:
            problem = config_files.file_problem(path)
            if problem is not None:
                raise cfg.ConfigFileParseError(path, problem)
        unread = None
        try:
            super().__call__(args, project, prog,
                             default_config_files=default_config_files,
                             default_config_dirs=default_config_dirs,
                             **kwargs)
        except UnicodeDecodeError as error:
            raise cfg.ConfigFileParseError(
                _undecodable(files) or 'a configuration file',
                'not UTF-8 text (byte 0x%02x at offset %d)' % (
                    error.object[error.start], error.start)) from None
        except OSError as error:
            raise cfg.ConfigFileParseError(
                error.filename or 'a configuration file',
                error.strerror or str(error)) from None
        except (ValueError, cfg.NoSuchOptError, cfg.TemplateSubstitutionError,
                RecursionError) as error:
            # Its last step reads the required options: the lines below
            # name the file (and the option) of what it found.
            unread = error
        # The options of the command line first, alone (oslo.config reads
        # them as it parses), then the others but those that log a
        # deprecation when read: the start-up checks read them once logging
        # is set up.
        cli = {id(opt) for opt, is_cli in self.registered_opts.values()
               if is_cli}
        found = value_problems(self, skip=lambda opt: id(opt) not in cli) \
            or value_problems(self, skip=lambda opt: id(opt) in cli or
                              _deprecated(opt)) + logging_problems(self)
        if found:
            raise BadValues(found)
        if unread is not None:
            raise unread

    def _validate_cli_options(self, namespace):
        # The one private name left, and only overridden: oslo.config
        # checks the values of the command-line options (in the files too)
        # as it parses them, and for a bad one writes "argument --debug:
        # Invalid ..." and exits 1, with no public hook. __call__ checks
        # them once they are parsed, naming the file.
        pass


def _undecodable(paths):
    """The first of ``paths`` that is not UTF-8 text, or None."""
    for path in paths:
        try:
            with open(os.path.expanduser(path), 'rb') as stream:
                stream.read().decode('utf-8')
        except UnicodeDecodeError:
            return path
        except OSError:
            continue
    return None
