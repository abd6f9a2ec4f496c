from preemptible_sched.termination import runtime
from tests import base


class TestRuntimeCost(base.TestCase):

    def setUp(self):
        super().setUp()
        self.plugin = runtime.RuntimeCost()
        self.state = base.make_host_state()

    def _cost(self, started_at, now):
        instance = base.make_instance('p1', preemptible=True,
                                      started_at=started_at)
        return self.plugin.cost(instance, self.state, now)

    def test_seconds_run_so_far(self):
        self.assertEqual(5760, self._cost(0, 5760))
        self.assertEqual(250.5, self._cost(1000, 1250.5))

    def test_not_started_costs_nothing(self):
        self.assertEqual(0, self._cost(1000, 900))
