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

"""Service classes in the scheduler service: gold displaces bronze.

The class-based preemption strategies (``qos``, ``priority``) run in the
service with four in-process agents (see :mod:`.base`): the blades are
filled with bronze instances (normal ones: these strategies ignore the
preemptible flag), a gold request displaces exactly one of them, ``show``
names the gold request as the displacer, and the bronze instance, requeued
(the strategies' default ``on_victim``), runs again once the gold request
is deleted.
"""

from preemptible_sched.service import rpcapi
from tests.functional.service import base

#: What fills one emulated blade: four medium instances.
PER_HOST = 4


class GoldDisplacesBronze:
    """The scenario; subclasses name the strategy."""

    STRATEGY = None
    #: Clock seconds every bronze instance runs before the gold request
    #: comes.
    BRONZE_RUN_S = 0.0

    def start_scheduler(self):
        # Read when the service builds its scheduler: set before it starts.
        self.flags(group='scheduler', preemption_strategy=self.STRATEGY)
        # No exempt time after a start (the QoS strategy only).
        self.flags(group='qos', preempt_exempt_seconds=0.0)
        return super().start_scheduler()

    def fill_with_bronze(self):
        ids = ['b%02d' % i for i in range(PER_HOST * len(self.HOSTS))]
        for request_id in ids:
            submitted = self.submit(request_id, flavor='medium',
                                    service_class='bronze')
            self.assertEqual('bronze', submitted['spec']['service_class'])
        self.wait_running(*ids)
        self.assertEqual(set(self.HOSTS),
                         {row.host for row in self.instances().values()})
        return ids

    def wait_clock(self, until, what):
        """Wait until the scheduler's clock reads ``until``."""
        self.wait_for(lambda: self.scheduler.clock.now() >= until, what)

    def displaced(self, ids):
        return [i for i, row in self.instances().items()
                if i in ids and (row.preemptions or row.displaced_by
                                 is not None)]

    def test_gold_displaces_one_bronze(self):
        """With the defaults (``[scheduler] on_no_valid_host = fail``): a
        requeued victim must wait for room like any displaced instance,
        not fail as a new request no host can take would.
        """
        self.gold_displaces_one_bronze()

    def test_gold_displaces_one_bronze_waiting(self):
        """With ``[scheduler] on_no_valid_host = wait``."""
        self.flags(group='scheduler', on_no_valid_host='wait')
        self.gold_displaces_one_bronze()

    def gold_displaces_one_bronze(self):
        bronze = self.fill_with_bronze()
        started = max(row.started_at for row in self.instances().values())
        self.wait_clock(started + self.BRONZE_RUN_S,
                        'every bronze instance ran %g s' % self.BRONZE_RUN_S)

        submitted = self.submit('gold', flavor='medium',
                                service_class='gold')
        self.assertEqual('gold', submitted['spec']['service_class'])
        self.wait_running('gold')
        shown = self.api.show('gold')
        self.assertEqual('placed', shown['status'])
        gold, = shown['instances']
        self.assertEqual('running', gold['state'])
        self.assertEqual('gold', gold['service_class'])
        self.assertIsNone(gold['displaced_by'])

        # Exactly one bronze instance was displaced, from the gold host.
        rows = self.instances()
        decision = self.store.get_decision(rows['gold'].decision_id)
        self.assertEqual(self.STRATEGY, decision.strategy)
        self.assertEqual(1, len(decision.victims), decision.victims)
        victim_id, = decision.victims
        self.assertEqual([victim_id], self.displaced(bronze))
        victim = rows[victim_id]
        self.assertIn(victim.state,
                      ('preempted', 'pending', 'building', 'running'),
                      'victim %s: %s' % (victim_id, victim.reason))
        self.assertEqual(1, victim.preemptions)
        self.assertEqual(decision.id, victim.displaced_by)
        self.assertEqual(
            {i: 'running' for i in bronze if i != victim_id},
            {i: rows[i].state for i in bronze if i != victim_id})
        self.assertEqual(0, sum(rows[i].preemptions for i in bronze
                                if i != victim_id))

        # show names the gold request as the displacer.
        shown = self.api.show(victim_id)
        instance, = shown['instances']
        self.assertEqual('bronze', instance['service_class'])
        self.assertEqual(1, instance['preemptions'])
        self.assertGreater(instance['running_s'], 0)
        by = instance['displaced_by']
        self.assertIsNotNone(by, shown)
        self.assertEqual('gold', by['request_id'])
        self.assertEqual('gold', by['instance_id'])
        self.assertEqual(decision.id, by['decision_id'])
        self.assertEqual(rows['gold'].host, by['host'])
        self.assertEqual(self.STRATEGY, by['strategy'])
        self.assertIsNotNone(by['cost'])
        self.assertIn(self.STRATEGY, by['reason'] or '')
        self.wait_for(lambda: [
            n for n in self.notifications.of_type('instance.preempted')
            if n['payload']['instance_id'] == victim_id],
            'instance.preempted notified for %s' % victim_id)

        # Without the gold request, the bronze instance runs again.
        self.assertEqual('deleted', self.api.delete('gold')['status'])
        self.wait_running(victim_id)
        self.wait_for(lambda: self.instances()['gold'].state == 'deleted',
                      'the gold instance deleted')
        rows = self.instances()
        self.assertEqual(1, rows[victim_id].preemptions)
        self.assertEqual({i: 'running' for i in bronze},
                         {i: rows[i].state for i in bronze})
        self.assertEqual([victim_id], self.displaced(bronze))
        shown = self.api.show(victim_id)
        self.assertEqual('placed', shown['status'])
        instance, = shown['instances']
        self.assertEqual('running', instance['state'])
        self.assertEqual(1, instance['preemptions'])
        # The displacement stays on record.
        self.assertEqual('gold', instance['displaced_by']['request_id'])
        self.assertStoreAgreesWithAgents()


class TestQoS(GoldDisplacesBronze, base.ServiceTestCase):

    STRATEGY = 'qos'
    # A bronze instance may be displaced only once it has run longer than
    # its allocation overhead (its overhead ratio must stay below 1 - slo
    # = 0.5), and the displaced one must keep enough slack while it waits
    # not to be at risk itself (an at-risk bronze request may displace a
    # safe bronze instance): its time to violation when displaced is about
    # its run time less twice its start-up delay, and it then loses a
    # second per second for as long as the gold request holds its slot.
    BRONZE_RUN_S = 60.0

    def test_unknown_service_class_is_refused(self):
        error = self.assertRaises(rpcapi.BadRequest, self.submit, 'x',
                                  flavor='medium', service_class='platinum')
        message = str(error)
        self.assertIn("'platinum'", message)
        self.assertIn('service_class', message)
        self.assertIn('bronze, gold, silver', message)
        self.assertRaises(rpcapi.RequestNotFound, self.api.show, 'x')
        self.assertEqual([], self.api.list())


class TestPriority(GoldDisplacesBronze, base.ServiceTestCase):

    STRATEGY = 'priority'
