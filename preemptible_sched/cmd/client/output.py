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

"""What the client commands print: a request, or a list of requests, as
JSON or as a table.
"""

import json
import sys


def _size(spec):
    res = spec['resources']
    size = spec.get('flavor') or '%gcpu/%gMB/%gGB' % (
        res['vcpus'], res['memory_mb'], res['disk_gb'])
    kind = 'preemptible' if spec.get('preemptible') else 'normal'
    return '%s %s x%d' % (kind, size, spec.get('num_instances', 1))


def _placements(request):
    return ', '.join('%s %s%s' % (i['id'], i['state'],
                                  '@' + i['host'] if i['host'] else '')
                     for i in request['instances'])


def request_table(requests):
    """The table of ``requests``: id, status, size and instances."""
    rows = [('ID', 'STATUS', 'REQUEST', 'INSTANCES')]
    rows += [(r['id'], r['status'], _size(r['spec']), _placements(r))
             for r in requests]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return '\n'.join('  '.join(cell.ljust(width) for cell, width
                               in zip(row[:3], widths)) + '  ' + row[3]
                     for row in rows)


def print_result(result, fmt, table):
    """``result`` as JSON, or ``table``, on stdout."""
    if fmt == 'json':
        sys.stdout.write(json.dumps(result, indent=2, sort_keys=True) + '\n')
    else:
        sys.stdout.write(table + '\n')


def print_request(request, fmt):
    """``request`` as JSON, or as a table with its reason."""
    table = request_table([request])
    if request.get('reason'):
        table += '\nReason: %s' % request['reason']
    print_result(request, fmt, table)
