from preemptible_sched.termination import billing_period
from tests import base


class TestBillingPeriodCost(base.TestCase):

    def setUp(self):
        super().setUp()
        self.state = base.make_host_state()

    def _cost(self, plugin, started_at, now):
        instance = base.make_instance('p1', preemptible=True,
                                      started_at=started_at)
        return plugin.cost(instance, self.state, now)

    def test_default_period_is_an_hour(self):
        plugin = billing_period.BillingPeriodCost()
        # 96 min into the second hour: 36 min = 2160 s forfeited.
        self.assertEqual(2160, self._cost(plugin, 0, 96 * 60))
        self.assertEqual(2160, self._cost(plugin, 1000, 1000 + 96 * 60))

    def test_configured_period(self):
        self.flags(group='preemptible', billing_period_seconds=600)
        plugin = billing_period.BillingPeriodCost()
        self.assertEqual(360, self._cost(plugin, 0, 96 * 60))

    def test_whole_periods_cost_nothing(self):
        plugin = billing_period.BillingPeriodCost()
        self.assertEqual(0, self._cost(plugin, 0, 7200))

    def test_fractional_runtime(self):
        plugin = billing_period.BillingPeriodCost()
        self.assertAlmostEqual(0.5, self._cost(plugin, 0, 3600.5))

    def test_not_started_costs_nothing(self):
        plugin = billing_period.BillingPeriodCost()
        self.assertEqual(0, self._cost(plugin, 500, 100))

    def test_period_read_once_at_load(self):
        plugin = billing_period.BillingPeriodCost()
        self.flags(group='preemptible', billing_period_seconds=600)
        self.assertEqual(2160, self._cost(plugin, 0, 96 * 60))
