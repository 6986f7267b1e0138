"""The no-limit hold'em blueprint (issue 24): external-sampling MCCFR over the action
abstraction's betting tree with a card abstraction, for 2 to 6 players, as Pluribus computed it
(Brown and Sandholm 2019, "Superhuman AI for multiplayer poker", supplement).

:class:`BlueprintSolver` is the Monte Carlo front (:class:`~pokerlab.solvers.sampling.SampledCFR`:
options, discount blocks, run loop, state schema) with the betting tree's sampled pass
(:class:`~pokerlab.solvers.betting_sampled.BettingSampledPass`, the pass limit hold'em's
:class:`~pokerlab.solvers.limit_mccfr.LimitESSolver` runs) on
:attr:`NoLimitHoldemGame.betting_tree <pokerlab.games.nolimit.game.NoLimitHoldemGame.betting_tree>`:
no pass of its own. Per decision node an ``actions x states`` block of regrets (float32 or
int32, below; states: the acting player's bucket this round, or the bucket sequence with perfect
recall); float32 strategy sums only where averages are kept.

Pluribus' recipe, each an option (BLUEPRINT.md 1.1 and 3.2):

- ``algorithm="linear"`` with ``linear_until`` (iterations) or ``linear_seconds`` (solving time):
  Linear CFR discounting, applied every ``discount_every`` iterations, for the first part of the
  run, then none (Pluribus: every 10 minutes for the first 400 minutes).
- ``regret_pruning``: on ``prune_probability`` (0.95) of the traversals, actions whose regret is
  below ``prune_threshold`` are skipped (not on the last round, not into terminals), with the
  regrets floored at ``min_regret`` (default 310/300 of the threshold, Pluribus' ratio). Pluribus
  pruned after 200 minutes: run without, then build a pruning solver from the state
  (:func:`restore_blueprint` takes overrides of the options its ``config`` names).
- ``averages``: ``"all"`` (average strategy on every round), ``"preflop"`` (Pluribus: the
  average is kept for the first round only, :meth:`average_strategy` plays the current strategy
  after it, or with ``snapshot_every`` the mean of snapshots of it as Pluribus did,
  :mod:`pokerlab.solvers.snapshots`) or ``"none"``.
- ``regrets``: ``"float32"`` (default) or ``"int32"`` (Pluribus' 4-byte integer regrets): an
  int32 regret is ``round(R * scale)`` of the regret ``R`` in chips, ``scale``
  (:func:`int32_regret_scale`) the largest power of two leaving :data:`HEADROOM_STACKS` (16,384)
  times the largest stack below the int32 maximum (positive regrets grow about as the square
  root of the iterations: 27 stacks after 10,000 iterations, 150 after 640,000, measured on 12
  cards, 3 players, 10 bb); a regret at the maximum saturates; each update is rounded half to
  even and floored at ``min_regret`` (converted to the same units); one pass compiled per dtype
  (:func:`pokerlab.tree._primitives.store_regret`); a state records the dtype and scale, and a
  solver of the other dtype refuses it by name. docs/nolimit-holdem.md has the numbers.
- ``lazy``: rows allocated on first reach, as Pluribus did (:mod:`pokerlab.solvers.lazy_rows`:
  an index per (node, state), a pool grown by a quarter); bit for bit the dense run's numbers,
  unreached rows read as uniform (:meth:`BlueprintSolver.dense_regrets`), checkpoints of the
  used rows, threads and Ray as the dense run.

Without ``lazy`` every (node, state) row is allocated up front.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pokerlab._rng import kernel_seed
from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit.game import NoLimitHoldemGame
from pokerlab.games.nolimit.size import AVERAGES
from pokerlab.solvers.base import Solver
from pokerlab.solvers.betting_sampled import BettingSampledVerbs
from pokerlab.solvers.limit_base import (
    BucketedVerbs,
    check_storage,
    layout_size,
    schedule_of,
    state_counts,
)
from pokerlab.solvers.sampling import SampledCFR
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.solvers.snapshots import SnapshotAverages, check_snapshot_options
from pokerlab.strategy import BettingStrategy
from pokerlab.tree._primitives import DECISION, INT32_MAX
from pokerlab.tree.betting.layout import BettingLayout
from pokerlab.tree.compiled import CompiledGame

__all__ = [
    "HEADROOM_STACKS",
    "REGRET_DTYPES",
    "BlueprintSolver",
    "int32_regret_scale",
    "lossless_abstraction",
    "restore_blueprint",
]

#: The regrets' dtypes by name.
REGRET_DTYPES = ("float32", "int32")
#: Largest stacks of regret that fit between 0 and the int32 maximum (module docstring).
HEADROOM_STACKS = 16384


def int32_regret_scale(largest_stack: float) -> float:
    """Stored int32 regret units per chip for a game whose largest stack is ``largest_stack``
    chips: the largest power of two ``s`` with ``s * HEADROOM_STACKS * largest_stack`` within
    the int32 maximum (module docstring; below 1 for stacks above about 131,000 chips)."""
    if not largest_stack > 0:
        raise PokerlabError(f"largest stack must be > 0 chips, got {largest_stack!r}")
    return float(2.0 ** math.floor(math.log2(INT32_MAX / (HEADROOM_STACKS * largest_stack))))


class BlueprintSolver(SnapshotAverages, BettingSampledVerbs, SampledCFR, BucketedVerbs, Solver):
    """External-sampling MCCFR on ``game``'s betting tree with ``abstraction``'s buckets
    (module docstring).

    Parameters
    ----------
    game:
        A :class:`~pokerlab.games.nolimit.game.NoLimitHoldemGame` (2 to 6 players).
    abstraction:
        A :class:`~pokerlab.abstraction.buckets.CardAbstraction` of the game's deck: bucket
        labels per round by canonical hand index (as the limit solvers take).
    recall:
        ``"imperfect"`` (Pluribus: this round's bucket) or ``"perfect"`` (bucket sequences).
    averages:
        ``"all"``, ``"preflop"`` or ``"none"``; default the game's ``averages``.
    algorithm:
        A discount schedule by name or a :class:`DiscountSchedule` (``"linear"`` by default).
    linear_until, linear_seconds:
        Stop discounting after this many iterations / seconds of solving (None: never).
    seed:
        Seed of the deals and of the other players' sampled actions.
    discount_every:
        Iterations per discount block.
    regret_pruning, prune_threshold, prune_probability, min_regret:
        Pluribus' pruning; the threshold in big blinds, default -25 times the largest stack in
        big blinds.
    regrets:
        ``"float32"`` or ``"int32"`` (module docstring: fixed scale per chip, floor, saturation).
    max_bytes:
        Refuse (before allocating) when the regrets and sums would need more.
    snapshot_every, snapshot_after:
        Snapshots of the current strategy every ``snapshot_every`` iterations after the first
        ``snapshot_after`` (None: none), played where no average is kept
        (:mod:`pokerlab.solvers.snapshots`).
    lazy:
        Allocate each (node, state) row when a traversal first reaches it (module docstring).
    """

    _default_every = 1000

    def __init__(
        self,
        game: NoLimitHoldemGame,
        abstraction: CardAbstraction,
        *,
        recall: str = "imperfect",
        averages: str | None = None,
        algorithm: str | DiscountSchedule = "linear",
        linear_until: int | None = None,
        linear_seconds: float | None = None,
        seed: int | np.random.Generator = 0,
        discount_every: int = 1000,
        regret_pruning: bool = False,
        prune_threshold: float | None = None,
        prune_probability: float = 0.95,
        min_regret: float | None = None,
        max_bytes: int = 8 << 30,
        snapshot_every: int | None = None,
        snapshot_after: int = 0,
        regrets: str = "float32",
        lazy: bool = False,
    ) -> None:
        every, after = check_snapshot_options(snapshot_every, snapshot_after)
        if not isinstance(lazy, bool | np.bool_):
            raise PokerlabError(f"lazy must be True or False, got {lazy!r}")
        #: Rows allocated on first reach (:mod:`pokerlab.solvers.lazy_rows`).
        self.lazy = bool(lazy)
        if regrets not in REGRET_DTYPES:
            raise PokerlabError(f"regrets must be 'float32' or 'int32', got {regrets!r}")
        if not isinstance(game, NoLimitHoldemGame):
            raise PokerlabError(f"the blueprint trains no-limit hold'em, not {game!r}")
        rules = game.rules
        if getattr(abstraction, "ranks", None) != rules.ranks:
            raise PokerlabError(
                f"abstraction of a {4 * int(getattr(abstraction, 'ranks', 0))}-card deck for a "
                f"{4 * rules.ranks}-card game"
            )
        if recall not in ("perfect", "imperfect"):
            raise PokerlabError(f"recall must be 'perfect' or 'imperfect', got {recall!r}")
        averages = game.averages if averages is None else averages
        if averages not in AVERAGES:
            raise PokerlabError(f"averages must be one of {', '.join(AVERAGES)}: {averages!r}")
        schedule = schedule_of(algorithm)
        if linear_until is not None:
            schedule = schedule.with_linear_until(int(linear_until))
        seed_value = kernel_seed(seed)
        self.schedule = schedule
        self.abstraction = abstraction
        self.recall = recall
        self.averages = averages
        self.seed = seed_value
        tree = game.betting_tree
        self.tree = tree
        states = state_counts(abstraction, recall)
        size = layout_size(tree, states)
        # refused before any array is made (the sums are at most one float32 per entry more)
        check_storage(size, 8 if averages == "all" else 4, max_bytes)
        self.layout = BettingLayout(tree, tuple(abstraction.buckets), np.array(states), recall)
        self.num_states = self.layout.num_states
        self.offset = self.layout.offset
        self.size = self.layout.size
        self.sum_offset, self.sum_size = self._sum_layout()
        Solver.__init__(self, CompiledGame(game, self.layout))  # type: ignore[arg-type]
        self._set_betting_options(
            schedule,
            regret_pruning,
            prune_threshold,
            max(rules.stacks) / rules.big_blind,
            prune_probability,
            min_regret,
            discount_every,
            linear_seconds,
        )
        self.num_players = rules.players
        self.regret_dtype = regrets
        #: Stored regret units per chip (int32; None with float32 regrets, stored as they are).
        self.regret_scale_per_chip = (
            int32_regret_scale(max(rules.stacks)) if regrets == "int32" else None
        )
        if self.regret_scale_per_chip is not None:
            # units per big blind, the kernel's value unit with float32 regrets
            self.regret_scale = self.regret_scale_per_chip * float(rules.big_blind)
        self._make_pass(
            game.cards, float(rules.big_blind), self.sum_offset, self.sum_size, lazy=self.lazy
        )
        self._init_snapshots(every, after)
        if self.lazy and every is not None:  # the snapshot sums live in the pool's rows
            self.sampled.pool.enable_snapshots()
            self.snapshot_sum = np.zeros(0, dtype=np.float32)

    def take_snapshot(self) -> None:
        """:meth:`SnapshotAverages.take_snapshot`; lazy: on the reached rows (the rows reached
        since the last one first get the uniform snapshots they missed), the same numbers."""
        pool = self.sampled.pool
        if pool is None or self.snapshot_every is None:
            super().take_snapshot()
            return
        pool.update_snapshot_rows(self.snapshots_taken)
        used = pool.used
        current = pool.normalise_rows(np.maximum(pool.regrets[:used], 0.0))
        pool.snaps[:used] += current.astype(np.float32)
        self.snapshots_taken += 1

    def _snapshot_arrays(self) -> dict[str, np.ndarray]:
        pool = self.sampled.pool
        if pool is None or self.snapshot_every is None:
            return super()._snapshot_arrays()
        pool.update_snapshot_rows(self.snapshots_taken)
        return {"snapshot_sum": pool.snaps[: pool.used]}

    def _kernel(self, first: int, iterations: int, only_player: int = -1) -> int:
        """:meth:`SampledCFR._kernel`; a lazy pool may have grown: its arrays are the run's."""
        touched = super()._kernel(first, iterations, only_player)  # type: ignore[misc]
        if self.lazy:
            self.regrets = self.sampled.regrets
            self.sums = self.sampled.sums
        return int(touched)

    @property
    def pool(self) -> Any:
        """The lazy run's :class:`~pokerlab.solvers.lazy_rows.RowPool` (None when dense)."""
        return self.sampled.pool

    def dense_regrets(self) -> np.ndarray:
        """The regrets in the dense layout (``offset[n] + action * states + state``, the stored
        dtype): the array itself when dense, the pool's rows written out (0 where no row was
        reached: uniform) when lazy."""
        pool = self.sampled.pool
        return self.regrets if pool is None else pool.expand(pool.regrets)

    def current_strategy(self) -> BettingStrategy:
        """Regret matching on the stored regrets (uniform where no regret of a (node, state)
        is positive or its row was never reached), as a
        :class:`~pokerlab.strategy.BettingStrategy`."""
        return BettingStrategy.of(
            self.game,
            self.layout,
            self.layout.normalise(np.maximum(self.dense_regrets(), 0.0)),
            self.abstraction,
            self._identity(),
        )

    def _sum_layout(self) -> tuple[np.ndarray, int]:
        """Where each decision keeps its strategy sums (-1: nowhere) and how many there are:
        the nodes of the rounds ``averages`` keeps, in layout order, blocks as the regrets'."""
        tree = self.tree
        keep = tree.kind == DECISION
        if self.averages == "preflop":
            keep &= tree.round == 0
        elif self.averages == "none":
            keep &= False
        widths = np.diff(tree.child_start) * self.num_states[tree.round.astype(np.int64)]
        widths = np.where(keep, widths, 0).astype(np.int64)
        starts = np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)
        return np.where(keep, starts, -1).astype(np.int64), int(widths.sum())

    @property
    def bytes_per_infoset_action(self) -> float:  # type: ignore[override]
        """Bytes of storage per (information set, action): 4 of regret (float32 or int32) plus 4
        of float32 strategy sum where averages are kept (8 with ``"all"``), plus 4 with
        snapshots."""
        return self.storage_bytes / max(self.size, 1)

    @property
    def storage_bytes(self) -> int:
        """Bytes of the run's arrays: regrets, strategy sums and snapshot sums; lazy: the
        index and the pools as allocated (their capacity, not only the used part)."""
        pool = self.sampled.pool
        if pool is not None:
            return int(pool.nbytes + self.snapshot_sum.nbytes)
        return int(self.regrets.nbytes + self.sums.nbytes + self.snapshot_sum.nbytes)

    def _kept_positions(self) -> np.ndarray:
        """The regrets' flat positions of the strategy sums, in the sums' order."""
        out = np.empty(self.sum_size, dtype=np.int64)
        for n in np.flatnonzero(self.sum_offset >= 0).tolist():
            na = int(self.tree.child_start[n + 1] - self.tree.child_start[n])
            width = na * int(self.num_states[int(self.tree.round[n])])
            s = int(self.sum_offset[n])
            out[s : s + width] = np.arange(width) + int(self.offset[n])
        return out

    def _dense_sums(self) -> np.ndarray:
        """The strategy sums in their dense layout (``sum_offset``), float32."""
        pool = self.sampled.pool
        if pool is not None and pool.sums_in_rows:
            return pool.expand(pool.sums)
        return self.sums

    def strategy_sum(self) -> np.ndarray:
        """The strategy sums in the regrets' layout (float64; 0 where none is kept)."""
        full = np.zeros(self.size, dtype=np.float64)
        full[self._kept_positions()] = self._dense_sums()
        return full

    def _later_rounds(self) -> np.ndarray:
        """:meth:`SnapshotAverages._later_rounds` on the dense layout's regrets."""
        pool = self.sampled.pool
        if self.snapshots_taken and pool is not None:
            return pool.dense_snapshots(self.snapshots_taken).astype(np.float64)
        if self.snapshots_taken:
            return self.snapshot_sum.astype(np.float64)
        return np.maximum(self.dense_regrets(), 0.0).astype(np.float64)

    def average_strategy(self) -> BettingStrategy:
        """The blueprint: the normalised strategy sums where averages are kept, elsewhere the
        mean of the current strategy's snapshots, or before any the current strategy (regret
        matching), as a :class:`~pokerlab.strategy.BettingStrategy` (what
        :func:`pokerlab.save_strategy` writes)."""
        table = self._later_rounds()
        kept = self._kept_positions()
        table[kept] = self._dense_sums()
        return BettingStrategy.of(
            self.game,
            self.layout,
            self.layout.normalise(table),
            self.abstraction,
            self._identity(),
        )

    def exploitability(self) -> float:
        """Refused by name: the full game has no exact best response here; on a small deck
        measure ``pokerlab.exploitability(game, history_strategy(solver.average_strategy(),
        abstraction))`` (:mod:`pokerlab.evaluate.nolimit.blueprint`)."""
        raise PokerlabError(
            "a blueprint's exact exploitability is measured on small decks: pokerlab."
            "exploitability(game, pokerlab.evaluate.nolimit.blueprint.history_strategy("
            "solver.average_strategy(), abstraction))"
        )

    # --- the state: the front's schema ----------------------------------------------------------
    def _arrays(self) -> dict[str, np.ndarray]:
        pool = self.sampled.pool
        if pool is None:
            return {**super()._arrays(), **self._snapshot_arrays()}
        # lazy: the used part of the pools (views: loading writes into them) and the index
        used = pool.used
        sums = pool.sums[:used] if pool.sums_in_rows else self.sums
        return {
            "regrets": pool.regrets[:used],
            "sums": sums,
            "row_index": pool.index,
            "rng": self.rng,
            **self._snapshot_arrays(),
        }

    def _extra_state(self) -> dict[str, Any]:
        return {**super()._extra_state(), "snapshots_taken": self.snapshots_taken}

    def _load_extra_state(self, state: dict[str, Any]) -> None:
        super()._load_extra_state(state)
        self.snapshots_taken = int(state.get("snapshots_taken", 0))

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """:meth:`SampledCFR.load_state_dict`, a state of the other regret dtype (or scale)
        refused first, by name (a state without one is float32: made before int32 existed)."""
        config = state.get("config") if isinstance(state.get("config"), dict) else {}
        theirs = (config.get("regrets", "float32"), config.get("regret_scale"))
        mine = (self.regret_dtype, self.regret_scale_per_chip)
        if theirs[0] != mine[0]:
            raise PokerlabError(
                f"the checkpoint has {theirs[0]} regrets, this solver {mine[0]}: resume it with "
                f"regrets={theirs[0]!r} (--regrets {theirs[0]})"
            )
        if theirs != mine:
            raise PokerlabError(
                f"the checkpoint's int32 regrets have {theirs[1]!r} units per chip, this "
                f"solver's {mine[1]!r}"
            )
        lazy = bool(config.get("lazy", False))
        if lazy != self.lazy:
            raise PokerlabError(
                f"the checkpoint's rows are {'lazy' if lazy else 'dense'}, this solver's "
                f"{'lazy' if self.lazy else 'dense'}: resume it with lazy={lazy!r}"
                + (" (--lazy)" if lazy else " (without --lazy)")
            )
        pool = self.sampled.pool
        game, params, _ = self._state_game()
        same = state.get("config") == self._config() and (
            state.get("game"),
            state.get("game_params"),
        ) == (game, dict(params))
        if pool is not None and same:  # (otherwise the engine's checks below refuse it)
            arrays = state.get("arrays") or {}
            if "row_index" not in arrays or "regrets" not in arrays:
                raise PokerlabError("state array 'row_index' or 'regrets' is missing")
            pool.load(int(np.shape(arrays["regrets"])[0]), arrays["row_index"])
            self.regrets = self.sampled.regrets = pool.regrets
            self.sums = self.sampled.sums = pool.sums
        super().load_state_dict(state)

    def _backend_config(self) -> dict[str, Any]:
        snapshots = {"snapshot_every": self.snapshot_every, "snapshot_after": self.snapshot_after}
        integers = {"regrets": "int32", "regret_scale": self.regret_scale_per_chip}
        return {
            **(snapshots if self.snapshot_every is not None else {}),
            **(integers if self.regret_dtype == "int32" else {}),
            **({"lazy": True} if self.lazy else {}),
            "recall": self.recall,
            "averages": self.averages,
            "ranks": self.game.rules.ranks,
            "buckets": list(self.abstraction.buckets),
            "bucketing": self.abstraction.method,
        }


def restore_blueprint(
    state: dict[str, Any],
    abstraction: CardAbstraction,
    game: NoLimitHoldemGame | None = None,
    **overrides: Any,
) -> BlueprintSolver:
    """The :class:`BlueprintSolver` of a state of :meth:`BlueprintSolver.state_dict` (for
    example a loaded checkpoint) with ``abstraction`` (the one it was trained with: its buckets
    and method are checked): the game from ``game_params`` unless ``game`` is given, the options
    from the state's ``config``. ``overrides`` (constructor options, e.g. ``regret_pruning=True``
    to start pruning as Pluribus did after a while) change the run's options: the state's arrays
    and counters are kept."""
    from pokerlab.games.registry import load_game

    if state.get("algorithm") != "es-mccfr" or state.get("game") != "nolimit-holdem":
        raise PokerlabError(
            f"not a no-limit blueprint state (game {state.get('game')!r}, algorithm "
            f"{state.get('algorithm')!r})"
        )
    config = state["config"]
    if game is None:
        game = load_game("nolimit-holdem", **state["game_params"])  # type: ignore[assignment]
    schedule = DiscountSchedule(**config["schedule"])
    options: dict[str, Any] = {
        "recall": config["recall"],
        "averages": config["averages"],
        "algorithm": schedule,
        "linear_seconds": config["linear_seconds"],
        "discount_every": int(config["discount_every"]),
        "regret_pruning": bool(config["prune"]),
        "prune_threshold": float(config["prune_threshold"]),
        "prune_probability": float(config["prune_probability"]),
        "min_regret": config["min_regret"],
        "snapshot_every": config.get("snapshot_every"),
        "snapshot_after": int(config.get("snapshot_after", 0)),
        "regrets": config.get("regrets", "float32"),
        "lazy": bool(config.get("lazy", False)),
    }
    if "regret_pruning" in overrides and "min_regret" not in overrides:
        options["min_regret"] = None  # the floor follows the new pruning setting
    options.update(overrides)
    solver = BlueprintSolver(game, abstraction, **options)  # type: ignore[arg-type]
    if overrides:
        state = {**state, "config": solver._config()}
    solver.load_state_dict(state)
    return solver


def lossless_abstraction(ranks: int) -> CardAbstraction:
    """One bucket per suit-isomorphism class of each round (hole cards and board up to a
    permutation of the suits, :func:`pokerlab.abstraction.isomorphism.round_indexer`): the
    abstraction that loses nothing, for exact checks on small decks (method ``"lossless"``)."""
    from pokerlab.abstraction.isomorphism import round_indexer

    sizes = tuple(int(round_indexer(r, ranks).size) for r in range(4))
    labels = [np.arange(n, dtype=np.int32) for n in sizes]
    return CardAbstraction(ranks, "lossless", sizes, labels)  # type: ignore[arg-type]
