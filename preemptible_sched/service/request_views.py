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

"""What the client API answers about a request: the request, its
instances, and for a displaced instance the decision that displaced it.
"""


def describe_instance(store, row):
    """An instance as the client API returns it; a displaced one says by
    which request, under which strategy, and why.
    """
    described = {
        'id': row.id, 'state': row.state, 'host': row.host,
        'preemptible': row.preemptible, 'service_class': row.service_class,
        'created_at': row.created_at, 'scheduled_at': row.scheduled_at,
        'started_at': row.started_at, 'ended_at': row.ended_at,
        'reason': row.reason, 'preemptions': row.preemptions,
        'running_s': row.running_s, 'displaced_by': None}
    if row.displaced_by is not None:
        decision = store.get_decision(row.displaced_by)
        if decision is not None:
            explanation = decision.explanation or {}
            cost = next((victim.get('cost') for victim in
                         explanation.get('victims', ())
                         if victim.get('id') == row.id), None)
            described['displaced_by'] = {
                'request_id': decision.request_id,
                'instance_id': decision.instance_id,
                'decision_id': decision.id, 'host': decision.host,
                'strategy': decision.strategy, 'cost': cost,
                'reason': explanation.get('reason')}
    return described


def describe_request(store, request_id, request=None):
    """A request and its instances, as the client API returns them
    (``request``: its row, if already read).
    """
    if request is None:
        request = store.get_request(request_id)
    return {'id': request.id, 'project_id': request.project_id,
            'status': request.status, 'reason': request.reason,
            'spec': dict(request.spec), 'duration_s': request.duration_s,
            'image': request.image, 'attempts': request.attempts,
            'submitted_at': request.submitted_at,
            'updated_at': request.updated_at,
            'instances': [describe_instance(store, row) for row in
                          store.list_instances(request_id=request.id)]}
