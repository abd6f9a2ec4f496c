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

A filter overrides :meth:`BaseHostFilter.host_passes`. It receives the
*view* of the host the request is judged on (the normal view for normal
requests in ``dual_state`` mode, the full view otherwise) and the request.
Filters are registered in the ``preemptible_sched.filters`` namespace.
"""

from preemptible_sched import loadables


class BaseHostFilter:
    """Base of every host filter."""

    #: Entry-point name, set when the filter is loaded.
    name = None

    def host_passes(self, host_view, spec):
        """Return True if the host seen through ``host_view`` may take spec."""
        raise NotImplementedError()

    def applies_to(self, spec):
        """False when this filter would pass every host for ``spec``.

        The handler then skips it altogether: most requests name no zone,
        group or constraint, and a pass over every host costs time.
        """
        return True

    def filter_all(self, host_views, spec):
        """Return the views that pass; override for a vectorised filter."""
        return [view for view in host_views if self.host_passes(view, spec)]


class FilterHandler:
    """Runs the enabled filters, in order, over a list of host views."""

    def __init__(self, filters):
        self.filters = list(filters)

    @classmethod
    def from_names(cls, names):
        return cls(loadables.load_plugins(
            'preemptible_sched.filters', names,
            'filter_scheduler', 'enabled_filters'))

    def filter(self, host_views, spec, verdicts=None):
        """Return the views that pass every filter.

        When ``verdicts`` (a dict) is given, it maps the name of every host
        that failed to the name of the first filter that rejected it.
        """
        passed = list(host_views)
        for host_filter in self.filters:
            if not passed:
                break
            if not host_filter.applies_to(spec):
                continue
            kept = host_filter.filter_all(passed, spec)
            if verdicts is not None and len(kept) != len(passed):
                kept_names = {view.name for view in kept}
                for view in passed:
                    if view.name not in kept_names:
                        verdicts[view.name] = host_filter.name
            passed = kept
        return passed
