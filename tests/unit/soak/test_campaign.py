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

"""The soak's figures over many scenarios."""

import collections

from tests import base
from tests.soak import campaign


class TestFigures(base.TestCase):

    def test_figures_add_up(self):
        figures = campaign.Figures(first=1)
        result = {'seed': 3, 'size': 'small', 'strategy': 'qos',
                  'intensity': 'light', 'requests': 4, 'instances': 5,
                  'faults': collections.Counter(host_down=2),
                  'restarts': 1, 'given_up': False,
                  'observed': {'instance.stray': 1},
                  'violations': [('resurrected', 'x')], 'wall_s': 0.5}
        figures.add(result)
        figures.add(dict(result, seed=4, violations=[]))
        out = figures.as_dict()
        self.assertEqual(2, out['scenarios'])
        self.assertEqual(4, out['faults']['host_down'])
        self.assertEqual(2, out['observed']['instance.stray'])
        self.assertEqual(1, out['violations']['resurrected'])
        self.assertEqual(1, out['violating_scenarios'])
        self.assertEqual([3], [entry['seed']
                               for entry in out['first_violations']])
