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

"""A random order, drawn again in every pass."""

import operator

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.queue import queue_policies as policies


_ARRIVAL = operator.attrgetter('sequence')


class RandomPolicy(policies.BaseQueuePolicy):
    """Consider the requests in a random order, shuffled in every pass.

    The baseline of the SC18 experiments: no request is favoured, so it
    shows what an order buys. The generator is seeded once, when the
    policy is loaded, with ``[scheduler] random_seed`` (the simulator's
    ``--seed``), so a run can be reproduced; each pass draws a new
    permutation from it (numpy's PCG64: a queue of thousands of requests
    is shuffled in every pass of a simulation).
    """

    name = 'random'

    def __init__(self):
        # numpy wants a seed >= 0; Python's random, too, seeds with the
        # absolute value of an integer.
        self.rng = numpy.random.Generator(numpy.random.PCG64(
            abs(CONF.scheduler.random_seed)))

    def order(self, requests, now):
        # In arrival order first, so that the permutation depends only on
        # the seed and the requests, not on how the queue holds them.
        arrived = sorted(requests, key=_ARRIVAL)
        return [arrived[index]
                for index in self.rng.permutation(len(arrived)).tolist()]
