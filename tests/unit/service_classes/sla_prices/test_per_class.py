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

from preemptible_sched import objects
from preemptible_sched.service_classes import sla
from preemptible_sched.service_classes import sla_prices as prices
from preemptible_sched.service_classes.sla_prices import per_class
from tests import base


def invoice(reputation, core_seconds):
    return sla.Invoice('r', 'u', objects.SLALevels(reputation=reputation),
                       sla.CATEGORY[reputation], 0.0, 4.0, ('h',),
                       core_seconds)


class TestPerClassPrice(base.TestCase):

    def test_rate_of_the_reputation_class(self):
        price = per_class.PerClassPrice()
        self.assertEqual(3.0, price.price(invoice('premium', 3600.0)))
        self.assertEqual(2.0, price.price(invoice('advanced', 3600.0)))
        self.assertEqual(0.5, price.price(invoice('best_effort', 1800.0)))

    def test_configured_rate(self):
        self.flags(group='sla', premium_core_hour_rate=10.0)
        self.assertEqual(5.0, per_class.PerClassPrice().price(
            invoice('premium', 1800.0)))

    def test_registered(self):
        self.assertIsInstance(prices.load('per_class'),
                              per_class.PerClassPrice)
