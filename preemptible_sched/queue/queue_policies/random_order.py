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

import collections.abc

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.queue import queue_policies as policies


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
        # The permutation is of the requests in arrival order (as the queue
        # hands them over), so that it depends only on the seed and the
        # requests. A pass on a full cloud looks at a few of thousands:
        # the rest is never picked out.
        return Permuted(requests, self.rng.permutation(len(requests)))


class Permuted(collections.abc.Sequence):
    """``requests`` in the order of ``positions`` (a numpy array of
    indices), picked out only when read.
    """

    __slots__ = ('requests', 'positions')

    def __init__(self, requests, positions):
        self.requests = requests
        self.positions = positions

    def __len__(self):
        return len(self.positions)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return Permuted(self.requests, self.positions[index])
        return self.requests[self.positions[index]]

    def __iter__(self):
        return map(self.requests.__getitem__, self.positions.tolist())

    def __repr__(self):
        return 'Permuted(%r)' % list(self)
