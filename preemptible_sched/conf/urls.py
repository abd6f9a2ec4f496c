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

"""What is wrong with a URL of the configuration.

``[database] connection`` is an SQLAlchemy URL, ``transport_url`` an
oslo.messaging transport URL: each is checked (syntax, driver installed,
port, host name) by the start-up checks (:mod:`.checks`), the Nova
journal's configuration and ``preemptible-sched client``. The answer is one
line that never repeats the URL (it may hold a password).
"""

import os
import re

from oslo_config import cfg

from preemptible_sched.conf import parsing
from preemptible_sched.conf import plugins

#: A host name or address in a URL (IPv6 without its brackets).
_HOST = re.compile(r'^[A-Za-z0-9._%:-]+$')


def database_url_problem(text):
    """What is wrong with the SQLAlchemy URL ``text``, or None.

    The URL is never repeated in the answer (it may hold a password).
    """
    from sqlalchemy.engine import url as sa_url
    from sqlalchemy import exc as sa_exc
    try:
        url = sa_url.make_url(text)
    except (sa_exc.ArgumentError, ValueError, TypeError) as error:
        return 'not a valid SQLAlchemy URL (%s)' % parsing.mask_passwords(
            str(error).replace(text, '...'))
    if url.port is not None and not 0 < url.port < 65536:
        return 'port %d out of range 1-65535' % url.port
    try:
        dialect = url.get_dialect()
    except (sa_exc.NoSuchModuleError, ImportError, ValueError):
        return ('unknown database driver %r (examples: mysql+pymysql, '
                'postgresql+psycopg2, sqlite)' % url.drivername)
    import_dbapi = getattr(dialect, 'import_dbapi', None) or getattr(
        dialect, 'dbapi', None)
    try:
        if import_dbapi is not None:
            import_dbapi()
    except ImportError as error:
        return 'the Python driver of %r is not installed (%s)' % (
            url.drivername, error)
    if url.get_backend_name() == 'sqlite':
        name = url.database
        if name and name != ':memory:' and not name.startswith('file:'):
            path = os.path.abspath(os.path.expanduser(name))
            if os.path.isdir(path):
                return '%s is a directory, not a database file' % path
            if not os.path.isdir(os.path.dirname(path)):
                return 'no directory %s for the SQLite file' % (
                    os.path.dirname(path))
    elif url.host and not _HOST.match(url.host):
        return 'invalid host name %r' % url.host
    return None


def transport_url_problem(conf, text):
    """What is wrong with the oslo.messaging transport URL ``text``, or
    None; the URL is never repeated (it may hold a password).
    """
    import oslo_messaging
    try:
        # A configuration object of its own: parse() registers options.
        url = oslo_messaging.TransportURL.parse(cfg.ConfigOpts(), text)
    except (oslo_messaging.InvalidTransportURL, ValueError,
            TypeError) as error:
        return 'not a valid transport URL (%s)' % parsing.mask_passwords(
            str(error).replace(text, '...'))
    drivers = plugins.names('oslo.messaging.drivers')
    if drivers and url.transport not in drivers:
        return 'unknown transport driver %r (valid: %s)' % (
            url.transport, ', '.join(sorted(drivers)))
    for host in url.hosts:
        if host.port is not None and not 0 < host.port < 65536:
            return 'port %d out of range 1-65535' % host.port
        if host.hostname and not _HOST.match(host.hostname):
            return 'invalid host name %r' % host.hostname
    return None
