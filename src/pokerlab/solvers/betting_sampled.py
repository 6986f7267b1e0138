"""The betting tree's sampled pass and what its Monte Carlo fronts share: limit hold'em's
:class:`~pokerlab.solvers.limit_mccfr.LimitESSolver` and the no-limit blueprint's
:class:`~pokerlab.solvers.blueprint.BlueprintSolver` both train by it.

:class:`BettingSampledPass` holds the regrets (float32, or int32 for the blueprint) and the
float32 strategy sums, the xoshiro256** state
and the arrays the external-sampling kernel reads
(:func:`pokerlab.tree.betting._mccfr_kernels.es_run`: the tree, its terminal stakes, what a deal
needs); :func:`betting_sampled_pass` builds it from a
:class:`~pokerlab.tree.betting.tree.BettingTree` and a card abstraction.
:class:`BettingSampledVerbs` is the mixin both fronts put before
:class:`~pokerlab.solvers.sampling.SampledCFR`: their sampling options and pass set up alike,
iterations on given arrays (the Ray workers'), the sampled value of the current strategy.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pokerlab._rng import seed_state
from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.cards.evaluator import eval_tables
from pokerlab.errors import PokerlabError
from pokerlab.solvers.lazy_rows import RowPool, dense_rows
from pokerlab.solvers.sampling import Blocks
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.tree._primitives import INT32_MAX, INT32_MIN
from pokerlab.tree.betting import _mccfr_kernels as K
from pokerlab.tree.betting._deal_kernels import DealTables
from pokerlab.tree.betting._kernels import BettingArrays
from pokerlab.tree.betting.tree import BettingTree

__all__ = ["BettingSampledPass", "BettingSampledVerbs", "betting_sampled_pass"]


class BettingSampledPass:
    """The betting tree's sampled pass (a :class:`~pokerlab.solvers.sampling.SampledPass`):
    regrets (``regret_dtype``: float32, or int32 in the stakes' unit, :func:`K.es_run` compiled
    for each) and float32 strategy sums in the ``actions x states`` layout of the limit solvers
    (the sums of only the nodes that keep an average when ``stakes.sum_offset`` says so), the
    xoshiro256** state, the tree as the kernel reads it, its terminal stakes and what a deal
    needs (:func:`K.es_run`). Limit hold'em and the no-limit blueprint
    (:mod:`pokerlab.solvers.blueprint`) run this one pass; :func:`betting_sampled_pass` makes
    it from a tree."""

    def __init__(
        self,
        tree_arrays: BettingArrays,
        deal_tables: DealTables,
        size: int,
        seed: int,
        stakes: K.Stakes,
        sum_size: int | None = None,
        regret_dtype: type = np.float32,
        pool: RowPool | None = None,
    ) -> None:
        self.tree_arrays = tree_arrays
        self.deal_tables = deal_tables
        self.stakes = stakes
        #: Lazily allocated rows (:mod:`pokerlab.solvers.lazy_rows`; None: the dense layout).
        self.pool = pool
        if pool is None:
            self.regrets = np.zeros(size, dtype=regret_dtype)
            self.sums = np.zeros(size if sum_size is None else sum_size, dtype=np.float32)
            self.rows = dense_rows()
        else:
            self.regrets = pool.regrets
            self.sums = pool.sums
            self.rows = pool.rows
        self.rng = seed_state(seed)

    def stats(
        self,
        blocks: Blocks,
        rng: np.ndarray,
        first: int,
        iterations: int,
        only_player: int,
        regrets: np.ndarray | None = None,
        sums: np.ndarray | None = None,
        discount: bool = True,
        pool: RowPool | None = None,
    ) -> np.ndarray:
        """The kernel on the given arrays (default: the pass's own) and generator state:
        [nodes visited, sum of sampled root values, sum of their squares]; ``discount`` False
        leaves the block discounts out (a Ray worker's batch: the head discounts). Lazy rows:
        on ``pool`` (a worker's copy; default the pass's own), no arrays given, the pool grown
        between calls of the kernel as it asks."""
        stats = np.zeros(3, dtype=np.float64)
        own = pool is None
        pool = self.pool if own else pool
        if pool is not None and (regrets is not None or sums is not None):
            raise PokerlabError("lazy rows run on their pool's arrays only")
        done = 0
        while True:
            K.es_run(
                self.tree_arrays,
                self.stakes,
                self.deal_tables,
                (self.regrets if regrets is None else regrets) if pool is None else pool.regrets,
                (self.sums if sums is None else sums) if pool is None else pool.sums,
                rng,
                blocks.schedule.as_array(),
                np.int64(blocks.every if discount else 0),
                np.int64(first + done),
                np.int64(iterations - done),
                np.int64(only_player),
                blocks.pruning,
                stats,
                self.rows if pool is None else pool.rows,
            )
            if pool is None:
                return stats
            done += int(pool.head[2])
            if done >= iterations:
                return stats
            pool.grow()  # the kernel stopped before an iteration that might not fit
            if own:
                self.regrets = pool.regrets
                self.sums = pool.sums

    def run(self, blocks: Blocks, first: int, iterations: int, only_player: int) -> int:
        return int(self.stats(blocks, self.rng, first, iterations, only_player)[0])

    def arrays(self) -> dict[str, np.ndarray]:
        return {"regrets": self.regrets, "sums": self.sums, "rng": self.rng}


def betting_sampled_pass(
    tree: BettingTree,
    offset: np.ndarray,
    num_states: np.ndarray,
    abstraction: CardAbstraction,
    deck: Any,
    recall: str,
    seed: int,
    size: int,
    unit: float = 1.0,
    sum_offset: np.ndarray | None = None,
    sum_size: int | None = None,
    regret_dtype: type = np.float32,
    lazy: bool = False,
) -> BettingSampledPass:
    """The sampled pass on ``tree`` (any number of players and rounds) with the layout
    (``offset``, ``num_states``, ``size``), ``abstraction``'s labels and the cards of ``deck``;
    ``unit``: chips per value unit of the kernel (the big blind; 1/scale of a chip for the
    blueprint's int32 regrets, which are stored in that unit); ``sum_offset`` / ``sum_size``:
    where each decision keeps its strategy sums (None: everywhere, in the regrets' layout);
    ``regret_dtype``: float32 or int32; ``lazy``: rows allocated on first reach
    (:mod:`pokerlab.solvers.lazy_rows`; the sums in the pool's rows when they are kept at
    every decision, ``sum_offset`` None or equal to ``offset``)."""
    contrib = tree.contrib / unit
    active = np.asarray(tree.active, dtype=bool)
    top = contrib.max(axis=1)
    # no side pot: everyone still in put in the most (one comparison settles the showdown)
    simple = np.all(np.where(active, contrib == top[:, None], True), axis=1)
    e = eval_tables()
    ranks = abstraction.ranks
    return BettingSampledPass(
        # the tree (int64 copies) and the storage layout as the kernel reads them
        BettingArrays(
            tree.kind.astype(np.int64),
            tree.player.astype(np.int64),
            tree.round.astype(np.int64),
            tree.child_start.astype(np.int64),
            tree.children.astype(np.int64),
            tree.payoff_id.astype(np.int64),
            tree.payoff_table.astype(np.float64) / unit,
            offset,
            num_states,
        ),
        # what a deal needs: the deck, the indexers, the labels, the evaluator, the table
        DealTables(
            np.ascontiguousarray(deck, dtype=np.int64),
            tuple(round_indexer(r, ranks).kernel_tables() for r in range(4)),
            tuple(np.ascontiguousarray(lab, dtype=np.int32) for lab in abstraction.labels),
            np.array(abstraction.buckets, dtype=np.int64),
            recall == "perfect",
            (e.card_key, e.card_bit, e.flush, e.disp, e.values),
            np.int64(tree.num_players),
            np.int64(tree.rounds),
        ),
        size,
        seed,
        K.Stakes(
            np.ascontiguousarray(contrib, dtype=np.float64),
            (active.astype(np.int64) << np.arange(tree.num_players, dtype=np.int64)).sum(axis=1),
            contrib.sum(axis=1),
            simple.astype(np.int8),
            np.asarray(offset if sum_offset is None else sum_offset, dtype=np.int64),
            np.int64(tree.rounds - 1),
        ),
        sum_size,
        regret_dtype,
        RowPool(
            tree,
            offset,
            num_states,
            size,
            tree.num_players,
            regret_dtype,
            sum_offset is None or bool(np.array_equal(sum_offset, offset)),
            size if sum_size is None else sum_size,
        )
        if lazy
        else None,
    )


class BettingSampledVerbs:
    """What the fronts of :class:`BettingSampledPass` add to :class:`SampledCFR` alike (limit
    hold'em's :class:`LimitESSolver`, no-limit's
    :class:`~pokerlab.solvers.blueprint.BlueprintSolver`): their sampling options and the
    pass's arrays set up alike, iterations on given arrays (the Ray workers' own), the sampled
    value of the current strategy, and the state's game."""

    sampled: BettingSampledPass
    num_players: int
    game: Any
    layout: Any
    prune: bool
    schedule: DiscountSchedule
    tree: BettingTree
    offset: np.ndarray
    num_states: np.ndarray
    abstraction: CardAbstraction
    recall: str
    seed: int
    size: int
    _set_sampling_options: Any  # SampledCFR._set_sampling_options
    _kernel: Any  # SampledCFR._kernel
    #: Stored regret units per big blind (the front's value unit): 1 for float32 regrets; the
    #: blueprint's int32 regrets set their scale (:mod:`pokerlab.solvers.blueprint`).
    regret_scale: float = 1.0
    #: The regrets' dtype by name: ``"float32"`` or ``"int32"``.
    regret_dtype: str = "float32"

    def _blocks(self) -> Blocks:
        """:meth:`SampledCFR._blocks` with the pruning threshold and the regret floor in the
        stored regrets' units (times :attr:`regret_scale`; the floor rounded and kept inside
        the int32 range, a floor of -inf left as it is: the store saturates)."""
        blocks = super()._blocks()  # type: ignore[misc]
        scale = self.regret_scale
        if scale == 1.0:
            return blocks  # type: ignore[no-any-return]
        pruning = blocks.pruning
        floor = pruning.min_regret
        if math.isfinite(floor):
            floor = float(min(max(round(floor * scale), INT32_MIN), INT32_MAX))
        return blocks._replace(
            pruning=pruning._replace(threshold=pruning.threshold * scale, min_regret=floor)
        )

    def _set_betting_options(
        self,
        schedule: DiscountSchedule,
        regret_pruning: bool,
        prune_threshold: float | None,
        largest: float,
        prune_probability: float,
        min_regret: float | None,
        discount_every: int,
        linear_seconds: float | None,
    ) -> None:
        """The sampling options (:meth:`SampledCFR._set_sampling_options`), the pruning
        threshold by default -25 times ``largest`` (big blinds: the front's largest stack or
        terminal amount); pruning with a schedule's regret floor is refused."""
        self._set_sampling_options(
            schedule,
            regret_pruning,
            -25.0 * largest if prune_threshold is None else prune_threshold,
            prune_probability,
            min_regret,
            discount_every,
            linear_seconds,
        )
        if self.prune and self.schedule.regret_floor:
            raise PokerlabError(
                f"regret_pruning with schedule {self.schedule.name!r}: its regret floor keeps "
                "every regret >= 0, so nothing is ever below the (negative) pruning threshold"
            )
        self.algorithm = "es-mccfr"

    def _make_pass(
        self,
        deck: Any,
        unit: float = 1.0,
        sum_offset: np.ndarray | None = None,
        sum_size: int | None = None,
        lazy: bool = False,
    ) -> None:
        """The front's pass (:func:`betting_sampled_pass` on its tree, layout, abstraction,
        recall and seed; ``deck`` and the rest as there; regrets of :attr:`regret_dtype` in
        units of ``unit`` / :attr:`regret_scale` chips), its arrays (regrets, sums, generator
        state) the front's, and its kernel compiled (or loaded from the cache) outside timed
        regions."""
        self.sampled = betting_sampled_pass(
            self.tree,
            self.offset,
            self.num_states,
            self.abstraction,
            deck,
            self.recall,
            self.seed,
            self.size,
            unit=unit / self.regret_scale,
            sum_offset=sum_offset,
            sum_size=sum_size,
            regret_dtype=np.dtype(self.regret_dtype).type,
            lazy=lazy,
        )
        self.regrets = self.sampled.regrets
        self.sums = self.sampled.sums
        self.rng = self.sampled.rng
        self._kernel(1, 0)

    def run_iterations(
        self,
        regrets: np.ndarray,
        sums: np.ndarray,
        rng: np.ndarray,
        first: int,
        iterations: int,
        discount: bool,
    ) -> int:
        """``iterations`` iterations numbered from ``first`` on the given arrays (the pass's
        dtypes) and xoshiro state (in place), with or without the block discounts; returns nodes
        visited.
        ``step`` is this on the solver's own arrays; the Ray workers run it on theirs."""
        stats = self.sampled.stats(
            self._blocks(), rng, first, iterations, -1, regrets, sums, discount
        )
        return int(stats[0])

    def sampled_values(self, player: int, deals: int, seed: int = 0) -> tuple[float, float]:
        """Mean and standard error (big blinds) of ``deals`` sampled root values of ``player``
        under the current strategy, from a generator of its own (``seed``; the run's is not
        touched) and with no update. External sampling's value estimate is unbiased: the mean
        tends to the exact abstract-game value of ``current_strategy()`` (tested)."""
        if not 0 <= player < self.num_players:
            raise PokerlabError(f"player must be in [0, {self.num_players}), got {player!r}")
        stats = self.sampled.stats(self._blocks(), seed_state(seed), 1, int(deals), int(player))
        stats[1:] /= (self.regret_scale, self.regret_scale**2)  # the kernel's unit to big blinds
        mean = stats[1] / deals
        var = max(stats[2] / deals - mean * mean, 0.0)
        return float(mean), float(math.sqrt(var / max(deals - 1, 1)))

    def _state_game(self) -> tuple[str, dict[str, Any], str]:
        return self.game.name, dict(self.game.params), self.layout.kind
