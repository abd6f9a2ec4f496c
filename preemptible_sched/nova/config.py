"""Nova's configuration, with ``[preemptible_sched]`` registered on it.

The options are declared in :mod:`preemptible_sched.conf.nova`; every
module of this package reads them through :data:`CONF`.
"""

import nova.conf

from preemptible_sched.conf import nova as nova_opts

CONF = nova.conf.CONF
nova_opts.register_opts(CONF)
