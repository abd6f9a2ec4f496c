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

"""Core weighers as Nova host weighers, for ``[filter_scheduler]``.

Name them in ``weight_classes`` (one by one, or all with
``preemptible_sched.nova.weighers.all_weighers``). Each multiplier is
``[preemptible_sched] <name>_weight_multiplier``, overridden by host
aggregate metadata of the same key, as Nova's own multipliers are. They
weigh the full view, as every weigher does: with the servers the manager
attached on its preemption path, from Nova's usage figures otherwise.
"""

from nova.scheduler import utils as scheduler_utils
from nova.scheduler import weights as nova_weights


from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.nova import config
from preemptible_sched.nova import host_states
from preemptible_sched.nova import planner
from preemptible_sched import objects
from preemptible_sched import weighers
from preemptible_sched.weighers import allocation_score
from preemptible_sched.weighers import balanced_allocation
from preemptible_sched.weighers import least_requested
from preemptible_sched.weighers import preemptible_count
from preemptible_sched.weighers import termination_cost

CONF = config.CONF


class CoreWeigher(nova_weights.BaseHostWeigher):
    """Runs one core weigher (:attr:`core`, named :attr:`name`)."""

    #: The core weigher class this Nova weigher runs.
    core = None
    #: Its name: the multiplier is ``<name>_weight_multiplier``.
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
        plan = planner.planner()
        request = host_states.core_request(spec_obj, {})
        views = [host_states.state_of(weighed.obj, plan).full
                 for weighed in weighed_obj_list]
        return weighers.rank_last(self.plugin.weigh_objects(
            views, request, objects.PassContext(now=plan.now)))

    def _weigh_object(self, host_state, spec_obj):
        return self.weigh_objects(
            [nova_weights.WeighedHost(host_state, 0.0)], spec_obj)[0]


class PreemptibleCountWeigher(CoreWeigher):
    """The core ``preemptible_count`` weigher: minus the fewest preemptible
    servers to delete for the request to fit (0 when it fits).
    """

    core = preemptible_count.PreemptibleCountWeigher
    name = 'preemptible_count'


class TerminationCostWeigher(CoreWeigher):
    """The core ``termination_cost`` weigher: minus the cost of the cheapest
    set of preemptible servers to delete (0 when the request fits).
    """

    core = termination_cost.TerminationCostWeigher
    name = 'termination_cost'


class LeastRequestedWeigher(CoreWeigher):
    """The core ``least_requested`` weigher (Kubernetes' least-requested
    score over vCPUs and RAM, 0 to 10).
    """

    core = least_requested.LeastRequestedWeigher
    name = 'least_requested'


class BalancedAllocationWeigher(CoreWeigher):
    """The core ``balanced_allocation`` weigher (Kubernetes' balanced
    resource score, 0 to 10).
    """

    core = balanced_allocation.BalancedAllocationWeigher
    name = 'balanced_allocation'


class AllocationScoreWeigher(CoreWeigher):
    """The core ``allocation_score`` weigher: the mean of the
    least-requested and balanced-allocation scores.
    """

    core = allocation_score.AllocationScoreWeigher
    name = 'allocation_score'


def all_weighers():
    """The weigher classes of this module, for ``weight_classes``."""
    return [PreemptibleCountWeigher, TerminationCostWeigher,
            LeastRequestedWeigher, BalancedAllocationWeigher,
            AllocationScoreWeigher]
