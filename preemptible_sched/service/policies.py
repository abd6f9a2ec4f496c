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

"""The default rules of the scheduler's client API (oslo.policy).

An operator overrides any of them in the policy file (``[oslo_policy]
policy_file``, ``policy.yaml`` next to the configuration by default); the
sample, ``etc/preemptible-sched/policy.yaml.sample``, is generated from
:func:`list_rules` by ``tox -e genconfig``. Each action is checked against
the project of the request concerned (``project_id`` in the target) and
the caller's credentials, taken from the context of its RPC call
(``project_id``, ``user_id``, ``roles``, ``is_admin``); see
:mod:`preemptible_sched.service.policy`.

Not to be confused with :mod:`preemptible_sched.queue.queue_policies`, the
queue policies of the scheduler loop.
"""

from oslo_policy import policy

#: Prefix of every action.
PREFIX = 'preemptible_sched:request:%s'

SUBMIT = PREFIX % 'submit'
SHOW = PREFIX % 'show'
LIST = PREFIX % 'list'
LIST_ALL_PROJECTS = PREFIX % 'list:all_projects'
DELETE = PREFIX % 'delete'

ADMIN = 'context_is_admin'
ADMIN_OR_OWNER = 'admin_or_owner'

_BASE = [
    policy.RuleDefault(
        ADMIN, 'role:admin',
        description='Who is an administrator: sees and deletes the '
        'requests of every project.'),
    policy.RuleDefault(
        ADMIN_OR_OWNER, 'rule:%s or project_id:%%(project_id)s' % ADMIN,
        description='An administrator, or a member of the project the '
        'request belongs to.'),
]

_REQUESTS = [
    policy.DocumentedRuleDefault(
        name=SUBMIT, check_str='rule:%s' % ADMIN_OR_OWNER,
        description='Submit a request; it belongs to the project of the '
        'caller.',
        operations=[{'method': 'RPC', 'path': 'submit'}]),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str='rule:%s' % ADMIN_OR_OWNER,
        description='Show a request and its instances. A request of '
        'another project the caller may not see is answered as unknown '
        '(not found), so its existence is not disclosed; one of its own '
        'project as forbidden.',
        operations=[{'method': 'RPC', 'path': 'show'}]),
    policy.DocumentedRuleDefault(
        name=LIST, check_str='rule:%s' % ADMIN_OR_OWNER,
        description="List the requests of the caller's project.",
        operations=[{'method': 'RPC', 'path': 'list'}]),
    policy.DocumentedRuleDefault(
        name=LIST_ALL_PROJECTS, check_str='rule:%s' % ADMIN,
        description='List the requests of every project instead of only '
        "the caller's.",
        operations=[{'method': 'RPC', 'path': 'list'}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str='rule:%s' % ADMIN_OR_OWNER,
        description='Delete a request (withdraw it, or terminate its '
        'instances). A request of another project the caller may not '
        'delete is answered as unknown (not found); one of its own '
        'project as forbidden.',
        operations=[{'method': 'RPC', 'path': 'delete'}]),
]


def list_rules():
    """Every rule, for the enforcer and ``oslopolicy-sample-generator``
    (entry point ``oslo.policies``: ``preemptible-sched``).
    """
    return _BASE + _REQUESTS
