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

"""Every core weigher as a Nova host weigher, for ``[filter_scheduler]``.

One Nova weigher class is generated for each entry point of the
``preemptible_sched.weighers`` namespace, named as its core class
(``preemptible_sched.nova.weighers.TerminationCostWeigher``,
``...RAMWeigher``, ``...TargetLoadPackingWeigher``, ...): name them in
``weight_classes`` one by one, or all with
``preemptible_sched.nova.weighers.all_weighers``. Each multiplier is
``[preemptible_sched] <name>_weight_multiplier`` (generated from the same
entry points, with the plugin's default), overridden by host aggregate
metadata of the same key, as Nova's own multipliers are; the weighers'
other options are the core ones (``[preemptible_sched]
kubernetes_integer_scores``, ``[target_load_packing]``,
``[load_variation_risk_balancing]``, ``[low_risk_over_commitment]``).

They weigh the full view the manager shows them when it decides with the
core engine (every server of the host, the termination plans of its
preemptible ones), and Nova's usage figures on Nova's stock pass. The
load-aware weighers read no load watcher inside Nova: they rank by best
fit on the allocations, as they do whenever the watcher's metrics are
unusable.
"""

import sys

import numpy

from nova.scheduler import utils as scheduler_utils
from nova.scheduler import weights as nova_weights

from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.conf import plugins
from preemptible_sched.hosts import batch as host_batch
from preemptible_sched.nova import config
from preemptible_sched.nova import host_states
from preemptible_sched.nova import host_views
from preemptible_sched import objects
from preemptible_sched.scheduler.weighers import ranking

CONF = config.CONF


class CoreWeigher(nova_weights.BaseHostWeigher):
    """Runs one core weigher (:attr:`core`, entry point :attr:`name`)."""

    #: The core weigher class this Nova weigher runs.
    core = None
    #: Its entry-point name: the multiplier is ``<name>_weight_multiplier``.
    name = None

    def __init__(self):
        self.plugin = self.core()
        self.plugin.name = self.name
        self.minval = self.plugin.minval
        self.maxval = self.plugin.maxval

    def weight_multiplier(self, host_state):
        option = '%s_weight_multiplier' % self.name
        return scheduler_utils.get_weight_multiplier(
            host_state, option, CONF[nova_opts.nova_group.name][option])

    def weigh_objects(self, weighed_obj_list, spec_obj):
        if not weighed_obj_list:
            return []
        hosts = [weighed.obj for weighed in weighed_obj_list]
        present = getattr(hosts[0], host_views.NOW_ATTR, None)
        if present is None:
            present = host_states.now()
        batch = host_batch.HostBatch.of_views(
            host_views.view_of(host) for host in hosts)
        request = host_states.core_request(
            spec_obj, nova_opts.service_class_priorities(CONF))
        raw = self.plugin.weigh_all(batch, request,
                                    objects.PassContext(now=present))
        if isinstance(raw, ranking.Bounds):
            raw = numpy.array(raw.resolve(numpy.arange(len(hosts))),
                              dtype=float)
        return ranking.rank_last_list(
            numpy.asarray(raw, dtype=float).tolist())

    def _weigh_object(self, host_state, spec_obj):
        return self.weigh_objects(
            [nova_weights.WeighedHost(host_state, 0.0)], spec_obj)[0]


def _generate():
    """One :class:`CoreWeigher` subclass per core weigher, in this
    module.
    """
    generated = []
    for name in plugins.names(plugins.WEIGHERS):
        core = plugins.plugin_class(plugins.WEIGHERS, name)
        doc = ('The core ``%s`` weigher in Nova: %s' %
               (name, plugins.summary(core)))
        weigher = type(core.__name__, (CoreWeigher,), {
            'core': core, 'name': name, '__doc__': doc,
            '__module__': __name__})
        setattr(sys.modules[__name__], core.__name__, weigher)
        generated.append(weigher)
    return generated


_ALL = _generate()


def all_weighers():
    """The weigher classes of this module, for ``weight_classes``."""
    return list(_ALL)
