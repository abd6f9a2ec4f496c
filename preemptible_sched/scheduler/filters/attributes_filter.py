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

"""Keep only hosts that meet every attribute constraint of the request."""

from preemptible_sched import constraints as constraint_language
from preemptible_sched.scheduler import filters


class AttributesFilter(filters.BaseHostFilter):
    """Pass hosts matching every constraint by attribute or aggregate.

    A constraint matches when the host has the attribute ``key`` with that
    value, or when one of the host's aggregates sets metadata ``key`` to that
    value (a host in several aggregates may carry several values for one key;
    any of them matches). Values are compared as strings, so a constraint
    ``gpus=2`` matches an attribute given as the integer 2. Use it to steer
    requests to hosts with special hardware or to a group of hosts an operator
    tagged through an aggregate.

    Besides ``key=value`` a constraint may be ``key!=value``, ``key<value``
    or ``key>value`` (numbers compared as numbers), the operators of the
    Google 2011 traces; a host without the attribute has the empty value
    (see :mod:`preemptible_sched.constraints`).

    Options: none.
    """

    name = 'attributes'

    def applies_to(self, spec):
        return bool(spec.constraints)

    def filter_all(self, batch, spec):
        constraints = spec.constraints
        return batch.per_profile(
            lambda profile: _matches(profile, constraints))


def _matches(host, constraints):
    """Whether ``host`` (a host state or profile) meets every constraint:
    its attribute, or any of its aggregates' values for the key, does.
    """
    for entry, value in constraints.items():
        name, operator = constraint_language.split(entry)
        # .get(): indexing the defaultdict would add an empty key.
        have = list(host.aggregate_metadata.get(name, ()))
        if name in host.attributes:
            have.insert(0, host.attributes[name])
        if not any(constraint_language.satisfied(operator, item, value)
                   for item in have or (None,)):
            return False
    return True
