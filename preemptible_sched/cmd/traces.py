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


"""``preemptible-sched traces``: the real traces, their sources, a cache.

``traces list`` lists the catalogue of
:mod:`preemptible_sched.simulation.traces.catalogue`; ``traces show NAME``
prints everything about a trace, its citation included; ``traces download
NAME`` fetches its files into the cache
(:mod:`preemptible_sched.simulation.traces.download`, verifying their
SHA-256) and prints their paths, one a line; ``traces import NAME
PATH...`` puts files the user already has into the cache the same way
(:mod:`preemptible_sched.simulation.traces.local`).

Exit codes: 0 done; 1 the download failed (network, HTTP status,
timeout); 2 bad input (unknown trace, missing or wrong checksum,
unwritable cache directory, bad option), reported on one line of stderr.
Nothing half-written is ever left in the cache.
"""

import json
import sys
import textwrap

from preemptible_sched import exception
from preemptible_sched import input_limits as limits
from preemptible_sched.simulation.traces import catalogue
from preemptible_sched.simulation.traces import checksums
from preemptible_sched.simulation.traces import download
from preemptible_sched.simulation.traces import local

EXIT_OK, EXIT_DOWNLOAD_FAILED = 0, 1

#: Longest --timeout, in seconds (a day).
MAX_TIMEOUT = 86400.0
#: Longest --deadline, in seconds (a week).
MAX_DEADLINE = 7 * 86400.0
#: Largest --max-bytes (1 TiB).
MAX_BYTES = 1 << 40

_WIDTH = 79


def add_parser(subparsers):
    parser = subparsers.add_parser(
        'traces', help='List the real traces the simulator reads, show '
        'where they come from, and download them.')
    actions = parser.add_subparsers(
        dest='traces_command', metavar='ACTION',
        title='Actions', help='list, show, download or import.')
    actions.required = True

    listing = actions.add_parser(
        'list', help='List the traces.',
        description='List the traces of the catalogue: name, reader '
        'format, size, whether a checksum is built in, licence.')
    listing.add_argument('--format', choices=('table', 'json'),
                         default='table', help='Output format.')
    listing.set_defaults(func=run_list)

    show = actions.add_parser(
        'show', help='Everything about a trace: source, licence, '
        'citation, files.',
        description='Show a trace: what it is, the reader that takes it, '
        'its upstream source, licence and citation, and its files with '
        'their URLs and checksums.')
    show.add_argument('trace', metavar='NAME', help='Name of the trace.')
    show.add_argument('--format', choices=('text', 'json'),
                      default='text', help='Output format.')
    show.set_defaults(func=run_show)

    fetch = actions.add_parser(
        'download', help='Download the files of a trace into the cache, '
        'verify them and print their paths.',
        description='Download the files of a trace into the cache '
        'directory, verify their SHA-256 and print their paths, one a '
        'line. A file already cached and verified is not fetched again; '
        'a failed or mismatching download leaves nothing behind. Exit 1 '
        'when the transfer fails, 2 on bad input or a checksum mismatch.')
    fetch.add_argument('trace', metavar='NAME', help='Name of the trace.')
    fetch.add_argument('--cache-dir', metavar='DIR',
                       help='Cache directory (default: $%s, else '
                       '$XDG_CACHE_HOME/preemptible-sched/traces, else '
                       '~/.cache/preemptible-sched/traces). Files go to '
                       'DIR/NAME/FILE.' % download.CACHE_ENV)
    fetch.add_argument('--mirror', metavar='URL',
                       help='Fetch every file from URL/NAME/FILE instead '
                       'of upstream (http, https or file URL; a cache '
                       'directory has that layout).')
    fetch.add_argument('--sha256', action='append', default=[],
                       metavar='[FILE=]DIGEST',
                       help='Expected SHA-256 of a file the catalogue has '
                       'no checksum for (FILE= may be left out when the '
                       'trace has one file). Repeatable.')
    fetch.add_argument('--insecure-no-checksum', action='store_true',
                       help='Accept files no checksum verifies (their '
                       'SHA-256 is logged), and cached copies as they '
                       'are.')
    fetch.add_argument('--timeout', type=float,
                       default=download.DEFAULT_TIMEOUT, metavar='SECONDS',
                       help='Give up on a server silent this long '
                       '(default %g).' % download.DEFAULT_TIMEOUT)
    fetch.add_argument('--deadline', type=float,
                       default=download.DEFAULT_DEADLINE, metavar='SECONDS',
                       help='Give up on a file not complete after this long '
                       'in all, however steadily it comes (default %g).'
                       % download.DEFAULT_DEADLINE)
    fetch.add_argument('--max-bytes', type=int,
                       default=download.MAX_DOWNLOAD_BYTES, metavar='N',
                       help='Give up on a file the catalogue has no size for '
                       'past N bytes (default %d; a catalogued size is '
                       'checked exactly).' % download.MAX_DOWNLOAD_BYTES)
    fetch.set_defaults(func=run_download)

    take = actions.add_parser(
        'import', help='Put files you already have into the cache, '
        'verified as a download is, and print their paths.',
        description='Copy files of a trace you already have (fetched on '
        'another machine, or a copy of a cache or a mirror) into the cache '
        'directory, verify their SHA-256 as a download would, and print '
        'their cached paths, one a line. Each PATH is one of the trace\'s '
        'files (by its name) or a directory holding all of them as '
        'DIR/FILE or DIR/NAME/FILE. Exit 2 on bad input or a checksum '
        'mismatch; nothing half-written is left in the cache.')
    take.add_argument('trace', metavar='NAME', help='Name of the trace.')
    take.add_argument('paths', metavar='PATH', nargs='+',
                      help='A file of the trace, or a directory holding '
                      'its files.')
    take.add_argument('--cache-dir', metavar='DIR',
                      help='Cache directory (as for download).')
    take.add_argument('--sha256', action='append', default=[],
                      metavar='[FILE=]DIGEST',
                      help='Expected SHA-256 of a file the catalogue has '
                      'no checksum for. Repeatable.')
    take.add_argument('--insecure-no-checksum', action='store_true',
                      help='Accept files no checksum verifies (their '
                      'SHA-256 is logged).')
    take.set_defaults(func=run_import)


# -- list --------------------------------------------------------------------

def summary(trace):
    """One row of ``traces list --format json``."""
    return {'name': trace.name, 'title': trace.title,
            'format': trace.format, 'size': trace.size,
            'licence': trace.licence, 'verified': _verified(trace),
            'page': trace.page}


def _verified(trace):
    if not trace.files:
        return None
    return all(f.sha256 for f in trace.files)


def to_table(trace_list):
    header = ('NAME', 'FORMAT', 'SIZE', 'CHECKSUM', 'LICENCE')
    rows = [header] + [
        (t.name, t.format or '-', download.human_size(t.size)
         if t.files else '-',
         {None: '-', True: 'yes', False: 'no'}[_verified(t)], t.licence)
        for t in trace_list]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return '\n'.join('  '.join(cell.ljust(width) for cell, width
                               in zip(row, widths)).rstrip()
                     for row in rows)


def run_list(args):
    known = catalogue.catalogue()
    if args.format == 'json':
        print(json.dumps([summary(t) for t in known], indent=2))
    else:
        print(to_table(known))
    return EXIT_OK


# -- show --------------------------------------------------------------------

def _field(label, text, indent=13):
    return textwrap.fill(text, _WIDTH, initial_indent=label.ljust(indent),
                         subsequent_indent=' ' * indent,
                         break_on_hyphens=False, break_long_words=False)


def to_text(trace):
    lines = ['%s: %s' % (trace.name, trace.title),
             _field('Format:', trace.format or 'none (no reader)'),
             _field('Reader:', trace.reader),
             _field('About:', trace.description),
             _field('Upstream:', trace.page),
             _field('Licence:', trace.licence),
             _field('', trace.licence_note),
             _field('Citation:', trace.citation)]
    if trace.notes:
        lines.append(_field('Notes:', trace.notes))
    if trace.files:
        lines.append('Files:')
    for trace_file in trace.files:
        lines.append('  %s (%s, %s%s, %s)' % (
            trace_file.name, trace_file.role, trace_file.format,
            ', %s archive' % trace_file.packed if trace_file.packed else '',
            download.human_size(trace_file.size)))
        if trace_file.description:
            lines.append(_field('', trace_file.description, 4))
        lines.append(_field('    url:', trace_file.url or 'none known', 12))
        lines.append(_field('    sha256:', trace_file.sha256 or
                            'unknown (give --sha256)', 12))
    if trace.files:
        lines.append(_field('Get it:', 'preemptible-sched traces download '
                            '%s' % trace.name))
    return '\n'.join(lines)


def run_show(args):
    trace = catalogue.get(args.trace)
    if args.format == 'json':
        print(json.dumps(trace.to_dict(), indent=2))
    else:
        print(to_text(trace))
    return EXIT_OK


# -- download ----------------------------------------------------------------

def parse_sha256(values, trace):
    """``--sha256 [FILE=]DIGEST`` values as ``{file name: digest}``."""
    given = {}
    for value in values:
        name, sep, digest = value.rpartition('=')
        if not sep:
            if len(trace.files) != 1:
                raise exception.InvalidInput(
                    '--sha256', None, '%s has %d files: write FILE=DIGEST '
                    '(files: %s)' % (trace.name, len(trace.files),
                                     ', '.join(f.name for f in trace.files)))
            name = trace.files[0].name
        trace.file(name)
        if name in given:
            raise exception.InvalidInput('--sha256', None,
                                         '%s given twice' % name)
        given[name] = checksums.check_sha256(digest)
    return given


def _fail(message):
    sys.stderr.write('preemptible-sched: %s\n' % ' '.join(
        str(message).split()))


def run_download(args):
    trace = catalogue.get(args.trace)
    args.timeout = limits.parse_number(
        args.timeout, '--timeout', None, minimum=0, exclusive_minimum=True,
        maximum=MAX_TIMEOUT)
    args.deadline = limits.parse_number(
        args.deadline, '--deadline', None, minimum=0,
        exclusive_minimum=True, maximum=MAX_DEADLINE)
    args.max_bytes = limits.integer(args.max_bytes, '--max-bytes', None,
                                    minimum=1, maximum=MAX_BYTES)
    for option, value in (('--cache-dir', args.cache_dir),
                          ('--mirror', args.mirror)):
        if value is not None and ('\0' in value or not value.strip()):
            raise exception.InvalidInput(
                option, None, 'expected a %s, got %s' % (
                    'directory' if option == '--cache-dir' else 'URL',
                    limits.one_line(repr(value), 80)))
    try:
        paths = download.download(
            trace.name, cache_dir=args.cache_dir, base_url=args.mirror,
            sha256=parse_sha256(args.sha256, trace),
            insecure=args.insecure_no_checksum, timeout=args.timeout,
            deadline=args.deadline, max_bytes=args.max_bytes)
    except download.DownloadError as error:
        _fail('%s: download failed: %s (offline, or behind a proxy? put '
              'the files in a directory as DIR/%s/FILE and run: '
              'preemptible-sched traces download %s --mirror file://DIR; '
              'or, with the files at hand: preemptible-sched traces import '
              '%s FILE...)'
              % (trace.name, error, trace.name, trace.name, trace.name))
        return EXIT_DOWNLOAD_FAILED
    for path in paths:
        print(path)
    return EXIT_OK


def run_import(args):
    trace = catalogue.get(args.trace)
    for option, value in [('--cache-dir', args.cache_dir)] + [
            ('PATH', path) for path in args.paths]:
        if value is not None and ('\0' in value or not value.strip()):
            raise exception.InvalidInput(
                option, None, 'expected a path, got %s'
                % limits.one_line(repr(value), 80))
    paths = local.import_files(
        trace.name, args.paths, cache_dir=args.cache_dir,
        sha256=parse_sha256(args.sha256, trace),
        insecure=args.insecure_no_checksum)
    for path in paths:
        print(path)
    return EXIT_OK
