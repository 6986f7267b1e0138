"""The split pass of the public-chance-sampling run (:class:`SplitPasses`, a base of
:class:`~pokerlab.tree.betting.pcs.PCSState`): with several workers the subtrees after the split
round's betting go to the workers; a pass walks the nodes above the subtree roots (the head) down,
collecting the reach rows arriving at each root, gets the value rows there from the subtree seam
(:meth:`SplitPasses.subtree_values`: value rows from reach rows, each worker's subtrees on a
thread of :attr:`~pokerlab.tree.betting.pcs.PCSState.pool`; on Ray actors in
:mod:`pokerlab.distributed.limit_ray`) and walks the head up again reading them. Results do not
depend on the executor or the worker count.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.tree.betting._kernels import BettingArrays, BoardBatch
from pokerlab.tree.betting._subtree_kernels import Cuts
from pokerlab.tree.betting.boards import split_subtrees

__all__ = ["SplitPasses"]


class SplitPasses:
    """The split pass and the subtree seam of :class:`~pokerlab.tree.betting.pcs.PCSState`,
    over its tree, workers, pass scratch and depth-first pass (``_subtree``)."""

    def _split(self, split_round: int) -> None:
        """The subtrees after ``split_round``'s betting over the workers
        (:func:`~pokerlab.tree.betting.boards.split_subtrees`)."""
        self.subtrees, self._owner, self.worker_nodes = split_subtrees(
            self.tree, self.workers, split_round
        )

    def _setup_cuts(self, width: int) -> None:
        """The seam of a split pass: each subtree root's slot, and the reach and value rows
        there (``width`` entries each)."""
        cut = np.full(self.tree.num_nodes, -1, dtype=np.int64)
        for k, (root, _, _) in enumerate(self.subtrees):
            cut[root] = k
        self._cut = cut
        self._cut_reach = np.zeros((len(self.subtrees), 2, width), dtype=np.float32)
        self._cut_values = np.zeros((len(self.subtrees), width), dtype=np.float32)

    def _head_storage(self) -> tuple[BettingArrays, np.ndarray, np.ndarray, np.ndarray] | None:
        """The storage the head's walks read (None: the full arrays)."""
        return None

    def _split_pass(
        self,
        entries: BoardBatch,
        reach: np.ndarray,
        traverser: int,
        update: bool,
        frozen: np.ndarray | None = None,
        entries_ref: Any = None,
    ) -> float:
        """A pass split at the subtree roots: the head's way down over the nodes above them
        (cut mode 1, no update: it collects the reach rows arriving at each root), the value
        rows at the roots from those reach rows (:meth:`subtree_values`), the head's way up
        (cut mode 2, taking them). ``reach``: the root's reach rows; ``frozen``: see
        :meth:`_subtree`; ``entries_ref``: the entries as the executor holds them."""
        buffers = self._buffers[0]
        storage = self._head_storage()
        width = reach.shape[1]
        out = self._root[:width]
        cut_reach, cut_values = self._cut_reach[:, :, :width], self._cut_values[:, :width]
        cuts = Cuts(self._cut, np.int64(1), cut_reach, cut_values)
        self._subtree(
            entries, traverser, False, 0, reach, out, buffers, cuts, frozen=frozen,
            storage=storage,
        )  # fmt: skip
        self.subtree_values(traverser, entries, update, cut_reach, cut_values, frozen, entries_ref)
        cuts = cuts._replace(mode=np.int64(2))
        return self._subtree(
            entries, traverser, update, 0, reach, out, buffers, cuts, frozen=frozen,
            storage=storage,
        )  # fmt: skip

    def subtree_values(
        self,
        traverser: int,
        entries: BoardBatch,
        update: bool,
        reach_rows: np.ndarray,
        value_rows: np.ndarray,
        frozen: np.ndarray | None = None,
        entries_ref: Any = None,
    ) -> None:
        """The subtree seam: from each subtree root's reach rows (``reach_rows[k]``, both
        players, one entry per hand of the boards) the value rows there (into
        ``value_rows[k]``), one depth-first pass per subtree (updating its regrets and sums when
        ``update``). Each worker of :attr:`pool` runs its subtrees (threads of this process);
        the Ray head runs them on actors (:mod:`pokerlab.distributed.limit_ray`)."""
        buffers = self._buffers

        def run(w: int) -> None:
            for k, (root, _, owner) in enumerate(self.subtrees):
                if owner == w:
                    self._subtree(
                        entries, traverser, update, root, np.ascontiguousarray(reach_rows[k]),
                        value_rows[k], buffers[w], frozen=frozen,
                    )  # fmt: skip

        self.pool.map(run)
