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

from preemptible_sched.scheduler import termination_costs as termination
from preemptible_sched.scheduler.termination_costs import billing_period
from preemptible_sched.scheduler.termination_costs import cost_hint
from preemptible_sched.scheduler import termination_planner
from tests import base


class TestCostHintCost(base.TestCase):

    def test_hint_mapped_onto_zero_one_and_clipped(self):
        plugin = cost_hint.CostHintCost()
        state = base.make_host_state()
        costs = [plugin.cost(base.make_instance('i', cost_hint=hint),
                             state, 0)
                 for hint in (-5000, -1000, -500, 0, 250, 1000, 10 ** 9)]
        # (hint + 1000) / 2000 within [-1000, 1000].
        self.assertEqual([0.0, 0.0, 0.25, 0.5, 0.625, 1.0, 1.0], costs)

    def test_hint_overrides_a_smaller_billing_difference(self):
        """Two preemptible medium instances fill an 8 vCPU blade with a
        normal one; a medium request needs one gone. At t = 1000 s with
        hourly billing, 'a' (started at 0) costs 1000 s and 'b' (started
        at 400) 600 s: without hints 'b' goes. With b's hint 1000 and a's
        -1000, the hint costs add 600 * 1.0 to b and 0 to a: 1200 against
        1000, and 'a' goes.
        """
        def plan(hint_a, hint_b):
            state = base.make_host_state(vcpus=6, instances=[
                base.make_instance('a', preemptible=True, started_at=0,
                                   cost_hint=hint_a),
                base.make_instance('b', preemptible=True, started_at=400,
                                   cost_hint=hint_b),
                base.make_instance('n', started_at=0)])
            handler = termination.TerminationCostHandler(
                [billing_period.BillingPeriodCost(),
                 cost_hint.CostHintCost()])
            planner = termination_planner.TerminationPlanner(handler)
            return planner.plan(state, base.MEDIUM, 1000)

        self.assertEqual(['b'], list(plan(0, 0).victim_ids))
        self.assertEqual(['a'], list(plan(-1000, 1000).victim_ids))
        self.assertAlmostEqual(1000.0, plan(-1000, 1000).cost)
