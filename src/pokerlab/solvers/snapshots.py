"""Averaged snapshots of the current strategy for the rounds that keep no average (Pluribus'
blueprint, Brown and Sandholm 2019, supplement: the average strategy is kept for the first
betting round only; for the later rounds the current strategy is saved every 200 minutes after
the first 800, and the blueprint plays the average of those snapshots).

Here in iterations, so a run is reproducible: with ``snapshot_every = K`` and ``snapshot_after
= A`` the current strategy (regret matching, normalised per information set) is added to a
running float32 sum when the iteration count reaches ``A + K``, ``A + 2K``, ... (a :meth:`step`
is cut at those points, so the snapshots do not depend on the step sizes); the blueprint's rows
without averages play the mean of the snapshots, or the current strategy before the first one.
The sum costs 4 bytes per information-set action (kept in RAM, written in checkpoints); unlike
the strategy sums it is touched once per snapshot, not on every traversal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.solvers.loop import iteration_count

__all__ = ["SnapshotAverages", "check_snapshot_options"]


def check_snapshot_options(every: Any, after: Any) -> tuple[int | None, int]:
    """``snapshot_every`` (None or an integer >= 1) and ``snapshot_after`` (an integer >= 0),
    refused by name otherwise."""
    if every is not None and (
        isinstance(every, bool) or not isinstance(every, int | np.integer) or every < 1
    ):
        raise PokerlabError(f"snapshot_every must be None or an integer >= 1, got {every!r}")
    if isinstance(after, bool) or not isinstance(after, int | np.integer) or after < 0:
        raise PokerlabError(f"snapshot_after must be an integer >= 0, got {after!r}")
    return (None if every is None else int(every)), int(after)


class SnapshotAverages:
    """Mixed in before a betting-tree front with ``layout``, ``regrets`` and
    ``_kept_positions()`` (module docstring)."""

    regrets: np.ndarray
    iterations: int
    layout: Any
    snapshot_every: int | None
    snapshot_after: int
    snapshots_taken: int
    snapshot_sum: np.ndarray

    def _init_snapshots(self, every: int | None, after: int) -> None:
        self.snapshot_every, self.snapshot_after = every, after
        self.snapshots_taken = 0
        size = self.regrets.size if every is not None else 0
        self.snapshot_sum = np.zeros(size, dtype=np.float32)

    def _next_snapshot(self) -> int | None:
        """The iteration count of the next snapshot (None: snapshots are off)."""
        if self.snapshot_every is None:
            return None
        return self.snapshot_after + (self.snapshots_taken + 1) * self.snapshot_every

    def take_snapshot(self) -> None:
        """Add the current strategy to the snapshots now (``step`` calls this on schedule)."""
        if self.snapshot_every is None:
            raise PokerlabError("snapshots are off: construct with snapshot_every=K")
        current = self.layout.normalise(np.maximum(self.regrets, 0.0).astype(np.float64))
        self.snapshot_sum += current.astype(np.float32)
        self.snapshots_taken += 1

    def step(self, iterations: int = 1) -> None:
        """``iterations`` more iterations, cut at the snapshot points (module docstring)."""
        left = iteration_count(iterations)
        while True:
            nxt = self._next_snapshot()
            if nxt is None or nxt > self.iterations + left:
                super().step(left)  # type: ignore[misc]
                return
            chunk = nxt - self.iterations
            if chunk > 0:
                super().step(chunk)  # type: ignore[misc]
            left -= chunk
            self.take_snapshot()

    def _later_rounds(self) -> np.ndarray:
        """What the rows without averages play, unnormalised (float64): the snapshots' sum, or
        the positive regrets before the first snapshot."""
        if self.snapshots_taken:
            return self.snapshot_sum.astype(np.float64)
        return np.maximum(self.regrets, 0.0).astype(np.float64)

    def _snapshot_arrays(self) -> dict[str, np.ndarray]:
        return {"snapshot_sum": self.snapshot_sum} if self.snapshot_every is not None else {}
