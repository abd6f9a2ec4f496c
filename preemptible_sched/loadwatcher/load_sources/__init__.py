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


"""Where the load watcher gets per-host utilisation: source plugins.

A source answers :meth:`MetricsSource.collect` with the current CPU and
memory utilisation of every host it knows, in % of the host's physical
capacity (None for a metric it cannot tell). Sources are registered in
the ``preemptible_sched.load_sources`` namespace: ``compute`` (the
scheduler's compute driver), ``fake`` (emulated hosts replaying Bitbrains
utilisation) and ``prometheus``.
"""

import stevedore

from preemptible_sched.conf import plugins
from preemptible_sched import exception
from preemptible_sched import loadables

NAMESPACE = 'preemptible_sched.load_sources'


class SourceError(Exception):
    """The source could not be read this time (one line, for the log)."""


class MetricsSource:
    """Base of every load source."""

    #: Its entry-point name: each class declares it (``name = 'fake'``).
    #: A third-party class that declares none still loads; the loader sets
    #: the name on the object (:func:`preemptible_sched.loadables.named`).
    name = None

    def collect(self, now):
        """``{host: (cpu %, memory %)}`` at ``now``; raise
        :class:`SourceError` when the source cannot be read.
        """
        raise NotImplementedError()


def load(name, **kwargs):
    """The source plugin ``name``, built with ``kwargs``; an unknown name
    is :class:`~preemptible_sched.exception.UnknownPlugin`.
    """
    available = plugins.names(NAMESPACE)
    if name not in available:
        raise exception.UnknownPlugin('load_watcher', 'source', NAMESPACE,
                                      [name], available)
    manager = stevedore.DriverManager(NAMESPACE, name, invoke_on_load=True,
                                      invoke_kwds=kwargs)
    return loadables.named(manager.driver, name)
