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

"""Keystone's place in the paste pipeline of a cloud with no Keystone.

Nova 34 has no ``noauth2`` any more, so the compute API of the test cloud
runs this filter where ``keystonemiddleware.auth_token`` would be: it
trusts the token ``user:project`` (``X-Auth-Token``) and sets the identity
headers auth_token would set after validating a real token, which Nova's
``NovaKeystoneContext`` then turns into a request context. The user
``admin`` gets the roles ``admin,member,reader`` (Keystone's implied roles
expanded, as auth_token reports them); anyone else ``member,reader``.
Never use it outside a test cloud: it believes whoever asks.
"""

import webob
import webob.dec
import webob.exc

ADMIN_ROLES = 'admin,member,reader'
MEMBER_ROLES = 'member,reader'
DOMAIN = 'default'

#: What auth_token would set, and what a client must not set itself.
IDENTITY_HEADERS = (
    'X-Identity-Status', 'X-User-Id', 'X-User-Name', 'X-User-Domain-Id',
    'X-User-Domain-Name', 'X-Project-Id', 'X-Project-Name',
    'X-Project-Domain-Id', 'X-Project-Domain-Name', 'X-Roles',
    'X-Service-Catalog', 'X-Tenant-Id', 'X-Tenant-Name')


def identity(token):
    """The identity headers for ``token`` (``user`` or ``user:project``),
    or None when there is no token.
    """
    if not token:
        return None
    user, _sep, project = token.partition(':')
    project = project or user
    return {'X-Identity-Status': 'Confirmed',
            'X-User-Id': user, 'X-User-Name': user,
            'X-User-Domain-Id': DOMAIN, 'X-User-Domain-Name': DOMAIN,
            'X-Project-Id': project, 'X-Project-Name': project,
            'X-Project-Domain-Id': DOMAIN,
            'X-Project-Domain-Name': DOMAIN,
            'X-Roles': ADMIN_ROLES if user == 'admin' else MEMBER_ROLES}


class TokenIdentity:
    """The paste filter: 401 without a token, as auth_token answers."""

    def __init__(self, application):
        self.application = application

    @classmethod
    def factory(cls, global_config, **local_config):
        return cls

    @webob.dec.wsgify
    def __call__(self, request):
        for name in IDENTITY_HEADERS:
            request.headers.pop(name, None)
        headers = identity(request.headers.get('X-Auth-Token'))
        if headers is None:
            return webob.exc.HTTPUnauthorized()
        request.headers.update(headers)
        return self.application
