"""Every board each iteration (``chance="full"``) in the public-chance-sampling run
(:class:`FullChance`, a base of :class:`~pokerlab.tree.betting.pcs.PCSState`): the entries of
every suit-canonical board, built once in chunks of ``board_chunk`` boards, weighted by each
board's class size (CFR with chance enumerated, as Cepheus' CFR+ was run: Tammelin, Burch,
Johanson and Bowling 2015), and the pass over them chunk by chunk.
"""

from __future__ import annotations

import numpy as np

from pokerlab.tree.betting._kernels import BoardBatch

__all__ = ["FullChance"]


class FullChance:
    """The every-board passes of :class:`~pokerlab.tree.betting.pcs.PCSState`, over its board
    indexer, entries (``_board_arrays``) and passes (``_subtree``, ``_split_pass``)."""

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
        frozen = self._regrets.copy()
        total = 0.0
        for entries, reach in self._full_chunks:
            total += self._full_chunk(entries, reach, traverser, update, frozen)
        if update and self.regret_floor:
            np.maximum(self._regrets, 0.0, out=self._regrets)
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
