"""External-sampling MCCFR on abstracted heads-up limit hold'em (issue 10).

:class:`LimitESSolver` runs external-sampling Monte Carlo CFR (Lanctot, Waugh, Zinkevich and
Bowling 2009, "Monte Carlo Sampling for Regret Minimization in Extensive Games") on the same
betting tree (``game.betting_tree``) and the same float32 regret and strategy-sum layout as
:class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver` (per decision node an ``actions x states``
block; states: this round's bucket, or the bucket sequence with perfect recall). Everything that
reads a trained limit solver (the average strategy, the exact abstract exploitability of
:mod:`pokerlab.evaluate.limit_abstract`, the real-game best response of
:mod:`pokerlab.evaluate.limit_real`, :func:`~pokerlab.evaluate.limit_matches.strategy_agent`,
duplicate matches, checkpoints) works on it unchanged.

An iteration deals both players' hole cards and the board (nine distinct cards, so card removal
is exact), maps them to each player's private state per round and walks the betting tree once
per player in turn: the traverser explores all its actions, the opponent samples one from its
current strategy; the showdown compares the real seven-card hands. Where public chance sampling
updates every hand of a sampled board with whole vectors (about 0.1 s per iteration on the
24-card deck), an external-sampling iteration touches one deal and a few hundred nodes (about
10 microseconds), so it fits when the abstract game is large and many cheap noisy updates beat
few exact ones (Lanctot et al. 2009; Johanson et al. 2012 compare the two on limit hold'em).

:class:`LimitESSolver` is the Monte Carlo front (:class:`~pokerlab.solvers.sampling.SampledCFR`,
as :class:`~pokerlab.solvers.mccfr.MCCFRSolver` and
:class:`~pokerlab.solvers.postflop_mccfr.PostflopMCCFR`) with the betting tree's sampled pass
(:class:`~pokerlab.solvers.betting_sampled.BettingSampledPass`). Discounting uses the engine's
schedules (:mod:`pokerlab.solvers.schedule`), applied every ``discount_every`` iterations (block
j weighs as the schedule weighs iteration j; Pluribus discounted every 10 minutes). Predictive and
hyperparameter schedules are refused by name: a sampled regret is a poor prediction of the next
one, and a horizon counted in iterations does not fit blocks. Regret-based pruning
(``regret_pruning``; Pluribus, Brown and Sandholm 2019) as in the MCCFR solver; the last round
and actions into terminals are never pruned.

Randomness: one xoshiro256** state (:mod:`pokerlab._rng`, ``seed_state(seed)``), nine draws per
deal and one per opponent decision (and one per traversal with pruning), saved in
:meth:`state_dict`, so a resumed run equals an uninterrupted one bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab._rng import kernel_seed
from pokerlab.abstraction.buckets import CardAbstraction, build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.games.registry import load_game
from pokerlab.solvers.betting_sampled import BettingSampledVerbs
from pokerlab.solvers.limit_base import LimitAbstractSolver
from pokerlab.solvers.sampling import SampledCFR
from pokerlab.solvers.schedule import DiscountSchedule

__all__ = [
    "LimitESSolver",
    "OLD_FORMAT",
    "SAMPLING_NAMES",
    "restore_limit_es",
]

#: The ``--sampling`` names of the limit hold'em trainers: public chance sampling (vectors over
#: every hand of a sampled board) and external sampling (one deal per iteration).
SAMPLING_NAMES = ("pcs", "es")
#: The ``format`` of this solver's states before the engine's schema (still loaded).
OLD_FORMAT = "limit-es"


class LimitESSolver(BettingSampledVerbs, SampledCFR, LimitAbstractSolver):
    """External-sampling MCCFR on ``game``'s betting tree with ``abstraction``'s buckets: the
    Monte Carlo front (:class:`~pokerlab.solvers.sampling.SampledCFR`: options, block schedule,
    state schema) with the betting tree's sampled pass
    (:class:`~pokerlab.solvers.betting_sampled.BettingSampledPass`), and the
    limit solvers' layout, strategies and stopping loop
    (:class:`~pokerlab.solvers.limit_base.LimitAbstractSolver`).

    Parameters
    ----------
    game, abstraction, recall:
        As :class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver`.
    algorithm:
        A discount schedule by name or a :class:`DiscountSchedule` (``"linear"`` by default:
        Linear CFR, as Pluribus; ``"cfr+"``, ``"cfr"``, ``"dcfr"``, ``"dcfr+"``). Predictive
        (``pcfr+``, ``pdcfr+``, ``hs-pcfr+``) and hyperparameter (``hs-dcfr``) schedules are
        refused by name.
    seed:
        Seed of the deals and the opponent's sampled actions (an integer >= 0 or a Generator).
    discount_every:
        Apply the schedule's discount every this many iterations (1 .. 2**53).
    regret_pruning:
        Pluribus' regret-based pruning (not with a regret floor such as CFR+'s, where no regret
        is below a negative threshold).
    prune_threshold:
        Regret (big blinds) below which an action may be pruned; default -25 times the largest
        terminal amount of the tree.
    prune_probability:
        Fraction of traversals that prune (Pluribus: 0.95).
    min_regret:
        Lower bound of the regrets (big blinds); default with pruning: ``prune_threshold *
        310 / 300`` (Pluribus' ratio), else none.
    max_bytes:
        Refuse (before allocating) when the regrets and sums would need more.

    Its state is the engine's schema (format 1, ``algorithm`` ``"es-mccfr"``, the schedule and
    options in ``config``) with the run's identity also flat (``schedule``, ``recall``,
    ``ranks``, ``buckets``, ``bucketing``, ``sampling``) for readers of checkpoint files; a
    state of the format before (``"limit-es"``) still loads (:meth:`load_state_dict`).
    """

    _default_every = 1000

    def __init__(
        self,
        game: LimitHoldemGame,
        abstraction: CardAbstraction,
        *,
        recall: str = "imperfect",
        algorithm: str | DiscountSchedule = "linear",
        seed: int | np.random.Generator = 0,
        discount_every: int = 100,
        regret_pruning: bool = False,
        prune_threshold: float | None = None,
        prune_probability: float = 0.95,
        min_regret: float | None = None,
        max_bytes: int = 8 << 30,
    ) -> None:
        seed_value = kernel_seed(seed)
        self._setup(game, abstraction, recall, algorithm, seed_value, max_bytes)
        largest = float(np.max(np.abs(self.tree.payoff_table)))
        self._set_betting_options(
            self.schedule,
            regret_pruning,
            prune_threshold,
            largest,
            prune_probability,
            min_regret,
            discount_every,
            None,
        )
        self.num_players = 2
        need = self.size * self.bytes_per_infoset_action
        if need > max_bytes:
            raise PokerlabError(
                f"the abstract game needs about {need / 2**30:.1f} GiB "
                f"({self.size:,} information-set actions); limit {max_bytes / 2**30:.1f} GiB"
            )
        self._make_pass(game.rules.cards)

    @property
    def regret_pruning(self) -> bool:
        """Whether regret-based pruning is on (the front's ``prune``)."""
        return self.prune

    # --- the state: the front's schema with the run's identity ----------------------------------
    def _backend_config(self) -> dict[str, Any]:
        return {
            "recall": self.recall,
            "ranks": self.game.rules.ranks,
            "buckets": list(self.abstraction.buckets),
            "bucketing": self.abstraction.method,
        }

    def state_dict(self) -> dict[str, Any]:
        """The front's state (:meth:`SampledCFR.state_dict`) plus, flat, the run's identity as
        limit hold'em checkpoints name it (what the file viewer shows)."""
        return {
            **super().state_dict(),
            "sampling": "es",
            "schedule": self.schedule.name,
            "recall": self.recall,
            "ranks": self.game.rules.ranks,
            "buckets": list(self.abstraction.buckets),
            "bucketing": self.abstraction.method,
        }

    #: The fields a ``"limit-es"`` state (the format before the engine's schema) must share.
    _OLD_CHECKED = (
        "schedule",
        "recall",
        "ranks",
        "buckets",
        "bucketing",
        "discount_every",
        "regret_pruning",
        "prune_threshold",
        "prune_probability",
        "min_regret",
    )

    def _upgrade_state(self, state: dict[str, Any]) -> dict[str, Any]:
        """A ``"limit-es"`` state in the engine's schema, once its flat fields are checked
        against this run's (a field that differs is refused by name); other states as given."""
        if state.get("format") != OLD_FORMAT:
            return state
        mine = {
            **self._backend_config(),
            "schedule": self.schedule.name,
            "discount_every": self.discount_every,
            "regret_pruning": self.prune,
            "prune_threshold": self.prune_threshold,
            "prune_probability": self.prune_probability,
            "min_regret": self.min_regret,
        }
        for key in self._OLD_CHECKED:
            if state.get(key) != mine[key]:
                raise PokerlabError(
                    f"checkpoint of another run: {key} {state.get(key)!r}, this run {mine[key]!r}"
                )
        game, params, representation = self._state_game()
        return {
            **state,
            "format": self.state_format,
            "algorithm": self.algorithm,
            "game": state.get("game", game),
            "game_params": state.get("game_params", params),
            "representation": representation,
            "config": self._config(),
            "extra": {"linear_until_reached": None, **self._old_extra(state)},
        }

    def _old_extra(self, state: dict[str, Any]) -> dict[str, Any]:
        """What a ``"limit-es"`` state kept flat that the schema keeps in ``extra``."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from :meth:`state_dict` (or a loaded checkpoint), also of the format before
        the engine's schema (``"limit-es"``); another run, or another solver's state, is
        refused naming what differs."""
        fmt = state.get("format")
        if fmt not in (self.state_format, OLD_FORMAT):
            raise PokerlabError(
                f"checkpoint of another run: format {fmt!r}, this run {self.state_format!r} "
                "(external sampling; or 'limit-es' before the engine's state schema)"
            )
        super().load_state_dict(self._upgrade_state(state))


def restore_limit_es(
    state: dict[str, Any], game: LimitHoldemGame | None = None, *, cache: bool = True
) -> LimitESSolver:
    """The :class:`LimitESSolver` of a state in the engine's schema (:meth:`state_dict`, for
    example a loaded checkpoint): the game from ``game_params`` unless ``game`` is given, the
    card abstraction rebuilt (or read from the cache, ``cache``) from ``config``, the run's
    options from ``config``. A ``"limit-es"`` state (the format before) restores through
    :func:`pokerlab.solvers.limit_checkpoint.restore_limit_solver`."""
    if state.get("format") != LimitESSolver.state_format or state.get("algorithm") != "es-mccfr":
        raise PokerlabError(
            f"not an external-sampling limit hold'em state (format {state.get('format')!r}, "
            f"algorithm {state.get('algorithm')!r})"
        )
    config = state["config"]
    if game is None:
        game = load_game("limit-holdem", **state["game_params"])
    abstraction = build_abstraction(
        game.rules.ranks,
        tuple(config["buckets"]),
        config["bucketing"],
        seed=int(state.get("seed", 0)),
        cache=cache,
    )
    solver = LimitESSolver(
        game,
        abstraction,
        recall=config["recall"],
        algorithm=DiscountSchedule(**config["schedule"]),
        discount_every=int(config["discount_every"]),
        regret_pruning=bool(config["prune"]),
        prune_threshold=float(config["prune_threshold"]),
        prune_probability=float(config["prune_probability"]),
        min_regret=config["min_regret"],
    )
    solver.load_state_dict(state)
    return solver
