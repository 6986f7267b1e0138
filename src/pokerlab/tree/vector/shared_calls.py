"""Split passes on this process's threads as one compiled call a worker (:class:`SharedCalls`,
a part of :class:`~pokerlab.tree.vector.passes.Passes`): the CFR iterations between two checks
(:func:`~pokerlab.tree.vector._walk_batches.cfr_iterations_shared`) and a check's two
best-response passes (``best_response_pair_shared``), the workers' passes synchronised by
atomic counters inside the call instead of a thread-pool wake-up and three calls from Python a
pass (a tenth of a turn iteration on two threads)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

from pokerlab.tree.executors import ThreadWorkers, WorkerPool, usable_cpus
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector import _walk_batches as B
from pokerlab.tree.vector._bundles import SharedRuns
from pokerlab.tree.vector.tree import VectorTree

__all__ = ["OPEN", "SharedCalls"]

R = TypeVar("R")

#: What the synchronisation counters are set to when a worker fails: past any value a wait
#: waits for, so the other workers return (with numbers not to be used) instead of waiting on.
OPEN = 1 << 62


class SharedCalls:
    """The shared calls of a :class:`~pokerlab.tree.vector.passes.Passes` (its attributes)."""

    tree: VectorTree
    pool: WorkerPool
    threads: int
    items_local: bool
    #: the counters of a shared call (three int64 rows on cache lines of their own)
    sync: np.ndarray
    item_ids: np.ndarray
    run_starts: np.ndarray
    out: np.ndarray
    out32: np.ndarray
    scratch_w: list[tuple[np.ndarray, ...]]
    scratch_w32: list[tuple[np.ndarray, ...]]

    def shared_calls(self) -> bool:
        """Whether the split passes run one compiled call a worker: on this process's threads,
        the items' storage here, and at most one thread per usable CPU (the workers wait for
        each other: 3 threads on 2 CPUs took 12 ms a turn iteration, against 4 from Python's
        dispatch a pass)."""
        return (
            self.items_local
            and isinstance(self.pool, ThreadWorkers)
            and self.threads <= usable_cpus()
        )

    def shared_runs(self, worker: int) -> SharedRuns:
        """Worker ``worker``'s place in a shared call (the bundle the kernels take)."""
        return SharedRuns(worker, self.threads, self.item_ids, self.run_starts, self.sync)

    def map_shared(self, run: Callable[[int], R]) -> list[R]:
        """``run(w)`` on every worker at once, the counters zeroed first; a worker that raises
        sets them :data:`OPEN`, so the others return and its error reaches the caller instead
        of a hang."""
        sync = self.sync
        sync[:] = 0

        def guarded(w: int) -> R:
            try:
                return run(w)
            except BaseException:
                sync[:] = OPEN
                raise

        return self.pool.map(guarded)

    def shared_cfr_iterations(
        self,
        first: int,
        count: int,
        params: np.ndarray,
        predictive: bool,
        floor: bool,
        weighted: bool,
        store: K.Storage,
        items: K.Items,
    ) -> int:
        """CFR iterations ``first + 1 .. first + count`` (see
        :meth:`~pokerlab.tree.vector.passes.Passes.cfr_iterations`) in one call a worker;
        ``items``: the float32 work items, made before the workers start (their first reads at
        once would each make their own). The nodes visited."""
        t = self.tree

        def run(w: int) -> int:
            return int(
                B.cfr_iterations_shared(
                    self.shared_runs(w), t.arrays, t.hands, t.sweep, int(first), int(count),
                    params, bool(predictive), bool(floor), bool(weighted), store, self.out32,
                    self.scratch_w32[w], items,
                )
            )  # fmt: skip

        return sum(self.map_shared(run))

    def shared_best_responses(
        self, store: K.Storage, items: K.Items, narrow: bool = False
    ) -> tuple[float, float]:
        """Both players' best-response values (chips) against the average strategy in
        ``store``, without locks, in one call a worker (``items``: the float64 work items, or
        with ``narrow`` the float32 ones, the passes' vectors float32 then too)."""
        t = self.tree
        out, scratch = (self.out32, self.scratch_w32) if narrow else (self.out, self.scratch_w)

        def run(w: int) -> np.ndarray:
            return B.best_response_pair_shared(
                self.shared_runs(w), t.arrays, t.hands, t.sweep, store, out, scratch[w], items,
                t.norm,
            )  # fmt: skip

        v = self.map_shared(run)[0]
        return float(v[0]), float(v[1])
