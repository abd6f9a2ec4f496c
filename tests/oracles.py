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

"""Brute-force oracles: the reference answers the tests check against.

Exponential in the number of candidates: for tests (and the termination
selector's benchmark) only, never to schedule.
"""

import itertools

from preemptible_sched.scheduler import termination_selector as selector

_DIMS = (0, 1, 2)


def brute_force(resources, costs, ids, need, capacity):
    """Try every subset: the termination selector's reference answer.

    It quantizes the problem and ranks feasible sets by the selector's own
    :func:`~preemptible_sched.scheduler.termination_selector.solution_key`;
    :func:`independent_brute_force` checks that definition from scratch.
    """
    resources_q, costs_q, need_q, capacity_q = selector.quantize_problem(
        resources, costs, need, capacity)
    if all(need_q[d] <= 0 for d in _DIMS):
        return ()
    best_key = best = None
    n = len(ids)
    for mask in range(1, 1 << n):
        chosen = [i for i in range(n) if mask >> i & 1]
        if any(sum(resources_q[i][d] for i in chosen) < need_q[d]
               for d in _DIMS):
            continue
        key = selector.solution_key(chosen, costs_q, resources_q, ids,
                                    need_q, capacity_q)
        if best_key is None or key < best_key:
            best_key, best = key, tuple(sorted(chosen,
                                               key=ids.__getitem__))
    return best


def independent_brute_force(resources, costs, ids, need, capacity):
    """Try every subset, written from the definition independently.

    Sizes are scaled to integers (as the selector does) so both sides see
    exactly the same sums; the order is cost, count, excess, sorted ids.
    """
    def q(value, scale):
        return int(round(value * scale))
    res = [[q(v, 10 ** 9) for v in r] for r in resources]
    cost = [q(c, 10 ** 6) for c in costs]
    need_q = [q(v, 10 ** 9) for v in need]
    cap = [q(v, 10 ** 9) for v in capacity]
    if all(n <= 0 for n in need_q):
        return ()
    best = None
    for size in range(1, len(ids) + 1):
        for subset in itertools.combinations(range(len(ids)), size):
            freed = [sum(res[i][d] for i in subset) for d in range(3)]
            if any(freed[d] < need_q[d] for d in range(3)):
                continue
            excess = sum((freed[d] - max(need_q[d], 0)) / max(cap[d], 1)
                         for d in range(3))
            key = (sum(cost[i] for i in subset), size, excess,
                   tuple(sorted(ids[i] for i in subset)))
            if best is None or key < best[0]:
                best = (key, subset)
    if best is None:
        return None
    return tuple(sorted(best[1], key=lambda i: ids[i]))
