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

"""Flavor extra specs that mark preemptible flavors and service classes.

``preemptible_sched:preemptible=true`` makes every server of the flavor
preemptible: the manager may delete it to make room for a normal server,
and it never displaces anything itself. ``preemptible_sched:service_class``
names one of ``[preemptible_sched] service_classes``. :func:`register` is
the ``nova.api.extra_spec_validators`` entry point: the compute API rejects
a flavor that sets either key to a bad value.
"""

from nova.api.validation.extra_specs import base
from oslo_utils import strutils

from preemptible_sched.conf import nova as nova_opts
from preemptible_sched.nova import config
from preemptible_sched.nova import resource_classes

CONF = config.CONF
PREEMPTIBLE = resource_classes.PREEMPTIBLE_SPEC
SERVICE_CLASS = 'preemptible_sched:service_class'


def is_preemptible(flavor):
    """Whether servers of ``flavor`` (a Nova Flavor) are preemptible.

    A value the validator would refuse (only possible on a flavor created
    before the validator was installed) counts as not preemptible: such a
    server is never deleted to make room.
    """
    value = (flavor.extra_specs or {}).get(PREEMPTIBLE, 'false')
    return strutils.bool_from_string(value, strict=False, default=False)


def service_class(flavor):
    """The service class ``flavor`` names, or None."""
    return (flavor.extra_specs or {}).get(SERVICE_CLASS) or None


def register():
    # The names only: a bad priority must not stop the API from loading
    # (the scheduler reports it).
    classes = sorted(CONF[nova_opts.nova_group.name].service_classes)
    return [
        base.ExtraSpecValidator(
            name=PREEMPTIBLE,
            description=(
                'Whether servers of this flavor are preemptible: the '
                'preemptible_sched scheduler manager may delete them to '
                'make room for servers of normal flavors.'),
            value={
                'type': bool,
                'description': 'Whether the flavor is preemptible.',
            },
        ),
        base.ExtraSpecValidator(
            name=SERVICE_CLASS,
            description=(
                'The service class of servers of this flavor; one of '
                '[preemptible_sched] service_classes in nova.conf.'),
            value={
                'type': str,
                'description': 'A service class name.',
                'enum': classes,
            },
        ),
    ]
