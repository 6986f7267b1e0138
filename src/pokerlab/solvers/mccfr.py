"""Monte Carlo CFR: chance, external and outcome sampling with Pluribus' discounting and pruning.

:class:`MCCFRSolver` runs the sampling variants of Lanctot, Waugh, Zinkevich & Bowling (2009),
"Monte Carlo Sampling for Regret Minimization in Extensive Games", on the engine's flat arrays:

* ``cs-mccfr``, chance sampling: one chance outcome sampled at every chance node, every player
  action explored (a vanilla CFR pass over the sampled deal);
* ``es-mccfr``, external sampling: chance and the other players' actions sampled (the others from
  their current strategy), every action of the traverser explored;
* ``os-mccfr``, outcome sampling: one trajectory, the traverser exploring with probability
  ``epsilon`` (0.6 by default, like OpenSpiel), importance-weighted.

Traversers alternate: an iteration is one traversal (outcome sampling: one sampled episode) per
player, players in turn, as OpenSpiel's ``run_iteration``, so iteration counts compare with it.

The sampling solvers run on the **history tree** of the game (``compile_game(game, "history")``:
one node per history, contiguous action slots per information set). Regrets and strategy sums
use the same flat layout, ``size`` and ``player_ranges`` as full-width CFR on that tree, and
:meth:`average_strategy` returns the same :class:`~pokerlab.strategy.Strategy` type, so
exploitability, files and the viewer work unchanged.

Discounting uses the engine's :class:`~pokerlab.solvers.schedule.DiscountSchedule`, applied
every ``discount_every`` iterations (Pluribus discounted every 10 minutes rather than every
iteration: touching every entry each iteration would cost more than a sampled traversal).
Within a block all iterations weigh the same; block j is weighted as the schedule weighs
iteration j (Linear CFR: j). ``linear_until`` (iterations) or ``linear_seconds`` (solving time,
converted to the iteration count at which it ran out and stored, so a resume is exact) stop the
discounting, after which training is plain CFR, as in Pluribus (Brown & Sandholm 2019, Science).

Regret-based pruning (Brown, Kroer & Sandholm 2017; Pluribus): with ``prune``, in a fraction
``prune_probability`` (0.95) of traversals the traverser's actions with regret below
``prune_threshold`` are not explored, except actions that lead straight to a terminal history and
histories where the game forbids it (:meth:`History.regret_pruning_allowed`; poker games: the
last betting round). Other traversals explore everything. It applies to chance and external
sampling; outcome sampling follows a single action and does not prune. ``min_regret`` bounds
regrets from below (Pluribus floored them just below the pruning threshold so pruned actions
can recover; the default with pruning keeps Pluribus' ratio of floor to threshold, 310/300);
the schedule's ``regret_floor`` (CFR+) clips them at 0. Only information sets with some
positive regret prune, so the skipped actions have probability 0 and sampled values stay exact.

:class:`MCCFRSolver` is the Monte Carlo front (:class:`~pokerlab.solvers.sampling.SampledCFR`:
the options, the block schedule, the run loop, the state) with the history tree's sampled pass
(:class:`HistorySampledPass`, kernels :mod:`pokerlab.tree.history._mccfr_kernels`).

Randomness comes from a xoshiro256** generator seeded by ``seed``; its state is part of
:meth:`state_dict`, so the same seed gives the same arrays and a resumed run is bit-identical to
an uninterrupted one.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from pokerlab._rng import seed_state
from pokerlab.errors import PokerlabError
from pokerlab.solvers.base import Solver
from pokerlab.solvers.sampling import Blocks, SampledCFR
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import CompiledGame, compile_game
from pokerlab.tree.history import _mccfr_kernels as K
from pokerlab.tree.history.tree import HistoryTree

__all__ = [
    "HistorySampledPass",
    "MCCFRSolver",
    "MCCFR_ALGORITHMS",
    "block_params",
    "default_prune_threshold",
]

#: Algorithm names of the sampling solvers and their kernel codes.
MCCFR_ALGORITHMS = {
    "cs-mccfr": K.CHANCE_SAMPLING,
    "es-mccfr": K.EXTERNAL_SAMPLING,
    "os-mccfr": K.OUTCOME_SAMPLING,
}


def default_prune_threshold(compiled: CompiledGame) -> float:
    """-25 times the largest absolute payoff of the game (game units; Leduc: -325 chips).

    Pluribus pruned below -300,000,000 in its own regret units. Regrets of an action that keeps
    losing grow like (visits x loss), so a multiple of the payoff range means "this action has
    lost for dozens of visits". A heuristic, measured on Leduc (about 15% fewer nodes touched at
    equal exploitability after 10^5 external-sampling iterations): pass ``prune_threshold``.
    """
    return -25.0 * float(np.max(np.abs(_history_tree(compiled).arrays.utility)))


def block_params(
    schedule: DiscountSchedule, linear_until: int | None, discount_every: int
) -> np.ndarray:
    """The kernel parameters of ``schedule`` applied in blocks of ``discount_every``
    iterations: :meth:`DiscountSchedule.as_array` with ``linear_until`` (iterations; None: never
    stop discounting) turned into the last discounted block."""
    params = schedule.as_array()
    if linear_until is None:
        params[4] = -1.0
    elif linear_until <= 0:
        params[4] = 0.0
    else:  # block j starts at iteration (j-1)K+1; it is discounted when that is <= until
        params[4] = float((linear_until - 1) // discount_every + 1)
    return params


def _history_tree(compiled: CompiledGame) -> HistoryTree:
    """The history tree of ``compiled``: the sampling kernels walk its histories."""
    if compiled.kind != "history":
        raise PokerlabError(
            f"Monte Carlo CFR runs on the history tree, not on a {compiled.kind!r} tree"
        )
    return cast(HistoryTree, compiled.tree)


class HistorySampledPass:
    """The history tree's sampled pass (a :class:`~pokerlab.solvers.sampling.SampledPass`):
    float64 regrets and strategy sums in the layout of full-width CFR on the tree, the
    xoshiro256** state and the kernels' scratch; :func:`K.mccfr_run` walks them."""

    def __init__(self, tree: HistoryTree, size: int, variant: str, epsilon: float, seed: int):
        self.tree = tree
        self.code = MCCFR_ALGORITHMS[variant]
        self.epsilon = float(epsilon)
        n, p = tree.num_nodes, tree.num_players
        self.regrets = np.zeros(size, dtype=np.float64)
        self.strat_sum = np.zeros(size, dtype=np.float64)
        self.rng = seed_state(seed)
        depth = int(K.tree_depth(tree.arrays)) + 1
        self.scratch = K.SampledScratch(
            np.full(size, np.nan),  # sigma
            np.zeros(n, dtype=np.int32),  # stack
            np.zeros(n, dtype=np.int32),  # visit
            np.zeros(n, dtype=np.int32),  # pick
            np.zeros(n, dtype=np.int8),  # explored
            np.zeros((n, p)),  # reach
            np.zeros(n),  # values
            np.zeros((depth, 3)),  # path weight
        )

    def run(self, blocks: Blocks, first: int, iterations: int, only_player: int) -> int:
        return int(
            K.mccfr_run(
                self.tree.arrays,
                self.code,
                self.regrets,
                self.strat_sum,
                self.rng,
                self.scratch,
                blocks.schedule.as_array(),
                blocks.every,
                first,
                iterations,
                only_player,
                self.epsilon,
                blocks.pruning,
            )
        )

    def arrays(self) -> dict[str, np.ndarray]:
        return {"regrets": self.regrets, "strategy_sum": self.strat_sum, "rng": self.rng}


class MCCFRSolver(SampledCFR, Solver):
    """Monte Carlo CFR (chance, external or outcome sampling) on a history tree: the Monte
    Carlo front (:class:`~pokerlab.solvers.sampling.SampledCFR`) with the history tree's
    sampled pass (:class:`HistorySampledPass`).

    Parameters
    ----------
    compiled:
        The compiled game; a public-tree compilation is replaced by the game's history tree.
    variant:
        ``"cs-mccfr"``, ``"es-mccfr"`` or ``"os-mccfr"``.
    schedule:
        Discounting (default: none, plain CFR). ``schedule.linear_until`` counts iterations.
    seed:
        Seed of the generator (any integer). Same seed, same result.
    epsilon:
        Outcome sampling's exploration probability at the traverser's nodes.
    prune:
        Regret-based pruning (chance and external sampling).
    prune_threshold:
        Regret below which an action may be pruned, in game units
        (default :func:`default_prune_threshold`).
    prune_probability:
        Fraction of traversals that prune (Pluribus: 0.95).
    min_regret:
        Lower bound of cumulative regrets (game units). Default: with pruning,
        ``prune_threshold * 310 / 300`` (Pluribus' ratio); without, none.
    discount_every:
        Apply the schedule's discount every this many iterations.
    linear_seconds:
        Discount only during this much solving time (seconds), then plain CFR.
    """

    def __init__(
        self,
        compiled: CompiledGame,
        variant: str = "es-mccfr",
        schedule: DiscountSchedule | None = None,
        seed: int = 0,
        epsilon: float = 0.6,
        prune: bool = False,
        prune_threshold: float | None = None,
        prune_probability: float = 0.95,
        min_regret: float | None = None,
        discount_every: int = 100,
        linear_seconds: float | None = None,
    ) -> None:
        if variant not in MCCFR_ALGORITHMS:
            raise PokerlabError(
                f"unknown sampling variant {variant!r}; choose one of {', '.join(MCCFR_ALGORITHMS)}"
            )
        if compiled.kind != "history":
            compiled = compile_game(compiled.game, "history")
        super().__init__(compiled)
        if not 0.0 <= epsilon <= 1.0 or (variant == "os-mccfr" and epsilon <= 0.0):
            raise PokerlabError(f"epsilon must be in (0, 1], got {epsilon}")
        self.algorithm = variant
        self.variant = variant
        self.seed = int(seed)
        self.epsilon = float(epsilon)
        self._set_sampling_options(
            schedule,
            prune,
            default_prune_threshold(compiled) if prune_threshold is None else prune_threshold,
            prune_probability,
            min_regret,
            discount_every,
            linear_seconds,
        )
        tree = _history_tree(compiled)
        self._tree = tree
        self.num_players = tree.num_players
        self.sampled = HistorySampledPass(tree, compiled.size, variant, self.epsilon, self.seed)
        self.regrets = self.sampled.regrets
        self.strat_sum = self.sampled.strat_sum
        self.rng = self.sampled.rng
        self._run(0)  # compile (or load from cache) outside any timed region

    # --- the verb set -------------------------------------------------------------------------
    def default_check_every(self) -> int:
        return 10_000

    def strategy_sum(self) -> np.ndarray:
        return self.strat_sum

    def current_strategy(self) -> Strategy:
        return Strategy(self.compiled, self.compiled.normalise(np.maximum(self.regrets, 0.0)))

    def cumulative_regrets(self) -> dict[str, np.ndarray]:
        """Cumulative regrets per information-set key."""
        idx = self.compiled.index
        return {key: self.regrets[idx.positions(k)].copy() for k, key in enumerate(idx.keys)}

    # --- the state: the front's schema with these settings --------------------------------------
    def _backend_config(self) -> dict[str, Any]:
        return {"seed": self.seed, "epsilon": self.epsilon}

    def _state_game(self) -> tuple[str, dict[str, Any], str]:
        game = self.compiled.game
        return game.name, dict(game.params), self.compiled.kind

    @classmethod
    def from_config(
        cls, compiled: CompiledGame, variant: str, config: dict[str, Any]
    ) -> MCCFRSolver:
        """A fresh solver with the settings of :meth:`state_dict`'s ``config``."""
        options = dict(config)
        options["schedule"] = DiscountSchedule(**options["schedule"])
        return cls(compiled, variant, **options)
