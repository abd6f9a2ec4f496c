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

"""The core's phase engine on Nova's objects (no Nova services needed):
strategies by entry-point name, the seeded draw, instances that see the
earlier ones, and every core weigher as a Nova weigher.
"""

import random

from nova import objects as nova_objects
from nova.scheduler import host_manager
from nova.scheduler import weights as nova_weights
from nova import test
from oslo_utils.fixture import uuidsentinel as uuids

from preemptible_sched.conf import plugins
from preemptible_sched import exception
from preemptible_sched.nova import config
from preemptible_sched.nova import engine
from preemptible_sched.nova import host_states
from preemptible_sched.nova import strategies
from preemptible_sched.nova import weighers
from preemptible_sched.scheduler import termination_costs as termination

CONF = config.CONF


class NovaHosts:
    """Nova's host manager as the engine uses it: every filter passes,
    and every host weighs the same (or as ``weights`` says, by host).
    """

    def __init__(self, weights=None):
        self.weights = weights or {}
        self.filtered = []

    def get_filtered_hosts(self, hosts, spec_obj, index):
        self.filtered.append((index, spec_obj.instance_uuid,
                              sorted(host.host for host in hosts)))
        return list(hosts)

    def get_weighed_hosts(self, hosts, spec_obj):
        weighed = [nova_weights.WeighedHost(host,
                                            self.weights.get(host.host, 0.0))
                   for host in hosts]
        return sorted(weighed, key=lambda item: -item.weight)


def nova_host(name):
    host = host_manager.HostState(name, name, uuids.cell)
    host.uuid = getattr(uuids, name)
    host.instances = {}
    return host


def spec(uuids_, vcpus=2, memory_mb=2048):
    flavor = nova_objects.Flavor(name='normal', vcpus=vcpus,
                                 memory_mb=memory_mb, root_gb=10,
                                 ephemeral_gb=0, swap=0, extra_specs={})
    return nova_objects.RequestSpec(flavor=flavor, num_instances=len(uuids_),
                                    instance_uuid=uuids_[0], is_bfv=False)


def call(names, spec_obj, instance_uuids, rng, subset=1, strategy='plain',
         nova_hosts=None, free_slots=None):
    """A Call over empty 8 vCPU / 8192 MB hosts (``free_slots`` of 2048 MB
    each left free, when given).
    """
    CONF.set_override('preemption_strategy', strategy, 'preemptible_sched')
    found = engine.Call(nova_hosts or NovaHosts(), spec_obj, instance_uuids,
                        strategies.load(CONF), termination.
                        TerminationCostHandler([]), rng, subset)
    for name in names:
        host = nova_host(name)
        used = 0 if free_slots is None else 8192 - 2048 * free_slots[name]
        summary = {'resources': {
            'VCPU': {'capacity': 8, 'used': used // 1024},
            'MEMORY_MB': {'capacity': 8192, 'used': used},
            'DISK_GB': {'capacity': 100, 'used': 0}}}
        found.add(host_states.add_from_summary(
            found.hosts, host, summary, None, {}, 0.0), host)
    return found


class TestStrategies(test.NoDBTestCase):

    def test_entry_point_names(self):
        for name in plugins.names(plugins.PREEMPTION_STRATEGIES):
            self.flags(preemption_strategy=name, group='preemptible_sched')
            self.assertEqual(name, strategies.load(CONF).name)

    def test_preemptible_is_a_deprecated_alias(self):
        self.flags(preemption_strategy='preemptible',
                   group='preemptible_sched')
        with self.assertLogs(strategies.LOG, 'WARNING') as log:
            self.assertEqual('dual_state', strategies.load(CONF).name)
        self.assertIn('deprecated', log.output[0])

    def test_unknown_name_lists_the_valid_ones(self):
        self.flags(preemption_strategy='lifo', group='preemptible_sched')
        error = self.assertRaises(exception.UnknownPlugin, strategies.load,
                                  CONF)
        self.assertIn('preemption_strategy', str(error))
        self.assertIn('dual_state', str(error))


class TestSeededDraw(test.NoDBTestCase):
    """Four hosts that weigh the same, host_subset_size 4: the host comes
    from the draw of the manager's seeded generator, the same for the
    same seed.
    """

    NAMES = ('h1', 'h2', 'h3', 'h4')

    def chosen(self, seed):
        spec_obj = spec([uuids.i1])
        decision = call(self.NAMES, spec_obj, [uuids.i1],
                        random.Random(seed), subset=4).decide(
            host_states.core_request(spec_obj, {}, [uuids.i1]), 0.0)
        selection, = decision.selections
        return selection.host

    def test_same_seed_same_host(self):
        for seed in range(5):
            self.assertEqual(self.chosen(seed), self.chosen(seed))

    def test_the_draw_spreads(self):
        self.assertGreater(len({self.chosen(seed) for seed in range(20)}), 2)


class TestInstancesSeeTheEarlierOnes(test.NoDBTestCase):
    """Three instances; h1 has one free slot, h2 two, h1 weighs more: the
    first goes to h1, and the next two see it full (issue 25's overcommit:
    the second was placed on h1 again).
    """

    def test_no_host_takes_more_than_its_room(self):
        hosts = NovaHosts(weights={'h1': 2.0, 'h2': 1.0})
        instance_uuids = [uuids.i1, uuids.i2, uuids.i3]
        spec_obj = spec(instance_uuids)
        found = call(('h1', 'h2'), spec_obj, instance_uuids, random.Random(0),
                     nova_hosts=hosts, free_slots={'h1': 1, 'h2': 2})
        decision = found.decide(
            host_states.core_request(spec_obj, {}, instance_uuids), 0.0)
        self.assertEqual([uuids.h1, uuids.h2, uuids.h2],
                         [selection.host for selection in
                          decision.selections])
        # Nova's filters saw each instance by its index and uuid.
        self.assertEqual([(0, uuids.i1), (1, uuids.i2), (2, uuids.i3)],
                         [entry[:2] for entry in hosts.filtered])

    def test_all_or_nothing(self):
        instance_uuids = [uuids.i1, uuids.i2, uuids.i3, uuids.i4]
        spec_obj = spec(instance_uuids)
        found = call(('h1', 'h2'), spec_obj, instance_uuids, random.Random(0),
                     free_slots={'h1': 1, 'h2': 2})
        decision = found.decide(
            host_states.core_request(spec_obj, {}, instance_uuids), 0.0)
        self.assertFalse(decision.placed)
        self.assertEqual({}, found.hosts.instance_hosts.get(uuids.i1) or {})


class TestEveryCoreWeigher(test.NoDBTestCase):
    """Each of the core weighers (the ``preemptible_sched.weighers`` entry
    points) is a Nova weigher with its multiplier in ``nova.conf``, and
    weighs the views the manager shows it.
    """

    def test_one_nova_weigher_per_entry_point(self):
        names = plugins.names(plugins.WEIGHERS)
        # Whatever the entry points are (a new weigher needs no edit
        # here), the built-in ones are among them.
        self.assertLessEqual({'ram', 'cpu', 'termination_cost',
                              'target_load_packing'}, set(names))
        self.assertEqual(sorted(names), sorted(
            weigher.name for weigher in weighers.all_weighers()))
        for name in names:
            self.assertIn('%s_weight_multiplier' % name,
                          CONF.preemptible_sched)

    def setUp(self):
        super().setUp()
        self.spec_obj = spec([uuids.i1])
        found = call(('h1', 'h2'), self.spec_obj, [uuids.i1],
                     random.Random(0), free_slots={'h1': 1, 'h2': 4})
        # Both hosts' full views, as the manager shows them to Nova.
        self.hosts = [nova_weights.WeighedHost(found.show(
            found.hosts.host_states[getattr(uuids, name)].full), 0.0)
            for name in ('h1', 'h2')]

    def test_each_weighs_shown_views(self):
        for weigher_class in weighers.all_weighers():
            weigher = weigher_class()
            raw = weigher.weigh_objects(self.hosts, self.spec_obj)
            self.assertEqual(2, len(raw), weigher.name)
            self.assertTrue(all(weight == weight for weight in raw),
                            weigher.name)
            # The multiplier option's default is the plugin's.
            self.assertEqual(
                getattr(weigher_class.core, 'multiplier_default', 1.0),
                weigher.weight_multiplier(self.hosts[0].obj), weigher.name)

    def test_ram_weigher_prefers_free_ram(self):
        self.assertEqual([2048.0, 8192.0], weighers.RAMWeigher().weigh_objects(
            self.hosts, self.spec_obj))
