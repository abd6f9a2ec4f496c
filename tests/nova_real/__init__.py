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

"""A real, multi-process Nova 34 on this machine, and tests against it.

:mod:`.cloud` starts and stops the cloud (``python -m
tests.nova_real.cloud up|down --dir DIR``); the ``test_*`` modules drive
its compute and Placement HTTP APIs only (``tox -e nova-real``).
"""
