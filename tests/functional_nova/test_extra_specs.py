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

"""The extra-spec validator, through Nova's flavor API (microversion 2.86
and later validate namespaced extra specs)."""

from nova.tests.functional.api import client

from preemptible_sched.nova import extra_specs
from tests.functional_nova import base


class TestExtraSpecValidation(base.NovaTestCase):

    HOSTS = ()

    def set_spec(self, key, value):
        return self.api.post_extra_spec(
            self.normal, {'extra_specs': {key: value}})

    def assert_rejected(self, key, value, reason):
        error = self.assertRaises(client.OpenStackApiException,
                                  self.set_spec, key, value)
        self.assertEqual(400, error.response.status_code)
        self.assertIn(reason, error.response.text)

    def test_preemptible_accepts_booleans(self):
        for value in ('true', 'False', '1', 'no'):
            self.set_spec(extra_specs.PREEMPTIBLE, value)
            self.assertEqual(
                value, self.api.get_extra_specs(self.normal)[
                    extra_specs.PREEMPTIBLE])

    def test_preemptible_rejects_anything_else(self):
        self.assert_rejected(extra_specs.PREEMPTIBLE, 'maybe',
                             'not a valid boolean')

    def test_service_class_accepts_a_configured_class(self):
        self.set_spec(extra_specs.SERVICE_CLASS, 'silver')

    def test_service_class_rejects_an_unknown_class(self):
        self.assert_rejected(extra_specs.SERVICE_CLASS, 'platinum',
                             'platinum')

    def test_unknown_key_in_our_namespace_is_rejected(self):
        self.assert_rejected('preemptible_sched:preemtible', 'true',
                             'does not appear to be a valid extra spec')
