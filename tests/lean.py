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

"""Python code run as on a lean install: the libraries of the
``simulation`` and ``plots`` extras cannot be imported.

:func:`run_lean` runs a snippet in a fresh interpreter whose
``sys.meta_path`` refuses those libraries (as if they were not
installed), so what a module imports at load time is what is tested, not
what this test process happens to have loaded already.
"""

import ast
import os
import subprocess
import sys

from preemptible_sched import extras

#: every library of the extras a lean install lacks
BLOCKED = sorted(library for libraries in extras.EXTRAS.values()
                 for library in libraries)

_BLOCKER = '''
import sys
BLOCKED = %r
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in BLOCKED:
            raise ModuleNotFoundError('No module named %%r' %% name,
                                      name=name)
sys.meta_path.insert(0, Blocker())
'''

PACKAGE_DIR = os.path.dirname(os.path.dirname(extras.__file__))


def run_lean(code, timeout=120, blocked=BLOCKED):
    """``subprocess.CompletedProcess`` of ``code`` run without the extras'
    libraries, or without the ``blocked`` ones (text output).
    """
    return subprocess.run([sys.executable, '-c',
                           _BLOCKER % (list(blocked),) + code],
                          capture_output=True, text=True, timeout=timeout,
                          cwd=PACKAGE_DIR)


def _imports(path):
    """The ``preemptible_sched`` modules the file at ``path`` imports."""
    with open(path, encoding='utf-8') as stream:
        tree = ast.parse(stream.read(), path)
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update('%s.%s' % (node.module, alias.name)
                         for alias in node.names)
    return {name for name in found
            if name.split('.')[0] == 'preemptible_sched'}


def _file_of(module):
    """The source file of ``module`` in the tree, or None (a name imported
    from a module rather than a module).
    """
    base = os.path.join(PACKAGE_DIR, *module.split('.'))
    for path in (base + '.py', os.path.join(base, '__init__.py')):
        if os.path.exists(path):
            return path
    return None


def nova_path_modules():
    """Every module of ours the Nova integration imports, found in the
    source (``preemptible_sched.nova`` itself needs Nova to import).
    """
    nova_dir = os.path.join(PACKAGE_DIR, 'preemptible_sched', 'nova')
    todo = ['preemptible_sched.nova.' + name[:-3]
            for name in sorted(os.listdir(nova_dir)) if name.endswith('.py')]
    seen = set()
    while todo:
        module = todo.pop()
        path = _file_of(module)
        if module in seen or path is None:
            continue
        seen.add(module)
        todo.extend(_imports(path) - seen)
    return sorted(seen)
