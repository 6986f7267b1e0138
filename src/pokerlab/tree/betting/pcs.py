"""The run of public chance sampling on the betting tree (:class:`PCSState`, the ``CFRState`` of
:class:`~pokerlab.tree.betting.backend.BettingBackend`).

Public chance sampling (Johanson, Bard, Lanctot, Gibson and Bowling 2012, "Efficient Nash
equilibrium approximation through Monte Carlo counterfactual regret minimization"): each
iteration samples the public cards (the whole five-card board; a batch of boards with
``boards_per_iteration``) and walks the shared betting tree once per player with vectors over
the hole-card pairs that miss each board, mapped per round to its bucket (imperfect recall) or
bucket sequence (perfect recall). Showdowns compare the real cards on the sampled board; chance
weights are folded into a scale so that a pass returns unbiased counterfactual values. With
``chance="full"`` every suit-canonical board is walked each iteration, weighted by its class
size (CFR with chance enumerated, as Cepheus' CFR+ was run: Tammelin, Burch, Johanson and
Bowling 2015).

The state holds the float32 regrets, strategy sums and predicted regrets (``actions x states``
per decision node), the lazy discount scales, the board generator, the boards' hand entries
(:class:`~pokerlab.tree.betting._kernels.BoardBatch`) and the depth-first pass scratch. A
split pass walks the nodes above the subtree roots (a head) and gets the value rows at the roots
from :meth:`PCSState.subtree_values` (the subtree seam: value rows from reach rows), run here
on threads and on Ray actors by :mod:`pokerlab.distributed.limit_ray`. The split pass is
:mod:`pokerlab.tree.betting.pcs_split`, the every-board passes :mod:`pokerlab.tree.betting.pcs_full`
(the bases of :class:`PCSState`); this module holds the run: its storage, the schedule's
discounts, the sampled boards and the depth-first pass.
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

import numpy as np

from pokerlab._rng import generator
from pokerlab.abstraction.isomorphism import HandIndexer
from pokerlab.errors import PokerlabError
from pokerlab.tree._discounts import LazyScale, discount_factors
from pokerlab.tree._primitives import DEAL, PARAMS_LAYOUT, RunArrays
from pokerlab.tree.betting import _kernels as K
from pokerlab.tree.betting._kernels import BettingArrays, BoardBatch, Discounts, betting_arrays
from pokerlab.tree.betting._subtree_kernels import (
    NO_CUTS,
    Cuts,
    SubtreeScratch,
    pcs_subtree,
    subtree_buffers,
    tree_depth,
)
from pokerlab.tree.betting.boards import (
    board_entries,
    full_chance_bytes,
    path_bytes_per_entry,
)
from pokerlab.tree.betting.pcs_full import FullChance
from pokerlab.tree.betting.pcs_split import SplitPasses
from pokerlab.tree.executors import WorkerPool, worker_pool

__all__ = ["BYTES_PER_INFOSET_ACTION", "PCSState", "full_chance_bytes", "path_bytes_per_entry"]

#: Bytes of storage per (information set, action): a float32 regret and a float32 strategy sum.
BYTES_PER_INFOSET_ACTION = 8


class PCSState(SplitPasses, FullChance):
    """One public-chance-sampling run on ``backend``
    (:class:`~pokerlab.tree.betting.backend.BettingBackend`) with the schedule ``params``: the
    stored arrays, the discount scales, the board generator and the pass scratch; advanced by
    :meth:`run` (the engine's ``CFRState``). The split pass and the subtree seam come from
    :class:`~pokerlab.tree.betting.pcs_split.SplitPasses`, the every-board passes from
    :class:`~pokerlab.tree.betting.pcs_full.FullChance`."""

    def __init__(self, backend: Any, params: np.ndarray) -> None:
        o = backend.options
        layout = backend.layout
        tree = layout.tree
        self.backend = backend
        self.layout = layout
        self.tree = tree
        self.offset = layout.offset
        self.num_states = layout.num_states
        self.size = layout.size
        self.recall = layout.recall
        self._counts = layout.buckets
        self.labels = backend.labels
        self.ranks = backend.ranks
        self._params = np.asarray(params, dtype=np.float64)
        self.regret_floor = bool(self._params[PARAMS_LAYOUT["floor"]] != 0.0)
        self.predictive = bool(self._params[PARAMS_LAYOUT["predictive"]] != 0.0)
        self.lazy_discounts = bool(o.lazy_discounts)
        self.boards_per_iteration = int(o.boards_per_iteration)
        self.chance = o.chance
        self.board_chunk = o.board_chunk
        self.workers = int(o.workers)
        deck = backend.deck
        num_cards = int(deck.size)
        self.hands = np.array(list(itertools.combinations(deck, 2)), dtype=np.int64)
        #: Hole-card pairs that miss a board (the entries per board of a pass).
        self.live_hands = comb(num_cards - 5, 2)
        h = self.live_hands * self.boards_per_iteration
        self._depth = tree_depth(tree.child_start, tree.children)
        split_round = int(o.split_round)
        if self.chance == "full":
            # every suit-canonical ordered board (flop set, turn, river): their entries
            self._board_indexer = HandIndexer((3, 1, 1), self.ranks)
            chunk = min(self._board_indexer.size, self.board_chunk or self._board_indexer.size)
            h = self.live_hands * chunk
            scratch = full_chance_bytes(
                tree, num_cards, self.ranks, self.workers, split_round, self.board_chunk
            )
            if chunk < self._board_indexer.size:
                scratch += 4 * self.size  # the frozen regrets
        else:
            # the depth-first passes need rows for one root-to-leaf path per worker; a split
            # pass the reach and value rows at each subtree root (the cuts)
            roots = int(((tree.kind == DEAL) & (tree.round == split_round)).sum())
            scratch = (3 * 4 * roots if self.workers > 1 else 0) * h
            scratch += self.workers * path_bytes_per_entry(self._depth) * h
        per_action = BYTES_PER_INFOSET_ACTION + (4 if self.predictive else 0)
        need = self.size * per_action + scratch
        max_bytes = o.max_bytes
        if need > max_bytes and self.chance == "full":
            raise PokerlabError(
                f"chance='full' on {num_cards} cards walks {self._board_indexer.size:,} "
                f"canonical boards ({h:,} hand entries per pass): about {need / 2**30:.1f} GiB "
                f"with the storage, limit {max_bytes / 2**30:.1f} GiB; walk them in smaller "
                "chunks (board_chunk) or sample boards"
            )
        if need > max_bytes:
            raise PokerlabError(
                f"the abstract game needs about {need / 2**30:.1f} GiB "
                f"({self.size:,} information-set actions); limit {max_bytes / 2**30:.1f} GiB"
            )
        self._allocate_storage()
        #: The tree and the storage layout as the kernel reads them.
        self._tree_arrays: BettingArrays = betting_arrays(tree, self.offset, self.num_states)
        #: Each entry's value at the root after the last pass (``root_values``).
        self._root = np.zeros(h, dtype=np.float32)
        #: The depth-first pass's scratch, one set per worker (:func:`subtree_buffers`).
        self._buffers = [subtree_buffers(self._depth, h) for _ in range(self.workers)]
        self._owner = np.full(tree.num_nodes, -1, dtype=np.int64)
        self.subtrees: list[tuple[int, int, int]] = []  # (root, end, worker)
        self.worker_nodes: list[int] | None = None
        if self.workers > 1:
            self._split(split_round)
            self._setup_cuts(h)
        #: The executor of the subtree seam in this process (:mod:`pokerlab.tree.executors`).
        self.pool: WorkerPool = worker_pool(self.workers)
        self._deck = deck
        # uniform deal: 1 / (pairs for the opponent given the hand and the board); per-hand sums
        # at the root then average over the traverser's hands through the reported value; a
        # batch of B boards weighs each 1/B
        #: The scale of a pass over one board (``root_values``).
        self._board_scale = 1.0 / comb(num_cards - 2 - 5, 2)
        self._scale = self._board_scale / self.boards_per_iteration
        if self.chance == "full":
            self._setup_full()
        self.rng = generator(o.seed)
        self._next = (1.0, 1.0)  # the next iteration's (a, b) discounts, for the prediction
        # the discounts kept as one number each (strategy sums, regrets) and this iteration's
        # weights of the additions to them (sums, regrets)
        self._sum_scale = LazyScale()
        self._regret_scale = LazyScale()
        self._weights = (1.0, 1.0)

    # --- storage --------------------------------------------------------------------------------
    def _allocate_storage(self) -> None:
        """The regrets, strategy sums and predicted regrets (float32, flat, in node order)."""
        self._regrets = np.zeros(self.size, dtype=np.float32)
        self._sums = np.zeros(self.size, dtype=np.float32)
        #: Predicted regrets (predictive schedules only; 0 at the start: uniform play first).
        self._prediction = np.zeros(self.size if self.predictive else 0, dtype=np.float32)

    def regrets(self) -> np.ndarray:
        """The stored regrets (float32, times the lazy regret scale; the live array)."""
        return self._regrets

    def strategy_sum(self) -> np.ndarray:
        """The stored strategy sums (float32, times the lazy sum scale; the live array)."""
        return self._sums

    def prediction(self) -> np.ndarray:
        """The predicted regrets (empty unless the schedule is predictive; the live array)."""
        return self._prediction

    def arrays(self) -> dict[str, np.ndarray]:
        """The run's arrays by checkpoint name: ``regrets``, ``sums`` and, with a predictive
        schedule, ``prediction``."""
        out = {"regrets": self.regrets(), "sums": self.strategy_sum()}
        if self.predictive:
            out["prediction"] = self.prediction()
        return out

    def _set_arrays(
        self, regrets: np.ndarray, sums: np.ndarray, prediction: np.ndarray | None
    ) -> None:
        """Overwrite the stored arrays (flat, full layout) with a checkpoint's."""
        self._regrets[:] = regrets
        self._sums[:] = sums
        if self.predictive and prediction is not None:
            self._prediction[:] = prediction

    def extra(self) -> dict[str, Any]:
        """What a resumed run needs besides the arrays: the lazy scales (sums, regrets) the
        arrays are stored at and the board generator's state."""
        return {
            "scales": [self._sum_scale.weight, self._regret_scale.weight],
            "rng": self.rng.bit_generator.state,
        }

    def load(self, arrays: dict[str, np.ndarray], extra: dict[str, Any]) -> None:
        """Overwrite the run with a checkpoint's arrays and :meth:`extra` fields (states before
        the lazy scales hold their arrays at scale 1)."""
        self._set_arrays(arrays["regrets"], arrays["sums"], arrays.get("prediction"))
        sum_scale, regret_scale = extra.get("scales", (1.0, 1.0))
        self._sum_scale.weight = float(sum_scale)
        self._regret_scale.weight = float(regret_scale)
        self.rng.bit_generator.state = extra["rng"]

    def _discount(self, a: float, b: float, g: float) -> None:
        """Scale the stored regrets and sums before an iteration (the schedule's factors)."""
        K.discount(self._regrets, self._sums, a, b, g)

    # --- the iterations -------------------------------------------------------------------------
    def run(self, first_iteration: int, iterations: int) -> int:
        """Run ``iterations`` iterations numbered from ``first_iteration``
        (``boards_per_iteration`` sampled boards, or every board, both players in turn, each).
        Returns the public nodes walked: two passes over the tree per iteration, one per chunk
        of boards with ``chance="full"`` (each pass carries a whole vector of hands)."""
        walks = len(self._full_chunks) if self.chance == "full" else 1
        for i in range(int(iterations)):
            self._begin_iteration(int(first_iteration) + i)
            if self.chance == "full":
                self._full_pass(0, update=True)
                self._full_pass(1, update=True)
                continue
            boards = np.stack(
                [
                    self.rng.choice(self._deck, size=5, replace=False)
                    for _ in range(self.boards_per_iteration)
                ]
            ).astype(np.int64)
            entries = self._board_arrays(boards)  # once for both players' passes
            self._pass(entries, 0, update=True)
            self._pass(entries, 1, update=True)
        return 2 * walks * self.tree.num_nodes * int(iterations)

    def _begin_iteration(self, t: int) -> None:
        """The schedule's discount before iteration ``t``: uniform factors kept lazily
        (:class:`LazyScale`: the strategy sums' g_t always; the regrets' when a_t = b_t, or with
        the regret floor, which leaves no regret below 0 to take b_t), the others applied to the
        stored arrays; then the weights of the iteration's additions and the next iteration's
        regret discount (for the prediction)."""
        a, b, g = discount_factors(self._params, t)
        if not self.lazy_discounts:
            ra, rb, gs, regret_weight, sum_weight = a, b, g, 1.0, 1.0
        else:
            if self.regret_floor:
                b = a
            ra, rb, regret_weight = self._regret_scale.advance(a, b)
            gs, _, sum_weight = self._sum_scale.advance(g)
        if (ra, rb, gs) != (1.0, 1.0, 1.0):
            self._discount(float(ra), float(rb), float(gs))
        self._weights = (float(sum_weight), float(regret_weight))
        na, nb, _ = discount_factors(self._params, t + 1)
        self._next = (float(na), float(nb))

    # --- one sampled board (or a batch) --------------------------------------------------------
    def _board_arrays(self, boards: np.ndarray) -> BoardBatch:
        """The pass's entries for a batch of boards ``(B, 5)`` (or one board): the live hands of
        each board with their states, strengths and order (:func:`board_entries`)."""
        return board_entries(boards, self.hands, self.labels, self._counts, self.recall, self.ranks)

    def _discounts(self, frozen: np.ndarray | None = None) -> Discounts:
        """How this iteration's passes update (the regret floor is left to the caller of a
        chunked pass, which reads ``frozen`` regrets)."""
        return Discounts(
            self.regret_floor and frozen is None,
            self.predictive,
            float(self._next[0]),
            float(self._next[1]),
            *self._weights,
        )

    def _subtree(
        self,
        entries: BoardBatch,
        traverser: int,
        update: bool,
        root: int,
        root_reach: np.ndarray,
        out: np.ndarray,
        buffers: SubtreeScratch,
        cuts: Cuts = NO_CUTS,
        scale: float | None = None,
        frozen: np.ndarray | None = None,
        storage: tuple[BettingArrays, np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> float:
        """A depth-first pass over the subtree at ``root`` (the whole tree at 0) from the two
        players' reach rows there; writes the root's value row into ``out``. ``cuts``: the cuts
        of :func:`pcs_subtree` (none by default); ``scale``: another chance scale; ``frozen``:
        regrets that regret matching reads instead of the live ones (a chunked full pass; the
        pass then leaves the floor to its caller); ``storage``: (arrays, regrets, sums,
        predictions) of another layout (a Ray head's own nodes)."""
        if storage is None:
            storage = (self._tree_arrays, self.regrets(), self.strategy_sum(), self.prediction())
        arrays, regrets, sums, prediction = storage
        return pcs_subtree(
            arrays,
            entries,
            self._scale if scale is None else scale,
            np.int64(traverser),
            RunArrays(regrets, sums, prediction if frozen is None else frozen),
            self._discounts(frozen),
            update,
            np.int64(root),
            root_reach,
            out,
            buffers,
            cuts,
        )

    def _pass(self, boards: np.ndarray | BoardBatch, traverser: int, update: bool) -> float:
        """One pass for ``traverser`` over a batch of boards; returns the root value summed
        over the entries (each entry's in ``self._root``): a depth-first pass over the whole
        tree (one worker) or a split pass (:meth:`_split_pass`). ``boards``: (B, 5) cards, or
        their entries (:meth:`_board_arrays`)."""
        entries = boards if isinstance(boards, BoardBatch) else self._board_arrays(boards)
        width = entries.states.shape[1]
        reach = np.ones((2, width), dtype=np.float32)
        if self.workers == 1:
            return self._subtree(
                entries, traverser, update, 0, reach, self._root[:width], self._buffers[0]
            )
        return self._split_pass(entries, reach, traverser, update)

    def root_values(self, board: np.ndarray, traverser: int) -> np.ndarray:
        """Counterfactual value of each hole-card pair of ``traverser`` at the root for the
        given board under the current strategy (no update): the expectation over the opponent's
        hands, weighted by their reach (with a board batch, divided by its size B)."""
        board = np.asarray(board, dtype=np.int64)
        if self.chance == "full":
            # one board, one depth-first pass over the whole tree at a one-board scale (the
            # split passes' rows are sized for every board at once)
            entries = self._board_arrays(board)
            width = entries.states.shape[1]
            self._subtree(
                entries, traverser, False, 0, np.ones((2, width), dtype=np.float32),
                self._root[:width], self._buffers[0], scale=self._board_scale,
            )  # fmt: skip
        else:
            self._pass(board, traverser, update=False)
        out = np.zeros(len(self.hands), dtype=np.float32)
        hand = np.flatnonzero(~np.isin(self.hands, board).any(axis=1))
        out[hand] = self._root[: hand.size]
        return out
