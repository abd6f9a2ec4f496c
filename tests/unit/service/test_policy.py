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

"""Who may do what: the default rules and a policy file."""

import os

import fixtures
from oslo_config import cfg

from preemptible_sched.service import policies as api_policies
from preemptible_sched.service import policy
from tests import base

OWNED = {'project_id': 'alice'}


class PolicyTestCase(base.TestCase):

    def setUp(self):
        super().setUp()
        policy.reset()
        self.addCleanup(policy.reset)

    def allowed(self, ctxt, action, target=OWNED):
        return policy.authorize(ctxt, action, target, do_raise=False)


class TestDefaults(PolicyTestCase):

    def test_credentials(self):
        self.assertEqual({'project_id': 'default', 'user_id': None,
                          'roles': [], 'is_admin': False},
                         policy.credentials(None))
        self.assertEqual(
            {'project_id': 'p', 'user_id': 'u', 'roles': ['admin'],
             'is_admin': True},
            policy.credentials({'project_id': 'p', 'user_id': 'u',
                                'roles': ['admin'], 'is_admin': True,
                                'request_id': 'ignored'}))

    def test_owner_or_admin(self):
        for action in (api_policies.SUBMIT, api_policies.SHOW,
                       api_policies.LIST, api_policies.DELETE):
            self.assertTrue(self.allowed({'project_id': 'alice'}, action))
            self.assertFalse(self.allowed({'project_id': 'bob'}, action))
            self.assertFalse(self.allowed({}, action))
            self.assertTrue(self.allowed({'project_id': 'bob',
                                          'roles': ['admin']}, action))
            self.assertTrue(self.allowed({'project_id': 'bob',
                                          'roles': ['member', 'Admin']},
                                         action))

    def test_every_project_for_admins_only(self):
        self.assertFalse(self.allowed({'project_id': 'alice'},
                                      api_policies.LIST_ALL_PROJECTS))
        self.assertTrue(self.allowed({'roles': ['admin']},
                                     api_policies.LIST_ALL_PROJECTS))
        self.assertTrue(self.allowed({'roles': ['admin']},
                                     api_policies.ADMIN, {}))
        self.assertFalse(self.allowed({'is_admin': True},
                                      api_policies.ADMIN, {}))

    def test_refusal_names_the_action(self):
        error = self.assertRaises(policy.PolicyNotAuthorized,
                                  policy.authorize, {'project_id': 'bob'},
                                  api_policies.DELETE, OWNED)
        self.assertEqual('policy does not allow '
                         'preemptible_sched:request:delete', str(error))

    def test_target_defaults_to_the_callers_project(self):
        self.assertTrue(policy.authorize({'project_id': 'bob'},
                                         api_policies.SUBMIT))

    def test_the_rules_listed_for_the_sample(self):
        self.assertEqual(
            ['context_is_admin', 'admin_or_owner',
             'preemptible_sched:request:submit',
             'preemptible_sched:request:show',
             'preemptible_sched:request:list',
             'preemptible_sched:request:list:all_projects',
             'preemptible_sched:request:delete'],
            [rule.name for rule in api_policies.list_rules()])


class TestPolicyFile(PolicyTestCase):

    def test_a_policy_file_overrides_the_defaults(self):
        tmp = self.useFixture(fixtures.TempDir()).path
        path = os.path.join(tmp, 'policy.yaml')
        with open(path, 'w') as f:
            f.write('"context_is_admin": "role:operator"\n'
                    '"preemptible_sched:request:submit": "!"\n')
        conf = cfg.ConfigOpts()
        conf([], default_config_files=[], default_config_dirs=[])
        policy.init(conf, policy_file=path)
        self.assertFalse(self.allowed({'project_id': 'alice'},
                                      api_policies.SUBMIT))
        self.assertTrue(self.allowed({'project_id': 'alice'},
                                     api_policies.SHOW))
        self.assertTrue(self.allowed({'roles': ['operator']},
                                     api_policies.DELETE))
        self.assertFalse(self.allowed({'roles': ['admin']},
                                      api_policies.DELETE))

    def test_the_sample_lists_every_rule(self):
        sample = os.path.join(os.path.dirname(__file__), '..', '..', '..',
                              'etc', 'preemptible-sched',
                              'policy.yaml.sample')
        with open(sample) as f:
            text = f.read()
        for rule in api_policies.list_rules():
            self.assertIn('#"%s": "%s"' % (rule.name, rule.check_str),
                          text)
