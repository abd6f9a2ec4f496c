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

"""The journal a nova.conf names: which database the operations commands
act on, Nova's journal or the standalone scheduler's state.

``preemptible-sched-manage`` and ``preemptible-sched-status`` look at the
files of ``--config-file`` and ``--config-dir`` before anything else:

* one of them is a **nova.conf** when it has a ``[preemptible_sched]`` or
  an ``[api_database]`` section (:func:`.config_files.is_nova_conf`). Then the
  commands act on the Nova integration's journal, ``[preemptible_sched]
  journal_connection``, and read nothing else of the files but Nova's
  ``[DEFAULT] state_path`` (the journal's default SQLite file is in it):
  Nova's own databases, ``[database]`` and ``[api_database]``, are never
  opened;
* otherwise the files are the standalone scheduler's, and the commands act
  on its ``[database] connection``.
"""

from preemptible_sched.conf import config_files
from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.conf import nova_paths
from preemptible_sched.conf import parsing
from preemptible_sched.conf import urls
from preemptible_sched import exception

GROUP = nova_opts.nova_group.name
JOURNAL_OPTION = '[%s] journal_connection' % GROUP


def make_conf():
    """A configuration object for a nova.conf: ``[preemptible_sched]``
    and Nova's ``state_path``; any other group of the file is ignored.
    """
    conf = parsing.ConfigOpts()
    nova_opts.register_opts(conf)
    nova_paths.register_opts(conf)
    return conf


def _default_journal(conf):
    """Whether ``journal_connection`` is its default (set nowhere)."""
    files = config_files.parsed_files(conf)
    return not any('journal_connection' in sections.get(GROUP, {})
                   for _path, sections in files)


def journal_url(conf):
    """The SQLAlchemy URL of the journal of a parsed nova.conf.

    Raises :class:`InvalidInput` naming the file and the option when it
    cannot be used (nothing is connected to).
    """
    where = parsing.where(conf, GROUP, 'journal_connection')
    default = _default_journal(conf)
    if default:
        where = '%s: %s (default)' % (
            ', '.join(config_files.config_files(conf)), JOURNAL_OPTION)
    if default and not conf.pybasedir and \
            conf.state_path in (None, '', 'None'):
        raise exception.InvalidInput(
            where, None, 'the default is a SQLite file in Nova\'s [DEFAULT] '
            'state_path, which the file does not set (and Nova, which '
            'gives its default, is not installed here): set either')
    url = conf[GROUP].journal_connection
    problem = urls.database_url_problem(url)
    if problem:
        raise exception.InvalidInput(where, None, problem)
    return url
