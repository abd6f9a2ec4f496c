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

"""Sphinx configuration of the preemptible-sched documentation.

Build it with ``tox -e docs``; every warning is an error there, so a broken
plugin docstring or option help text fails the build.
"""

import importlib.metadata

# -- Project information -----------------------------------------------------

project = 'preemptible-sched'
copyright = 'preemptible_sched developers'
author = 'preemptible_sched developers'

try:
    release = importlib.metadata.version('preemptible-sched')
except importlib.metadata.PackageNotFoundError:
    # Building from a checkout that was never installed: the option and
    # plugin pages will be empty anyway, but the prose still builds.
    release = 'unknown'
version = '.'.join(release.split('.')[:2])

# -- General configuration ---------------------------------------------------

extensions = [
    # ``.. show-options::``: the configuration reference, generated from the
    # options declared in preemptible_sched/conf/.
    'oslo_config.sphinxext',
    # ``.. list-plugins::``: the plugin reference, generated from the entry
    # points in setup.cfg and the docstrings of the plugin classes.
    'stevedore.sphinxext',
    'sphinx.ext.mathjax',
]

master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = ['_build']
pygments_style = 'sphinx'
# ``code`` in prose means a literal, as in the rest of OpenStack.
default_role = 'literal'

# -- Options for HTML output -------------------------------------------------

html_theme = 'alabaster'
html_theme_options = {
    'description': 'Preemptible instances for OpenStack-style schedulers',
    'fixed_sidebar': True,
}
html_title = '%s %s' % (project, release)
html_show_sourcelink = False
html_static_path = ['_static']
