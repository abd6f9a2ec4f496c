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

"""The core groups Nova's configuration shares (SHARED_GROUPS): every
weigher's own group is registered on ``nova.conf``, listed for the sample
and the docs, and copied into the core's configuration.
"""

from oslo_config import cfg

from preemptible_sched.conf import CONF
from preemptible_sched.conf import load
from preemptible_sched.conf import nova as nova_conf
from preemptible_sched.conf import plugins
from tests import base

#: The weighers that have a group of options of their own.
WEIGHER_GROUPS = {'target_load_packing', 'load_variation_risk_balancing',
                  'low_risk_over_commitment'}


def _other_value(opt):
    """A valid value of ``opt`` other than its default."""
    if isinstance(opt, cfg.StrOpt):
        return next(choice for choice in opt.type.choices
                    if choice != opt.default)
    low, high = opt.type.min, opt.type.max
    value = (low + high) / 2 if isinstance(opt, cfg.FloatOpt) \
        else (low + high) // 2
    return value if value != opt.default else value + (high - low) / 4


class TestSharedGroups(base.TestCase):

    def _names(self):
        return {group.name for group, _ in nova_conf.SHARED_GROUPS}

    def test_every_weigher_group_is_shared(self):
        self.assertEqual(WEIGHER_GROUPS, self._names())
        # And no weigher's group of conf/load.py is forgotten.
        weighers = set(plugins.names(plugins.WEIGHERS))
        self.assertLessEqual(
            {group.name for group in load.list_opts()} & weighers,
            self._names())

    def test_low_risk_over_commitment_shares_its_opts(self):
        self.assertIn((load.lroc_group, load.lroc_opts),
                      nova_conf.SHARED_GROUPS)

    def test_listed_for_the_sample(self):
        listed = {group.name: opts for group, opts in nova_conf.list_opts()
                  if isinstance(group, cfg.OptGroup)}
        for group, opts in nova_conf.SHARED_GROUPS:
            self.assertEqual(opts, listed[group.name])

    def test_registered_and_copied_into_the_core(self):
        # Values other than the defaults, in a nova.conf file (overrides
        # would not do: the two configurations register the same group
        # objects, whose copies share their options' overrides).
        expected, defaults, lines = {}, {}, []
        for group, opts in nova_conf.SHARED_GROUPS:
            lines.append('[%s]' % group.name)
            for opt in opts:
                value = _other_value(opt)
                lines.append('%s = %s' % (opt.name, value))
                expected[group.name, opt.name] = value
                defaults[group.name, opt.name] = opt.default
        self.assertIn(('low_risk_over_commitment', 'smoothing_window_size'),
                      expected)
        path = self.create_tempfiles([('nova', '\n'.join(lines) + '\n')],
                                     ext='.conf')[0]
        nova = cfg.ConfigOpts()
        nova_conf.register_opts(nova)
        nova_conf.register_opts(nova)       # idempotent
        nova(['--config-file', path], project='nova',
             default_config_files=[], default_config_dirs=[])
        self.assertEqual(expected, {
            (group, name): nova[group][name] for group, name in expected})
        self.assertEqual(defaults, {
            (group, name): CONF[group][name] for group, name in expected})

        nova_conf.apply(nova, CONF)

        self.assertEqual(expected, {
            (group, name): CONF[group][name] for group, name in expected})
