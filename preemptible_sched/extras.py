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

"""The optional parts of preemptible_sched and the extras that install them.

A plain install (``pip install .``, or ``pip install '.[nova]'`` into
Nova's environment) brings the scheduler core, the service, the operations
commands and the Nova integration, none of which needs the libraries
below. The simulator, the trace readers, the emulated testbed and the
reports need the ``simulation`` extra; the figures need ``plots``;
``experiment --executor dask`` needs ``dask``.

A module that uses one of these libraries imports it with
:func:`optional_module`: without the library the module still imports (so
that, say, ``preemptible-sched decide`` runs on a lean install), and the
first use of the library raises
:class:`~preemptible_sched.exception.MissingExtra`. A command that needs an
extra calls :func:`require` before it does anything, and stops with one
line naming the extra.
"""

import importlib
import importlib.util
import sys

from preemptible_sched import exception

#: extra -> the libraries it installs (their import names), as in the
#: ``[extras]`` section of setup.cfg.
EXTRAS = {
    'simulation': ('pyarrow', 'tqdm', 'tabulate'),
    'plots': ('matplotlib',),
    # experiment --executor dask
    'dask': ('distributed',),
}


def extra_of(library):
    """The extra that installs ``library`` (an import name)."""
    top = library.split('.')[0]
    for extra, libraries in EXTRAS.items():
        if top in libraries:
            return extra
    raise KeyError('no extra installs %s' % library)


class _Missing:
    """Stands for a library that is not installed: any use of it raises
    :class:`MissingExtra`.
    """

    def __init__(self, library, error):
        self._library = library
        self._error = error

    def __getattr__(self, name):
        raise exception.MissingExtra(extra_of(self._library),
                                     self._library, self._error)


class _Lazy:
    """Stands for a library not imported yet: imported on first use (the
    simulator does not pay for pyarrow's import when it reads no parquet,
    nor a command for the libraries of another). When the import fails,
    the use raises :class:`MissingExtra`.
    """

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attribute):
        module = self._module
        if module is None:
            try:
                module = importlib.import_module(self._name)
            except ImportError as error:
                module = _Missing(self._name.split('.')[0], error)
            self._module = module
        return getattr(module, attribute)


def optional_module(name):
    """Module ``name`` (``'pyarrow.dataset'`` imports the package too) when
    it is imported already; else a stand-in that imports it on first use,
    and whose every use raises :class:`MissingExtra` when the library is
    not installed.
    """
    module = sys.modules.get(name)
    return module if module is not None else _Lazy(name)


def require(extra):
    """Raise :class:`MissingExtra` unless every library of ``extra`` is
    installed.

    Installed is enough: the libraries are not imported here (see
    :func:`optional_module`).
    """
    for library in EXTRAS[extra]:
        try:
            found = importlib.util.find_spec(library)
        except (ImportError, ValueError) as error:
            raise exception.MissingExtra(extra, library, error) from None
        if found is None:
            raise exception.MissingExtra(
                extra, library,
                ModuleNotFoundError('No module named %r' % library))
