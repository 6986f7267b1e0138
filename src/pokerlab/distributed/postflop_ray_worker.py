"""The subtree actor of :class:`~pokerlab.distributed.postflop_ray.RayPostflopSolver`
(:class:`PostflopSubtreeWorker`: its subtrees' regrets, strategy sums, predictions and 16-bit
scales, and one pass's scratch) and the compact storage layout of a run of work items
(:func:`items_layout`)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pokerlab.games.postflop.game import PostflopGame
from pokerlab.tree._primitives import DECISION
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector import _walk_batches as B
from pokerlab.tree.vector.passes import item_costs
from pokerlab.tree.vector.tree import VectorTree

__all__ = ["PostflopSubtreeWorker", "items_layout"]


def items_layout(
    tree: VectorTree, ids: np.ndarray, costs: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The storage layout of the subtrees of the work items ``ids`` (one subtree below a split
    chance node each; ``costs``: :func:`~pokerlab.tree.vector.passes.item_costs`, computed if
    None).

    Returns ``(local_offset, slots, nodes)``: ``local_offset[n]`` is decision node ``n``'s block
    start in the owner's own arrays (-1 for nodes outside the subtrees), ``slots[i]`` the
    position in the full layout of the owner's ``i``-th number (``full[slots] = local``
    reassembles them), and ``nodes`` the subtrees' decision nodes (ascending; their per-node
    16-bit scales travel with them).
    """
    a = tree.arrays
    if costs is None:
        costs = item_costs(tree)
    ids = np.asarray(ids, dtype=np.int64)
    # the tree is in preorder: item i's subtree is the node range [item_node[i], + cost)
    ranges = [
        np.arange(int(a.item_node[i]), int(a.item_node[i]) + int(costs[i]), dtype=np.int64)
        for i in ids
    ]
    inside = np.concatenate(ranges) if ranges else np.zeros(0, dtype=np.int64)
    nodes = np.sort(inside[(a.kind[inside] == DECISION) & (a.offset[inside] >= 0)])
    na = a.child_start[nodes + 1] - a.child_start[nodes]
    sizes = na * tree.hands.num[a.player[nodes]]
    starts = np.zeros(nodes.size, dtype=np.int64)
    if nodes.size:
        starts[1:] = np.cumsum(sizes)[:-1]
    local = np.full(a.kind.shape[0], -1, dtype=np.int64)
    local[nodes] = starts
    total = int(sizes.sum())
    slots = np.repeat(a.offset[nodes] - starts, sizes) + np.arange(total, dtype=np.int64)
    return local, slots, nodes


class PostflopSubtreeWorker:
    """One worker's subtrees of a postflop spot's vector tree: their regrets and strategy sums
    (float32, or int16 / uint16 in the 16-bit mode with float32 scales per node), a predictive
    schedule's predictions, and the scratch of a pass. Runs inside a Ray actor
    (``ray.remote(PostflopSubtreeWorker)``) or in-process.

    The worker builds the spot's tree itself from ``params`` (``game.params``; the spot's
    parameters travel, not its tree) and owns the work items ``ids`` (a run of neighbouring
    subtrees below the split chance nodes), stored in their own compact layout
    (:func:`items_layout`).
    """

    def __init__(
        self, params: dict[str, Any], ids: np.ndarray, compressed: bool, predictive: bool
    ) -> None:
        tree = PostflopGame(**params).expanded.tree
        self.tree = tree
        self.ids = np.asarray(ids, dtype=np.int64)
        local, slots, nodes = items_layout(tree, self.ids)
        self.nodes = nodes
        #: The tree's arrays with this worker's own storage layout and its items numbered
        #: 0 .. k - 1 (the rows it receives).
        self.arrays = tree.arrays._replace(offset=local, item_node=tree.arrays.item_node[self.ids])
        size = int(slots.size)
        self.compressed = bool(compressed)
        self.regrets = np.zeros(size, dtype=np.int16 if compressed else np.float32)
        self.sums = np.zeros(size, dtype=np.uint16 if compressed else np.float32)
        self.prediction = np.zeros(size if predictive else 0, dtype=np.float32)
        n_nodes = tree.num_nodes if compressed else 0  # scales are indexed by node number
        self.rscale = np.zeros(n_nodes, dtype=np.float32)
        self.sscale = np.zeros(n_nodes, dtype=np.float32)
        self.no_lock = np.zeros(0, dtype=np.float32)
        self.scratch32 = tuple(x[0] for x in tree.scratch(1, np.float32))
        self.scratch64 = tuple(x[0] for x in tree.scratch(1))
        #: Seconds spent in :meth:`run` since the last :meth:`busy_seconds` (the worker's load).
        self.busy = 0.0

    def size(self) -> int:
        """Numbers per stored array (the head checks it against its own layout)."""
        return int(self.regrets.size)

    def busy_seconds(self) -> float:
        """Seconds of passes since the last call (then reset)."""
        out, self.busy = self.busy, 0.0
        return out

    def run(
        self,
        traverser: int,
        mode: int,
        disc: tuple[float, float, float, bool, float, float, bool],
        ro: np.ndarray,
        rp: np.ndarray,
    ) -> tuple[np.ndarray, int]:
        """One pass over the worker's subtrees for ``traverser`` in ``mode``
        (:data:`~pokerlab.tree.vector._kernels.MODE_CFR` and the others) with the discounts
        ``disc`` (:class:`~pokerlab.tree.vector._kernels.Discounts`' fields): ``ro`` / ``rp``
        (k, ...) the opponent's and the traverser's reach rows entering each of its k
        subtrees, float32 in a CFR pass and float64 otherwise, as the head's. Returns the
        value rows (k, hands; the rows' type) and the nodes visited; a CFR pass updates the
        worker's storage (:func:`~pokerlab.tree.vector._walk_batches.traverse_items`)."""
        start = time.perf_counter()
        cfr = ro.dtype == np.float32
        # (copies: the rows Ray hands over are read-only views of its object store)
        items = K.Items(np.array(ro), np.array(rp), np.zeros(rp.shape, dtype=ro.dtype))
        store = K.Storage(
            self.regrets, self.sums, self.prediction, self.rscale, self.sscale, self.no_lock
        )
        t = self.tree
        visited = B.traverse_items(
            self.arrays, t.hands, t.sweep, np.int64(traverser), np.int64(mode), store,
            K.Discounts(*disc), self.scratch32 if cfr else self.scratch64, items,
            np.arange(self.ids.size, dtype=np.int64),
        )  # fmt: skip
        self.busy += time.perf_counter() - start
        return items.val, int(visited)

    def state(self) -> tuple[np.ndarray, ...]:
        """This worker's (regrets, sums, prediction) in its own layout and its nodes' (regret
        scales, sum scales) (empty outside the 16-bit mode)."""
        nodes = self.nodes if self.compressed else self.nodes[:0]
        return self.regrets, self.sums, self.prediction, self.rscale[nodes], self.sscale[nodes]

    def load(
        self,
        regrets: np.ndarray,
        sums: np.ndarray,
        prediction: np.ndarray,
        rscale: np.ndarray,
        sscale: np.ndarray,
    ) -> None:
        """Overwrite this worker's arrays (its own layout; the scales of its nodes)."""
        self.regrets[:] = regrets
        self.sums[:] = sums
        if self.prediction.size:
            self.prediction[:] = prediction
        if self.compressed:
            self.rscale[self.nodes] = rscale
            self.sscale[self.nodes] = sscale

    def nbytes(self) -> int:
        """Bytes of this worker's stored numbers (regrets, sums, predictions, scales)."""
        return int(
            self.regrets.nbytes + self.sums.nbytes + self.prediction.nbytes
            + self.rscale.nbytes + self.sscale.nbytes
        )  # fmt: skip
