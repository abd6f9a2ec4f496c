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

"""``preemptible-compute --driver fake --host NAME``: a compute agent.

Owns one emulated blade (``[fake_driver] vcpus``, ``memory_mb``,
``disk_gb``) named ``NAME`` and serves it to the scheduler service over
oslo.messaging until SIGTERM or SIGINT (see
:mod:`preemptible_sched.service.compute_agent`). Start-up and exit codes
as ``preemptible-scheduler``'s: the configuration is checked, then the
message broker must answer within ``[service] startup_timeout`` seconds
(the agent has no database).
"""

import re
import sys

from oslo_config import cfg

from preemptible_sched.cmd import serving

#: Drivers an agent can run: they must be able to own one given host.
AGENT_DRIVERS = ('fake',)

cli_opts = [
    # Checked by _build rather than with choices: oslo.config reports a
    # bad choice on the command line as exit code 1.
    cfg.StrOpt('driver',
               default='fake',
               help='Compute driver of the agent: "fake" (the only one) '
               'emulates one blade of the testbed.'),
    cfg.StrOpt('host',
               required=True,
               help='Name of the host the agent owns, unique among the '
               'agents of one scheduler (e.g. host-A).'),
]


def _validate(conf):
    if conf.driver not in AGENT_DRIVERS:
        raise ValueError('--driver: unknown agent driver %r (valid: %s)'
                         % (conf.driver, ', '.join(AGENT_DRIVERS)))
    if not conf.host.strip():
        raise ValueError('--host: the host name must not be empty')
    from preemptible_sched.service import schemas
    if len(conf.host) > schemas.MAX_NAME_LENGTH or \
            not re.match(schemas.ID_PATTERN, conf.host):
        raise ValueError(
            '--host: %r is not a host name (at most %d letters, digits and '
            '"_.:@-", not starting with one of ".:@-")'
            % (conf.host[:80], schemas.MAX_NAME_LENGTH))


def _build(conf):
    from preemptible_sched.service import compute_agent
    return compute_agent.ComputeAgent(
        conf, compute_agent.blade(conf.host, conf))


def main(argv=None):
    serving.quiet_eventlet()
    return serving.serve('preemptible-compute',
                         sys.argv[1:] if argv is None else argv, _build,
                         cli_opts, validate=_validate, database=False)


if __name__ == '__main__':
    sys.exit(main())
