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

"""Host filters: which hosts can take a request at all.

A filter writes its rule once, in one of two forms. The built-in filters
override :meth:`BaseHostFilter.filter_all`, which judges a whole
:class:`~preemptible_sched.hosts.batch.HostBatch` at once and returns a
boolean mask, so that a pass over many hosts costs a few vector operations
per filter, not a Python call per host. A filter may instead override
:meth:`BaseHostFilter.host_passes`, which receives the *view* of one host
the request is judged on (the normal view for normal requests in
``dual_state`` mode, the full view otherwise) and the request. The base
class derives the other form from the one written: every filter can judge
one host (Nova's per-host calls, explanations) or a batch. Filters are
registered in the ``preemptible_sched.filters`` namespace.
"""

import numpy

from preemptible_sched.hosts import batch as host_batch
from preemptible_sched import loadables


class BaseHostFilter:
    """Base of every host filter."""

    #: Its entry-point name: each class declares it (``name = 'compute'``).
    #: A third-party class that declares none still loads; the loader sets
    #: the name on the object (:func:`preemptible_sched.loadables.named`).
    name = None

    def host_passes(self, host_view, spec):
        """Return True if the host seen through ``host_view`` may take spec.

        By default :meth:`filter_all` judges a batch of that one view (a
        filter that does not :meth:`apply to <applies_to>` the request
        passes it).
        """
        self._written('filter_all')
        if not self.applies_to(spec):
            return True
        return bool(self.filter_all(
            host_batch.HostBatch.of_views([host_view]), spec)[0])

    def _written(self, form):
        # The form the other one is derived from must be written.
        if getattr(type(self), form) is getattr(BaseHostFilter, form):
            raise NotImplementedError(
                'host filter %r overrides neither filter_all nor '
                'host_passes' % self.name)

    def applies_to(self, spec):
        """False when this filter would pass every host for ``spec``.

        The handler then skips it altogether: most requests name no zone,
        group or constraint, and a pass over every host costs time.
        """
        return True

    def filter_all(self, batch, spec):
        """Mask of the hosts of ``batch`` that pass.

        By default each host's view is handed to :meth:`host_passes`.
        """
        self._written('host_passes')
        return numpy.fromiter(
            (bool(self.host_passes(view, spec)) for view in batch.views()),
            dtype=bool, count=len(batch))


class Verdicts:
    """Which filter rejected which hosts in one pass.

    The hosts are kept as positions in the batch each filter judged and
    named only when asked: a pass that rejects most of a large cloud pays
    for the names only if someone reads them.
    """

    def __init__(self):
        self._rejected = []

    def record(self, filter_name, batch, positions):
        """``filter_name`` rejected the hosts at ``positions`` of
        ``batch``.
        """
        if len(positions):
            self._rejected.append((filter_name, batch, positions))

    def counts(self):
        """{filter name: hosts it rejected}."""
        counts = {}
        for name, _, positions in self._rejected:
            counts[name] = counts.get(name, 0) + len(positions)
        return counts

    def as_dict(self):
        """{host name: the filter that rejected it}."""
        verdicts = {}
        for name, batch, positions in self._rejected:
            names = batch.names
            for position in positions.tolist():
                verdicts[names[position]] = name
        return verdicts


class FilterHandler:
    """Runs the enabled filters, in order, over a batch of hosts."""

    def __init__(self, filters):
        self.filters = list(filters)

    @classmethod
    def from_names(cls, names):
        return cls(loadables.load_plugins(
            'preemptible_sched.filters', names,
            'filter_scheduler', 'enabled_filters'))

    def filter_batch(self, batch, spec, verdicts=None, context=None):
        """The hosts of ``batch`` that pass every filter, as a batch.

        ``verdicts`` (a :class:`Verdicts`), when given, records the hosts
        each filter rejected. ``context`` (the pass's
        :class:`~preemptible_sched.objects.PassContext`), when given, hands
        its load snapshot to the filters on the batch (``batch.load``).
        """
        if context is not None:
            batch.load = context.load
        # The hosts still in are a mask over ``batch``, which is cut down
        # only before a filter that judges one host at a time (and once at
        # the end): a vector filter judges every host as cheaply.
        alive = None
        for host_filter in self.filters:
            if not host_filter.applies_to(spec):
                continue
            if (alive is not None and
                    type(host_filter).filter_all is BaseHostFilter.filter_all):
                batch = batch.take(alive)
                alive = None
            mask = numpy.asarray(host_filter.filter_all(batch, spec),
                                 dtype=bool)
            # count_nonzero: a C call, where any() goes through Python
            # (this runs per filter and decision).
            if alive is None:
                if numpy.count_nonzero(mask) == len(mask):
                    continue
                rejected, alive = ~mask, mask
            else:
                rejected = alive & ~mask
                if not numpy.count_nonzero(rejected):
                    continue
                alive = alive & mask
            if verdicts is not None:
                verdicts.record(host_filter.name, batch,
                                numpy.flatnonzero(rejected))
            if not numpy.count_nonzero(alive):
                break
        return batch if alive is None else batch.take(alive)

    def filter(self, host_views, spec, verdicts=None, context=None):
        """Return the views of ``host_views`` that pass every filter.

        When ``verdicts`` (a dict) is given, it maps the name of every host
        that failed to the name of the first filter that rejected it.
        """
        recorded = Verdicts()
        passed = self.filter_batch(host_batch.HostBatch.of_views(host_views),
                                   spec, recorded, context)
        if verdicts is not None:
            verdicts.update(recorded.as_dict())
        return passed.views()
