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

"""What a decision that displaces servers tells before they go.

Before anything is touched the manager logs and announces the decision
(:func:`announce`: the notification ``preemptible_sched.preempt``); once
its room is claimed, each victim's owner gets a termination notice (the
notification ``instance.termination_notice``, and with a grace period the
server metadata ``preemptible_sched:terminate_at``), then the victims are
acted on (:func:`notice_and_act`), at once or when the grace period ends.
"""

import datetime

from oslo_log import log as logging
from oslo_utils import timeutils

from preemptible_sched.nova import host_states

#: The manager's logger: the scheduler logs its decisions under
#: ``preemptible_sched.nova.manager`` (doc/source/nova.rst, "Logs").
LOG = logging.getLogger('preemptible_sched.nova.manager')

#: Notification of a decision, sent before anything is deleted.
DECISION_EVENT = 'preemptible_sched.preempt'
#: Notification each victim's owner gets before the deletion.
NOTICE_EVENT = 'instance.termination_notice'
#: Server metadata key set to the deletion time when there is a grace.
TERMINATE_AT_KEY = 'preemptible_sched:terminate_at'


def announce(manager, context, instance_uuids, work):
    """Log and notify the decision before anything is touched."""
    placements = []
    for selection in work.decision.selections:
        plan = selection.plan
        host = work.call.nova_host(selection)
        LOG.info('Instance %(uuid)s of request %(request)s goes to '
                 '%(host)s (%(node)s); servers displaced for it: '
                 '%(victims)s (termination cost %(cost).6g)',
                 {'uuid': selection.instance.id,
                  'request': instance_uuids,
                  'host': host.host, 'node': host.nodename,
                  'victims': plan.victim_ids or 'none',
                  'cost': plan.cost})
        placements.append({'instance_uuid': selection.instance.id,
                           'host': host.host,
                           'nodename': host.nodename,
                           'terminate': plan.victim_ids,
                           'termination_cost': plan.cost})
    manager._notify(context, DECISION_EVENT,
                    {'instance_uuids': list(instance_uuids),
                     'placements': placements})


def notice_and_act(manager, context, decision, work):
    """Termination notices, then the victims: at once without a grace
    period, else by the periodic task once it has ended. Never waits.
    """
    grace = decision.terminate_at - decision.created_at
    terminate_at = (timeutils.utcnow() +
                    datetime.timedelta(seconds=grace))
    for victim in decision.victims:
        server = work.servers.get(victim.id)
        manager._notify(context, NOTICE_EVENT, {
            'instance_id': victim.id,
            'project_id': getattr(server, 'project_id', None),
            'host': victim.host,
            'grace_seconds': grace,
            'terminate_at': terminate_at.isoformat()})
        if grace > 0:
            _set_notice(manager, context, victim.id, terminate_at)
    manager.terminator.act(decision, host_states.now())


def _set_notice(manager, context, uuid, terminate_at):
    try:
        server = manager.compute_api.get(context, uuid)
        manager.compute_api.update_instance_metadata(
            context, server, {TERMINATE_AT_KEY: terminate_at.isoformat()})
    except Exception as error:   # the notice must not stop the deletion
        LOG.warning('Could not set the termination notice on server '
                    '%s: %s', uuid, error)
