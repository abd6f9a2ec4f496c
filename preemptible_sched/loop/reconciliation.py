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

"""Reports that disagree with the journal, and hosts set against it.

Part of the instance lifecycle (:mod:`.lifecycle`). A report that does not
apply to where the instance is now is ignored (an
``instance.report_ignored`` event); an instance a host runs but the
scheduler does not expect there is terminated (``instance.stray``). An
instance expected on a host but no longer there finished meanwhile, its
report lost or late: how the host remembers it finishing is replayed as
the reports it stands for. A host that is back is reconciled: what runs
there is set against what the journal expects.
"""

import logging

LOG = logging.getLogger(__name__)

#: States in which an instance is expected to exist on its host.
ON_HOST_STATES = ('building', 'running', 'terminating')


def reported_time(row, when, default, boot):
    """A time a host reported about the instance (``when``, or
    ``default`` if it gave none), on our clock.

    Times in a host's answers are moved from its clock to ours by an offset
    measured over a call (its latency and the clocks' speed-up make it
    approximate), so one can land before the placement it is about. When
    the answer names the instance's current boot, that already tells it is
    about this placement: the time is taken as no earlier than the
    placement (else it would look stale and be ignored).
    """
    if when is None:
        when = default
    if row is not None and boot is not None and boot == row.decision_id \
            and row.scheduled_at is not None:
        when = max(when, row.scheduled_at)
    return when


class Reconciliation:
    """Reports that do not apply, instances gone from their host and hosts
    reconciled, mixed into the loop's
    :class:`~preemptible_sched.loop.lifecycle.Lifecycle`, whose journal
    (``store``), host manager (``hosts``), ports and compute events it
    uses.
    """

    # -- reports that do not apply -----------------------------------------

    def ignore(self, event, host, instance_id, row, why=None):
        """Record a late, duplicate or misrouted report; change nothing."""
        where = 'unknown' if row is None else '%s on %s' % (row.state,
                                                            row.host)
        LOG.info('Ignoring %s of instance %s on %s: %s', event, instance_id,
                 host, why or 'it is %s' % where)
        self.events.notify('instance.report_ignored', {
            'instance_id': instance_id, 'host': host, 'event': event,
            'state': None if row is None else row.state,
            'placed_on': None if row is None else row.host,
            'request_id': None if row is None else row.request_id,
            'why': why})

    def stray(self, host, instance_id, row):
        """``host`` runs an instance the scheduler does not expect there:
        terminate it (its answer is then a report that does not apply).
        """
        LOG.warning('Host %s runs instance %s, which is %s: terminating '
                    'it', host, instance_id,
                    'unknown' if row is None else '%s on %s' % (row.state,
                                                                row.host))
        self.events.notify('instance.stray', {
            'instance_id': instance_id, 'host': host,
            'state': None if row is None else row.state,
            'placed_on': None if row is None else row.host,
            'request_id': None if row is None else row.request_id})
        self.compute.terminate(host, instance_id)

    # -- instances gone from their host -------------------------------------

    def finished_record(self, host, instance_id, records=None):
        """How ``host`` remembers the instance's current placement there
        finishing (an :class:`~preemptible_sched.objects.InstanceReport`),
        or None: asked when the instance is expected on ``host`` but not
        there, and its report was lost or is late. ``records``, when
        given, is what the host was just asked (``compute.finished_on``).
        """
        row = self.row(instance_id)
        if row is None or row.host != host:
            return None
        if records is None:
            records = self.compute.finished_on(host)
        record = records.get(instance_id)
        if record is None or record.boot is not None and \
                row.decision_id is not None and \
                record.boot != row.decision_id:
            return None         # an earlier boot's
        return record

    def replay(self, host, record):
        """Apply a finished instance's record as the reports it stands for
        (start, then end, failure or termination), through the same checks
        as live reports.
        """
        row = self.row(record.id)
        LOG.info('Instance %s is no longer on %s; it %s at %s (its report '
                 'was lost or is late)', record.id, host, record.state,
                 record.ended_at)
        ended = reported_time(row, record.ended_at, self._now(), record.boot)
        if record.started_at is not None and row is not None and (
                row.state == 'building' or row.state == 'terminating' and
                row.started_at is None):
            self.instance_started(
                host, record.id,
                min(reported_time(row, record.started_at, ended,
                                  record.boot), ended),
                boot=record.boot)
        if record.state == 'ended':
            self.instance_ended(host, record.id, ended, boot=record.boot)
        elif record.state == 'failed':
            self.instance_failed(host, record.id, ended,
                                 record.reason or 'failed on %s' % host,
                                 boot=record.boot)
        else:
            self.instance_terminated(host, record.id, ended,
                                     boot=record.boot)

    def gone(self, host, instance_id, otherwise):
        """The instance is expected on ``host`` and is not there: replay
        how the host remembers it finishing, or else call ``otherwise()``.
        """
        record = self.finished_record(host, instance_id)
        if record is None:
            otherwise()
        else:
            self.replay(host, record)

    def on_recovered_spawn(self, decision, report):
        """Recovery found the decision's instance on its host."""
        if report.state == 'running':
            self.instance_started(
                decision.host, decision.instance_id, reported_time(
                    self.row(decision.instance_id), report.started_at,
                    self._now(), report.boot))
        else:
            self.executor.watch_spawn(decision.instance_id)

    # -- a host back ---------------------------------------------------------

    def reconcile(self, host, at):
        """Make the store agree with what ``host`` runs now.

        What runs and is expected there runs on (a building instance that
        runs is started); what is expected but gone ends (a victim is
        confirmed, a deleted instance deleted, a spawn never done is
        placed again, anything else is lost); what runs but is not
        expected there is terminated.
        """
        present = self.compute.instances_on(host)
        if present is None:
            return
        records = None
        for row in self.store.list_instances(host=host,
                                             states=ON_HOST_STATES):
            report = present.pop(row.id, None)
            if report is not None:
                if row.state == 'building' and report.state == 'running':
                    self.instance_started(host, row.id, reported_time(
                        row, report.started_at, at, report.boot))
                continue
            if records is None:
                records = self.compute.finished_on(host)    # asked once
            record = self.finished_record(host, row.id, records)
            if record is not None:
                self.replay(host, record)
            elif row.state == 'terminating' and \
                    self.executor.victim_gone(host, row.id, at):
                continue
            elif row.id in self.deleting or row.state == 'terminating':
                self.instance_terminated(host, row.id, at)
            elif row.state == 'building':
                self.instance_failed(host, row.id, at,
                                     'not on host %s when it was asked'
                                     % host)
            else:
                self.finish(row.id, 'error', at,
                            reason='gone from host %s while it was '
                                   'unreachable' % host)
        for instance_id in sorted(present):
            self.stray(host, instance_id, self.row(instance_id))
