"""QoS-driven preemption: keep every service class at its availability SLO.

A request p may displace a running instance k on a host when

* p precedes k in the ``qos_slack`` queue order (were k pending now),
* k's preemption overhead ratio is below its class threshold, and
* k is safe (its time to violation is at least its safety margin), or p's
  class is more important than k's.

Among the feasible hosts the smallest preemption cost score wins:
``(s_1, ..., s_m, s_safe)`` compared lexicographically, where ``s_i`` sums
``margin - Q_k`` over the at-risk victims of the i-th most important class
and ``s_safe`` is ``1 / sum(Q_k - margin)`` over the safe victims (0 when
there are none): the more slack the safe victims have, the cheaper.
"""

import math

from preemptible_sched.conf import CONF
from preemptible_sched import preemption
from preemptible_sched import qos


class QoSPolicy(preemption.BasePreemptionPolicy):
    """Preempt where it hurts no class's SLO, most slack first."""

    time_dependent = True

    def __init__(self, classes=None, exempt=None):
        self.classes = classes or qos.Classes()
        self.exempt = (CONF.qos.preempt_exempt_seconds if exempt is None
                       else exempt)
        self.importances = sorted({cls.importance for cls in self.classes})

    def may_preempt(self, request, now):
        return qos.request_account(request, self.classes, now).at_risk

    def candidates(self, state, request, now):
        mine = qos.request_account(request, self.classes, now)
        if not mine.at_risk:
            return []
        key = mine.slack_key()
        exempt_until = now - self.exempt
        chosen = []
        for instance in state.instances.values():
            if instance.running_since is None or \
                    instance.running_since > exempt_until:
                continue
            theirs = qos.instance_account(instance, self.classes, now)
            if not theirs.may_be_preempted_again:
                continue
            if not key < theirs.slack_key():
                continue
            if theirs.at_risk and not (mine.service_class.importance <
                                       theirs.service_class.importance):
                continue
            chosen.append(instance)
        return chosen

    def keep_order(self, candidates, request, now):
        # Most at risk first: they are the last to be preempted.
        return sorted(candidates, key=lambda instance: (
            qos.instance_account(instance, self.classes, now).slack_key(),
            instance.id))

    def score(self, victims, request, now):
        at_risk = dict.fromkeys(self.importances, 0.0)
        safe_slack = 0.0
        safe = 0
        for instance in victims:
            account = qos.instance_account(instance, self.classes, now)
            margin = account.service_class.safety_margin
            if account.at_risk:
                importance = account.service_class.importance
                at_risk[importance] = (at_risk.get(importance, 0.0) +
                                       margin - account.time_to_violation)
            else:
                safe += 1
                safe_slack += account.time_to_violation - margin
        if not safe:
            safe_term = 0.0
        elif safe_slack <= 0 or math.isinf(safe_slack):
            safe_term = math.inf if safe_slack <= 0 else 0.0
        else:
            safe_term = 1.0 / safe_slack
        return tuple(at_risk[key] for key in sorted(at_risk)) + (safe_term,)
