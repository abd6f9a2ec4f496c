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

"""``report.html``: an experiment on one self-contained page.

The page holds the comparison tables (those of ``comparison.md``, with
their spread and intervals), the figures (embedded, so the file can be
mailed or archived alone), the command that made it and the files that
configured it. It has no script and loads nothing: it opens the same
offline, in any browser, in years. The same inputs give the same bytes
(no date, nothing random), so a sweep resumed or run on another engine
can be compared byte for byte.
"""

import base64
import html
import os
import shlex

from preemptible_sched import extras
from preemptible_sched import version

tabulate = extras.optional_module('tabulate')

FILE_NAME = 'report.html'

#: Bytes of a configuration file shown in full; longer ones are cut.
MAX_SOURCE_BYTES = 256 * 1024

_STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 72em;
       color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; }
th { background: #eee; }
td[style*="right"], th[style*="right"] { font-variant-numeric: tabular-nums; }
p.note { color: #555; font-size: 0.85em; max-width: 60em; }
figure { margin: 1em 0; } figure img { max-width: 100%; }
figcaption { color: #555; font-size: 0.85em; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; }
"""


def _table_html(table):
    return '<h2>%s</h2>\n%s\n%s' % (
        html.escape(table.title),
        tabulate.tabulate(table.rows, table.headers, tablefmt='html',
                          colalign=table.align, disable_numparse=True),
        '<p class="note">%s</p>' % html.escape(table.note)
        if table.note else '')


def _figure_html(path):
    with open(path, 'rb') as stream:
        data = base64.b64encode(stream.read()).decode('ascii')
    name = os.path.basename(path)
    return ('<figure><img alt="%s" src="data:image/png;base64,%s">'
            '<figcaption>%s</figcaption></figure>' % (
                html.escape(name), data, html.escape(name)))


def _source_html(label, path):
    try:
        with open(path, 'rb') as stream:
            data = stream.read(MAX_SOURCE_BYTES + 1)
    except OSError as error:
        text = '(cannot read %s: %s)' % (path, error.strerror or error)
    else:
        text = data[:MAX_SOURCE_BYTES].decode('utf-8', 'replace')
        if len(data) > MAX_SOURCE_BYTES:
            text += '\n... (cut at %d bytes)' % MAX_SOURCE_BYTES
    return '<details><summary>%s</summary><pre>%s</pre></details>' % (
        html.escape(label), html.escape(text))


def render(title, intro, tables, figures=(), command=None, sources=()):
    """The page's HTML: ``tables`` (:class:`.report_tables.Table`), then
    the PNG files ``figures``, the ``command`` (a list of arguments) and
    ``sources`` (``(label, path)`` of the files that configured the run).
    """
    parts = ['<!DOCTYPE html>', '<html lang="en">', '<head>',
             '<meta charset="utf-8">',
             '<title>%s</title>' % html.escape(title),
             '<style>%s</style>' % _STYLE, '</head>', '<body>',
             '<h1>%s</h1>' % html.escape(title),
             '<p>%s</p>' % html.escape(intro)]
    parts += [_table_html(table) for table in tables]
    if figures:
        parts.append('<h2>Figures</h2>')
        parts += [_figure_html(path) for path in figures]
    parts.append('<h2>How it was made</h2>')
    if command:
        parts.append('<pre id="command">%s</pre>' % html.escape(
            shlex.join(command)))
    parts += [_source_html(label, path) for label, path in sources]
    parts += ['<p class="note">preemptible_sched %s</p>' % html.escape(
        version.version_string()), '</body>', '</html>', '']
    return '\n'.join(parts)


def figures_in(directory):
    """The PNG files of ``directory`` (not below it), by name."""
    return sorted(os.path.join(directory, name)
                  for name in os.listdir(directory)
                  if name.endswith('.png') and
                  os.path.isfile(os.path.join(directory, name)))


def write(directory, title, intro, tables, command=None, sources=()):
    """``directory``/report.html of :func:`render` with the figures of
    ``directory``; written whole or not at all.
    """
    text = render(title, intro, tables, figures_in(directory), command,
                  sources)
    path = os.path.join(directory, FILE_NAME)
    partial = path + '.partial'
    with open(partial, 'w', encoding='utf-8') as stream:
        stream.write(text)
    os.replace(partial, path)
    return path
