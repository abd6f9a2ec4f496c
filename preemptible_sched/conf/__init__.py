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

"""Every configuration option of preemptible_sched.

Each module of this package declares the options of one group and
registers them here; nothing else in the project registers options.

The options live on a configuration object of their own rather than on
oslo.config's global ``cfg.CONF``: the same process may be a Nova service
whose global configuration already has groups of the same names
(``[filter_scheduler]``, ``[scheduler]``, ``[compute]``) with different
options. Inside Nova, :mod:`preemptible_sched.conf.nova` declares the
options an operator sets in ``nova.conf`` and copies them here.

``CONF`` is a :class:`.parsing.ConfigOpts`: a value in the files that
cannot be used stops the parsing with one line naming the file, the group
and the option.
"""

from preemptible_sched.conf import compute
from preemptible_sched.conf import database
from preemptible_sched.conf import fake_driver
from preemptible_sched.conf import filter_scheduler
from preemptible_sched.conf import load
from preemptible_sched.conf import load_watcher
from preemptible_sched.conf import metrics
from preemptible_sched.conf import parsing
from preemptible_sched.conf import preemptible
from preemptible_sched.conf import qos
from preemptible_sched.conf import replay
from preemptible_sched.conf import scheduler
from preemptible_sched.conf import service
from preemptible_sched.conf import sla

CONF = parsing.ConfigOpts()

compute.register_opts(CONF)
database.register_opts(CONF)
fake_driver.register_opts(CONF)
filter_scheduler.register_opts(CONF)
load.register_opts(CONF)
load_watcher.register_opts(CONF)
metrics.register_opts(CONF)
preemptible.register_opts(CONF)
qos.register_opts(CONF)
replay.register_opts(CONF)
scheduler.register_opts(CONF)
service.register_opts(CONF)
sla.register_opts(CONF)
