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

"""Hypothesis settings profiles of the fuzz tests (``*_fuzz.py``).

Every fuzz test module imports this module, which registers two profiles
and picks the one named by ``$HYPOTHESIS_PROFILE`` (default ``ci``):

``ci``
    What the unit suite runs: few examples (``CI_EXAMPLES``), no deadline
    (the machines are shared), derandomized and without the example
    database, so a CI run is reproducible and leaves nothing behind.
``fuzz``
    What ``tox -e fuzz`` runs: ``FUZZ_EXAMPLES`` examples per test,
    random (a new seed each run), still without a deadline.

The fuzz tests are decorated with :func:`fuzz_settings`: the chosen
profile applies to them only, not to the other property-based tests of
the suite (the profile is not made the global default), so those keep
their own settings whichever profile is chosen.
"""

import os

from hypothesis import HealthCheck
from hypothesis import settings

CI_EXAMPLES = 50
FUZZ_EXAMPLES = 5000

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large,
            HealthCheck.filter_too_much]

settings.register_profile(
    'ci', max_examples=CI_EXAMPLES, deadline=None, derandomize=True,
    database=None, print_blob=True, suppress_health_check=_SLOW_OK)
settings.register_profile(
    'fuzz', max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
    print_blob=True, suppress_health_check=_SLOW_OK)

#: The profile the fuzz tests run under.
PROFILE = os.environ.get('HYPOTHESIS_PROFILE') or 'ci'
SETTINGS = settings.get_profile(PROFILE)


def fuzz_settings(ci_examples=None):
    """The settings of a fuzz test, as a decorator.

    ``ci_examples`` (for tests slower than the rest, each example running
    a command) asks for that many examples under ``ci`` and
    proportionally as many under the other profiles.
    """
    if ci_examples is None:
        return settings(SETTINGS)
    scale = SETTINGS.max_examples / float(CI_EXAMPLES)
    return settings(SETTINGS, max_examples=max(1, int(ci_examples * scale)))
