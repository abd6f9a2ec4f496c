#!/usr/bin/env python3
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

"""Measure the layout figures of issue 27 ("One house") on a source tree.

Prints one JSON object (``--table`` adds a table on standard error). The
static figures read the files of ``--root`` (default: the repository this
file is in) with :mod:`ast`; the traced figures import and run the
installed ``preemptible_sched`` (so run it where that package is the tree
measured, e.g. in the tox environment). The rules, exactly:

loose_modules
    The files ``<package>/*.py`` directly in the package root, without
    ``__init__.py``. Sub-packages and their modules do not count.

plugin_packages
    The namespaces are the keys of setup.cfg's ``[entry_points]`` that
    start with ``<package>.``. For each, every entry point's module is
    ``module:Class``'s module; its package is that module's dotted name
    without the last part. The package holding most of the namespace's
    classes (ties: the first by name) is the namespace's package; it is
    *named like its namespace* when its last dotted part equals the
    namespace's last dotted part (``preemptible_sched.scheduler.weighers``
    for ``preemptible_sched.weighers``: yes; a package ``policies`` for
    ``preemptible_sched.queue_policies``: no). Reported as N of M,
    M being every such namespace of setup.cfg.

long_modules
    Every ``.py`` file under ``<package>/`` (tests live outside it), by
    its number of lines (``str.splitlines``, blank and comment lines
    included): those over 600 and those over 400, and the share of all the
    package's lines that the latter hold.

loop_reach_throughs
    In ``<package>/loop/``, the loop's class is the class whose methods
    pass ``self`` most often as an argument of a call to a sibling
    module's function or class (``lifecycle.Lifecycle(self)``,
    ``recovery.load_hosts(self, now)``); its module is the loop's module,
    and the sibling modules so called are its *parts*. The names a part
    receives the loop under are the parameters those calls bind ``self``
    to (for a class, its ``__init__``'s), and the attributes that
    ``__init__`` stores such a parameter in (``self.loop = loop``). A
    reach-through is one attribute node ``N.x`` in a part whose ``N`` is
    such a name (a bare name, in any function of the part) or ``self.A``
    with ``A`` such an attribute: ``self.loop.lifecycle.gone(...)`` is one
    (``lifecycle`` on the loop), ``loop.store.get(...)`` one. Reads and
    writes alike; accesses in the loop's own module do not count.
    ``across`` counts, for each part, the reach-throughs that name
    another part's attribute on the loop (``self.loop.lifecycle`` in the
    executor: the executor calls the lifecycle through the loop).

displacement_rankings
    The definitions (outside tests) that order hosts with victims: a
    method named ``score`` whose first parameter after ``self`` is
    ``plan`` (a strategy ranks displacement plans), and a function that
    calls both something named ``plan*`` (``strategy.plan``,
    ``plan_on``) and something named ``rank`` or ``_rank`` (it ranks the
    hosts it plans victims on). Detected by name, so a ranking written
    under other names is missed: read the list it prints.

submit / simulate (traced)
    ``sys.setprofile`` records every Python function call whose frame's
    module (``__name__`` of its globals) is ``<package>`` or under it,
    and, as its caller, the nearest such frame below it on the stack
    (calls through the standard library or other libraries are thus
    seen as calls between the two project modules around them).
    *submit*: set up before tracing, a loop on the embedded defaults (the
    fake driver's blades, a virtual clock, the in-memory store, every
    option at its default) is started; traced: ``SchedulerLoop.submit``
    of one one-vCPU request and the clock's events until its instance
    runs. *simulate*: set up before tracing, a one-request workload and
    two blades; traced: the simulator's ``Simulation.run()`` of it (the
    whole simulated run, the loop's construction included). ``modules``
    is the number of distinct modules whose code ran; ``both_ways`` the
    pairs of distinct modules each calling the other.
    *simulate_event*: the same run, each event of the virtual clock (one
    ``step``: the request's arrival with the pass it triggers, a spawn's
    end, a utilisation sample...) traced on its own; the event crossing
    the most modules is reported, with every event's count
    (``modules_per_event``).
    ``decision_modules`` (submit only) are the modules that ran, less
    plugins (the modules of every namespace's package as found for
    plugin_packages, and their sub-modules) and less the plumbing
    packages ``conf``, ``db`` and ``service`` (RPC and the compute drivers
    are the ``compute`` package, a plugin package already).

Usage: trace_modules.py [--root DIR] [--no-trace] [--table]
"""

import argparse
import ast
import collections
import configparser
import json
import os
import sys

PACKAGE = 'preemptible_sched'
LOOP_PACKAGE = 'loop'
PLUMBING = ('conf', 'db', 'service')
LIMITS = (600, 400)


# -- reading the tree ------------------------------------------------------

def _parse(path):
    with open(path, encoding='utf-8') as source:
        return ast.parse(source.read(), path)


def _line_count(path):
    with open(path, encoding='utf-8') as source:
        return len(source.read().splitlines())


def package_files(root, package=PACKAGE):
    """Every ``.py`` file under ``root/package``, relative to ``root``."""
    found = []
    for directory, dirs, names in os.walk(os.path.join(root, package)):
        dirs[:] = sorted(d for d in dirs if d != '__pycache__')
        found.extend(os.path.relpath(os.path.join(directory, name), root)
                     for name in sorted(names) if name.endswith('.py'))
    return found


def loose_modules(root, package=PACKAGE):
    """The modules of the package root, ``__init__.py`` left out."""
    base = os.path.join(root, package)
    return sorted(name for name in os.listdir(base)
                  if name.endswith('.py') and name != '__init__.py' and
                  os.path.isfile(os.path.join(base, name)))


def entry_point_namespaces(root, package=PACKAGE):
    """``{namespace: [module, ...]}`` of setup.cfg's ``[entry_points]``."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(os.path.join(root, 'setup.cfg'), encoding='utf-8')
    if not config.has_section('entry_points'):
        return {}
    namespaces = {}
    for key, value in config.items('entry_points'):
        if not key.startswith(package + '.'):
            continue
        modules = []
        for line in value.splitlines():
            if '=' in line:
                target = line.split('=', 1)[1].strip()
                modules.append(target.split(':', 1)[0].strip())
        namespaces[key] = modules
    return namespaces


def plugin_packages(root, package=PACKAGE):
    """One row per namespace: its package and whether it is named like
    the namespace (see the module's docstring).
    """
    rows = []
    for namespace, modules in sorted(entry_point_namespaces(
            root, package).items()):
        counts = collections.Counter(module.rpartition('.')[0]
                                     for module in modules)
        holder = min(counts, key=lambda name: (-counts[name], name))
        rows.append({'namespace': namespace, 'package': holder,
                     'classes': len(modules),
                     'named_like_namespace': (holder.rpartition('.')[2] ==
                                              namespace.rpartition('.')[2])})
    return rows


def long_modules(root, package=PACKAGE, limits=LIMITS):
    """``{limit: [(path, lines), ...]}`` and the share of lines held by
    the modules over the smallest limit.
    """
    sizes = {path: _line_count(os.path.join(root, path))
             for path in package_files(root, package)}
    over = {limit: sorted(((path, lines) for path, lines in sizes.items()
                           if lines > limit), key=lambda item: -item[1])
            for limit in limits}
    total = sum(sizes.values())
    share = (sum(lines for _path, lines in over[min(limits)]) / total
             if total else 0.0)
    return over, share


# -- reach-throughs into the loop ------------------------------------------

def _sibling_aliases(tree, loop_package):
    """``{local name: sibling module name}`` for ``from <pkg>.loop import
    x [as y]``.
    """
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and \
                node.module.split('.')[-1] == loop_package:
            for alias in node.names:
                aliases[alias.asname or alias.name] = alias.name
    return aliases


def _calls_passing_self(class_node, aliases):
    """``[(sibling module, callee name, argument index)]``: the calls in
    the methods of ``class_node`` to a sibling module's attribute with
    ``self`` among the positional arguments.
    """
    calls = []
    for node in ast.walk(class_node):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if not (isinstance(func, ast.Attribute) and
                isinstance(func.value, ast.Name) and
                func.value.id in aliases):
            continue
        for index, arg in enumerate(node.args):
            if isinstance(arg, ast.Name) and arg.id == 'self':
                calls.append((aliases[func.value.id], func.attr, index))
    return calls


def _definitions(tree):
    """``{name: FunctionDef or ClassDef}`` of a module's top level."""
    return {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                 ast.ClassDef))}


def _receiving_names(tree, callee, index):
    """(parameter names, attribute names) under which ``callee`` of the
    part ``tree`` receives its positional argument ``index``.
    """
    node = _definitions(tree).get(callee)
    params, attrs = set(), set()
    if node is None:
        return params, attrs
    if isinstance(node, ast.ClassDef):
        init = [item for item in node.body
                if isinstance(item, ast.FunctionDef) and
                item.name == '__init__']
        if not init:
            return params, attrs
        index += 1      # after self
        function = init[0]
    else:
        function = node
    positional = function.args.posonlyargs + function.args.args
    if index >= len(positional):
        return params, attrs
    name = positional[index].arg
    params.add(name)
    if function is not node:
        for stmt in ast.walk(function):
            if isinstance(stmt, ast.Assign) and \
                    isinstance(stmt.value, ast.Name) and \
                    stmt.value.id == name:
                for target in stmt.targets:
                    if isinstance(target, ast.Attribute) and \
                            isinstance(target.value, ast.Name) and \
                            target.value.id == 'self':
                        attrs.add(target.attr)
    return params, attrs


def _loop_accesses(tree, params, attrs):
    """The attribute names reached on the loop in ``tree``, one per
    reach-through.
    """
    reached = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in params:
            reached.append(node.attr)
        elif isinstance(value, ast.Attribute) and value.attr in attrs and \
                isinstance(value.value, ast.Name) and \
                value.value.id == 'self':
            reached.append(node.attr)
    return reached


def loop_reach_throughs(root, package=PACKAGE, loop_package=LOOP_PACKAGE):
    """The loop's class and module, and the reach-throughs of its parts
    (see the module's docstring).
    """
    directory = os.path.join(root, package, loop_package)
    trees = {name[:-3]: _parse(os.path.join(directory, name))
             for name in sorted(os.listdir(directory))
             if name.endswith('.py') and name != '__init__.py'}
    best = None
    for module, tree in trees.items():
        aliases = {local: target for local, target in
                   _sibling_aliases(tree, loop_package).items()
                   if target in trees and target != module}
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                calls = _calls_passing_self(node, aliases)
                if calls and (best is None or len(calls) > len(best[2])):
                    best = (module, node.name, calls)
    if best is None:
        return {'loop_module': None, 'loop_class': None, 'total': 0,
                'parts': {}}
    loop_module, loop_class, calls = best
    names = collections.defaultdict(lambda: (set(), set()))
    for part, callee, index in calls:
        params, attrs = _receiving_names(trees[part], callee, index)
        names[part][0].update(params)
        names[part][1].update(attrs)
    parts = {}
    for part in sorted(names):
        params, attrs = names[part]
        reached = _loop_accesses(trees[part], params, attrs)
        counts = collections.Counter(reached)
        parts[part] = {
            'receives_as': sorted(params) + ['self.' + attr
                                             for attr in sorted(attrs)],
            'count': len(reached),
            'across': {other: counts[other] for other in sorted(names)
                       if other != part and counts[other]},
            'attributes': dict(sorted(counts.items())),
        }
    return {'loop_module': '%s.%s.%s' % (package, loop_package,
                                         loop_module),
            'loop_class': loop_class,
            'total': sum(part['count'] for part in parts.values()),
            'parts': parts}


# -- displacement rankings -------------------------------------------------

def _called_names(function):
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                names.add(func.attr)
            elif isinstance(func, ast.Name):
                names.add(func.id)
    return names


def _is_displacement_ranking(function):
    params = [arg.arg for arg in function.args.args]
    if function.name == 'score' and params[:2] == ['self', 'plan']:
        return True
    called = _called_names(function)
    return (any(name.startswith('plan') for name in called) and
            bool(called & {'rank', '_rank'}))


def displacement_rankings(root, package=PACKAGE):
    """``module:qualified name`` of every displacement ranking."""
    found = []
    for path in package_files(root, package):
        module = path[:-3].replace(os.sep, '.')
        functions = _qualified_functions(_parse(os.path.join(root, path)))
        found.extend('%s:%s' % (module, name)
                     for name, function in functions.items()
                     if _is_displacement_ranking(function))
    return sorted(found)


def _qualified_functions(tree, prefix=''):
    functions = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[prefix + node.name] = node
        elif isinstance(node, ast.ClassDef):
            functions.update(_qualified_functions(
                node, prefix + node.name + '.'))
    return functions


# -- call tracing ----------------------------------------------------------

class CallTrace:
    """The project modules that run, and who calls whom, while traced.

    Use as a context manager around the action; see the module's
    docstring for what is recorded.
    """

    def __init__(self, package=PACKAGE):
        self.package = package
        self.modules = set()
        self.calls = set()

    def _ours(self, frame):
        name = frame.f_globals.get('__name__') or ''
        return name == self.package or name.startswith(self.package + '.')

    def _profile(self, frame, event, _arg):
        if event != 'call' or not self._ours(frame):
            return
        module = frame.f_globals['__name__']
        self.modules.add(module)
        caller = frame.f_back
        while caller is not None and not self._ours(caller):
            caller = caller.f_back
        if caller is not None:
            calling = caller.f_globals['__name__']
            if calling != module:
                self.calls.add((calling, module))

    def __enter__(self):
        sys.setprofile(self._profile)
        return self

    def __exit__(self, *exc_info):
        sys.setprofile(None)

    def paused(self):
        """A context in which nothing is recorded (checks of the tool)."""
        return _Paused(self)

    def both_ways(self):
        """Sorted pairs ``(a, b)``, a < b, of modules calling each other."""
        return sorted((a, b) for a, b in self.calls
                      if a < b and (b, a) in self.calls)

    def summary(self):
        return {'modules': len(self.modules),
                'both_ways': len(self.both_ways()),
                'module_names': sorted(self.modules),
                'both_ways_pairs': [list(pair)
                                    for pair in self.both_ways()]}


class _Paused:

    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        sys.setprofile(None)

    def __exit__(self, *exc_info):
        sys.setprofile(self.trace._profile)


def _configure():
    """Every option at its default: nothing parsed, no file read; the
    plugins' options registered as the commands and tests do.
    """
    from preemptible_sched.conf import CONF
    from preemptible_sched.conf import plugins
    plugins.register_opts(CONF)


def trace_submit(package=PACKAGE, until=600.0):
    """Trace one request from ``submit`` until its instance runs (or the
    virtual clock reaches ``until`` seconds; ``running`` says which).
    """
    _configure()
    from preemptible_sched import clock as clock_mod
    from preemptible_sched.compute import fake
    from preemptible_sched.loop import scheduler_loop
    from preemptible_sched import objects
    from preemptible_sched.simulation import runner

    clock = clock_mod.VirtualClock()
    store = runner.memory_store()
    store.upgrade()
    loop = scheduler_loop.SchedulerLoop(clock, fake.FakeDriver(clock, seed=0),
                                        store)
    loop.start()
    clock.run(until=clock.now())
    spec = objects.RequestSpec('traced-request',
                               objects.Resources(1, 512, 1))
    running = False
    with CallTrace(package) as trace:
        loop.submit(spec, duration=3600.0)
        while not running and clock.step(until):
            with trace.paused():
                running = any(row.state == 'running'
                              for row in store.list_instances(
                                  request_id=spec.id))
    loop.stop()
    return trace, running


def trace_simulate(package=PACKAGE):
    """Trace the simulator's run of a one-request workload."""
    _configure()
    from preemptible_sched.compute import fake_config
    from preemptible_sched import objects
    from preemptible_sched.simulation import runner
    from preemptible_sched.simulation.traces import records

    items = [records.WorkloadItem('traced-request', 0.0, 60.0,
                                  objects.Resources(1, 512, 1))]
    simulation = runner.Simulation(items, fake_config.default_hosts()[:2])
    with CallTrace(package) as trace:
        result = simulation.run()
    return trace, result


def trace_simulate_events(package=PACKAGE):
    """Trace every event of the simulator's run of a one-request
    workload on its own; return the traces, in the clock's order.
    """
    _configure()
    from preemptible_sched.compute import fake_config
    from preemptible_sched import objects
    from preemptible_sched.simulation import runner
    from preemptible_sched.simulation.traces import records

    traces = []

    class EventTraced(runner.Simulation):

        def _drive(self):
            step = self.clock.step

            def traced_step(until):
                with CallTrace(package) as trace:
                    stepped = step(until)
                if stepped:
                    traces.append(trace)
                return stepped

            self.clock.step = traced_step
            super()._drive()

    items = [records.WorkloadItem('traced-request', 0.0, 60.0,
                                  objects.Resources(1, 512, 1))]
    EventTraced(items, fake_config.default_hosts()[:2]).run()
    return traces


def decision_modules(modules, plugin_rows, package=PACKAGE):
    """``modules`` less plugins and plumbing (see the module's
    docstring).
    """
    excluded = [row['package'] for row in plugin_rows] + [
        '%s.%s' % (package, name) for name in PLUMBING]
    return sorted(module for module in modules
                  if not any(module == prefix or
                             module.startswith(prefix + '.')
                             for prefix in excluded))


# -- the report ------------------------------------------------------------

def measure(root, package=PACKAGE, traced=True):
    """Every figure, as a JSON-able dict."""
    plugins = plugin_packages(root, package)
    over, share = long_modules(root, package)
    loose = loose_modules(root, package)
    rankings = displacement_rankings(root, package)
    report = {
        'loose_modules': {'count': len(loose), 'names': loose},
        'plugin_packages': {
            'named_like_namespace': sum(row['named_like_namespace']
                                        for row in plugins),
            'namespaces': len(plugins), 'rows': plugins},
        'long_modules': {
            'over_%d' % limit: {'count': len(rows),
                                'modules': [list(row) for row in rows]}
            for limit, rows in over.items()},
        'loop_reach_throughs': loop_reach_throughs(root, package),
        'displacement_rankings': {'count': len(rankings),
                                  'definitions': rankings},
    }
    report['long_modules']['share_of_lines_over_%d' % min(LIMITS)] = \
        round(share, 3)
    if traced:
        submit, running = trace_submit(package)
        report['submit'] = submit.summary()
        report['submit']['instance_running'] = running
        decisions = decision_modules(submit.modules, plugins, package)
        report['submit']['decision_modules'] = len(decisions)
        report['submit']['decision_module_names'] = decisions
        simulate, _result = trace_simulate(package)
        report['simulate'] = simulate.summary()
        events = trace_simulate_events(package)
        widest = max(range(len(events)),
                     key=lambda index: len(events[index].modules))
        report['simulate_event'] = events[widest].summary()
        report['simulate_event'].update(
            {'event': widest + 1, 'events': len(events),
             'modules_per_event': [len(trace.modules)
                                   for trace in events]})
    return report


def table(report):
    """The headline figures, one line each."""
    plugins = report['plugin_packages']
    rows = [
        ('loose modules in the package root',
         report['loose_modules']['count']),
        ('plugin packages named like their namespace', '%d of %d' % (
            plugins['named_like_namespace'], plugins['namespaces'])),
    ]
    for limit in LIMITS:
        rows.append(('modules over %d lines outside tests' % limit,
                     report['long_modules']['over_%d' % limit]['count']))
    rows.append(('reach-throughs into the loop object from its parts',
                 report['loop_reach_throughs']['total']))
    rows.append(('displacement rankings',
                 report['displacement_rankings']['count']))
    if 'submit' in report:
        rows.append(('non-plugin decision modules on the submit path',
                     report['submit']['decision_modules']))
        rows.append(('modules crossed by submit -> spawn / whole simulation',
                     '%d / %d' % (report['submit']['modules'],
                                  report['simulate']['modules'])))
        rows.append(('modules crossed by the widest simulated event',
                     report['simulate_event']['modules']))
        rows.append(('pairs calling both ways: submit / simulate',
                     '%d / %d' % (report['submit']['both_ways'],
                                  report['simulate']['both_ways'])))
    width = max(len(name) for name, _value in rows)
    return '\n'.join('%-*s  %s' % (width, name, value)
                     for name, value in rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))),
        help='the repository to measure (default: this one)')
    parser.add_argument('--no-trace', action='store_true',
                        help='static figures only (nothing imported)')
    parser.add_argument('--table', action='store_true',
                        help='also print a table on standard error')
    args = parser.parse_args(argv)
    report = measure(args.root, traced=not args.no_trace)
    json.dump(report, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write('\n')
    if args.table:
        sys.stderr.write(table(report) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
