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

"""Many soak scenarios, in worker processes, added up into figures."""

import collections
import concurrent.futures
import contextlib
import multiprocessing
from multiprocessing import util as mp_util
import os
import shutil
import tempfile

from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from tests.soak import faults
from tests.soak import invariants
from tests.soak import run
from tests.soak import scenarios


# -- many scenarios -----------------------------------------------------------

_WORKER = {}


def _init_worker(parse=False):
    """Options and a template database for this process's scenarios."""
    plugins.register_opts(CONF)
    if parse:
        CONF([], project='preemptible-sched', default_config_files=[])
    directory = tempfile.mkdtemp(prefix='psched-soak-', dir=_tmp_root())
    _WORKER['template'] = run.Template(directory)
    _WORKER['directory'] = directory
    mp_util.Finalize(None, _cleanup_worker, exitpriority=10)


def _tmp_root():
    """Where the scenarios' throw-away databases go: memory-backed
    ``/dev/shm`` when writable (each is a fresh ``tempfile`` directory
    inside it), else the default temporary directory.
    """
    shm = '/dev/shm'  # nosec B108: only the parent of mkdtemp() dirs
    if os.path.isdir(shm) and os.access(shm, os.W_OK):
        return shm
    return None


@contextlib.contextmanager
def template():
    """This process's template database (for one scenario at a time),
    removed after the block.
    """
    _init_worker()
    try:
        yield _WORKER['template']
    finally:
        _cleanup_worker()


def _run_seeds(seeds, settle=scenarios.SETTLE, size='full', late_held=False):
    if 'template' not in _WORKER:
        _init_worker()
    results = []
    for seed in seeds:
        outcome, _ = run.run_scenario(seed, _WORKER['template'], settle=settle,
                                      size=size, late_held=late_held)
        result = outcome.as_dict()
        result['late_held'] = late_held
        results.append(result)
    return results


def _cleanup_worker():
    directory = _WORKER.pop('directory', None)
    template = _WORKER.pop('template', None)
    if template is not None:
        template.close()
    if directory:
        shutil.rmtree(directory, ignore_errors=True)


class Figures:
    """What many scenarios add up to."""

    def __init__(self, first=10):
        self.first = first
        self.scenarios = 0
        self.requests = 0
        self.instances = 0
        self.restarts = 0
        self.given_up = 0
        self.wall_s = 0.0
        self.slowest = (0.0, None)
        self.faults = collections.Counter({kind: 0 for kind in faults.FAULTS})
        self.violations = collections.Counter(
            {name: 0 for name in invariants.INVARIANTS})
        self.observed = collections.Counter({kind: 0 for kind in run.OBSERVED})
        self.strategies = collections.Counter()
        self.intensities = collections.Counter()
        self.violating = []
        self.violating_count = 0

    def add(self, result):
        self.scenarios += 1
        self.requests += result['requests']
        self.instances += result['instances']
        self.restarts += result['restarts']
        self.given_up += bool(result['given_up'])
        self.wall_s += result['wall_s']
        if result['wall_s'] > self.slowest[0]:
            self.slowest = (result['wall_s'], result['seed'])
        self.faults.update(result['faults'])
        self.observed.update(result.get('observed', {}))
        self.strategies[result['strategy']] += 1
        self.intensities[result['intensity']] += 1
        violations = result['violations']
        if violations:
            self.violating_count += 1
            self.violations.update(name for name in
                                   {v[0] for v in violations})
            if len(self.violating) < self.first:
                self.violating.append({
                    'seed': result['seed'],
                    'strategy': result['strategy'],
                    'faults': {k: v for k, v in
                               sorted(result['faults'].items()) if v},
                    'violations': [list(v) for v in violations[:5]],
                    'more': max(0, len(violations) - 5),
                    'reproduce': 'python -m tests.soak --scenarios 1 '
                                 '--seed %d --size %s '
                                 '%s--trace' % (
                                     result['seed'],
                                     result.get('size', 'full'),
                                     '--late-held-reports '
                                     if result.get('late_held') else '')})

    def as_dict(self):
        crashes = self.faults['crash_at_point'] + \
            self.faults['crash_between_events']
        return {
            'scenarios': self.scenarios,
            'requests': self.requests,
            'instances': self.instances,
            'strategies': dict(sorted(self.strategies.items())),
            'fault_intensities': dict(sorted(self.intensities.items())),
            'faults': dict(self.faults),
            # What the loop recorded of them (database events).
            'observed': dict(self.observed),
            'crashes': {'injected': crashes, 'restarts': self.restarts,
                        'given_up_scenarios': self.given_up},
            # Scenarios in which the invariant was broken at least once.
            'violations': dict(self.violations),
            'violating_scenarios': self.violating_count,
            'first_violations': self.violating,
            'scenario_wall_s': {
                'total': round(self.wall_s, 1),
                'mean': round(self.wall_s / max(1, self.scenarios), 3),
                'slowest': [round(self.slowest[0], 2), self.slowest[1]]},
        }


def soak(seeds, jobs=1, first=10, settle=scenarios.SETTLE, progress=None,
         size='full', late_held=False):
    """Run every scenario of ``seeds``; returns the :class:`Figures`."""
    figures = Figures(first=first)
    seeds = list(seeds)
    chunk = 20
    chunks = [seeds[i:i + chunk] for i in range(0, len(seeds), chunk)]
    if jobs <= 1:
        try:
            for part in chunks:
                for result in _run_seeds(part, settle, size, late_held):
                    figures.add(result)
                if progress:
                    progress(figures)
        finally:
            _cleanup_worker()
        return figures
    context = multiprocessing.get_context('spawn')
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=jobs, mp_context=context) as pool:
        # By module name (tests.soak.campaign): the command line lives in
        # another module, so this one is never __main__.
        futures = [pool.submit(_run_seeds, part, settle, size, late_held)
                   for part in chunks]
        results = {}
        for index, future in enumerate(futures):
            results[index] = future.result()
            for result in results.pop(index):
                figures.add(result)
            if progress:
                progress(figures)
    return figures
