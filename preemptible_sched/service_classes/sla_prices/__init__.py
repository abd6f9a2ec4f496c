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

"""Price functions of SLA invoices.

A price function subclasses :class:`BasePrice` and overrides
:meth:`BasePrice.price`, which turns one
:class:`~preemptible_sched.service_classes.sla.Invoice` into an amount. They
are registered in the ``preemptible_sched.sla_prices`` namespace and chosen
with ``[sla] price``.
"""

from preemptible_sched import loadables


class BasePrice:
    """Base of every price function."""

    #: Its entry-point name: each class declares it (``name = 'per_class'``).
    #: A third-party class that declares none still loads; the loader sets
    #: the name on the object (:func:`preemptible_sched.loadables.named`).
    name = None

    def price(self, invoice):
        """The amount ``invoice`` is billed (a number >= 0)."""
        raise NotImplementedError()


def load(name):
    """The price function called ``name`` (UnknownPlugin if none)."""
    return loadables.load_plugins('preemptible_sched.sla_prices', [name],
                                  'sla', 'price')[0]
