from preemptible_sched import weighers
from preemptible_sched.weighers import ram
from tests import base


class TestRAMWeigher(base.TestCase):

    def setUp(self):
        super().setUp()
        self.weigher = ram.RAMWeigher()
        self.weigher.name = 'ram'
        self.spec = base.make_spec()

    def test_raw_is_free_memory_on_full_view(self):
        state = base.make_host_state(instances=[
            base.make_instance('n1'),
            base.make_instance('p1', (1, 3000, 10), preemptible=True)])
        # 16384 - 4000 - 3000: the preemptible instance counts.
        self.assertEqual([9384.0],
                         self.weigher.weigh_objects([state.full], self.spec))

    def test_spreads_by_default_and_stacks_when_negative(self):
        views = [base.make_host_state('busy', instances=[
                     base.make_instance('i1')]).full,
                 base.make_host_state('empty').full]
        handler = weighers.WeightHandler([self.weigher])
        best = handler.get_weighed_objects(views, self.spec)[0]
        self.assertEqual('empty', best.view.name)
        self.flags(group='filter_scheduler', ram_weight_multiplier=-1.0)
        best = handler.get_weighed_objects(views, self.spec)[0]
        self.assertEqual('busy', best.view.name)
