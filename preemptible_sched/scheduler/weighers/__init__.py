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

A weigher returns a raw weight per host (always seen through its full
view), and writes its rule once: for a whole
:class:`~preemptible_sched.hosts.batch.HostBatch` at once by overriding
:meth:`BaseHostWeigher.weigh_all` (the built-in weighers do), or for one
host by overriding :meth:`BaseHostWeigher._weigh_object`; the base class
derives the other forms from the one written.
As in Nova, the raw weights of one weigher are normalised to [0, 1] over
the candidate hosts, multiplied by the weigher's multiplier, and summed
over weighers; the highest total wins. A weigher whose raw weight is dear
to compute exactly (a termination plan per host) may return
:class:`Bounds` instead, and the handler asks for exact values only on the
hosts that can still win (see
:mod:`preemptible_sched.scheduler.weighers.ranking`). Weighers are registered
in the ``preemptible_sched.weighers`` namespace.
"""

import logging

import numpy

from preemptible_sched.conf import CONF
from preemptible_sched.conf import plugins
from preemptible_sched.hosts import batch as host_batch
from preemptible_sched import loadables
from preemptible_sched import objects
from preemptible_sched.scheduler.weighers import ranking

LOG = logging.getLogger(__name__)


def normalize(weights, minval=None, maxval=None):
    """Scale ``weights`` to [0, 1]: (w - min) / (max - min).

    ``minval``/``maxval`` fix the bounds instead of the observed ones (and
    the weights are clamped to them); when the bounds are equal every
    weight normalises to 0.
    """
    if not len(weights):
        return []
    return ranking.normalize_vector(numpy.asarray(weights, dtype=float),
                                    minval, maxval).tolist()


def rank_last(weights):
    """Replace None weights by one less than the lowest other weight."""
    if None not in weights:
        return weights
    known = [weight for weight in weights if weight is not None]
    floor = min(known) - 1 if known else -1.0
    return [floor if weight is None else weight for weight in weights]


Bounds = ranking.Bounds
#: The forms a weigher may write its rule in (it writes at least one).
_FORMS = ('weigh_all', 'weigh_objects', '_weigh_object')


class BaseHostWeigher:
    """Base of every host weigher.

    ``minval``/``maxval``, when set, are the bounds used to normalise
    instead of the smallest and largest raw weight seen.
    """

    #: Its entry-point name: each class declares it (``name = 'ram'``).
    #: A third-party class that declares none still loads; the loader sets
    #: the name on the object (:func:`preemptible_sched.loadables.named`).
    name = None
    #: Default of ``[filter_scheduler] <name>_weight_multiplier``.
    multiplier_default = 1.0
    minval = None
    maxval = None
    #: The Python type of a raw weight in explanations.
    raw_type = float

    def _weigh_object(self, host_view, spec):
        """Raw weight of one host for ``spec``; higher is better.

        None means the host cannot take the request at all (possible only
        when the filters let such a host through): it is then weighed one
        below the lowest weight of the other hosts, so it ranks last. By
        default :meth:`weigh_objects` weighs that one host.
        """
        self._written('weigh_all', 'weigh_objects')
        return self.weigh_objects([host_view], spec)[0]

    def weigh_objects(self, host_views, spec, context=None):
        """Raw weights of all ``host_views`` (None: cannot take it).

        ``context`` is the :class:`~preemptible_sched.objects.PassContext`
        of the decision (its ``now``). By default a weigher that weighs
        batches weighs the batch of these views, and one that weighs one
        host weighs each in turn.
        """
        if 'weigh_all' not in self._written('weigh_all', '_weigh_object'):
            return [self._weigh_object(view, spec) for view in host_views]
        raw = self.weigh_all(host_batch.HostBatch.of_views(host_views), spec,
                             context or objects.PassContext())
        if isinstance(raw, Bounds):
            raw = raw.resolve(numpy.arange(len(raw.low)))
        return [None if weight != weight else weight
                for weight in numpy.asarray(raw, dtype=float).tolist()]

    def weigh_all(self, batch, spec, context):
        """Raw weights of every host of ``batch``: a float vector (NaN for
        None) or :class:`Bounds`.

        By default the hosts' views are handed to :meth:`weigh_objects`.
        """
        self._written('weigh_objects', '_weigh_object')
        raw = self.weigh_objects(batch.views(), spec, context)
        return numpy.array([numpy.nan if weight is None else weight
                            for weight in raw], dtype=float)

    def _written(self, *forms):
        """Which of ``forms`` this weigher's class overrides; at least one,
        or it has no rule to derive the asked form from.
        """
        written = [name for name in forms
                   if getattr(type(self), name) is not
                   getattr(BaseHostWeigher, name)]
        if not written:
            raise NotImplementedError(
                'host weigher %r overrides none of %s' % (
                    self.name, ', '.join(_FORMS)))
        return written

    def multiplier_option(self):
        return '%s_weight_multiplier' % self.name

    def weight_multiplier(self, host_state):
        """The multiplier for ``host_state`` (or a host profile).

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
                            getattr(host_state, 'name', 'profile'))
        return self.default_multiplier()

    def default_multiplier(self):
        plugins.register_opts(CONF)
        return getattr(CONF.filter_scheduler, self.multiplier_option(),
                       self.multiplier_default)

    def multipliers(self, batch, default=None):
        """The multiplier of every host of ``batch``: the default (or
        ``default``) as a number when no host overrides it, else a vector.
        """
        if default is None:
            default = self.default_multiplier()
        profiles = batch.profiles
        if not any(profile.aggregate_metadata for profile in profiles):
            return default
        values = numpy.array([
            self.weight_multiplier(profile) if profile.aggregate_metadata
            else default for profile in profiles], dtype=float)
        return values[batch.profile]


class TerminationWeigher(BaseHostWeigher):
    """Base of the weighers that rank hosts by their termination sets.

    The weight of a host is 0 when the request fits its full view and
    minus the price of its cheapest termination set otherwise
    (:meth:`_weigh`, one host). Over a batch of the host table the
    planner gives bounds for every host at once, and exact sets are
    planned only where they can change the ranking.
    """

    #: Price every instance 1 (the number of victims), not its cost.
    unit_costs = False

    @staticmethod
    def _weigh(host_view, resources, now):
        raise NotImplementedError()

    def weigh_objects(self, host_views, spec, context=None):
        now = 0.0 if context is None else context.now
        return [self._weigh(view, spec.resources, now)
                for view in host_views]

    def weigh_all(self, batch, spec, context):
        planner = batch.table.planner if batch.table is not None else None
        if not batch.is_full or not hasattr(planner, 'bounds'):
            return super().weigh_all(batch, spec, context)
        resources = spec.resources
        now = context.now
        fits = batch.fits(resources)
        if fits.all():
            return numpy.zeros(len(batch))
        candidates = planner.candidates(batch, now, self.unit_costs)
        low, high = planner.bounds(batch, resources, now,
                                   unit=self.unit_costs,
                                   candidates=candidates)

        def resolve(positions):
            # Every host at once where its cheapest set is small, the
            # exact selector one host at a time elsewhere.
            cost, proven = planner.exact_costs(batch, resources, now,
                                               positions, self.unit_costs,
                                               candidates)
            fitting = fits[positions]
            weights = numpy.where(fitting, 0.0, -cost)
            for index in numpy.flatnonzero(~(proven | fitting)).tolist():
                weight = self._weigh(batch.view(int(positions[index])),
                                     resources, now)
                weights[index] = numpy.nan if weight is None else weight
            return weights.tolist()
        # The dearest termination set is the lowest weight; a host the
        # request fits weighs +0.0, as one host at a time.
        low, high = -high, -low
        low[fits] = 0.0
        high[fits] = 0.0
        return Bounds(low, high, resolve)


WeighedHost = ranking.WeighedHost


class WeightHandler:
    """Runs the enabled weighers and ranks the candidates."""

    def __init__(self, weighers):
        self.weighers = list(weighers)

    @classmethod
    def from_names(cls, names):
        return cls(loadables.load_plugins(
            'preemptible_sched.weighers', names,
            'filter_scheduler', 'weighers'))

    def rank(self, batch, spec, context=None):
        """A :class:`~preemptible_sched.scheduler.weighers.ranking.Ranking` of
        the hosts of ``batch``.
        """
        if context is None:
            context = objects.PassContext()
        columns = []
        for weigher in self.weighers:
            default = weigher.default_multiplier()
            columns.append((weigher, weigher.weigh_all(batch, spec, context),
                            weigher.multipliers(batch, default), default))
        return ranking.Ranking(batch, columns)

    def get_weighed_objects(self, host_views, spec, context=None):
        """Return :class:`WeighedHost` objects, best first.

        Each one's ``details`` gives, per weigher, its raw and normalised
        weight and multiplier on that host. Equal totals keep the order of
        ``host_views`` (the random pick among equals is the caller's).
        """
        ranking = self.rank(host_batch.HostBatch.of_views(host_views), spec,
                            context)
        return [ranking.weighed(index) for index in ranking.order()]
