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

"""Glance and Neutron stand-ins: the few calls a boot, a deletion and a
shelve make, as WSGI applications served by gunicorn like the real APIs.

``glance`` keeps images in memory, starting with one public image
(:data:`IMAGE_ID`): Nova reads it at boot, and shelving a server creates,
updates, reads and finally deletes a snapshot image. ``neutron`` answers a
cloud whose servers boot with ``"networks": "none"``: every collection is
empty (a deletion lists the server's ports), every deletion succeeds.
Each request is logged by gunicorn's access log, so a call a stand-in does
not know shows up in its log with the 404 it got.
"""

import copy
import json
import re
import threading
import uuid

#: The one image of the cloud, booted by every test.
IMAGE_ID = '155d900f-4e14-4e4c-a73d-069cbf4541e6'
GLANCE_VERSIONS = {'versions': [{'id': 'v2.16', 'status': 'CURRENT',
                                 'links': [{'rel': 'self',
                                            'href': '/v2/'}]}]}
NEUTRON_VERSIONS = {'versions': [{'id': 'v2.0', 'status': 'CURRENT',
                                  'links': [{'rel': 'self',
                                             'href': '/v2.0/'}]}]}
#: A schema permissive enough for glanceclient's image model: known core
#: properties, anything else a string.
IMAGE_SCHEMA = {
    'name': 'image',
    'properties': {
        name: {'type': kind} for name, kind in (
            ('id', 'string'), ('name', ['null', 'string']),
            ('status', 'string'), ('visibility', 'string'),
            ('disk_format', ['null', 'string']),
            ('container_format', ['null', 'string']),
            ('min_ram', 'integer'), ('min_disk', 'integer'),
            ('size', ['null', 'integer']), ('owner', ['null', 'string']),
            ('protected', 'boolean'), ('tags', 'array'),
            ('created_at', 'string'), ('updated_at', 'string'),
            ('checksum', ['null', 'string']), ('file', 'string'),
            ('self', 'string'), ('schema', 'string'))},
    'additionalProperties': {'type': 'string'},
    'links': [{'rel': 'self', 'href': '{self}'},
              {'rel': 'enclosure', 'href': '{file}'},
              {'rel': 'describedby', 'href': '{schema}'}]}

#: The same for an image's member (a project it is shared with).
MEMBER_SCHEMA = {
    'name': 'member',
    'properties': {name: {'type': 'string'} for name in (
        'image_id', 'member_id', 'status', 'created_at', 'updated_at',
        'schema')},
    'additionalProperties': {'type': 'string'}}


def _image(image_id, **fields):
    image = {'id': image_id, 'name': 'cirros', 'status': 'active',
             'visibility': 'public', 'disk_format': 'qcow2',
             'container_format': 'bare', 'min_ram': 0, 'min_disk': 0,
             'size': 1024, 'protected': False, 'tags': [],
             'owner': None, 'checksum': None,
             'created_at': '2026-01-01T00:00:00Z',
             'updated_at': '2026-01-01T00:00:00Z',
             'self': '/v2/images/%s' % image_id,
             'file': '/v2/images/%s/file' % image_id,
             'schema': '/v2/schemas/image'}
    image.update(fields)
    return image


def _reply(start_response, status, body=None):
    payload = b'' if body is None else json.dumps(body).encode()
    start_response(status, [('Content-Type', 'application/json'),
                            ('Content-Length', str(len(payload)))])
    return [payload]


def _body(environ):
    length = int(environ.get('CONTENT_LENGTH') or 0)
    raw = environ['wsgi.input'].read(length) if length else b''
    return json.loads(raw) if raw.strip() else None


def _patch(image, operations):
    """Apply glanceclient's JSON patch (add/replace/remove of top-level
    properties) to ``image``.
    """
    for operation in operations or []:
        name = operation['path'].lstrip('/')
        if operation['op'] == 'remove':
            image.pop(name, None)
        else:
            image[name] = operation['value']


class Glance:
    """The image API v2, in memory."""

    IMAGE = re.compile(r'^/v2/images/([^/]+)(/file)?$')
    MEMBERS = re.compile(r'^/v2/images/([^/]+)/members$')

    def __init__(self):
        self.images = {IMAGE_ID: _image(IMAGE_ID)}
        self.guard = threading.Lock()

    def __call__(self, environ, start_response):
        method, path = environ['REQUEST_METHOD'], environ['PATH_INFO']
        if path in ('', '/'):
            return _reply(start_response, '300 Multiple Choices',
                          GLANCE_VERSIONS)
        if path == '/v2/schemas/image':
            return _reply(start_response, '200 OK', IMAGE_SCHEMA)
        if path == '/v2/schemas/member':
            return _reply(start_response, '200 OK', MEMBER_SCHEMA)
        if path == '/v2/images' and method == 'GET':
            with self.guard:
                return _reply(start_response, '200 OK', {'images': [
                    {name: value for name, value in image.items()
                     if name != '_members'}
                    for image in self.images.values()]})
        if path == '/v2/images' and method == 'POST':
            return self._create(environ, start_response)
        match = self.MEMBERS.match(path)
        if match:
            return self._members(environ, start_response, method,
                                 match.group(1))
        match = self.IMAGE.match(path)
        if not match:
            return _reply(start_response, '404 Not Found')
        return self._one(environ, start_response, method, *match.groups())

    def _members(self, environ, start_response, method, image_id):
        """The projects an image is shared with: Nova shares the snapshot
        of a server shelved by another project (the scheduler, as Nova's
        service user) with the server's own project.
        """
        with self.guard:
            image = self.images.get(image_id)
            if image is None:
                return _reply(start_response, '404 Not Found')
            members = image.setdefault('_members', {})
            if method == 'POST':
                member = (_body(environ) or {}).get('member')
                members[member] = {
                    'image_id': image_id, 'member_id': member,
                    'status': 'accepted',
                    'created_at': '2026-01-01T00:00:00Z',
                    'updated_at': '2026-01-01T00:00:00Z',
                    'schema': '/v2/schemas/member'}
                return _reply(start_response, '200 OK', members[member])
            if method == 'GET':
                return _reply(start_response, '200 OK',
                              {'members': list(members.values()),
                               'schema': '/v2/schemas/members'})
        return _reply(start_response, '405 Method Not Allowed')

    def _create(self, environ, start_response):
        fields = _body(environ) or {}
        image_id = fields.pop('id', None) or str(uuid.uuid4())
        image = _image(image_id, status='queued', size=None)
        image.update(fields)
        with self.guard:
            self.images[image_id] = image
        return _reply(start_response, '201 Created', image)

    def _one(self, environ, start_response, method, image_id, file):
        with self.guard:
            image = self.images.get(image_id)
            if image is None:
                return _reply(start_response, '404 Not Found')
            if method == 'DELETE' and not file:
                del self.images[image_id]
                return _reply(start_response, '204 No Content')
            if method == 'PATCH':
                _patch(image, _body(environ))
            elif method == 'PUT' and file:
                environ['wsgi.input'].read(
                    int(environ.get('CONTENT_LENGTH') or 0))
                image.update(status='active', size=0)
                return _reply(start_response, '204 No Content')
            elif method == 'GET' and file:
                start_response('200 OK', [('Content-Length', '0')])
                return [b'']
            elif method != 'GET':
                return _reply(start_response, '405 Method Not Allowed')
            return _reply(start_response, '200 OK', {
                name: value for name, value in copy.deepcopy(image).items()
                if name != '_members'})


def neutron(environ, start_response):
    """The networking API v2.0 of a cloud with no networks."""
    method, path = environ['REQUEST_METHOD'], environ['PATH_INFO']
    if path in ('', '/'):
        return _reply(start_response, '200 OK', NEUTRON_VERSIONS)
    parts = [part for part in path.split('/') if part]
    if parts[:1] != ['v2.0'] or len(parts) < 2:
        return _reply(start_response, '404 Not Found')
    if method == 'DELETE':
        return _reply(start_response, '204 No Content')
    if method == 'GET' and len(parts) == 2:
        collection = parts[1].split('.')[0].replace('-', '_')
        return _reply(start_response, '200 OK', {collection: []})
    return _reply(start_response, '404 Not Found')


glance = Glance()
