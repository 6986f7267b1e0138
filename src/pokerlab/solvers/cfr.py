"""Full-width counterfactual regret minimisation on flat trees.

:class:`CFRSolver` is vanilla CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014), Linear CFR and
Discounted CFR (Brown & Sandholm 2019) and Pluribus' "Linear CFR early, plain CFR later": one
kernel driven by a :class:`~pokerlab.solvers.schedule.DiscountSchedule`. Updates are alternating
(one player per pass, the other player's strategy already updated) or simultaneous. Subtrees the
opponent cannot reach are skipped (zero-reach pruning; the average strategy is still updated).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.solvers import _kernels as K
from pokerlab.solvers.base import Solver
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import CompiledGame
from pokerlab.tree.history_tree import HistoryTree
from pokerlab.tree.public_tree import PublicTree

__all__ = ["CFRSolver"]


class CFRSolver(Solver):
    """Full-width CFR with a discount schedule, on a public tree or a history tree.

    Parameters
    ----------
    compiled:
        The compiled game (:func:`pokerlab.tree.compiled.compile_game`).
    schedule:
        How regrets and strategy sums are discounted (CFR, CFR+, Linear, DCFR, ...).
    alternating:
        Alternating updates (default; faster convergence) or simultaneous updates.
    prune:
        Skip value computation in subtrees the opponents reach with probability 0.
    """

    def __init__(
        self,
        compiled: CompiledGame,
        schedule: DiscountSchedule,
        alternating: bool = True,
        prune: bool = True,
    ) -> None:
        super().__init__(compiled)
        self.schedule = schedule
        self.algorithm = schedule.name
        self.alternating = bool(alternating)
        self.prune = bool(prune)
        self._params = schedule.as_array()
        size = compiled.size
        self.regrets = np.zeros(size, dtype=np.float64)
        self.strat_sum = np.zeros(size, dtype=np.float64)
        self._sigma = np.zeros(size, dtype=np.float64)
        self._ranges = compiled.player_ranges
        tree = compiled.tree
        if isinstance(tree, PublicTree):
            n, h = tree.num_nodes, tree.num_private
            self._reach = np.zeros((n, 2, h))
            self._cfv = np.zeros((n, 2, h))
            self._live = np.zeros((n, 2), dtype=np.bool_)
            self._cards = np.zeros(tree.arrays.num_cards)
            self._totals = np.zeros(h)
        else:
            assert isinstance(tree, HistoryTree)
            n, p = tree.num_nodes, tree.num_players
            self._inst = np.zeros(size)
            self._reach = np.zeros((n, p))
            self._chance = np.zeros(n)
            self._values = np.zeros((n, p))
        self._run(0)  # compile (or load from cache) outside any timed region

    def _run(self, iterations: int) -> int:
        tree = self.compiled.tree
        first = self.iterations + 1
        if isinstance(tree, PublicTree):
            return K.public_cfr_run(
                tree.arrays,
                self.regrets,
                self.strat_sum,
                self._sigma,
                self._reach,
                self._cfv,
                self._live,
                self._cards,
                self._totals,
                self._ranges,
                self._params,
                first,
                iterations,
                self.alternating,
                self.prune,
            )
        return K.history_cfr_run(
            tree.arrays,
            self.regrets,
            self.strat_sum,
            self._sigma,
            self._inst,
            self._reach,
            self._chance,
            self._values,
            self._ranges,
            self._params,
            first,
            iterations,
            self.alternating,
            self.prune,
        )

    def strategy_sum(self) -> np.ndarray:
        return self.strat_sum

    def current_strategy(self) -> Strategy:
        sigma = np.maximum(self.regrets, 0.0)
        return Strategy(self.compiled, self.compiled.normalise(sigma))

    def cumulative_regrets(self) -> dict[str, np.ndarray]:
        """Cumulative regrets per information-set key (for inspection and tests)."""
        idx = self.compiled.index
        return {key: self.regrets[idx.positions(k)].copy() for k, key in enumerate(idx.keys)}

    def _arrays(self) -> dict[str, np.ndarray]:
        return {"regrets": self.regrets, "strategy_sum": self.strat_sum}

    def _config(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule.to_dict(),
            "alternating": self.alternating,
            "prune": self.prune,
        }
