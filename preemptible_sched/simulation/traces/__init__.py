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

"""Real traces: reading them, and where they come from.

- :mod:`.reading`: :func:`~.reading.read_workload` (the requests a
  simulation replays), :func:`~.reading.detect_format`;
- :mod:`.records`: what every reader shares (:class:`~.records.WorkloadItem`,
  :class:`~.records.Record`, the CSV and header helpers);
- one reader per workload format: :mod:`.native_csv`, :mod:`.alibaba`,
  :mod:`.swf`, :mod:`.gwf`, :mod:`.google`, :mod:`.wta`;
- :mod:`.catalogue`: the traces this project knows; :mod:`.download`
  and :mod:`.checksums`: fetching them into a cache.
"""
