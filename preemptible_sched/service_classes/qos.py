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

"""The QoS model: service classes with availability SLOs, and its formulas.

For an instance j of class c admitted (first submitted) at a_j, with r_j(t)
seconds spent running and o_j(t) seconds of allocation overhead (placement
to running, summed over every start) up to t:

* availability          A_j(t) = r_j(t) / (t - a_j)
* time to violation     Q_j(t) = r_j(t) / slo_c - (t - a_j)
  (how long j could still wait from t without breaking its SLO; negative
  when it already does)
* at risk               Q_j(t) < safety_margin_c
* preemption overhead   PO_j = o_j / (o_j + r_j), compared with the
  threshold 1 - slo_c + overhead_threshold_extra_c: an instance that has
  reached it is not preempted again.

Everything here is a pure function of numbers and the configuration; the
loop keeps the accounts, the policies read them.
"""

import dataclasses
import math
import typing

from preemptible_sched.conf import CONF
from preemptible_sched.conf import qos as qos_conf
from preemptible_sched import exception


@dataclasses.dataclass(frozen=True)
class ServiceClass:
    name: str
    slo: float
    importance: int
    priority: float
    safety_margin: float = 10.0
    overhead_threshold_extra: float = 0.0

    @property
    def overhead_threshold(self):
        """PO at which an instance of the class is no longer preempted."""
        return 1.0 - self.slo + self.overhead_threshold_extra


#: What a request or instance without a class is: no SLO to keep.
NO_CLASS = ServiceClass(name='none', slo=0.0, importance=math.inf,
                        priority=0.0, safety_margin=0.0,
                        overhead_threshold_extra=1.0)


def load_classes(conf=CONF):
    """``{name: ServiceClass}`` from ``[qos]`` and the class groups.

    Raises InvalidInput naming the option when a class is incomplete.
    """
    names = [name.strip() for name in conf.qos.service_classes
             if name.strip()]
    if not names:
        raise exception.InvalidInput('[qos] service_classes', None,
                                     'must name at least one class')
    groups = {name: conf[qos_conf.register_class(conf, name)]
              for name in names}
    for name, group in groups.items():
        for option in ('slo', 'importance'):
            if group[option] is None:
                raise exception.InvalidInput(
                    '[service_class_%s] %s' % (name, option), None,
                    'must be set for service class %r' % name)
    classes = {}
    for name, group in groups.items():
        priority = group.priority
        if priority is None:
            priority = float(len(names) + 1 - group.importance)
        classes[name] = ServiceClass(
            name=name, slo=group.slo, importance=group.importance,
            priority=priority, safety_margin=group.safety_margin,
            overhead_threshold_extra=group.overhead_threshold_extra)
    default = conf.qos.default_service_class
    if default and default not in classes:
        raise exception.InvalidInput(
            '[qos] default_service_class', None,
            '%r is not one of the service classes (%s)'
            % (default, ', '.join(names)))
    return classes


class Classes:
    """The configured classes, with the default for requests naming none."""

    def __init__(self, classes=None, default=None):
        self.by_name = load_classes() if classes is None else dict(classes)
        if default is None and classes is None:
            default = CONF.qos.default_service_class
        self.default = self.by_name[default] if default else NO_CLASS

    def get(self, name):
        """The class called ``name``; the default one for None or unknown.

        Requests are validated on submission, so an unknown name here is a
        class removed from the configuration since; it keeps no SLO.
        """
        if name is None:
            return self.default
        return self.by_name.get(name, NO_CLASS)

    def require(self, name, source, field):
        """Raise InvalidInput (``source``, ``field``) unless ``name`` is
        None or a configured class.
        """
        if name is not None and name not in self.by_name:
            raise exception.InvalidInput(
                source, field, 'unknown service class %r (valid: %s)' % (
                    name, ', '.join(sorted(self.by_name))))

    def admit(self, spec, source, field):
        """``spec`` (a request) as the scheduler takes it: its class
        checked (:meth:`require`) and its priority :meth:`prioritised`.
        The loop and ``decide`` both admit requests through here.
        """
        self.require(spec.service_class, source, field)
        return self.prioritised(spec)

    def prioritised(self, item):
        """``item`` (a request or an instance); when it names a class and
        gives no priority of its own (0), a copy with its class's priority.
        """
        if item.service_class is None or item.priority:
            return item
        return dataclasses.replace(
            item, priority=self.get(item.service_class).priority)

    def __contains__(self, name):
        return name in self.by_name

    def __iter__(self):
        return iter(self.by_name.values())


# -- formulas -------------------------------------------------------------

def availability(running_s, admitted_at, now):
    """A(t) = r / (t - a); None while no time has passed since admission."""
    span = now - admitted_at
    if span <= 0:
        return None
    return running_s / span


def time_to_violation(running_s, admitted_at, now, slo):
    """Q(t) = r / slo - (t - a); +inf for a class without an SLO."""
    if slo <= 0:
        return math.inf
    return running_s / slo - (now - admitted_at)


def overhead_ratio(overhead_s, running_s):
    """PO = o / (o + r); 0 before anything happened."""
    total = overhead_s + running_s
    if total <= 0:
        return 0.0
    return overhead_s / total


class Account(typing.NamedTuple):
    """The QoS state of one request or instance at one moment."""

    service_class: ServiceClass
    admitted_at: float
    running_s: float
    overhead_s: float
    now: float

    @property
    def availability(self):
        return availability(self.running_s, self.admitted_at, self.now)

    @property
    def time_to_violation(self):
        return time_to_violation(self.running_s, self.admitted_at,
                                 self.now, self.service_class.slo)

    @property
    def at_risk(self):
        return self.time_to_violation < self.service_class.safety_margin

    @property
    def overhead_ratio(self):
        return overhead_ratio(self.overhead_s, self.running_s)

    @property
    def may_be_preempted_again(self):
        # The tolerance absorbs rounding: 1 - 0.7 is 0.30000000000000004.
        return (self.overhead_ratio <
                self.service_class.overhead_threshold - 1e-9)

    def slack_key(self):
        """Position in the ``qos_slack`` order (smaller goes first).

        At-risk first, by class importance then time to violation; then
        the others by time to violation. Ties: admission time.
        """
        ttv = self.time_to_violation
        if self.at_risk:
            return (0, self.service_class.importance, ttv, self.admitted_at)
        return (1, 0, ttv, self.admitted_at)


def instance_account(instance, classes, now):
    """The :class:`Account` of a placed ``objects.Instance`` at ``now``."""
    running = instance.running_s
    if instance.running_since is not None:
        running += max(0.0, now - instance.running_since)
    admitted = (instance.admitted_at if instance.admitted_at is not None
                else instance.started_at)
    return Account(classes.get(instance.service_class), admitted, running,
                   instance.overhead_s, now)


def request_account(request, classes, now):
    """The :class:`Account` of a pending request (``PendingRequest``)."""
    return Account(classes.get(request.spec.service_class),
                   request.submitted_at, request.running_s,
                   request.overhead_s, now)
