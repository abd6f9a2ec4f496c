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

"""Who may do what: the oslo.policy enforcer of the client API.

The caller's credentials come from the context of its RPC call, a dict
(``preemptible-sched`` sends ``project_id`` and ``roles``; an
oslo.context dict works too):

``project_id``
    The project the caller acts for; :data:`DEFAULT_PROJECT` when missing.
``user_id``
    Informative.
``roles``
    Role names; the default rules make ``admin`` an administrator.
``is_admin``
    Available to rules as ``is_admin:True``; no default rule uses it.

The rules are those of :mod:`preemptible_sched.service.policies`, overridden
by the policy file (``[oslo_policy] policy_file``, looked up next to the
configuration files; re-read when it changes). The message bus does not
authenticate anybody: the context is what the client claims, so policy
separates projects that trust each other not to lie about who they are
(one team's scripts from another's), it is no defence against a hostile
peer on the bus.
"""

from oslo_config import cfg
from oslo_policy import policy

from preemptible_sched.conf import CONF
from preemptible_sched import exception
from preemptible_sched.service import policies as api_policies

#: The project of a caller that names none, and of the requests stored
#: before requests had projects.
DEFAULT_PROJECT = 'default'

_ENFORCER = None


class PolicyNotAuthorized(exception.PreemptibleSchedException):
    """The policy does not allow the caller this action."""

    def __init__(self, action):
        self.action = action
        super().__init__('policy does not allow %s' % action)


def init(conf=None, policy_file=None, rules=None, use_conf=True):
    """Build the enforcer (once; :func:`reset` forgets it).

    ``conf`` defaults to :data:`preemptible_sched.conf.CONF`; ``rules``
    (a dict of rule name to check string) replace those of the file.
    """
    global _ENFORCER
    conf = conf or CONF
    if _ENFORCER is not None and _ENFORCER.use_conf and \
            not _parsed(_ENFORCER.conf):
        # Built while a configuration was parsed, which has been reset
        # since (a command run in-process, a test): build it again.
        reset()
    if _ENFORCER is None:
        enforcer = policy.Enforcer(conf, policy_file=policy_file,
                                   use_conf=use_conf)
        defaults = api_policies.list_rules()
        enforcer.register_defaults(defaults)
        if not (use_conf and _parsed(conf)):
            # No files (a service built in-process, a test): the defaults,
            # which oslo.policy otherwise loads with the file.
            enforcer.use_conf = False
            enforcer.set_rules(policy.Rules(
                {rule.name: rule.check for rule in defaults}))
        if rules is not None:
            enforcer.set_rules(policy.Rules.from_dict(rules),
                               overwrite=False, use_conf=enforcer.use_conf)
        _ENFORCER = enforcer
    return _ENFORCER


def _parsed(conf):
    try:
        conf.find_file(conf.oslo_policy.policy_file)
    except cfg.NotInitializedError:
        return False
    return True


def reset():
    """Forget the enforcer (tests; a new configuration)."""
    global _ENFORCER
    if _ENFORCER is not None:
        _ENFORCER.clear()
    _ENFORCER = None


def get_enforcer():
    """The enforcer, for the ``oslopolicy-*`` commands (entry point
    ``oslo.policy.enforcer``): the configuration is read from the usual
    places first.
    """
    CONF([], project='preemptible-sched')
    return init()


def credentials(ctxt):
    """The credentials of a call context (a dict; None is no context)."""
    ctxt = ctxt or {}
    return {'project_id': ctxt.get('project_id') or DEFAULT_PROJECT,
            'user_id': ctxt.get('user_id'),
            'roles': list(ctxt.get('roles') or ()),
            'is_admin': bool(ctxt.get('is_admin', False))}


def project_of(ctxt):
    """The project a call context acts for."""
    return credentials(ctxt)['project_id']


def authorize(ctxt, action, target=None, do_raise=True, conf=None):
    """Whether ``ctxt`` may do ``action`` on ``target``.

    ``target`` defaults to the caller's own project. Raises
    :class:`PolicyNotAuthorized` when not allowed and ``do_raise``; an
    action without a registered rule is a bug (``PolicyNotRegistered``).
    """
    creds = credentials(ctxt)
    if target is None:
        target = {'project_id': creds['project_id']}
    return init(conf).authorize(action, target, creds, do_raise=do_raise,
                                exc=PolicyNotAuthorized, action=action)
