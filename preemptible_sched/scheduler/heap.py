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

"""The C heap under a pass's numpy temporaries.

A decision over thousands of hosts allocates and frees megabytes of numpy
temporaries. With glibc's default settings the heap is trimmed when they
are freed and grows again in the next pass, and every page it grows by is
faulted in and zeroed again (arrays above the mmap threshold are mapped and
unmapped each time): about 900 page faults and a quarter of the CPU of a
saturated two-victim decision at 10,000 hosts, depending on what the
process did before. :func:`keep` asks glibc to keep the freed heap mapped,
once per process, as the scheduler is built (``[filter_scheduler]
heap_keep_mb``). Where the C library is not glibc it does nothing.
"""

import ctypes
import logging
import os
import threading

LOG = logging.getLogger(__name__)

#: mallopt() parameters (glibc's malloc.h).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: The largest mmap threshold glibc takes on 64-bit systems.
MMAP_THRESHOLD_MAX = 32 * 2 ** 20

_lock = threading.Lock()
#: MiB kept so far in this process (the largest asked).
_kept = 0


def _mallopt():
    """glibc's ``mallopt``, or None on another C library."""
    try:
        if not os.confstr('CS_GNU_LIBC_VERSION'):
            return None
        return ctypes.CDLL(None).mallopt
    except (AttributeError, OSError, ValueError):
        return None


def keep(mib):
    """Keep up to ``mib`` MiB of freed heap mapped between passes, and take
    blocks of up to ``min(mib, 32)`` MiB from the heap rather than from
    mappings of their own. 0 (or a value not above what this process keeps
    already) changes nothing. True if glibc took the settings.
    """
    global _kept
    with _lock:
        if mib <= _kept:
            return False
        mallopt = _mallopt()
        if mallopt is None:
            return False
        size = mib * 2 ** 20
        taken = (mallopt(M_MMAP_THRESHOLD, min(size, MMAP_THRESHOLD_MAX)) and
                 mallopt(M_TRIM_THRESHOLD, size))
        if not taken:
            LOG.warning('glibc did not take a heap of %d MiB kept between '
                        'passes', mib)
            return False
        _kept = mib
        LOG.debug('Keeping %d MiB of freed heap between passes', mib)
        return True
