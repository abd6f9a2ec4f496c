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

"""Plain HTTP clients of the compute and Placement APIs of the test cloud.

What an operator's ``openstack`` command would send, with ``requests``:
the token ``admin:admin`` (see :mod:`.identity`) and a microversion per
call. Every call opens its own connection, so clients are safe to use
from several threads and never reuse a connection the server closed.
"""

import requests

TOKEN = 'admin:admin'
#: Long enough for a loaded two-core machine, finite all the same.
TIMEOUT = 120


class ApiError(Exception):

    def __init__(self, response):
        self.status = response.status_code
        self.body = response.text
        super().__init__('%s %s: %s %s' % (
            response.request.method, response.request.url,
            response.status_code, response.text[:2000]))


class Client:
    """One service: ``url`` is its endpoint, ``service`` the name in the
    ``OpenStack-API-Version`` header.
    """

    SERVICE = None
    VERSION = None

    def __init__(self, url, token=TOKEN):
        self.url = url.rstrip('/')
        self.token = token

    def request(self, method, path, version=None, **kwargs):
        """The decoded JSON body (None when empty); raises
        :class:`ApiError` on an HTTP error.
        """
        headers = {'X-Auth-Token': self.token,
                   'OpenStack-API-Version': '%s %s' % (
                       self.SERVICE, version or self.VERSION),
                   'Accept': 'application/json'}
        response = requests.request(method, self.url + path,
                                    headers=headers, timeout=TIMEOUT,
                                    **kwargs)
        if response.status_code >= 400:
            raise ApiError(response)
        return response.json() if response.content else None

    def get(self, path, **kwargs):
        return self.request('GET', path, **kwargs)

    def post(self, path, body, **kwargs):
        return self.request('POST', path, json=body, **kwargs)

    def put(self, path, body, **kwargs):
        return self.request('PUT', path, json=body, **kwargs)

    def delete(self, path, **kwargs):
        return self.request('DELETE', path, **kwargs)


class Compute(Client):
    """The compute API. 2.87 by default: the last microversion whose
    ``os-hypervisors`` still reports usage, and past 2.37 (``"networks":
    "none"``) and 2.21 (actions of deleted servers).
    """

    SERVICE = 'compute'
    VERSION = '2.87'

    def servers(self, **query):
        """Every server of every project, in detail."""
        query.setdefault('all_tenants', '1')
        return self.get('/servers/detail', params=query)['servers']

    def server(self, server_id):
        return self.get('/servers/%s' % server_id)['server']

    def boot(self, name, flavor, image, count=1, **extra):
        """Ask for ``count`` servers; the reservation id, or the server's
        id for one.
        """
        body = {'name': name, 'flavorRef': flavor, 'imageRef': image,
                'networks': 'none'}
        if count != 1:
            body.update(min_count=count, max_count=count,
                        return_reservation_id=True)
        body.update(extra)
        reply = self.post('/servers', {'server': body})
        if count != 1:
            return reply['reservation_id']
        return reply['server']['id']

    def delete_server(self, server_id):
        try:
            self.delete('/servers/%s' % server_id)
        except ApiError as error:
            if error.status != 404:
                raise

    def actions(self, server_id):
        """The instance actions of a server, deleted or not."""
        return self.get('/servers/%s/os-instance-actions' % server_id,
                        version='2.21')['instanceActions']

    def hypervisors(self):
        return self.get('/os-hypervisors/detail')['hypervisors']

    def create_flavor(self, name, vcpus, ram, disk, extra_specs=None):
        flavor = self.post('/flavors', {'flavor': {
            'name': name, 'vcpus': vcpus, 'ram': ram, 'disk': disk}})[
                'flavor']
        if extra_specs:
            # 2.86: the extra specs are validated, ours by the package's
            # validator the API loaded.
            self.post('/flavors/%s/os-extra_specs' % flavor['id'],
                      {'extra_specs': extra_specs}, version='2.86')
        return flavor['id']


class Placement(Client):

    SERVICE = 'placement'
    VERSION = '1.39'

    def providers(self):
        return self.get('/resource_providers')['resource_providers']

    def inventories(self, provider):
        return self.get('/resource_providers/%s/inventories'
                        % provider)['inventories']

    def usages(self, provider):
        return self.get('/resource_providers/%s/usages' % provider)['usages']

    def allocations(self, consumer):
        return self.get('/allocations/%s' % consumer)['allocations']
