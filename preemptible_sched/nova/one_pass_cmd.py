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

"""``preemptible-nova-one-pass``: set a Nova cloud up for the one-pass mode.

Two subcommands, neither of which needs Nova installed:

``provider-config``
    writes the provider configuration file a compute host reads from
    ``[compute] provider_config_location``: its compute node offers the
    ``CUSTOM_PREEMPTIBLE_*`` classes with the totals, reservations and
    allocation ratios given (its own);
``flavor-properties``
    prints the ``--property`` arguments of ``openstack flavor set`` that
    make a flavor of the given size preemptible on those classes.

Bad input: one line on stderr naming the option, exit status 2, nothing
written.
"""

import argparse
import math
import os
import sys
import tempfile

import yaml

from preemptible_sched.nova import resource_classes

EXIT_OK, EXIT_BAD_INPUT = 0, 2
PROG = 'preemptible-nova-one-pass'


def _parser():
    parser = argparse.ArgumentParser(
        prog=PROG,
        description='Set a Nova cloud up for [preemptible_sched] mode = '
                    'one_pass.')
    commands = parser.add_subparsers(dest='command', metavar='COMMAND',
                                     required=True)
    config = commands.add_parser(
        'provider-config',
        help='write the provider config of one compute host',
        description='Write the Nova provider configuration (schema 1.0) '
                    'that makes the compute node of this host offer the '
                    'CUSTOM_PREEMPTIBLE_* classes; put it in [compute] '
                    'provider_config_location and restart nova-compute.')
    for name, meaning in (('vcpus', 'vCPUs'), ('memory-mb', 'RAM, MB'),
                          ('disk-gb', 'disk, GB')):
        config.add_argument('--%s' % name, required=True, type=float,
                            help="the node's total %s, as its virt driver "
                                 "reports it" % meaning)
        config.add_argument('--reserved-%s' % name, type=float, default=0,
                            help='reserved %s ([DEFAULT] reserved_host_*; '
                                 'default 0)' % meaning)
    for name in ('cpu', 'ram', 'disk'):
        config.add_argument('--%s-allocation-ratio' % name, type=float,
                            default=1.0,
                            help='the node\'s %s allocation ratio (default '
                                 '1.0)' % name)
    config.add_argument('--output', metavar='FILE',
                        help='write here (atomically) instead of stdout')
    flavor = commands.add_parser(
        'flavor-properties',
        help='print the flavor properties of a preemptible flavor',
        description='Print the --property arguments of "openstack flavor '
                    'set" for a preemptible flavor of this size.')
    flavor.add_argument('--vcpus', required=True, type=float)
    flavor.add_argument('--ram', required=True, type=float,
                        help='RAM, MB')
    flavor.add_argument('--disk', required=True, type=float,
                        help='root disk, GB')
    flavor.add_argument('--ephemeral', type=float, default=0,
                        help='ephemeral disk, GB (default 0)')
    flavor.add_argument('--swap', type=float, default=0,
                        help='swap, MB (default 0)')
    return parser


def _whole(args, names):
    for name in names:
        value = getattr(args, name.replace('-', '_'))
        if not math.isfinite(value) or value < 0 or value != int(value):
            raise ValueError('--%s: a whole number >= 0, not %s'
                             % (name, value))


def _provider_config(args):
    _whole(args, ('vcpus', 'memory-mb', 'disk-gb', 'reserved-vcpus',
                  'reserved-memory-mb', 'reserved-disk-gb'))
    for name in ('cpu', 'ram', 'disk'):
        ratio = getattr(args, '%s_allocation_ratio' % name)
        if not math.isfinite(ratio) or ratio <= 0:
            raise ValueError('--%s-allocation-ratio: a finite number > 0, '
                             'not %s' % (name, ratio))
    config = resource_classes.provider_config(
        int(args.vcpus), int(args.memory_mb), int(args.disk_gb),
        reserved={resource_classes.VCPU: int(args.reserved_vcpus),
                  resource_classes.MEMORY_MB: int(args.reserved_memory_mb),
                  resource_classes.DISK_GB: int(args.reserved_disk_gb)},
        ratios={resource_classes.VCPU: args.cpu_allocation_ratio,
                resource_classes.MEMORY_MB: args.ram_allocation_ratio,
                resource_classes.DISK_GB: args.disk_allocation_ratio})
    text = yaml.safe_dump(config, sort_keys=False)
    if args.output is None:
        sys.stdout.write(text)
        return
    folder = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(folder):
        raise ValueError('--output: folder %s does not exist' % folder)
    handle, partial = tempfile.mkstemp(dir=folder, prefix='.provider-')
    try:
        with os.fdopen(handle, 'w') as out:
            out.write(text)
        os.replace(partial, args.output)
    except BaseException:
        os.unlink(partial)
        raise


def _flavor_properties(args):
    _whole(args, ('vcpus', 'ram', 'disk', 'ephemeral', 'swap'))
    specs = {resource_classes.PREEMPTIBLE_SPEC: 'true'}
    specs.update(resource_classes.flavor_extra_specs(
        int(args.vcpus), int(args.ram), resource_classes.flavor_disk_gb(
            args.disk, args.ephemeral, args.swap)))
    sys.stdout.write(' '.join('--property %s=%s' % item
                              for item in specs.items()) + '\n')


def main(argv=None):
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.command == 'provider-config':
            _provider_config(args)
        else:
            _flavor_properties(args)
    except (ValueError, OSError) as error:
        sys.stderr.write('%s: %s\n' % (PROG, error))
        return EXIT_BAD_INPUT
    return EXIT_OK


if __name__ == '__main__':
    sys.exit(main())
