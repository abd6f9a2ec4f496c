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

"""A rate per core-hour for each SLA class."""

from preemptible_sched.conf import CONF
from preemptible_sched.service_classes import sla_prices as prices


class PerClassPrice(prices.BasePrice):
    """Charge the core-hours of every copy at the rate of the class.

    A request's class is the level of its reputation service, the hosts
    it is entitled to; premium costs more per core-hour than best effort
    by default. Use it when the hosts of a category cost the same per
    core whatever else the request asks for.

    Options: ``[sla] premium_core_hour_rate``, ``advanced_core_hour_rate``,
    ``best_effort_core_hour_rate``.
    """

    name = 'per_class'

    def price(self, invoice):
        rate = CONF.sla['%s_core_hour_rate' % invoice.sla_class]
        return rate * invoice.core_seconds / 3600.0
