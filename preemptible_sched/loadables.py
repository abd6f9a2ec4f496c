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

"""Loading plugins by their entry-point names.

Every plugin kind has one namespace; the configured names are loaded in the
configured order and an unknown name is an :class:`InvalidInput` that lists
the valid names, so a typo in a config file stops the service at start-up.

Every plugin class declares its entry-point name (``name = 'ram'``), so a
plugin built without the loader (a test, Nova's weighers) has it too; one
unit test walks every entry point of the ``preemptible_sched.*`` namespaces
and checks it. A plugin answers to the name it was loaded as (:func:`named`).
"""

import stevedore

from preemptible_sched.conf import plugins
from preemptible_sched import exception


def _raise_load_failure(manager, entrypoint, error):
    raise exception.InvalidInput(
        entrypoint.group, entrypoint.name,
        'plugin failed to load: %s' % error)


def named(plugin, name):
    """``plugin``, answering to ``name``: the entry point it was loaded as.

    A class that declares ``name`` (every built-in one) is left as it is.
    A third-party class that declares none, or another one (an alias, a
    subclass of a built-in plugin), gets ``name`` on the object: its
    options (``<name>_weight_multiplier``, ``<name>_cost_multiplier``)
    and its lines in logs and reports follow the name the operator
    configured.
    """
    if getattr(plugin, 'name', None) != name:
        plugin.name = name
    return plugin


def plugin_class(namespace, name, group, option):
    """The class registered as ``name`` in ``namespace``, not loaded.

    An unknown name is an :class:`UnknownPlugin` naming ``[group]
    option``.
    """
    found = plugins.plugin_class(namespace, name)
    if found is None:
        raise exception.UnknownPlugin(group, option, namespace, [name],
                                      plugins.names(namespace))
    return found


def load_plugins(namespace, names, group, option):
    """Return the plugin objects named ``names`` from ``namespace``.

    Each object's ``name`` is its entry-point name (:func:`named`).
    ``group``/``option`` name the option the names came from, for errors.
    """
    names = [name.strip() for name in names if name.strip()]
    if not names:
        return []
    available = set(plugins.names(namespace))
    unknown = [name for name in names if name not in available]
    if unknown:
        raise exception.UnknownPlugin(group, option, namespace, unknown,
                                      available)
    manager = stevedore.NamedExtensionManager(
        namespace, names, name_order=True, invoke_on_load=True,
        on_load_failure_callback=_raise_load_failure)
    return [named(extension.obj, extension.name)
            for extension in manager.extensions]
