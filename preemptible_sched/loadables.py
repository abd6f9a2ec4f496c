"""Loading plugins by their entry-point names.

Every plugin kind has one namespace; the configured names are loaded in the
configured order and an unknown name is an :class:`InvalidInput` that lists
the valid names, so a typo in a config file stops the service at start-up.
"""

import stevedore

from preemptible_sched import exception


def _raise_load_failure(manager, entrypoint, error):
    raise exception.InvalidInput(
        entrypoint.group, entrypoint.name,
        'plugin failed to load: %s' % error)


def load_plugins(namespace, names, group, option):
    """Return the plugin objects named ``names`` from ``namespace``.

    Each object gets a ``name`` attribute holding its entry-point name.
    ``group``/``option`` name the option the names came from, for errors.
    """
    names = [name.strip() for name in names if name.strip()]
    if not names:
        return []
    available = set(stevedore.ExtensionManager(namespace).names())
    unknown = [name for name in names if name not in available]
    if unknown:
        raise exception.UnknownPlugin(group, option, namespace, unknown,
                                      available)
    manager = stevedore.NamedExtensionManager(
        namespace, names, name_order=True, invoke_on_load=True,
        on_load_failure_callback=_raise_load_failure)
    plugins = []
    for extension in manager.extensions:
        extension.obj.name = extension.name
        plugins.append(extension.obj)
    return plugins
