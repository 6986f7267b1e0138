"""Full-width counterfactual regret minimisation on flat trees.

:class:`CFRSolver` is vanilla CFR (Zinkevich et al. 2007), CFR+ (Tammelin 2014), Linear CFR and
Discounted CFR (Brown & Sandholm 2019), Pluribus' "Linear CFR early, plain CFR later",
Predictive CFR+ (Farina, Kroer & Sandholm 2021), DCFR+ and PDCFR+ (Xu et al. 2024) and
hyperparameter schedules (Zhang, McAleer & Sandholm 2024): one kernel driven by a
:class:`~pokerlab.solvers.schedule.DiscountSchedule`. Updates are alternating (one player per
pass, the other player's strategy already updated) or simultaneous. Subtrees the opponent cannot
reach are skipped (zero-reach pruning; the average strategy is still updated).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.solvers.base import Solver
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import CompiledGame

__all__ = ["CFRSolver"]


class CFRSolver(Solver):
    """Full-width CFR with a discount schedule, on any tree backend (public, history, ...).

    The backend (:class:`~pokerlab.tree.backend.TreeBackend`) owns the arrays, the scratch
    memory and the passes (:meth:`~pokerlab.tree.backend.TreeBackend.cfr_state`); the solver
    keeps the iteration count and the verb set.

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
        #: The backend's run: regrets, strategy sums, scratch and passes (tree/backend.py).
        self.state = compiled.tree.cfr_state(self._params, self.alternating, self.prune)
        self._run(0)  # compile (or load from cache) outside any timed region

    @property
    def regrets(self) -> np.ndarray:
        """Cumulative regrets, flat, in the backend's layout (the live array)."""
        return self.state.regrets()

    @property
    def strat_sum(self) -> np.ndarray:
        """Cumulative strategy sums, flat, in the backend's layout (the live array)."""
        return self.state.strategy_sum()

    def _run(self, iterations: int) -> int:
        return self.state.run(self.iterations + 1, iterations)

    def strategy_sum(self) -> np.ndarray:
        return self.state.strategy_sum()

    def current_strategy(self) -> Strategy:
        """Regret matching on the regrets, or on the predicted regrets of a predictive schedule
        (the strategy the next pass plays)."""
        source = self.state.arrays().get("prediction", self.regrets)
        sigma = np.maximum(source, 0.0)
        return Strategy(self.compiled, self.compiled.normalise(sigma))

    def cumulative_regrets(self) -> dict[str, np.ndarray]:
        """Cumulative regrets per information-set key (for inspection and tests)."""
        idx = self.compiled.index
        return {key: self.regrets[idx.positions(k)].copy() for k, key in enumerate(idx.keys)}

    def _arrays(self) -> dict[str, np.ndarray]:
        return self.state.arrays()

    def _config(self) -> dict[str, Any]:
        return {
            "schedule": self.schedule.to_dict(),
            "alternating": self.alternating,
            "prune": self.prune,
        }
