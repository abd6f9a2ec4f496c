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

"""A reading of every host's metrics, as arrays.

A watcher's window refresh gives the latest metrics of every host. Handed
over as one mapping per host, each must be looked at in Python by the
scheduler: some 3 us a host, 30 ms at 10,000 hosts, every refresh. A
:class:`Reading` holds the hosts in the plain form (a float average and
deviation for CPU and memory, a float window end) as one array, row by
row, and the others (a metric missing, a value that is not a float, other
metric types) as their mappings, for the per-host bad-metrics rules.
:class:`~.load_columns.LoadColumns` reads the array at once.

A reading is also the mapping it stands for (host name -> metrics,
:func:`.load.build` takes it): a host of the array answers the mapping it
was made from (an equal one), the same object every time it is asked.
The array is read-only; a reading does not change once made.
"""

from collections import abc

import numpy

#: The columns of :attr:`Reading.values`, in order.
COLUMNS = ('cpu_avg', 'cpu_std', 'memory_avg', 'memory_std', 'window_end')
_EMPTY = numpy.zeros((0, len(COLUMNS)))
_EMPTY.flags.writeable = False


def plain(metrics):
    """The row (:data:`COLUMNS`) of host ``metrics`` in the plain form,
    else None: exactly ``{"cpu": {"avg", "std"}, "memory": {"avg",
    "std"}, "window_end"}``, every value a float.
    """
    if type(metrics) is not dict or len(metrics) != 3:
        return None
    cpu = metrics.get('cpu')
    memory = metrics.get('memory')
    end = metrics.get('window_end')
    if type(cpu) is not dict or type(memory) is not dict:
        return None
    if len(cpu) != 2 or len(memory) != 2:
        return None
    values = (cpu.get('avg'), cpu.get('std'), memory.get('avg'),
              memory.get('std'), end)
    for value in values:
        if type(value) is not float:
            return None
    return values


class Reading(abc.Mapping):
    """Host name -> metrics, the plain ones as rows of an array.

    ``names`` (a sequence, kept as given: a watcher passes the same
    object while its hosts stay the same, and the columns then map the
    rows to their slots once) and ``values`` (one row per name, the
    :data:`COLUMNS`, floats, any value: they are judged by the reader;
    kept read-only, column by column in memory);
    ``others``: name -> metrics of the hosts not in the plain form (no
    name in both).
    """

    def __init__(self, names=(), values=None, others=None):
        self.names = names
        if values is None:
            values = _EMPTY
        values = numpy.asarray(values, dtype=float)
        if values.shape != (len(names), len(COLUMNS)):
            raise ValueError('a reading needs one row of %d values per '
                             'name' % len(COLUMNS))
        if values.flags.writeable or not values.flags.f_contiguous:
            # Column by column in memory: the reader takes columns.
            values = numpy.array(values, order='F')
            values.flags.writeable = False
        self.values = values
        self.others = {} if others is None else others
        self._row = None
        self._made = {}

    @classmethod
    def of(cls, windows, names=None):
        """The reading of ``windows`` (host name -> metrics); ``names``:
        a previous reading's names, reused when the plain hosts are the
        same, in the same order.
        """
        if isinstance(windows, Reading):
            return windows
        rows, plain_names, others = [], [], {}
        for name, metrics in windows.items():
            row = plain(metrics)
            if row is None:
                others[name] = metrics
            else:
                plain_names.append(name)
                rows.append(row)
        if names is not None and names == plain_names:
            plain_names = names
        return cls(plain_names, numpy.array(rows, dtype=float).reshape(
            len(rows), len(COLUMNS)), others)

    def _rows(self):
        if self._row is None:
            self._row = {name: row for row, name in enumerate(self.names)}
        return self._row

    def metrics(self, row):
        """The mapping of the host at ``row`` of the array."""
        name = self.names[row]
        made = self._made.get(name)
        if made is None:
            cpu_avg, cpu_std, memory_avg, memory_std, end = \
                self.values[row].tolist()
            made = self._made[name] = {
                'cpu': {'avg': cpu_avg, 'std': cpu_std},
                'memory': {'avg': memory_avg, 'std': memory_std},
                'window_end': end}
        return made

    def __getitem__(self, name):
        found = self.others.get(name)
        if found is not None or name in self.others:
            return found
        return self.metrics(self._rows()[name])

    def __contains__(self, name):
        return name in self.others or name in self._rows()

    def __iter__(self):
        yield from self.names
        yield from self.others

    def __len__(self):
        return len(self.names) + len(self.others)

    def __repr__(self):
        return '<Reading of %d hosts, %d in arrays>' % (len(self),
                                                        len(self.names))
