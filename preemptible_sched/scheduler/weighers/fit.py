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

"""Ranks for the allocation policies of stage R5 (first, best, worst fit).

The SC18 allocation policies pick one host by a key (the vCPUs left over
after placing, or nothing at all) and break ties by registration order:
the host listed first in the infrastructure wins. A weigher cannot leave
ties to the scheduler, which draws among equal totals at random, so these
weighers return ranks: the best host by (key, position in the batch)
weighs 0, the next -1, and so on. Batches keep the hosts' registration
order, so the position is the registration order.
"""

import numpy


def ranks(keys):
    """Weights ``0, -1, -2, ...`` by ascending ``keys``, ties by position
    (a float vector, one weight per key).
    """
    keys = numpy.asarray(keys, dtype=float)
    order = numpy.lexsort((numpy.arange(len(keys)), keys))
    weights = numpy.empty(len(keys))
    weights[order] = 0.0 - numpy.arange(len(keys), dtype=float)
    return weights


def leftover(free_vcpus, spec):
    """vCPUs a host would have left after taking ``spec``."""
    return numpy.asarray(free_vcpus, dtype=float) - spec.resources.vcpus
