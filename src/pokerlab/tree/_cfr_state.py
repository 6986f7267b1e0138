"""What the full-width CFR runs of the history and public trees share: the flat float64 regrets,
strategy sums, current strategy and (predictive schedules) predicted regrets, the run's settings,
and the accessors the solver reads. Each backend adds its scratch and its ``run``."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["FlatCFRState"]


class FlatCFRState:
    """Regrets, strategy sums, current strategy and predicted regrets (``params[7] != 0``: PCFR+,
    PDCFR+) of one full-width CFR run on a tree with a flat ``size``-entry layout, with the
    schedule ``params`` (:data:`~pokerlab.tree._primitives.PARAMS_LAYOUT`), alternating updates
    and zero-reach pruning as given."""

    def __init__(self, tree: Any, params: np.ndarray, alternating: bool, prune: bool) -> None:
        self.tree = tree
        self.params = np.asarray(params, dtype=np.float64)
        self.alternating = bool(alternating)
        self.prune = bool(prune)
        size = tree.size
        self._regrets = np.zeros(size, dtype=np.float64)
        self._sums = np.zeros(size, dtype=np.float64)
        self._sigma = np.zeros(size, dtype=np.float64)
        #: Predicted regrets (prediction schedules only; part of the checkpoint).
        self._pred = np.zeros(size if self.params[7] != 0.0 else 0, dtype=np.float64)
        self._ranges = np.array(tree.player_ranges, dtype=np.int64)

    def strategy_sum(self) -> np.ndarray:
        """Cumulative strategy sums (float64, the tree's flat layout; the live array)."""
        return self._sums

    def regrets(self) -> np.ndarray:
        """Cumulative regrets (float64, the tree's flat layout; the live array)."""
        return self._regrets

    def arrays(self) -> dict[str, np.ndarray]:
        """The run's state for checkpoints: ``regrets``, ``strategy_sum`` and, with a predictive
        schedule, ``prediction`` (live arrays)."""
        out = {"regrets": self._regrets, "strategy_sum": self._sums}
        if self._pred.shape[0]:
            out["prediction"] = self._pred
        return out
