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

"""QoS-driven preemption: keep every service class at its availability SLO.

A request p may displace a running instance k on a host when

* p precedes k in the ``qos_slack`` queue order (were k pending now),
* k's preemption overhead ratio is below its class threshold, and
* k is safe (its time to violation is at least its safety margin), or p's
  class is more important than k's.

Two rules go beyond the published policy (``[qos] literal_policy`` turns
both off): only an at-risk request preempts, and an instance is exempt for
``[qos] preempt_exempt_seconds`` after each start.

Among the feasible hosts the smallest preemption cost score wins:
``(s_1, ..., s_m, s_safe)`` compared lexicographically, where ``s_i`` sums
``margin - Q_k`` over the at-risk victims of the i-th most important class
and ``s_safe`` is ``1 / sum(Q_k - margin)`` over the safe victims (0 when
there are none): the more slack the safe victims have, the cheaper.
"""

import math

from preemptible_sched.conf import CONF
from preemptible_sched.scheduler import preemption_strategies as preemption
from preemptible_sched.service_classes import qos


class QoSStrategy(preemption.ClassBasedStrategy):
    """Preempt where it hurts no class's SLO, most slack first.

    Goes with the ``qos_slack`` queue policy (its default) and the
    ``allocation_score`` weigher; victims are requeued (the QoS model)
    unless ``[scheduler] on_victim = terminate``. Options: ``[qos]``.
    """

    name = 'qos'
    default_queue_policy = 'qos_slack'

    def __init__(self, classes=None, exempt=None, literal=None,
                 booting=None):
        self.classes = classes or qos.Classes()
        self.booting = (CONF.qos.preempt_booting if booting is None
                        else booting)
        self.literal = (CONF.qos.literal_policy if literal is None
                        else literal)
        if self.literal:
            exempt = 0.0
        self.exempt = (CONF.qos.preempt_exempt_seconds if exempt is None
                       else exempt)
        self._memo = {}

    @classmethod
    def from_conf(cls, conf):
        return cls(qos.Classes(qos.load_classes(conf),
                               conf.qos.default_service_class or None),
                   exempt=conf.qos.preempt_exempt_seconds,
                   literal=conf.qos.literal_policy,
                   booting=conf.qos.preempt_booting)

    def next_change(self, states, pending, now):
        """When a time to violation, exempt time or overhead ratio next
        crosses a threshold that decides who may preempt whom.

        Pending requests lose one second of slack per second and become at
        risk; running instances gain ``1/slo - 1`` per second and become
        safe, leave their exempt time, and see their overhead ratio fall
        below the threshold. (The queue order between a request and a
        candidate never decides alone: an at-risk request precedes every
        safe instance and every instance of a less important class.)

        Under the literal policy a request that is not at risk may preempt
        too, and the order between it and a safe instance changes with
        time alone: any moment may change the outcome (the loop then
        passes on its watchdog).
        """
        if self.literal and pending:
            return now
        horizon = math.inf
        for entry in pending:
            account = qos.request_account(entry, self.classes, now)
            if not account.at_risk and \
                    not math.isinf(account.time_to_violation):
                horizon = min(horizon, now + account.time_to_violation -
                              account.service_class.safety_margin)
        for state in states:
            for instance in state.instances.values():
                if instance.running_since is None:
                    continue        # its start is an event
                exempt_end = instance.running_since + self.exempt
                if exempt_end > now:
                    horizon = min(horizon, exempt_end)
                account = qos.instance_account(instance, self.classes, now)
                cls = account.service_class
                if account.at_risk and 0 < cls.slo < 1:
                    horizon = min(horizon, now + (
                        cls.safety_margin - account.time_to_violation) /
                        (1 / cls.slo - 1))
                threshold = cls.overhead_threshold
                if not account.may_be_preempted_again and \
                        0 < threshold < 1:
                    horizon = min(horizon, now + account.overhead_s *
                                  (1 - threshold) / threshold -
                                  account.running_s)
        return max(horizon, now)

    def may_preempt(self, request, now):
        return self.literal or qos.request_account(
            request, self.classes, now).at_risk

    def displaceable(self, state, request, now):
        mine = qos.request_account(request, self.classes, now)
        if not mine.at_risk and not self.literal:
            return []
        key = mine.slack_key()
        importance = mine.service_class.importance
        return [instance for instance, theirs, at_risk, their_importance
                in self._eligible(state, now)
                if key < theirs and
                (not at_risk or importance < their_importance)]

    def _eligible(self, state, now):
        """Instances of ``state`` past their exempt time (booting ones with
        ``[qos] preempt_booting``) and below their overhead threshold, with
        their slack keys, at risk flags and importances; memoised per host
        until it or the time changes (a pass asks once per pending
        request).
        """
        memo_key = (state.generation, now)
        memo = self._memo.get(state.name)
        if memo is not None and memo[0] == memo_key:
            return memo[1]
        exempt_until = now - self.exempt
        eligible = []
        for instance in state.displaceable_instances():
            if instance.running_since is None:
                if not self.booting:
                    continue
            elif instance.running_since > exempt_until:
                continue
            account = qos.instance_account(instance, self.classes, now)
            if not account.may_be_preempted_again:
                continue
            eligible.append((instance, account.slack_key(), account.at_risk,
                             account.service_class.importance))
        self._memo[state.name] = (memo_key, eligible)
        return eligible

    def keep_order(self, candidates, request, now):
        # Most at risk first: they are the last to be preempted.
        return sorted(candidates, key=lambda instance: (
            qos.instance_account(instance, self.classes, now).slack_key(),
            instance.id))

    def victim_standing(self, instance, request, now):
        # At risk: its deficit counts at its class's importance; safe: its
        # slack, the more the cheaper (see preemption.plan_scores).
        account = qos.instance_account(instance, self.classes, now)
        cls = account.service_class
        return preemption.Standing(cls.importance, cls.safety_margin,
                                   account.time_to_violation)
