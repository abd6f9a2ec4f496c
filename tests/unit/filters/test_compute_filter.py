from preemptible_sched.filters import compute_filter
from tests import base


class TestComputeFilter(base.TestCase):

    def setUp(self):
        super().setUp()
        self.filter = compute_filter.ComputeFilter()
        self.spec = base.make_spec()

    def _passes(self, **host_kw):
        state = base.make_host_state(**host_kw)
        return self.filter.host_passes(state.full, self.spec)

    def test_enabled_and_up_passes(self):
        self.assertTrue(self._passes())

    def test_disabled_fails(self):
        self.assertFalse(self._passes(enabled=False))

    def test_down_fails(self):
        self.assertFalse(self._passes(up=False))

    def test_disabled_and_down_fails(self):
        self.assertFalse(self._passes(enabled=False, up=False))

    def test_judges_normal_view_too(self):
        state = base.make_host_state(up=False)
        self.assertFalse(self.filter.host_passes(state.normal, self.spec))
