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

"""What the preemption-aware manager reads from Placement.

Placement is the truth of who uses what: a compute node's inventory gives
its capacity and its allocations give every consumer's share, servers of
every project included. All reads go through Nova's report client.
"""

from urllib import parse

#: Microversion of the reads below (``required`` with forbidden traits,
#: ``member_of`` with ``!in:``, several ``member_of``: all before 1.36,
#: the one Nova asks allocation candidates with).
VERSION = '1.36'

#: Query parameters that select providers by aggregates and tree rather
#: than by free room (traits are merged into ``required``).
_SELECTORS = ('member_of', 'in_tree')


#: Microversion of the claim that swaps victims for new servers
#: (consumer generations).
SWAP_VERSION = '1.28'


class ReadFailed(Exception):
    """Placement could not be reached or refused a read."""


class SwapRefused(Exception):
    """Placement refused the swap (the room or a victim changed)."""


class PlacementReader:
    """Reads of one scheduler manager, through ``client`` (Nova's report
    client).
    """

    def __init__(self, client):
        self.client = client

    def _get(self, context, url):
        response = self.client.get(url, version=VERSION,
                                   global_request_id=context.global_id)
        if response is None:    # Nova's report client could not connect
            raise ReadFailed('GET %s: Placement unreachable' % url)
        if not response:
            raise ReadFailed('GET %s: %s %s' % (url, response.status_code,
                                                response.text[:200]))
        return response.json()

    def providers(self, context, resources):
        """Uuids of the providers a request (Nova's ``ResourceRequest``,
        with no suffixed group) may land on, whatever their free room: its
        required and forbidden traits, root traits, aggregates and tree,
        without its resources.
        """
        required = []
        params = []
        for key, value in parse.parse_qsl(resources.to_querystring()):
            if key in ('required', 'root_required'):
                # On a compute node the root is the provider itself.
                required.append(value)
            elif key in _SELECTORS:
                params.append((key, value))
        if required:
            params.append(('required', ','.join(required)))
        url = '/resource_providers'
        if params:
            url += '?' + parse.urlencode(sorted(params))
        return {provider['uuid'] for provider
                in self._get(context, url)['resource_providers']}

    def inventories(self, context, provider):
        """``{resource class: inventory record}`` of ``provider``."""
        return self._get(context, '/resource_providers/%s/inventories'
                         % provider)['inventories']

    def allocations(self, context, provider):
        """``{consumer: {resource class: amount}}`` on ``provider``."""
        found = self._get(context, '/resource_providers/%s/allocations'
                          % provider)['allocations']
        return {consumer: dict(record['resources'])
                for consumer, record in found.items()}

    def compute_nodes(self, context):
        """Uuids of every compute node provider (trait COMPUTE_NODE)."""
        return sorted(provider['uuid'] for provider in self._get(
            context, '/resource_providers?required=COMPUTE_NODE')
            ['resource_providers'])

    def usages(self, context, provider):
        """``{resource class: amount used}`` on ``provider``."""
        return self._get(context, '/resource_providers/%s/usages'
                         % provider)['usages']

    def holds(self, context, consumer):
        """Whether ``consumer`` still holds an allocation anywhere."""
        return bool(self._get(context, '/allocations/%s'
                              % consumer)['allocations'])

    def consumer(self, context, consumer):
        """``(allocations, generation, project, user)`` of ``consumer``."""
        response = self.client.get('/allocations/%s' % consumer,
                                   version=SWAP_VERSION,
                                   global_request_id=context.global_id)
        if response is None or not response:
            raise ReadFailed('GET /allocations/%s: %s' % (
                consumer, 'Placement unreachable' if response is None
                else response.status_code))
        found = response.json()
        return (found.get('allocations') or {},
                found.get('consumer_generation'),
                found.get('project_id'), found.get('user_id'))

    def swap(self, context, claims, victims):
        """In one atomic write, claim the new servers' room and give every
        victim's room to them.

        ``claims`` maps each new server's uuid to ``(allocations, project,
        user)``, ``allocations`` as in an allocation request (``{provider:
        {'resources': {class: amount}}}``); ``victims`` maps the uuids of
        the servers whose allocations are emptied to their consumer as
        :meth:`consumer` read it (they are deleted or shelved afterwards,
        and keep running without allocations until then). Placement
        applies all of it or nothing; raises SwapRefused when it refuses
        (another consumer took the room, or a victim's allocations changed
        since they were read).
        """
        payload = {}
        for uuid, (allocations, project, user) in claims.items():
            payload[uuid] = entry(allocations, project, user, None)
        for uuid, (allocations, generation, project, user) in \
                victims.items():
            if allocations:     # else gone already: nothing of it to give
                payload[uuid] = entry({}, project, user, generation)
        self.write(context, payload)

    def write(self, context, payload):
        """``POST /allocations`` of ``payload`` (``{consumer: {allocations,
        project_id, user_id, consumer_generation}}``), all or nothing;
        raises SwapRefused when Placement refuses or cannot be reached.
        """
        response = self.client.post('/allocations', payload,
                                    version=SWAP_VERSION,
                                    global_request_id=context.global_id)
        if response is None:
            raise SwapRefused('POST /allocations: Placement unreachable')
        if not response:
            raise SwapRefused('POST /allocations: %s %s' % (
                response.status_code, response.text[:200]))


def entry(allocations, project, user, generation):
    """One consumer of a ``POST /allocations`` payload."""
    return {'allocations': {provider: {'resources': dict(
        record['resources'])} for provider, record in allocations.items()},
        'project_id': project, 'user_id': user,
        'consumer_generation': generation}
