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

Discounting uses the engine's schedules (:mod:`pokerlab.solvers.schedule`), applied every
``discount_every`` iterations as :class:`~pokerlab.solvers.mccfr.MCCFRSolver` does (block j
weighs as the schedule weighs iteration j; Pluribus discounted every 10 minutes). Predictive and
hyperparameter schedules are refused by name: a sampled regret is a poor prediction of the next
one, and a horizon counted in iterations does not fit blocks. Regret-based pruning
(``regret_pruning``; Pluribus, Brown and Sandholm 2019) as in the MCCFR solver; the last round
and actions into terminals are never pruned.

Randomness: one xoshiro256** state (:mod:`pokerlab._rng`, ``seed_state(seed)``), nine draws per
deal and one per opponent decision (and one per traversal with pruning), saved in
:meth:`state_dict`, so a resumed run equals an uninterrupted one bit for bit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pokerlab._rng import kernel_seed, seed_state
from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.cards.evaluator import eval_tables
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.solvers.limit_holdem import LimitAbstractSolver
from pokerlab.solvers.mccfr import block_params
from pokerlab.solvers.sampling import PLURIBUS_FLOOR_RATIO
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.tree._primitives import RegretPruning
from pokerlab.tree.betting import _mccfr_kernels as K
from pokerlab.tree.betting._kernels import BettingArrays

__all__ = ["LimitESSolver", "SAMPLING_NAMES"]

#: The ``--sampling`` names of the limit hold'em trainers: public chance sampling (vectors over
#: every hand of a sampled board) and external sampling (one deal per iteration).
SAMPLING_NAMES = ("pcs", "es")


class LimitESSolver(LimitAbstractSolver):
    """External-sampling MCCFR on ``game``'s betting tree with ``abstraction``'s buckets.

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
        Apply the schedule's discount every this many iterations (>= 1).
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
    """

    format = "limit-es"
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
        name = self.schedule.name
        if self.schedule.predictive:
            raise PokerlabError(
                f"schedule {name!r} is predictive: external sampling refuses it (a sampled "
                "regret is a poor prediction of the next one); use linear, cfr+, dcfr, dcfr+ "
                "or cfr"
            )
        if self.schedule.scheduled:
            raise PokerlabError(
                f"schedule {name!r} moves its exponents over a horizon of iterations: "
                "external sampling discounts in blocks and refuses it; use linear, cfr+, dcfr, "
                "dcfr+ or cfr"
            )
        if isinstance(discount_every, bool) or not 1 <= int(discount_every) <= 2**53:
            raise PokerlabError(
                f"discount_every must be 1 .. 2**53 iterations, got {discount_every!r}"
            )
        if not 0.0 <= prune_probability <= 1.0:
            raise PokerlabError(f"prune_probability must be in [0, 1], got {prune_probability}")
        if regret_pruning and self.schedule.regret_floor:
            raise PokerlabError(
                f"regret_pruning with schedule {name!r}: its regret floor keeps every regret "
                ">= 0, so nothing is ever below the (negative) pruning threshold"
            )
        tree = self.tree
        largest = float(np.max(np.abs(tree.payoff_table)))
        self.discount_every = int(discount_every)
        self.regret_pruning = bool(regret_pruning)
        self.prune_threshold = (
            -25.0 * largest if prune_threshold is None else float(prune_threshold)
        )
        self.prune_probability = float(prune_probability)
        if min_regret is None and self.regret_pruning and self.prune_threshold < 0.0:
            min_regret = self.prune_threshold * PLURIBUS_FLOOR_RATIO
        self.min_regret = None if min_regret is None else float(min_regret)
        need = self.size * self.bytes_per_infoset_action
        if need > max_bytes:
            raise PokerlabError(
                f"the abstract game needs about {need / 2**30:.1f} GiB "
                f"({self.size:,} information-set actions); limit {max_bytes / 2**30:.1f} GiB"
            )
        self.regrets = np.zeros(self.size, dtype=np.float32)
        self.sums = np.zeros(self.size, dtype=np.float32)
        self.rng = seed_state(seed_value)
        self.iterations = 0
        #: Nodes visited by all traversals so far (not part of the checkpoint).
        self.nodes_touched = 0
        ranks = game.rules.ranks
        #: The tree (int64 copies) and the storage layout as the kernel reads them.
        self._tree_arrays = BettingArrays(
            tree.kind.astype(np.int64),
            tree.player.astype(np.int64),
            tree.round.astype(np.int64),
            tree.child_start.astype(np.int64),
            tree.children.astype(np.int64),
            tree.payoff_id.astype(np.int64),
            tree.payoff_table.astype(np.float64),
            self.offset,
            self.num_states,
        )
        e = eval_tables()
        #: What a deal needs: the deck, the indexers, the labels, the evaluator.
        self._deal_tables = K.DealTables(
            np.ascontiguousarray(game.rules.cards, dtype=np.int64),
            tuple(round_indexer(r, ranks).kernel_tables() for r in range(4)),
            tuple(np.ascontiguousarray(lab, dtype=np.int32) for lab in abstraction.labels),
            np.array(self._counts, dtype=np.int64),
            recall == "perfect",
            (e.card_key, e.card_bit, e.flush, e.disp, e.values),
        )
        self._es_run(self.rng, 1, 0, -1)  # compile (or load from the cache) outside timed regions

    # --- the kernel ---------------------------------------------------------------------------
    def _params(self) -> np.ndarray:
        return block_params(self.schedule, self.schedule.linear_until, self.discount_every)

    def _es_run(
        self,
        rng: np.ndarray,
        first: int,
        iterations: int,
        only_player: int,
        regrets: np.ndarray | None = None,
        sums: np.ndarray | None = None,
        discount: bool = True,
    ) -> np.ndarray:
        stats = np.zeros(3, dtype=np.float64)
        K.es_run(
            self._tree_arrays,
            self._deal_tables,
            self.regrets if regrets is None else regrets,
            self.sums if sums is None else sums,
            rng,
            self._params(),
            np.int64(self.discount_every if discount else 0),
            np.int64(first),
            np.int64(iterations),
            np.int64(only_player),
            RegretPruning(
                self.regret_pruning,
                self.prune_probability,
                self.prune_threshold,
                -math.inf if self.min_regret is None else self.min_regret,
            ),
            stats,
        )
        return stats

    def run_iterations(
        self,
        regrets: np.ndarray,
        sums: np.ndarray,
        rng: np.ndarray,
        first: int,
        iterations: int,
        discount: bool,
    ) -> int:
        """``iterations`` iterations numbered from ``first`` on the given float32 arrays and
        xoshiro state (in place), with or without the block discounts; returns nodes visited.
        :meth:`step` is this on the solver's own arrays; the Ray workers run it on theirs."""
        return int(self._es_run(rng, first, iterations, -1, regrets, sums, discount)[0])

    # --- the verbs ----------------------------------------------------------------------------
    def _run(self, iterations: int) -> int:
        """Run ``iterations`` more iterations (one deal, both players in turn, each;
        :meth:`step` counts them); returns the nodes visited."""
        return self.run_iterations(
            self.regrets, self.sums, self.rng, self.iterations + 1, int(iterations), True
        )

    def sampled_values(self, player: int, deals: int, seed: int = 0) -> tuple[float, float]:
        """Mean and standard error (big blinds) of ``deals`` sampled root values of ``player``
        under the current strategy, from a generator of its own (``seed``; the run's is not
        touched) and with no update. External sampling's value estimate is unbiased: the mean
        tends to the exact abstract-game value of :meth:`current_strategy` (tested)."""
        if player not in (0, 1):
            raise PokerlabError(f"player must be 0 or 1, got {player!r}")
        stats = self._es_run(seed_state(seed), 1, int(deals), int(player))
        mean = stats[1] / deals
        var = max(stats[2] / deals - mean * mean, 0.0)
        return float(mean), float(math.sqrt(var / max(deals - 1, 1)))

    # --- checkpoints --------------------------------------------------------------------------
    _CHECKED = (
        "format",
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

    def _config(self) -> dict[str, Any]:
        return {**super()._config(), **{key: getattr(self, key) for key in self._CHECKED[6:]}}

    def _arrays(self) -> dict[str, np.ndarray]:
        """The run's arrays (copies): regrets, sums and the xoshiro state."""
        return {"regrets": self.regrets.copy(), "sums": self.sums.copy(), "rng": self.rng.copy()}

    def state_dict(self) -> dict[str, Any]:
        """Everything a resumed run needs (``arrays``: regrets, sums and the xoshiro state)."""
        return {
            **self._common_state(),
            "arrays": self._arrays(),
            "sampling": "es",
            "discount_every": self.discount_every,
            "regret_pruning": self.regret_pruning,
            "prune_threshold": self.prune_threshold,
            "prune_probability": self.prune_probability,
            "min_regret": self.min_regret,
        }

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Resume from :meth:`state_dict` (or a loaded checkpoint); another run is refused by
        the name of the first field that differs."""
        regrets = self._check_state(state, self._CHECKED)
        arrays = state["arrays"]
        rng = arrays.get("rng")
        if rng is None or np.asarray(rng).shape != (4,):
            raise PokerlabError("checkpoint without the generator state (arrays/rng)")
        self.regrets[:] = regrets
        self.sums[:] = arrays["sums"]
        self.rng[:] = np.asarray(rng, dtype=np.uint64)
        self.iterations = int(state["iterations"])
