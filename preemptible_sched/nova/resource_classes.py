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

"""The custom resource classes that give Placement the normal view.

In the one-pass mode (``[preemptible_sched] mode = one_pass``) preemptible
servers do not consume a compute node's standard classes: their flavors ask
for ``CUSTOM_PREEMPTIBLE_VCPU``, ``CUSTOM_PREEMPTIBLE_MEMORY_MB`` and
``CUSTOM_PREEMPTIBLE_DISK_GB`` instead (``resources:VCPU=0`` and
``resources:CUSTOM_PREEMPTIBLE_VCPU=N`` in their extra specs, and so on),
and every compute node offers those classes beside its own (a provider
configuration file, ``[compute] provider_config_location``). Placement's
free standard resources are then exactly the normal view: a normal request
gets allocation candidates wherever it fits once the preemptible servers
are gone, in Nova's one pass, and the manager picks the victims on the
chosen host. The full view (every server) of a node is the sum of both
classes, read from the provider summaries of the same allocation
candidates response.

Nova-free, so that the command line and the docs can use it anywhere.
"""

import math

#: The flavor extra spec that makes a flavor preemptible (declared here,
#: Nova-free, for the command line; :mod:`.extra_specs` validates it).
PREEMPTIBLE_SPEC = 'preemptible_sched:preemptible'

VCPU = 'VCPU'
MEMORY_MB = 'MEMORY_MB'
DISK_GB = 'DISK_GB'
STANDARD = (VCPU, MEMORY_MB, DISK_GB)
#: The custom class standing for each standard class.
CUSTOM = {VCPU: 'CUSTOM_PREEMPTIBLE_VCPU',
          MEMORY_MB: 'CUSTOM_PREEMPTIBLE_MEMORY_MB',
          DISK_GB: 'CUSTOM_PREEMPTIBLE_DISK_GB'}
#: The standard class each custom class stands for.
STANDARD_OF = {custom: standard for standard, custom in CUSTOM.items()}


def standard_amounts(amounts):
    """``{standard class: amount}`` of ``{class: amount}``, each custom
    class counted as its standard one (other classes left out).
    """
    found = dict.fromkeys(STANDARD, 0)
    for resource_class, amount in amounts.items():
        standard = STANDARD_OF.get(resource_class, resource_class)
        if standard in found:
            found[standard] += amount
    return found


def uses_custom(amounts):
    """Whether ``{class: amount}`` asks for any preemptible class."""
    return any(amounts.get(custom) for custom in CUSTOM.values())


def flavor_extra_specs(vcpus, memory_mb, disk_gb):
    """The extra specs that move a flavor to the preemptible classes.

    ``disk_gb`` is what Nova would ask Placement for: root and ephemeral
    disk plus swap, in whole GiB. The flavor still needs
    ``preemptible_sched:preemptible=true``.
    """
    for name, value in (('vcpus', vcpus), ('memory_mb', memory_mb),
                        ('disk_gb', disk_gb)):
        if value < 0 or value != int(value):
            raise ValueError('%s must be a whole number >= 0, not %r'
                             % (name, value))
    specs = {}
    for standard, amount in ((VCPU, vcpus), (MEMORY_MB, memory_mb),
                             (DISK_GB, disk_gb)):
        specs['resources:%s' % standard] = '0'
        if amount:
            specs['resources:%s' % CUSTOM[standard]] = str(int(amount))
    return specs


def flavor_disk_gb(root_gb, ephemeral_gb, swap_mb):
    """What Nova asks Placement for as ``DISK_GB`` for such a flavor."""
    return int(root_gb) + int(ephemeral_gb) + int(math.ceil(swap_mb / 1024))


def provider_config(vcpus, memory_mb, disk_gb, reserved=None, ratios=None):
    """A Nova provider configuration (schema 1.0) offering the preemptible
    classes on the compute node of the host that reads it.

    ``vcpus``, ``memory_mb`` and ``disk_gb`` are the node's totals as its
    virt driver reports them; ``reserved`` and ``ratios`` map standard
    classes to Nova's ``reserved_host_*`` and ``*_allocation_ratio``. The
    custom inventories get the same total, reservation and ratio, so
    Placement alone refuses more preemptible servers than the node can
    hold; the manager checks the two classes together.
    """
    reserved = reserved or {}
    ratios = ratios or {}
    totals = {VCPU: vcpus, MEMORY_MB: memory_mb, DISK_GB: disk_gb}
    inventories = []
    for standard in STANDARD:
        total = totals[standard]
        kept = reserved.get(standard, 0)
        ratio = ratios.get(standard, 1.0)
        for name, value in (('total', total), ('reserved', kept)):
            if value < 0 or value != int(value):
                raise ValueError('%s %s must be a whole number >= 0, not %r'
                                 % (standard, name, value))
        if not ratio > 0 or not math.isfinite(ratio):
            raise ValueError('%s allocation ratio must be a finite number '
                             '> 0, not %r' % (standard, ratio))
        if not total:
            continue
        inventories.append({CUSTOM[standard]: {
            'total': int(total), 'reserved': int(kept), 'min_unit': 1,
            'max_unit': int(total), 'step_size': 1,
            'allocation_ratio': float(ratio)}})
    return {'meta': {'schema_version': '1.0'},
            'providers': [{'identification': {'uuid': '$COMPUTE_NODE'},
                           'inventories': {'additional': inventories}}]}


def views(summary):
    """``(capacity, normal used, full used)`` of a provider summary.

    ``summary`` is one entry of ``provider_summaries`` in an allocation
    candidates response, ``{'resources': {class: {'capacity', 'used'}}}``.
    Each is ``{standard class: amount}``; capacity is the standard class's
    (``(total - reserved) * allocation_ratio``).
    """
    resources = summary.get('resources', {})
    capacity = dict.fromkeys(STANDARD, 0)
    normal = dict.fromkeys(STANDARD, 0)
    full = dict.fromkeys(STANDARD, 0)
    for resource_class, record in resources.items():
        used = record.get('used', 0)
        if resource_class in capacity:
            capacity[resource_class] = record.get('capacity', 0)
            normal[resource_class] += used
            full[resource_class] += used
        elif resource_class in STANDARD_OF:
            full[STANDARD_OF[resource_class]] += used
    return capacity, normal, full
