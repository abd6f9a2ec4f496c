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

"""Versioned notifications of the scheduler, through oslo.messaging.

The scheduler loop reports what happens with ``notifier.info(event_type,
payload)``; :class:`Notifier` publishes it with oslo.messaging's notifier
(``[oslo_messaging_notifications] driver``, ``topics``, ``transport_url``),
publisher ``preemptible-scheduler:<hostname>``. Every payload carries
``version``, the version of the payload schema: a consumer checks the major
number; minor versions only add fields.

===============================  ========  ================================
event type                       priority  payload fields (besides version)
===============================  ========  ================================
``request.submitted``            INFO      request_id
``instance.placement``           INFO      request_id, instance_id, host,
                                           terminate (victim ids),
                                           decision_id
``instance.termination_notice``  INFO      instance_id, host, decision_id,
                                           terminate_at (scheduler clock)
``instance.terminated``          INFO      instance_id, host, decision_id
``instance.started``             INFO      request_id, instance_id, host
``instance.preempted``           INFO      request_id, instance_id, host
                                           (displaced and queued again,
                                           ``on_preempt = requeue``)
``instance.failed``              ERROR     request_id, instance_id, host,
                                           reason
``request.failed``               ERROR     request_id, reason
``host.down`` / ``host.up``      WARN/INFO host
===============================  ========  ================================

An event type not in the table is published at INFO with the same
envelope, so a new event of the loop is never lost on its way out.
"""

import socket

import oslo_messaging

#: Version of the payload schema (major.minor).
PAYLOAD_VERSION = '1.0'

#: Priority of each event type; the others go out at INFO.
PRIORITIES = {
    'instance.failed': 'error',
    'request.failed': 'error',
    'host.down': 'warn',
}

PUBLISHER = 'preemptible-scheduler'


def publisher_id(binary=PUBLISHER):
    """``<binary>:<hostname>``, as OpenStack services name themselves."""
    return '%s:%s' % (binary, socket.gethostname())


def versioned(payload):
    """``payload`` with the schema version added."""
    body = dict(payload)
    body['version'] = PAYLOAD_VERSION
    return body


class Notifier:
    """What the scheduler loop calls: ``info(event_type, payload)``.

    ``transport`` is a notification transport
    (:func:`preemptible_sched.service.get_notification_transport`);
    ``driver`` and ``topics`` override oslo.messaging's options. Failures
    to publish are logged by oslo.messaging, never raised into the loop.
    """

    def __init__(self, transport, publisher=None, driver=None, topics=None):
        self._notifier = oslo_messaging.Notifier(
            transport, publisher_id=publisher or publisher_id(),
            driver=driver, topics=topics)

    def info(self, event_type, payload):
        """Publish ``payload`` as ``event_type`` at its priority."""
        send = getattr(self._notifier, PRIORITIES.get(event_type, 'info'))
        send({}, event_type, versioned(payload))
