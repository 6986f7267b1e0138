"""The subtree actor of :class:`~pokerlab.distributed.limit_ray.RayLimitPCSSolver`
(:class:`SubtreeWorker`: its subtrees' regrets, sums and predictions and one pass's scratch)
and the compact storage layout of one owner's nodes (:func:`compact_layout`)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pokerlab.games.limit_holdem import DECISION
from pokerlab.tree._primitives import RunArrays
from pokerlab.tree.betting import _kernels as K
from pokerlab.tree.betting._kernels import BettingArrays, BoardBatch, Discounts
from pokerlab.tree.betting._subtree_kernels import (
    NO_CUTS,
    pcs_subtree,
    subtree_buffers,
    tree_depth,
)

__all__ = ["SubtreeWorker", "compact_layout"]

#: The betting tree's arrays an actor receives.
_TREE_FIELDS = ("kind", "player", "round", "child_start", "children", "payoff_id", "payoff_table")


def compact_layout(
    tree: Any, offset: np.ndarray, num_states: np.ndarray, owner: np.ndarray, who: int
) -> tuple[np.ndarray, np.ndarray]:
    """The storage layout of one owner's decision nodes.

    Returns ``(local_offset, slots)``: ``local_offset[n]`` is node ``n``'s block start in the
    owner's own arrays (-1 for nodes of other owners), and ``slots[i]`` the position in the full
    layout of the owner's ``i``-th number, so that ``full[slots] = local`` reassembles them.
    """
    dec = np.flatnonzero((tree.kind == DECISION) & (owner == who))
    na = tree.child_start[dec + 1] - tree.child_start[dec]
    sizes = na * num_states[tree.round[dec]]
    starts = np.zeros(dec.size, dtype=np.int64)
    if dec.size:
        starts[1:] = np.cumsum(sizes)[:-1]
    local = np.full(tree.num_nodes, -1, dtype=np.int64)
    local[dec] = starts
    total = int(sizes.sum())
    slots = np.repeat(offset[dec] - starts, sizes) + np.arange(total, dtype=np.int64)
    return local, slots


class SubtreeWorker:
    """One worker's subtrees: their float32 regrets, strategy sums and predictions, and the
    scratch of a pass. Runs inside a Ray actor (``ray.remote(SubtreeWorker)``) or in-process.

    ``tree`` holds the betting tree's arrays (:data:`_TREE_FIELDS`); ``roots`` the
    ``(root, end)`` node ranges of the worker's subtrees; ``offset`` the worker's own layout
    (:func:`compact_layout`) and ``size`` its length; ``width`` the entries of a pass (the
    live hands of each board of a batch; the scratch's row length).
    """

    def __init__(
        self,
        tree: dict[str, np.ndarray],
        worker: int,
        roots: list[tuple[int, int]],
        owner: np.ndarray,
        offset: np.ndarray,
        size: int,
        num_states: np.ndarray,
        width: int,
        scale: float,
        regret_floor: bool,
        predictive: bool,
    ) -> None:
        self.worker = np.int64(worker)
        self.roots = [(int(a), int(b)) for a, b in roots]
        self.owner = np.asarray(owner, dtype=np.int64)
        #: The tree's arrays with this worker's own layout.
        self.arrays = BettingArrays(
            *(np.asarray(tree[name]) for name in _TREE_FIELDS),
            np.asarray(offset, dtype=np.int64),
            np.asarray(num_states, dtype=np.int64),
        )
        self.scale = float(scale)
        self.regret_floor = bool(regret_floor)
        self.predictive = bool(predictive)
        self.regrets = np.zeros(size, dtype=np.float32)
        self.sums = np.zeros(size, dtype=np.float32)
        self.prediction = np.zeros(size if predictive else 0, dtype=np.float32)
        self.buffers = subtree_buffers(
            tree_depth(np.asarray(tree["child_start"]), np.asarray(tree["children"])),
            int(width),
        )
        #: Seconds spent in :meth:`run` since the last :meth:`busy_seconds` (the worker's load).
        self.busy = 0.0

    def busy_seconds(self) -> float:
        """Seconds of passes since the last call (then reset): the measured load of this
        worker, which the node counts only predict."""
        out, self.busy = self.busy, 0.0
        return out

    def discount(self, a: float, b: float, g: float) -> None:
        """The schedule's scaling of this worker's regrets and sums before an iteration."""
        K.discount(self.regrets, self.sums, float(a), float(b), float(g))

    def run(
        self,
        board: BoardBatch,
        traverser: int,
        update: bool,
        factors: tuple[float, float, float, float],
        reach_rows: np.ndarray,
    ) -> np.ndarray:
        """Whole passes over the worker's subtrees for ``traverser``.

        ``board``: the entries of the sampled boards (as the head computes them,
        :meth:`~pokerlab.tree.betting.pcs.PCSState._board_arrays`); ``reach_rows`` (k, 2,
        entries): each player's reach at each subtree root; ``factors``: the next iteration's
        regret discounts (a, b) and the weights of this iteration's additions to the sums and the
        regrets (the head's lazy scales, :class:`~pokerlab.solvers.schedule.LazyScale`). Each
        subtree is one depth-first pass
        (:func:`~pokerlab.tree.betting._subtree_kernels.pcs_subtree`). Returns the value rows at
        the roots (k, entries).
        """
        start = time.perf_counter()
        width = board.states.shape[1]
        out = np.empty((len(self.roots), width), dtype=np.float32)
        run = RunArrays(self.regrets, self.sums, self.prediction)
        disc = Discounts(self.regret_floor, self.predictive, *(float(x) for x in factors))
        for i, (root, _) in enumerate(self.roots):
            pcs_subtree(
                self.arrays, board, self.scale, np.int64(traverser), run, disc, bool(update),
                np.int64(root), np.ascontiguousarray(reach_rows[i]), out[i], self.buffers,
                NO_CUTS,
            )  # fmt: skip
        self.busy += time.perf_counter() - start
        return out

    def state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This worker's (regrets, sums, prediction) in its own layout."""
        return self.regrets, self.sums, self.prediction

    def load(self, regrets: np.ndarray, sums: np.ndarray, prediction: np.ndarray) -> None:
        """Overwrite this worker's arrays (its own layout)."""
        self.regrets[:] = regrets
        self.sums[:] = sums
        if self.predictive:
            self.prediction[:] = prediction

    def nbytes(self) -> int:
        """Bytes of this worker's stored numbers (regrets, sums, predictions)."""
        return int(self.regrets.nbytes + self.sums.nbytes + self.prediction.nbytes)
