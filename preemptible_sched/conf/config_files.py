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

"""Which configuration files a command reads, and reading them.

The files are those oslo.config reads (:func:`candidate_files` before the
command line is parsed, :func:`config_files` after), each read with
oslo.config's own parser (:func:`parse_file`) once :func:`file_problem`
found nothing that makes it unfit: not a regular file, or too large. A
file with Nova's groups is a ``nova.conf`` (:func:`is_nova_conf`), whose
options are not ours to know.
"""

import glob
import os

from oslo_config import cfg

from preemptible_sched import exception
from preemptible_sched.input_limits import regular_files

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


def normalize_group(name):
    return name if name == 'DEFAULT' else name.lower()


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
    return any(normalize_group(section) in NOVA_ONLY_GROUPS
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
