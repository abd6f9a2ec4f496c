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

"""Sphinx configuration of the preemptible-sched release notes.

Build them with ``tox -e releasenotes``. The notes are the YAML files of
releasenotes/notes/, written with ``reno new SLUG``; reno reads them from
the git history (and the notes not committed yet from the work tree).
"""

# -- Project information -----------------------------------------------------

project = 'preemptible-sched Release Notes'
copyright = 'preemptible_sched developers'
author = 'preemptible_sched developers'

# The release notes are not versioned themselves: reno puts each note under
# the version (git tag) that added it.
version = ''
release = ''

# -- General configuration ---------------------------------------------------

extensions = [
    # ``.. release-notes::``: the notes, grouped by version and section.
    'reno.sphinxext',
]

master_doc = 'index'
source_suffix = {'.rst': 'restructuredtext'}
exclude_patterns = []
pygments_style = 'sphinx'
default_role = 'literal'

# -- Options for HTML output -------------------------------------------------

html_theme = 'alabaster'
html_theme_options = {
    'description': 'Release notes of preemptible-sched',
    'fixed_sidebar': True,
}
html_title = project
html_show_sourcelink = False
