"""Rows of regrets (and strategy sums) allocated lazily, for the action sequences a run actually
reaches (issue 24; Pluribus' blueprint, Brown and Sandholm 2019, supplement: of 664,845,654
action sequences 413,507,309 were ever reached, and memory was allocated for a sequence only when
external-sampling MCCFR first reached it, BLUEPRINT.md 1.1).

The dense layout keeps, per decision node ``n`` of the betting tree, a block of ``actions x
states`` entries (entry ``offset[n] + action * num_states + state``). :class:`RowPool` keeps
instead

- an index of one integer per (decision node, state), ``slot_offset[n] + state`` (int32, or int64
  when the pool could pass 2**31 entries): -1 while no traversal has reached it, else where its
  row starts in the pool; 4 bytes per information set instead of ``actions x 4`` (regrets) or
  ``actions x 8`` (with strategy sums);
- a pool of rows, each the node's actions contiguous: the regrets (float32 or int32) and, when
  averages are kept on every round, the strategy sums in the same rows (with ``averages=
  "preflop"`` the preflop sums keep their small dense layout). The pool's first entries are a
  row of zeros that reads of an unreached row use when nothing is written.

The kernel (:func:`pokerlab.tree.betting._mccfr_kernels.es_run`, :class:`LazyRows`) claims the next
free row the first time a traversal reaches a (node, state), in the order of the serial run, so the
claim needs no lock (a thread claims in its own copy). Before each iteration it stops when the pool
has less room than one iteration can claim (every decision's row once per traversal, one traversal
per player) and :meth:`RowPool.grow` enlarges the pool by a quarter outside the kernel; the call
then goes on from the same iteration, so where the pool grows changes nothing. An unreached row
reads as regret 0 (uniform) and sum 0, as the dense layout's untouched entries do, and the
arithmetic on a reached row is the dense layout's: a lazy run and a dense run of the same seed give
the same numbers bit for bit (tested), only stored elsewhere. :meth:`RowPool.expand` writes a pool
array back in the dense layout (what every reader of the strategy takes).
"""

from __future__ import annotations

import copy

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.tree._primitives import DECISION
from pokerlab.tree.betting._mccfr_kernels import LazyRows
from pokerlab.tree.betting.tree import BettingTree

__all__ = ["RowPool", "dense_rows"]

#: Pools of fewer entries index their rows with int32, larger ones with int64.
INT32_INDEX_LIMIT = 2**31
#: Pool entries of a fresh pool beyond the first iteration's room.
INITIAL_ENTRIES = 1 << 16
#: A full pool grows by 1 / GROWTH of its size (a quarter: at most 25% allocated and unused, the
#: copies amortised to 5 entries per entry; doubling left up to half unused, 20 MB of 120 MB on
#: acpc-hunl after 80,000 iterations).
GROWTH = 4


def dense_rows() -> LazyRows:
    """The kernel's lazy-rows argument of a dense run (disabled; nothing in it is read)."""
    return LazyRows(
        False,
        False,
        np.full(0, -1, dtype=np.int32),
        np.zeros(0, dtype=np.int64),
        np.zeros(5, dtype=np.int64),
    )


class RowPool:
    """The index and the pool of a lazy run (module docstring) on ``tree`` with the dense
    layout (``offset``, ``num_states``, ``size`` entries): regrets of ``regret_dtype``, strategy
    sums in the pool's rows when ``sums_in_rows``, else ``sum_size`` float32 in their own dense
    layout (``sums`` either way); ``players`` traversals an iteration."""

    def __init__(
        self,
        tree: BettingTree,
        offset: np.ndarray,
        num_states: np.ndarray,
        size: int,
        players: int,
        regret_dtype: type,
        sums_in_rows: bool,
        sum_size: int = 0,
    ) -> None:
        decision = np.asarray(tree.kind) == DECISION
        rounds = np.asarray(tree.round, dtype=np.int64)
        self.actions = np.diff(np.asarray(tree.child_start, dtype=np.int64))
        self.offset = np.asarray(offset, dtype=np.int64)
        self.num_states = np.asarray(num_states, dtype=np.int64)
        self.rounds = rounds
        per_node = np.where(decision, self.num_states[rounds], 0)
        starts = np.concatenate(([0], np.cumsum(per_node)[:-1])).astype(np.int64)
        self.slot_offset = np.where(decision, starts, -1).astype(np.int64)
        self.nodes = np.flatnonzero(decision).astype(np.int64)
        self.num_slots = int(per_node.sum())
        self.size = int(size)
        #: The zero row's width: the most actions of a decision.
        self.width = int(self.actions[self.nodes].max()) if self.nodes.size else 1
        largest = self.width + self.size
        dtype = np.int32 if largest < INT32_INDEX_LIMIT else np.int64
        self.index = np.full(self.num_slots, -1, dtype=dtype)
        reserve = int(players) * int(self.actions[self.nodes].sum())
        capacity = min(largest, self.width + reserve + INITIAL_ENTRIES)
        #: [used, capacity, iterations done by the last kernel call, room one iteration may
        #: claim, the largest pool] (the kernel's ``head``).
        self.head = np.array([self.width, capacity, 0, reserve, largest], dtype=np.int64)
        self.regret_dtype = regret_dtype
        self.sums_in_rows = bool(sums_in_rows)
        self.regrets = np.zeros(capacity, dtype=regret_dtype)
        self.sums = np.zeros(capacity if sums_in_rows else sum_size, dtype=np.float32)
        self.rows = LazyRows(True, self.sums_in_rows, self.index, self.slot_offset, self.head)
        #: Snapshot sums in the pool's rows (:meth:`enable_snapshots`; empty when off) and the
        #: pool entries in use when they were last brought up to date.
        self.snaps = np.zeros(0, dtype=np.float32)
        self.snapshots = False
        self.snap_used = self.width

    # --- size ------------------------------------------------------------------------------------
    @property
    def used(self) -> int:
        """Pool entries in use (the zero row included)."""
        return int(self.head[0])

    @property
    def capacity(self) -> int:
        return int(self.head[1])

    @property
    def rows_reached(self) -> int:
        """(node, state) rows reached so far."""
        return int(np.count_nonzero(self.index >= 0))

    @property
    def fraction_reached(self) -> float:
        """Entries in reached rows over the dense layout's entries."""
        return (self.used - self.width) / max(self.size, 1)

    @property
    def nbytes(self) -> int:
        """Bytes allocated: the index, the pools at their capacity and the dense sums."""
        return int(self.index.nbytes + self.regrets.nbytes + self.sums.nbytes + self.snaps.nbytes)

    def grow(self, entries: int | None = None) -> None:
        """Make room: at least ``entries`` entries (default: the used ones plus one iteration's
        claims), by a quarter at least, never past the largest pool; the used part is
        copied."""
        used, capacity, _, reserve, largest = (int(x) for x in self.head)
        need = used + reserve if entries is None else int(entries)
        if need <= capacity:
            return
        new = min(largest, max(capacity + capacity // GROWTH, need))
        regrets = np.zeros(new, dtype=self.regret_dtype)
        regrets[:used] = self.regrets[:used]
        self.regrets = regrets
        if self.sums_in_rows:
            sums = np.zeros(new, dtype=np.float32)
            sums[:used] = self.sums[:used]
            self.sums = sums
        if self.snapshots:
            snaps = np.zeros(new, dtype=np.float32)
            snaps[:used] = self.snaps[:used]
            self.snaps = snaps
        self.head[1] = new

    def copy(self) -> RowPool:
        """A copy with arrays of its own (a worker's, :mod:`pokerlab.solvers.batched`)."""
        twin = copy.copy(self)
        twin.index = self.index.copy()
        twin.head = self.head.copy()
        twin.regrets = self.regrets.copy()
        twin.sums = self.sums.copy()
        twin.snapshots, twin.snaps = False, np.zeros(0, dtype=np.float32)  # the head's alone
        twin.rows = LazyRows(True, self.sums_in_rows, twin.index, self.slot_offset, twin.head)
        return twin

    def claim(self, slots: np.ndarray) -> None:
        """Give each of ``slots`` (in this order) that has no row the next free row (the
        head of a batched run takes the rows its workers reached), growing the pool."""
        slots = slots[self.index[slots] < 0]
        if slots.size == 0:
            return
        na = self.actions[self.slot_nodes(slots)]
        used = self.used
        ends = used + np.cumsum(na)
        self.grow(int(ends[-1]) + int(self.head[3]))
        self.index[slots] = (ends - na).astype(self.index.dtype)
        self.head[0] = int(ends[-1])

    def slot_nodes(self, slots: np.ndarray) -> np.ndarray:
        """The decision node of each (node, state) slot."""
        owner = np.searchsorted(self.slot_offset[self.nodes], slots, side="right") - 1
        return self.nodes[owner]

    def entries(self, slots: np.ndarray, index: np.ndarray) -> np.ndarray:
        """The pool positions of every entry of the rows of ``slots`` under ``index`` (row
        starts), rows in the order of ``slots``, actions in order."""
        na = self.actions[self.slot_nodes(slots)]
        first = np.concatenate(([0], np.cumsum(na)[:-1])).astype(np.int64)
        j = np.arange(int(na.sum()), dtype=np.int64) - np.repeat(first, na)
        return np.repeat(index[slots].astype(np.int64), na) + j

    # --- the dense layout -----------------------------------------------------------------------
    def _positions(self) -> tuple[np.ndarray, np.ndarray]:
        """(dense positions, pool positions) of every entry of the reached rows."""
        slots = np.flatnonzero(self.index >= 0)
        if slots.size == 0:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        node = self.slot_nodes(slots)
        state = slots - self.slot_offset[node]
        na = self.actions[node]
        ns = self.num_states[self.rounds[node]]
        group = np.repeat(np.arange(slots.size), na)
        first = np.concatenate(([0], np.cumsum(na)[:-1]))
        j = np.arange(int(na.sum()), dtype=np.int64) - np.repeat(first, na)
        dense = self.offset[node][group] + j * ns[group] + state[group]
        pool = self.index[slots].astype(np.int64)[group] + j
        return dense, pool

    def expand(self, pool_array: np.ndarray, dtype: type | None = None) -> np.ndarray:
        """``pool_array`` (the regrets' or the sums' pool) in the dense layout: 0 in every row
        not reached (regret 0 reads as uniform; a strategy sum of 0 as uniform too)."""
        out = np.zeros(self.size, dtype=pool_array.dtype if dtype is None else dtype)
        dense, pool = self._positions()
        out[dense] = pool_array[pool]
        return out

    # --- checkpoints ----------------------------------------------------------------------------
    def load(self, used: int, index: np.ndarray) -> None:
        """Set up the pool for a checkpoint's ``used`` entries and ``index`` (checked: its
        shape, and every row inside the used part); the caller writes the pool's used part."""
        index = np.asarray(index)
        if index.shape != self.index.shape:
            raise PokerlabError(
                f"state array 'row_index' has shape {index.shape}, this tree's {self.index.shape}"
            )
        reached = index[index >= 0]
        bad = bool((index < -1).any()) or not self.width <= used <= int(self.head[4])
        if reached.size:
            bad = bad or not self.width <= int(reached.min()) <= int(reached.max()) < used
        if bad:
            raise PokerlabError("state array 'row_index' is damaged (rows outside the pool)")
        self.regrets = np.zeros(0, dtype=self.regret_dtype)
        if self.sums_in_rows:
            self.sums = np.zeros(0, dtype=np.float32)
        if self.snapshots:
            self.snaps = np.zeros(0, dtype=np.float32)
        self.head[0] = self.head[1] = 0
        self.grow(used + int(self.head[3]))
        self.head[0] = used
        self.index[:] = index
        self.snap_used = used  # a checkpoint's snapshot rows are up to date

    # --- snapshots of the current strategy (:mod:`pokerlab.solvers.snapshots`) ----------------
    def enable_snapshots(self) -> None:
        """Keep snapshot sums in the pool's rows (grown with it)."""
        self.snapshots = True
        self.snaps = np.zeros(self.capacity, dtype=np.float32)

    def uniform_sum(self, actions: np.ndarray, taken: int) -> np.ndarray:
        """What ``taken`` snapshots of a uniform row add up to per entry, for rows of
        ``actions`` actions: ``float32(1 / actions)`` added ``taken`` times in float32, in
        order, as the dense layout's sums of an unreached row are."""
        out = np.zeros(actions.shape, dtype=np.float32)
        if taken == 0:
            return out
        for na in np.unique(actions).tolist():
            step = np.full(taken, np.float32(1.0 / na), dtype=np.float32)
            out[actions == na] = np.add.accumulate(step, dtype=np.float32)[-1]
        return out

    def update_snapshot_rows(self, taken: int) -> None:
        """Rows claimed since the snapshot sums were last brought up to date missed ``taken``
        snapshots, each uniform then (no regret yet): their sums get what the dense layout's
        hold (:meth:`uniform_sum`)."""
        fresh = np.flatnonzero(self.index >= self.snap_used)
        if fresh.size and taken:
            at = self.entries(fresh, self.index)
            actions = self.actions[self.slot_nodes(fresh)]
            self.snaps[at] = self.uniform_sum(np.repeat(actions, actions), taken)
        self.snap_used = self.used

    def normalise_rows(self, values: np.ndarray) -> np.ndarray:
        """Each reached row of the non-negative pool array ``values`` normalised over its
        actions (float64 per pool entry; uniform where the row sums to 0; the rest 0), with the
        arithmetic of :meth:`BettingLayout.normalise` (actions summed in order, in float64)."""
        out = np.zeros(self.used, dtype=np.float64)
        slots = np.flatnonzero(self.index >= 0)
        if slots.size == 0:
            return out
        na_of = self.actions[self.slot_nodes(slots)]
        starts = self.index[slots].astype(np.int64)
        for na in np.unique(na_of).tolist():
            base = starts[na_of == na]
            block = np.stack([values[base + j].astype(np.float64) for j in range(na)])
            total = block[0].copy()
            for j in range(1, na):
                total += block[j]
            probs = np.where(total > 0, block / np.where(total > 0, total, 1), 1.0 / na)
            for j in range(na):
                out[base + j] = probs[j]
        return out

    def dense_snapshots(self, taken: int) -> np.ndarray:
        """The snapshot sums in the dense layout (float32): every unreached row holds what
        ``taken`` uniform snapshots add up to, as the dense run's."""
        self.update_snapshot_rows(taken)
        # the dense layout's blocks follow the decisions in node order
        counts = self.actions[self.nodes] * self.num_states[self.rounds[self.nodes]]
        out = np.repeat(self.uniform_sum(self.actions[self.nodes], taken), counts)
        dense, pool = self._positions()
        out[dense] = self.snaps[pool]
        return out
