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

"""``preemptible-sched-manage journal``: the Nova integration's journal.

Read from ``[preemptible_sched] journal_connection`` of a nova.conf (the
tables ``nova_decisions`` and ``nova_victims``, see
:mod:`preemptible_sched.nova.journal`, which needs no Nova):

``journal list [--state STATE] [--limit N]``
    Decisions with their id, state, creation time (UTC), scheduler host,
    reason, request (the new servers' uuids) and number of victims; the
    open ones (``decided``, ``acting``) first, then the closed ones, each
    part newest first.
``journal show ID``
    One decision and each of its victims with its host, action and state.
``journal purge --older-than DAYS [--dry-run]``
    Deletes the closed decisions (``done``, ``rolled_back``,
    ``abandoned``: the states no decision leaves) created more than DAYS
    days ago, with their
    victims, and says how many; an open decision is never deleted.

Each prints a table, or JSON with ``--format json``. Bad input (a number
that is not one, a negative one, an unknown id or state) is one line on
stderr and exit code 2; a journal that is not at the newest schema, exit
code 1 (run ``db sync``).
"""

import datetime
import json
import math
import sys
import time

from preemptible_sched.db import migration
from preemptible_sched import exception
from preemptible_sched.nova import journal as nova_journal

DAY_S = 86400.0
DEFAULT_LIMIT = 100
STATES = tuple(nova_journal.DECISION_MOVES)


def add_parser(subparsers):
    journal = subparsers.add_parser(
        'journal', help='Read and purge the Nova journal (a nova.conf).',
        description='The journal of the Nova integration\'s decisions, in '
        'the database of [preemptible_sched] journal_connection of the '
        'nova.conf given with --config-file.')
    actions = journal.add_subparsers(title='actions', dest='action')
    actions.required = True
    listing = actions.add_parser(
        'list', help='List decisions, open ones first, then newest first.',
        description='List the decisions: open ones (decided, acting) '
        'first, then the closed ones; each part newest first.')
    listing.add_argument('--state', help='Only decisions in this state '
                         '(%s).' % ', '.join(STATES))
    listing.add_argument('--limit', default=str(DEFAULT_LIMIT),
                         help='At most this many (default %d; 0: all).'
                         % DEFAULT_LIMIT)
    listing.set_defaults(func=run_list)
    show = actions.add_parser(
        'show', help='One decision and its victims.',
        description='One decision and each of its victims, with states.')
    show.add_argument('id', help='The decision id.')
    show.set_defaults(func=run_show)
    purge = actions.add_parser(
        'purge', help='Delete closed decisions older than DAYS days.',
        description='Delete the closed decisions (%s) created more than '
        'DAYS days ago, with their victims; never an open one.'
        % ', '.join(nova_journal.CLOSED_DECISIONS))
    purge.add_argument('--older-than', required=True, metavar='DAYS',
                       help='Age in days (a number >= 0; 0: every closed '
                       'decision).')
    purge.add_argument('--dry-run', action='store_true',
                       help='Count what would be deleted; delete nothing.')
    purge.set_defaults(func=run_purge)
    for parser in (listing, show, purge):
        parser.add_argument('--format', choices=('table', 'json'),
                            default='table', help='Output format.')


def _number(text, option, integer=False):
    """``text`` as a finite number >= 0, or InvalidInput naming
    ``option``.
    """
    try:
        value = int(text) if integer else float(text)
    except (TypeError, ValueError):
        value = None
    if value is None or math.isnan(value) or math.isinf(value) or \
            value < 0:
        raise exception.InvalidInput(
            option, None, '%r is not a %s >= 0' % (
                text, 'whole number' if integer else 'number'))
    return value


def _when(seconds):
    """A journal time (s since the epoch) as ISO 8601, UTC."""
    return datetime.datetime.fromtimestamp(
        seconds, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def _open(target):
    """The journal of ``target``, at the newest schema."""
    if not target.nova_files:
        raise exception.InvalidInput(
            'journal', None, 'the Nova journal is named by '
            '[preemptible_sched] journal_connection: give the nova.conf '
            'with --config-file')
    target.wait()
    book = nova_journal.Journal(target.url)
    current = book.revision()
    head = migration.head_revision()
    if current != head:
        book.engine.dispose()
        raise NotAtHead('the journal %s is at schema revision %s, the '
                        'newest is %s: run "%s"' % (
                            target.option, current or 'none (empty)',
                            head, target.sync_command()))
    return book


class NotAtHead(Exception):
    """The journal's schema is not the newest (exit 1)."""


def _as_dict(decision):
    return {'id': decision.id, 'state': decision.state,
            'reason': decision.reason, 'scheduler': decision.scheduler,
            'created_at': _when(decision.created_at),
            'terminate_at': _when(decision.terminate_at),
            'request': list(decision.request),
            'victims': [{'id': v.id, 'host': v.host, 'action': v.action,
                         'state': v.state} for v in decision.victims]}


def _table(header, rows):
    rows = [header] + [tuple(str(cell) for cell in row) for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return '\n'.join('  '.join(cell.ljust(width) for cell, width
                               in zip(row, widths)).rstrip()
                     for row in rows)


def _print(result, args, table):
    if args.format == 'json':
        sys.stdout.write(json.dumps(result, indent=2, sort_keys=True) + '\n')
    else:
        sys.stdout.write(table + '\n')


def run_list(args, target):
    if args.state is not None and args.state not in STATES:
        raise exception.InvalidInput('--state', None, 'unknown state %r '
                                     '(valid: %s)' % (args.state,
                                                      ', '.join(STATES)))
    limit = _number(args.limit, '--limit', integer=True) or None
    book = _open(target)
    try:
        found = book.decisions(state=args.state, limit=limit)
    finally:
        book.engine.dispose()
    rows = [(d.id, d.state, _when(d.created_at), d.scheduler, d.reason,
             ','.join(d.request) or '-', len(d.victims)) for d in found]
    _print([_as_dict(d) for d in found], args, _table(
        ('ID', 'STATE', 'CREATED', 'SCHEDULER', 'REASON', 'REQUEST',
         'VICTIMS'), rows))
    return 0


def run_show(args, target):
    book = _open(target)
    try:
        decision = book.get(args.id)
    except nova_journal.JournalError:
        raise exception.InvalidInput('journal show', None,
                                     'no decision %r' % args.id) from None
    finally:
        book.engine.dispose()
    lines = ['%-14s%s' % (label + ':', value) for label, value in (
        ('id', decision.id), ('state', decision.state),
        ('reason', decision.reason), ('scheduler', decision.scheduler),
        ('created', _when(decision.created_at)),
        ('terminate at', _when(decision.terminate_at)),
        ('request', ', '.join(decision.request) or '-'))]
    lines += ['', _table(('VICTIM', 'HOST', 'ACTION', 'STATE'), [
        (v.id, v.host or '-', v.action, v.state)
        for v in decision.victims])]
    _print(_as_dict(decision), args, '\n'.join(lines))
    return 0


def run_purge(args, target):
    days = _number(args.older_than, '--older-than')
    before = time.time() - days * DAY_S
    book = _open(target)
    try:
        decisions, victims = book.purge(before, dry_run=args.dry_run)
    finally:
        book.engine.dispose()
    result = {'decisions': decisions, 'victims': victims,
              'created_before': _when(before), 'dry_run': args.dry_run,
              'states': list(nova_journal.CLOSED_DECISIONS)}
    _print(result, args, '%s %d closed decision%s (%d victim%s) created '
           'before %s.' % ('Would purge' if args.dry_run else 'Purged',
                           decisions, '' if decisions == 1 else 's',
                           victims, '' if victims == 1 else 's',
                           result['created_before']))
    return 0
