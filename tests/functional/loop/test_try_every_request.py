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

"""``[scheduler] try_every_request``: how many requests a pass asks the
filter scheduler about once one of them found no host.

One blade of 8 cores, the plain strategy (one filtering per request: no
displacement phase), requests that wait when nothing fits. Four medium
(2-core) requests fill the blade at t = 0 and run 100 s once booted (2 s);
at t = 10 three more medium requests arrive, all in one pass.
"""

from tests.functional.loop import fixtures as loop_fixtures


class TestTryEveryRequest(loop_fixtures.LoopTestCase):

    def setUp(self):
        super().setUp()
        self.flags(group='scheduler', preemption_strategy='plain',
                   on_no_valid_host='wait')

    def run_scenario(self, try_every_request, prefix=''):
        """R4 (filtering) runs per pass, as {pass time: runs}, and where
        and when (from the start of the scenario) every instance of this
        scenario (its ids start with ``prefix``) started, and its state.
        """
        self.flags(group='scheduler', try_every_request=try_every_request)
        self.loop.stop()
        self.loop = self.new_loop()
        begin = self.clock.now()
        for i in range(4):
            self.submit('%sfull%d' % (prefix, i), duration=100)
        self.run_for(10)
        for i in range(3):
            self.submit('%slate%d' % (prefix, i), duration=10)
        self.run_for(150)
        runs = {}
        for _, at, stage, iterations, _, _, _ in self.loop.stats.passes:
            if stage == 'R4':
                runs[at - begin] = runs.get(at - begin, 0) + iterations
        placed = {row.id[len(prefix):]: (row.state, row.host,
                                         row.started_at - begin)
                  for row in self.loop.store.list_instances()
                  if row.id.startswith(prefix)}
        return runs, placed

    def test_default_stops_at_the_first_failure(self):
        """At t = 10 the blade is full: late0 finds no host, and late1 and
        late2 (same kind, same size) are dropped without being asked: one
        filtering. At t = 102 the four end and the three are placed:
        three filterings.
        """
        runs, _ = self.run_scenario(False)
        self.assertEqual({0.0: 4, 10.0: 1, 102.0: 3}, runs)

    def test_on_every_request_is_filtered(self):
        """At t = 10 late0, late1 and late2 are each filtered (3), though
        the first failure shows none fits; the rest is as by default.
        """
        runs, _ = self.run_scenario(True)
        self.assertEqual({0.0: 4, 10.0: 3, 102.0: 3}, runs)

    def test_the_decisions_are_the_same(self):
        """Both ways: the four at t = 2 (booted), the three at 104."""
        _, default = self.run_scenario(False, 'a-')
        _, every = self.run_scenario(True, 'b-')
        self.assertEqual(default, every)
        self.assertEqual([2.0] * 4 + [104.0] * 3, sorted(
            started for _, _, started in every.values()))
