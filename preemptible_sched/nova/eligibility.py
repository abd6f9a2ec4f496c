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

"""Which requests may displace servers (:func:`may_displace`).

A preemptible request never displaces anything (under the preemptible
strategies), and neither does anything but a new boot (rebuilds, moves and
unshelves are of servers that already live in a cell), nor a request for a
named or forced host.
"""

from nova import exception
from nova import objects as nova_objects
from nova.scheduler import utils as scheduler_utils
from oslo_log import log as logging

from preemptible_sched.nova import config
from preemptible_sched.nova import extra_specs

CONF = config.CONF

#: The manager's logger: the scheduler logs its decisions under
#: ``preemptible_sched.nova.manager`` (doc/source/nova.rst, "Logs").
LOG = logging.getLogger('preemptible_sched.nova.manager')


def may_displace(manager, context, spec_obj, instance_uuids):
    """Whether victims may be chosen for this request: a new boot of
    a server that may displace under the strategy, asking for no host
    by name.
    """
    if not CONF.preemptible_sched.preempt or not instance_uuids:
        return False
    if manager.strategy.spot and extra_specs.is_preemptible(spec_obj.flavor):
        LOG.debug('Preemptible request %s: nothing is displaced for it.',
                  instance_uuids)
        return False
    if scheduler_utils.request_is_rebuild(spec_obj):
        return False
    if _names_a_host(spec_obj):
        return False
    return _new_servers(context, instance_uuids)


def _new_servers(context, instance_uuids):
    """Whether every instance is a new boot: its mapping names no cell
    yet (the conductor creates the server in a cell only after the
    scheduler has chosen). A move, an unshelve or a rebuild is of a
    server that already lives in a cell.
    """
    for uuid in instance_uuids:
        try:
            mapping = nova_objects.InstanceMapping.get_by_instance_uuid(
                context, uuid)
        except exception.InstanceMappingNotFound:
            return False
        if mapping.cell_mapping is not None:
            LOG.debug('Instance %s already lives in a cell: not a new '
                      'boot, nothing is displaced for it.', uuid)
            return False
    return True


def _names_a_host(spec_obj):
    """Whether the request asks for hosts or nodes by name (a requested
    destination, or forced hosts or nodes).
    """
    for field in ('force_hosts', 'force_nodes'):
        if spec_obj.obj_attr_is_set(field) and getattr(spec_obj, field):
            return True
    if not spec_obj.obj_attr_is_set('requested_destination'):
        return False
    destination = spec_obj.requested_destination
    if destination is None:
        return False
    return any(destination.obj_attr_is_set(field) and
               getattr(destination, field)
               for field in ('host', 'node'))
