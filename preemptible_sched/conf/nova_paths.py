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

"""Nova's own ``[DEFAULT] pybasedir`` and ``state_path``, as the operations
commands read them from a ``nova.conf``.

``preemptible-sched-manage`` and ``preemptible-sched-status`` read a
``nova.conf`` without importing Nova; the default of ``[preemptible_sched]
journal_connection`` (``sqlite:///$state_path/...``) refers to Nova's
``state_path``, so the two options it depends on are declared here with
Nova's meaning and Nova's defaults (the folder that holds the installed
``nova`` package, found without importing it). They are Nova's options:
they are not in this project's sample files.
"""

import importlib.util
import os

from oslo_config import cfg


def nova_base_dir():
    """What Nova's ``pybasedir`` defaults to, the folder that holds the
    ``nova`` package; None when Nova is not installed here.
    """
    try:
        spec = importlib.util.find_spec('nova')
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.dirname(os.path.abspath(
        list(spec.submodule_search_locations)[0]))


paths_opts = [
    cfg.StrOpt('pybasedir',
               default=nova_base_dir(),
               sample_default='<the folder of the nova package>',
               help="""
Nova's ``pybasedir``: the folder that holds the ``nova`` package. Read
from ``nova.conf`` only for the default of ``state_path``.
"""),
    cfg.StrOpt('state_path',
               default='$pybasedir',
               help="""
Nova's ``state_path``: the top-level folder of Nova's state. The default
``[preemptible_sched] journal_connection`` is a SQLite file in it.

Related options:

* ``[preemptible_sched] journal_connection``
"""),
]


def register_opts(conf):
    conf.register_opts(paths_opts)
