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

"""Preemptible servers and service classes in a real Nova (34, 2026.2).

The only package of preemptible_sched that imports Nova; install it with the
``nova`` extra into Nova's own environment.

* :mod:`.extra_specs`: the flavor extra specs that mark a flavor
  preemptible or give it a service class, and their API validator;
* :mod:`.host_states`: Nova's host states and request specs seen as the
  core's two views;
* :mod:`.filters` and :mod:`.weighers`: the core plugins as Nova filters
  and weighers, for ``[filter_scheduler]`` in ``nova.conf``;
* :mod:`.placement`: what the manager reads from Placement;
* :mod:`.manager`: the preemption-aware scheduler manager;
* :mod:`.cmd`: ``preemptible-nova-scheduler``.

* :mod:`.config`: Nova's configuration with ``[preemptible_sched]``
  (declared in :mod:`preemptible_sched.conf.nova`) registered on it.

The package itself imports nothing, so that ``preemptible-nova-scheduler``
can pick Nova's concurrency backend before Nova is loaded.
"""
