from preemptible_sched.termination import count
from tests import base


class TestCountCost(base.TestCase):

    def test_every_instance_costs_one(self):
        plugin = count.CountCost()
        state = base.make_host_state()
        young = base.make_instance('young', preemptible=True,
                                   started_at=90, priority=0)
        old = base.make_instance('old', (8, 16000, 100), preemptible=True,
                                 started_at=0, priority=11)
        self.assertEqual([1.0, 1.0],
                         [plugin.cost(instance, state, 100)
                          for instance in (young, old)])
