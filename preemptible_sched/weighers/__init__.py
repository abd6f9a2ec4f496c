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
from preemptible_sched import loadables

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
    minval = None
    maxval = None

    def _weigh_object(self, host_view, spec):
        """Raw weight of one host for ``spec``; higher is better.

        None means the host cannot take the request at all (possible only
        when the filters let such a host through): it is then weighed one
        below the lowest weight of the other hosts, so it ranks last.
        """
        raise NotImplementedError()

    def weigh_objects(self, host_views, spec):
        """Raw weights of all ``host_views``; override to vectorise."""
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
        return getattr(CONF.filter_scheduler, self.multiplier_option(), 1.0)


class WeighedHost:
    """A candidate host with its total weight and, optionally, the parts."""

    __slots__ = ('view', 'weight', 'details')

    def __init__(self, view, weight=0.0, details=None):
        self.view = view
        self.weight = weight
        self.details = details

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

    def get_weighed_objects(self, host_views, spec, explain=False):
        """Return :class:`WeighedHost` objects, best first.

        With ``explain`` each one's ``details`` maps weigher name to
        ``{"raw", "normalized", "multiplier"}``. Equal totals keep the order
        of ``host_views`` (the random pick among equals is the caller's).
        """
        weighed = [WeighedHost(view, 0.0, {} if explain else None)
                   for view in host_views]
        debug = LOG.isEnabledFor(logging.DEBUG)
        for weigher in self.weighers:
            raw = weigher.weigh_objects(host_views, spec)
            normalized = normalize(rank_last(raw), weigher.minval,
                                   weigher.maxval)
            default = weigher.default_multiplier()
            if not explain and not debug and not any(normalized):
                continue    # all equal: this weigher changes no ranking
            for item, raw_weight, norm in zip(weighed, raw, normalized):
                host = item.view.host
                multiplier = (weigher.weight_multiplier(host)
                              if host.aggregate_metadata else default)
                item.weight += multiplier * norm
                if item.details is not None:
                    item.details[weigher.name] = {
                        'raw': raw_weight, 'normalized': norm,
                        'multiplier': multiplier}
                if debug:
                    LOG.debug('Weigher %s on host %s: raw %s, normalized '
                              '%s, multiplier %s', weigher.name, host.name,
                              raw_weight, norm, multiplier)
        weighed.sort(key=lambda item: -item.weight)
        return weighed
