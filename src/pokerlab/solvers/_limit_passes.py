"""The passes of public chance sampling on the betting tree (:class:`PCSPasses`, the part of
:class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver` that walks boards): a batch of sampled
boards' hand entries (:class:`~pokerlab.tree.betting._kernels.BoardBatch`), the depth-first
pass over a subtree (:func:`~pokerlab.tree.betting._subtree_kernels.pcs_subtree`), the split
pass (a head above the subtree roots, workers below them, on threads), every board at once
(``chance="full"``, in chunks) and the root values; with the scratch estimate of a full pass."""

from __future__ import annotations

from collections.abc import Callable
from math import comb
from typing import Any

import numpy as np

from pokerlab.abstraction.buckets import bucket_sequence_ids
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.games.limit_holdem import DEAL, LimitHoldemGame
from pokerlab.tree._primitives import RunArrays
from pokerlab.tree.betting._kernels import BettingArrays, BoardBatch, Discounts
from pokerlab.tree.betting._subtree_kernels import (
    NO_CUTS,
    Cuts,
    SubtreeScratch,
    pcs_subtree,
    tree_depth,
)

__all__ = ["PCSPasses", "full_chance_bytes"]


def _ranked(
    cards: np.ndarray, order: np.ndarray, strength: np.ndarray, segments: np.ndarray
) -> np.ndarray:
    """:attr:`BoardBatch.ranked`: per sorted position, the entry's two cards and the end of its
    run of equal strength within its board."""
    ranked = np.empty((order.size, 3), dtype=np.int64)
    ranked[:, :2] = cards[order]
    s = strength[order]
    # a run ends where the strength changes or the board's segment ends
    ends = np.zeros(order.size, dtype=bool)
    ends[segments[1:] - 1] = True
    ends[:-1] |= s[1:] != s[:-1]
    stops = np.flatnonzero(ends) + 1
    ranked[:, 2] = stops[np.searchsorted(stops, np.arange(order.size), side="right")]
    return ranked


def _path_bytes_per_entry(depth: int) -> int:
    """Bytes per hand entry of one worker's depth-first pass scratch (:func:`subtree_buffers`)."""
    return (2 * 4 + 3 * 8 + 3 * 4) * (depth + 1) + 3 * 8


def full_chance_bytes(
    game: LimitHoldemGame, workers: int = 1, split_round: int = 0, board_chunk: int | None = None
) -> int:
    """Bytes of scratch that :class:`LimitPCSSolver` with ``chance="full"`` needs besides its
    regrets and sums: every canonical board's hand entries (92 bytes each in a
    :class:`BoardBatch`, plus the root reach), each worker's depth-first pass buffers, and with
    several workers the reach and value rows at each subtree root. 12 cards: 16,506 entries,
    22 MiB on one worker, 43-53 MiB on two; 24 cards: 7.1 million entries, 9.1 GiB on one
    worker, 18-22 GiB on two (so refused under the default 8 GiB limit). The Ray object
    store's copy of the entries and the temporaries of building them come on top."""
    rules = game.rules
    tree = game.betting_tree
    boards = HandIndexer((3, 1, 1), rules.ranks).size
    entries = comb(rules.num_cards - 5, 2) * boards
    width = comb(rules.num_cards - 5, 2) * min(boards, board_chunk or boards)
    depth = tree_depth(tree.child_start, tree.children)
    # every board's entries and root reach; per pass (a chunk's width) its own root, reach and
    # value rows (one row each), the workers' path buffers and the cut rows
    per_pass = 16 + workers * _path_bytes_per_entry(depth)
    if workers > 1:
        per_pass += 3 * 4 * int(((tree.kind == DEAL) & (tree.round == split_round)).sum())
    return (92 + 8) * entries + per_pass * width


class PCSPasses:
    """The board passes of :class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver` (a base class
    of it: the solver holds the layout, the storage, the schedule's weights and the scratch
    these methods read)."""

    tree: Any
    hands: np.ndarray
    workers: int
    chance: str
    regrets: np.ndarray
    sums: np.ndarray
    prediction: np.ndarray
    schedule: Any

    # --- one sampled board (or a batch) --------------------------------------------------------
    def _board_arrays(self, boards: np.ndarray) -> BoardBatch:
        """The pass's entries for a batch of boards ``(B, 5)`` (or one board): the live hands of
        each board with their states, strengths and order (see :class:`BoardBatch`)."""
        boards = np.atleast_2d(np.asarray(boards, dtype=np.int64))
        hands = self.hands
        parts: list[list[np.ndarray]] = [[] for _ in range(5)]
        segments = np.zeros(boards.shape[0] + 1, dtype=np.int64)
        for b, board in enumerate(boards):
            idx = np.flatnonzero(~np.isin(hands, board).any(axis=1))
            labels = []
            for r, shown in enumerate((0, 3, 4, 5)):
                rows = np.concatenate(
                    [hands[idx], np.broadcast_to(board[:shown], (idx.size, shown))], axis=1
                )
                labels.append(
                    self.abstraction.labels[r][round_indexer(r, self.game.rules.ranks).index(rows)]
                )
            ids = bucket_sequence_ids(labels, self._counts, self.recall)
            seven = np.concatenate([hands[idx], np.broadcast_to(board, (idx.size, 5))], axis=1)
            strength = evaluate_batch(seven.astype(np.uint8)).astype(np.int32)
            parts[0].append(np.stack([np.asarray(x, dtype=np.int64) for x in ids]))
            parts[1].append(segments[b] + np.argsort(strength, kind="stable"))
            parts[2].append(strength)
            parts[3].append(hands[idx])
            parts[4].append(idx)
            segments[b + 1] = segments[b] + idx.size
        states, order, strength, cards, hand = (np.concatenate(x, axis=-1 if i == 0 else 0)
                                                for i, x in enumerate(parts))  # fmt: skip
        order = order.astype(np.int64)
        cards = cards.astype(np.int64)
        ranked = _ranked(cards, order, strength, segments)
        return BoardBatch(states, order, strength, segments, cards, hand, ranked)

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
            storage = (self._tree_arrays, self.regrets, self.sums, self.prediction)
        arrays, regrets, sums, prediction = storage
        return pcs_subtree(
            arrays,
            entries,
            self._scale if scale is None else scale,
            np.int64(traverser),
            RunArrays(regrets, sums, prediction if frozen is None else frozen),
            Discounts(
                bool(self.schedule.regret_floor) and frozen is None,
                bool(self.schedule.predictive),
                float(self._next[0]),
                float(self._next[1]),
                *self._weights,
            ),
            update,
            np.int64(root),
            root_reach,
            out,
            buffers,
            cuts,
        )

    def _in_workers(self, run: Callable[[int], None]) -> None:
        """``run(w)`` for every worker ``w`` at once, on the solver's threads (started once)."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=self.workers)
        list(self._pool.map(run, range(self.workers)))

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

    def _setup_cuts(self, width: int) -> None:
        """The seam of a split pass: each subtree root's slot, and the reach and value rows
        there (``width`` entries each)."""
        cut = np.full(self.tree.num_nodes, -1, dtype=np.int64)
        for k, (root, _, _) in enumerate(self.subtrees):
            cut[root] = k
        self._cut = cut
        self._cut_reach = np.zeros((len(self.subtrees), 2, width), dtype=np.float32)
        self._cut_values = np.zeros((len(self.subtrees), width), dtype=np.float32)

    def _split_pass(
        self,
        entries: BoardBatch,
        reach: np.ndarray,
        traverser: int,
        update: bool,
        frozen: np.ndarray | None = None,
    ) -> float:
        """A pass split at the subtree roots: the head's way down over the nodes above them
        (cut mode 1, no update: it collects the reach rows arriving at each root), the workers'
        passes over their subtrees in threads, the head's way up (cut mode 2, taking their
        value rows). ``reach``: the root's reach rows; ``frozen``: see :meth:`_subtree`."""
        buffers = self._buffers
        width = reach.shape[1]
        out = self._root[:width]
        cut_reach, cut_values = self._cut_reach[:, :, :width], self._cut_values[:, :width]
        cuts = Cuts(self._cut, np.int64(1), cut_reach, cut_values)
        self._subtree(entries, traverser, False, 0, reach, out, buffers[0], cuts, frozen=frozen)

        def run(w: int) -> None:
            for k, (root, _, owner) in enumerate(self.subtrees):
                if owner == w:
                    self._subtree(
                        entries, traverser, update, root, np.ascontiguousarray(cut_reach[k]),
                        cut_values[k], buffers[w], frozen=frozen,
                    )  # fmt: skip

        self._in_workers(run)
        cuts = cuts._replace(mode=np.int64(2))
        return self._subtree(
            entries, traverser, update, 0, reach, out, buffers[0], cuts, frozen=frozen
        )

    # --- every board (chance="full") ------------------------------------------------------------
    def _setup_full(self) -> None:
        """The entries of every canonical board (one batch, built once), each entry's root reach
        (its board's class size, for both players: chance's weight enters through the
        opponent's reach into the values and through the own reach into the strategy sums), the
        scale (1 / (opponent pairs x ordered boards))."""
        indexer = self._board_indexer
        self._full_boards, self._full_weights = indexer.unindex(np.arange(indexer.size))
        step = self.board_chunk or len(self._full_boards)
        #: (entries, root reach) of each chunk of boards (one chunk unless ``board_chunk``).
        self._full_chunks: list[tuple[BoardBatch, np.ndarray]] = []
        for first in range(0, len(self._full_boards), step):
            entries = self._board_arrays(self._full_boards[first : first + step])
            weight = np.repeat(
                self._full_weights[first : first + step].astype(np.float32),
                np.diff(entries.segments),
            )
            self._full_chunks.append((entries, np.ascontiguousarray(np.stack([weight, weight]))))
        self._full_entries, self._full_reach = self._full_chunks[0]
        self._scale = self._board_scale / float(self._full_weights.sum())

    @property
    def full_boards(self) -> int:
        """Canonical boards an iteration walks with ``chance="full"`` (0 when sampling)."""
        return len(self._full_boards) if self.chance == "full" else 0

    def _full_pass(self, traverser: int, update: bool) -> float:
        """One pass for ``traverser`` over every canonical board, chunk by chunk. With several
        chunks every chunk's regret matching reads a frozen copy of the regrets (the
        iteration's strategy) and the regret floor comes after the last one."""
        if len(self._full_chunks) == 1:
            return self._full_chunk(self._full_entries, self._full_reach, traverser, update)
        frozen = self.regrets.copy()
        total = 0.0
        for entries, reach in self._full_chunks:
            total += self._full_chunk(entries, reach, traverser, update, frozen)
        if update and self.schedule.regret_floor:
            np.maximum(self.regrets, 0.0, out=self.regrets)
        return total

    def _full_chunk(
        self,
        entries: BoardBatch,
        reach: np.ndarray,
        traverser: int,
        update: bool,
        frozen: np.ndarray | None = None,
    ) -> float:
        """One pass over a chunk of boards: one worker, a depth-first pass over the whole
        tree; several, a split pass (:meth:`_split_pass`). ``frozen``: the regrets regret
        matching reads (then no floor here; see :meth:`_full_pass`)."""
        if self.workers == 1:
            width = reach.shape[1]
            return self._subtree(
                entries, traverser, update, 0, reach, self._root[:width], self._buffers[0],
                frozen=frozen,
            )  # fmt: skip
        return self._split_pass(entries, reach, traverser, update, frozen)

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
