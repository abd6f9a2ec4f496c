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

"""Host weighers: which of the hosts that passed is best.

A weigher overrides :meth:`BaseHostWeigher._weigh_object` and returns a raw
weight for one host (always seen through its full view). As in Nova, the raw
weights of one weigher are normalised to [0, 1] over the candidate hosts,
multiplied by the weigher's multiplier, and summed over weighers; the
highest total wins. Weighers are registered in the
``preemptible_sched.weighers`` namespace.
"""

import logging

from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from preemptible_sched import loadables
from preemptible_sched import objects

LOG = logging.getLogger(__name__)


def normalize(weights, minval=None, maxval=None):
    """Scale ``weights`` to [0, 1]: (w - min) / (max - min).

    ``minval``/``maxval`` fix the bounds instead of the observed ones (and
    the weights are clamped to them); when the bounds are equal every
    weight normalises to 0.
    """
    if not weights:
        return []
    if minval is not None or maxval is not None:
        low = minval
        high = maxval
        if low is None:
            low = min(min(weights), high)
        if high is None:
            high = max(max(weights), low)
        weights = [min(max(w, low), high) for w in weights]
    else:
        low, high = min(weights), max(weights)
    if high == low:
        return [0.0] * len(weights)
    span = float(high - low)
    return [(w - low) / span for w in weights]


def rank_last(weights):
    """Replace None weights by one less than the lowest other weight."""
    if None not in weights:
        return weights
    known = [weight for weight in weights if weight is not None]
    floor = min(known) - 1 if known else -1.0
    return [floor if weight is None else weight for weight in weights]


class BaseHostWeigher:
    """Base of every host weigher.

    ``minval``/``maxval``, when set, are the bounds used to normalise
    instead of the smallest and largest raw weight seen.
    """

    #: Entry-point name, set when the weigher is loaded.
    name = None
    #: Default of ``[filter_scheduler] <name>_weight_multiplier``.
    multiplier_default = 1.0
    minval = None
    maxval = None

    def _weigh_object(self, host_view, spec):
        """Raw weight of one host for ``spec``; higher is better.

        None means the host cannot take the request at all (possible only
        when the filters let such a host through): it is then weighed one
        below the lowest weight of the other hosts, so it ranks last.
        """
        raise NotImplementedError()

    def weigh_objects(self, host_views, spec, context=None):
        """Raw weights of all ``host_views``.

        ``context`` is the :class:`~preemptible_sched.objects.PassContext`
        of the decision (its ``now``). Override this instead of
        :meth:`_weigh_object` to vectorise, or to use the pass's time.
        """
        return [self._weigh_object(view, spec) for view in host_views]

    def multiplier_option(self):
        return '%s_weight_multiplier' % self.name

    def weight_multiplier(self, host_state):
        """The multiplier for ``host_state``.

        ``[filter_scheduler] <name>_weight_multiplier``, overridden by the
        metadata key of the same name on the host's aggregates (the smallest
        value wins when several aggregates set it, as in Nova).
        """
        option = self.multiplier_option()
        overrides = host_state.aggregate_metadata.get(option)
        if overrides:
            try:
                return min(float(value) for value in overrides)
            except ValueError:
                LOG.warning('Ignoring non-numeric aggregate metadata %s=%s '
                            'on host %s', option, sorted(overrides),
                            host_state.name)
        return self.default_multiplier()

    def default_multiplier(self):
        plugins.register_opts(CONF)
        return getattr(CONF.filter_scheduler, self.multiplier_option(),
                       self.multiplier_default)


class WeighedHost:
    """A candidate host with its total weight.

    ``details`` maps each weigher's name to ``{"raw", "normalized",
    "multiplier"}`` for this host; it is built on demand from the columns
    the handler computed, so ranking many hosts costs nothing extra.
    """

    __slots__ = ('view', 'weight', 'index', 'columns')

    def __init__(self, view, weight=0.0, index=0, columns=None):
        self.view = view
        self.weight = weight
        self.index = index
        self.columns = columns

    @property
    def details(self):
        details = {}
        for name, (raw, normalized, multipliers) in (
                self.columns or {}).items():
            multiplier = multipliers[self.index] \
                if isinstance(multipliers, list) else multipliers
            details[name] = {'raw': raw[self.index],
                             'normalized': normalized[self.index],
                             'multiplier': multiplier}
        return details

    def __repr__(self):
        return '<WeighedHost %s %.6g>' % (self.view.name, self.weight)


class WeightHandler:
    """Runs the enabled weighers and ranks the candidates."""

    def __init__(self, weighers):
        self.weighers = list(weighers)

    @classmethod
    def from_names(cls, names):
        return cls(loadables.load_plugins(
            'preemptible_sched.weighers', names,
            'filter_scheduler', 'weighers'))

    def get_weighed_objects(self, host_views, spec, context=None):
        """Return :class:`WeighedHost` objects, best first.

        Each one's ``details`` gives, per weigher, its raw and normalised
        weight and multiplier on that host. Equal totals keep the order of
        ``host_views`` (the random pick among equals is the caller's).
        """
        if context is None:
            context = objects.PassContext()
        columns = {}
        weighed = [WeighedHost(view, 0.0, index, columns)
                   for index, view in enumerate(host_views)]
        debug = LOG.isEnabledFor(logging.DEBUG)
        for weigher in self.weighers:
            raw = weigher.weigh_objects(host_views, spec, context)
            normalized = normalize(rank_last(raw), weigher.minval,
                                   weigher.maxval)
            default = weigher.default_multiplier()
            columns[weigher.name] = (raw, normalized, default)
            if not any(normalized):
                continue    # all 0: this weigher adds nothing to anyone
            multipliers = []
            for item, norm in zip(weighed, normalized):
                host = item.view.host
                multiplier = (weigher.weight_multiplier(host)
                              if host.aggregate_metadata else default)
                multipliers.append(multiplier)
                item.weight += multiplier * norm
            columns[weigher.name] = (raw, normalized, multipliers)
            if debug:
                for item, raw_weight, norm, multiplier in zip(
                        weighed, raw, normalized, multipliers):
                    LOG.debug('Weigher %s on host %s: raw %s, normalized '
                              '%s, multiplier %s', weigher.name,
                              item.view.name, raw_weight, norm, multiplier)
        weighed.sort(key=lambda item: -item.weight)
        return weighed
