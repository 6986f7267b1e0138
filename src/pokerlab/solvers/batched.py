"""External-sampling MCCFR on N workers in synchronous batches, for any betting-tree front
(limit hold'em's :class:`~pokerlab.solvers.limit_mccfr.LimitESSolver`, the no-limit
:class:`~pokerlab.solvers.blueprint.BlueprintSolver`): one head, workers on threads
(:class:`ThreadBatches`) or Ray actors (:mod:`pokerlab.distributed.limit_mccfr_ray`).

In the style of the parallel MCCFR of Pluribus' blueprint (Brown and Sandholm 2019: workers
traverse against a shared regret table) but synchronous, so a run is reproducible:

1. the head owns the regrets and strategy sums (float32, the solver's layout) and, at a discount
   boundary, applies the schedule's discount to them (as the serial run does);
2. each of the N workers runs a batch of iterations of the serial algorithm on its own copy,
   with its own generator: worker 0 the run's own stream (``seed_state(seed)``), worker w >= 1
   the stream of child seed w - 1 (``child_seeds(seed, N - 1)``, :mod:`pokerlab._rng`); the
   streams persist across batches and checkpoints;
3. the head adds the changes: ``R <- R + sum_w (R_w - R)`` in float64, then the schedule's floor
   (CFR+) and ``min_regret``, stored as float32; likewise the strategy sums. The blueprint's
   int32 regrets are added in int64, exactly (no rounding: the workers' deltas are integers),
   then floored and saturated at the int32 range as the kernel stores them. With N = 1 the
   head takes the worker's arrays as they are.

A batch ends after ``batch`` iterations, at the next discount boundary (a multiple of
``discount_every``; the discount is the head's) and at the end of a :meth:`step` call, all
counted in worker iterations. So a run is deterministic for a given seed, N, ``batch``,
``discount_every`` and step sizes, on threads and on Ray alike (the same arithmetic), and **with
N = 1 it equals the serial solver of the same seed bit for bit, for any batch size** (tested).
With N >= 2 an iteration counts as N deals (``iterations`` counts worker iterations: each batch
of K adds N K) and within a batch a worker does not see the others' updates (a delay of one
batch, the price of the parallelism). ``linear_seconds`` is checked between batches.

On threads the kernel runs without the GIL (``es_run`` is ``nogil``), each worker on its own
copy of the two arrays (8 bytes per information-set action per worker beyond the head's).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from pokerlab._rng import child_seeds, seed_state
from pokerlab.errors import PokerlabError
from pokerlab.solvers.blueprint import BlueprintSolver
from pokerlab.solvers.limit_mccfr import LimitESSolver
from pokerlab.tree._primitives import INT32_MAX, INT32_MIN, discount_factors, discount_range
from pokerlab.tree.executors import worker_pool

__all__ = [
    "BatchedSampling",
    "ThreadBatches",
    "ThreadedBlueprintSolver",
    "ThreadedLimitESSolver",
    "check_batches",
    "worker_seeds",
]

BatchResult = tuple[np.ndarray, np.ndarray, np.ndarray, int]


def worker_seeds(seed: int, workers: int) -> list[int]:
    """The seed of each worker's generator: ``seed`` itself for worker 0 (so one worker is the
    serial run), child ``w - 1`` of ``seed`` for worker ``w >= 1``."""
    return [int(seed)] + child_seeds(seed, workers - 1)


def check_batches(workers: Any, batch: Any) -> tuple[int, int]:
    """``workers`` and ``batch`` as integers, each refused by name unless an integer >= 1."""
    out = []
    for value, what in ((workers, "workers"), (batch, "batch")):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or int(value) < 1:
            raise PokerlabError(f"{what} must be an integer >= 1, got {value!r}")
        out.append(int(value))
    return out[0], out[1]


class BatchedSampling:
    """The head of a batched run (module docstring), mixed in before a betting-tree sampled
    front (:class:`~pokerlab.solvers.limit_mccfr.BettingSampledVerbs`); subclasses say how a
    batch runs (:meth:`_run_batch`)."""

    # provided by the front
    regrets: np.ndarray
    sums: np.ndarray
    sampled: Any
    schedule: Any
    discount_every: int
    iterations: int
    seconds: float
    min_regret: float | None
    linear_seconds: float | None
    linear_until_reached: int | None
    _blocks: Any

    def _init_batches(self, workers: Any, batch: Any, seed: int) -> None:
        self.workers, self.batch = check_batches(workers, batch)
        #: Each worker's xoshiro state (worker 0's is the front's ``rng``: the serial stream).
        self.worker_rngs = np.stack([seed_state(s) for s in worker_seeds(seed, self.workers)])
        self.rng = self.sampled.rng = self.worker_rngs[0]
        #: :meth:`solve` reports after one batch of every worker.
        self._default_every = self.batch * self.workers

    def _run_batch(self, first: int, iterations: int) -> list[BatchResult]:
        """Every worker's ``iterations`` iterations numbered from ``first`` on a copy of the
        head's arrays, from its generator (``worker_rngs[w]``), no discount: (regrets, sums,
        generator state, nodes visited) per worker."""
        raise NotImplementedError  # pragma: no cover - every runner defines it

    def _discount_at(self, t: int) -> None:
        """The serial kernel's discount before worker iteration ``t`` (1-based), on the head."""
        every = self.discount_every
        if t > 1 and (t - 1) % every == 0:
            params = self._blocks().schedule.as_array()
            a, b, g = discount_factors(params, (t - 1) // every + 1)
            # as the serial kernel: the regrets over their size, the sums over theirs (smaller
            # where averages are kept on some rounds only); lazy rows: the used part
            pool = self.sampled.pool
            size = self.regrets.size if pool is None else pool.used
            sum_size = size if pool is not None and pool.sums_in_rows else self.sums.size
            discount_range(self.regrets, self.sums, 0, size, a, b, 1.0)
            discount_range(self.regrets, self.sums, 0, sum_size, 1.0, 1.0, g)

    def _run(self, iterations: int) -> int:
        """``iterations`` worker iterations in all (module docstring; ``step`` adds them to the
        counters); the last batch may be shorter. Nodes visited."""
        n = self.workers
        done = 0
        touched = 0
        start = time.perf_counter()
        while done < iterations:
            t = (self.iterations + done) // n + 1  # each worker's next iteration number
            if (
                self.linear_seconds is not None
                and self.linear_until_reached is None
                and self.seconds + time.perf_counter() - start >= self.linear_seconds
            ):
                self.linear_until_reached = t - 1
            self._discount_at(t)
            room = min(
                self.batch - (t - 1) % self.batch,
                self.discount_every - (t - 1) % self.discount_every,
            )
            k = max(1, min(room, -(-(iterations - done) // n)))
            touched += self._merge(self._run_batch(t, k))
            done += n * k
        # every worker runs whole rounds: a request that is not a multiple of N runs up to the
        # next one, and the step's caller adds ``iterations``: count the rest here
        self.iterations += done - iterations
        return touched

    def _merge(self, results: list[BatchResult]) -> int:
        """The workers' changes added to the head's arrays (module docstring); nodes visited."""
        touched = 0
        for w, (_, _, state, visited) in enumerate(results):
            self.worker_rngs[w] = state
            touched += int(visited)
        pool = self.sampled.pool
        if pool is not None:
            self._merge_rows(pool, [r[0] for r in results])
            return touched
        if len(results) == 1:
            self.regrets[:] = results[0][0]
            self.sums[:] = results[0][1]
            return touched
        # integer regrets add exactly in int64; float32 ones in float64
        wide = np.int64 if self.regrets.dtype.kind == "i" else np.float64
        r0 = self.regrets.astype(wide)
        s0 = self.sums.astype(np.float64)
        regrets = r0.copy()
        sums = s0.copy()
        for r, s, _, _ in results:
            regrets += r.astype(wide) - r0
            sums += s.astype(np.float64) - s0
        if self.schedule.regret_floor:
            np.maximum(regrets, 0, out=regrets)
        if self.min_regret is not None:
            # the floor in the stored regrets' units (the kernel's, :meth:`_blocks`)
            floor = self._blocks().pruning.min_regret
            if wide is np.float64:
                np.maximum(regrets, floor, out=regrets)
            elif floor > INT32_MIN:  # -inf: the int32 minimum, below
                np.maximum(regrets, int(floor), out=regrets)
        if wide is np.int64:
            np.clip(regrets, INT32_MIN, INT32_MAX, out=regrets)
        self.regrets[:] = regrets
        self.sums[:] = sums
        return touched

    def _merge_rows(self, pool: Any, copies: list[Any]) -> None:
        """Lazy rows: the head claims the rows its workers reached (worker 0's new rows first,
        in the order it claimed them, then worker 1's others, ...), then adds the changes as
        :meth:`_merge` does, each worker's rows read at the head's positions and the head's
        values where a worker has no row (it did not touch them): the dense merge's numbers.
        With one thread the head's pool ran the batch itself; one Ray worker's pool is taken as
        it is (the serial run's, as :meth:`_merge` takes one worker's arrays)."""
        if len(copies) == 1 and copies[0] is pool:  # it may have grown: its arrays are the run's
            self.regrets = self.sampled.regrets = pool.regrets
            self.sums = self.sampled.sums = pool.sums
            return
        if len(copies) == 1:
            twin = copies[0]
            old = pool.used
            slots = np.flatnonzero(twin.index >= old)
            pool.claim(slots[np.argsort(twin.index[slots], kind="stable")])
            used = pool.used  # the same rows in the same places as the worker's
            pool.regrets[:used] = twin.regrets[:used]
            if pool.sums_in_rows:
                pool.sums[:used] = twin.sums[:used]
            else:
                pool.sums[:] = twin.sums
            self.regrets = self.sampled.regrets = pool.regrets
            self.sums = self.sampled.sums = pool.sums
            return
        # a worker's pool is the head's up to ``old`` (its copy), then the rows it claimed
        old = pool.used
        fresh = [np.flatnonzero(twin.index >= old) for twin in copies]
        for twin, slots in zip(copies, fresh, strict=True):
            pool.claim(slots[np.argsort(twin.index[slots], kind="stable")])
        used = pool.used
        wide = np.int64 if pool.regrets.dtype.kind == "i" else np.float64
        r0 = pool.regrets[:used].astype(wide)
        regrets = r0.copy()
        in_rows = pool.sums_in_rows
        s0 = (pool.sums[:used] if in_rows else pool.sums).astype(np.float64)
        sums = s0.copy()
        for twin, slots in zip(copies, fresh, strict=True):
            at = pool.entries(slots, pool.index)
            theirs = pool.entries(slots, twin.index)
            seen = r0.copy()
            seen[:old] = twin.regrets[:old]
            seen[at] = twin.regrets[theirs]
            regrets += seen - r0
            if in_rows:
                seen_sums = s0.copy()
                seen_sums[:old] = twin.sums[:old]
                seen_sums[at] = twin.sums[theirs]
                sums += seen_sums - s0
            else:
                sums += twin.sums.astype(np.float64) - s0
        if self.schedule.regret_floor:
            np.maximum(regrets, 0, out=regrets)
        if self.min_regret is not None:
            floor = self._blocks().pruning.min_regret
            if wide is np.float64:
                np.maximum(regrets, floor, out=regrets)
            elif floor > INT32_MIN:
                np.maximum(regrets, int(floor), out=regrets)
        if wide is np.int64:
            np.clip(regrets, INT32_MIN, INT32_MAX, out=regrets)
        pool.regrets[:used] = regrets
        if in_rows:
            pool.sums[:used] = sums
        else:
            pool.sums[:] = sums
        self.regrets = self.sampled.regrets = pool.regrets
        self.sums = self.sampled.sums = pool.sums

    # --- checkpoints: the workers' generators and the batching are part of the run -------------
    def _arrays(self) -> dict[str, np.ndarray]:
        return {**super()._arrays(), "worker_rngs": self.worker_rngs}  # type: ignore[misc]

    def _extra_state(self) -> dict[str, Any]:
        extra = super()._extra_state()  # type: ignore[misc]
        return {**extra, "workers": self.workers, "batch": self.batch}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """The serial run's checks and arrays, and the workers' generator states; a state of
        another worker count or batch size (or of a serial run) is refused by name."""
        rngs = state.get("arrays", {}).get("worker_rngs")
        if rngs is not None and np.asarray(rngs).shape != self.worker_rngs.shape:
            raise PokerlabError("checkpoint of a run with another number of workers")
        extra = state.get("extra") or {}
        for key in ("workers", "batch"):
            theirs = extra.get(key, state.get(key))  # flat in "limit-es" states
            if theirs != getattr(self, key):
                raise PokerlabError(
                    f"checkpoint of another run: {key} {theirs!r}, this run {getattr(self, key)!r}"
                )
        if rngs is None:
            raise PokerlabError("checkpoint without the workers' generator states")
        super().load_state_dict(state)  # type: ignore[misc]

    def close(self) -> None:
        """End the workers (threads or actors); the solver's arrays stay usable."""


class ThreadBatches(BatchedSampling):
    """Batches on ``workers`` threads of this process (:mod:`pokerlab.tree.executors`, worker 0
    in the calling thread), each on its own copy of the arrays."""

    def __init__(self, *args: Any, workers: int = 2, batch: int = 1000, **options: Any) -> None:
        check_batches(workers, batch)  # refused before any work
        super().__init__(*args, **options)
        self._init_batches(workers, batch, self.seed)  # type: ignore[attr-defined]
        self._pool = worker_pool(self.workers)
        self._copies = (
            []
            if self.workers == 1 or self.sampled.pool is not None
            else [(np.empty_like(self.regrets), np.empty_like(self.sums)) for _ in self.worker_rngs]
        )

    def _run_batch(self, first: int, iterations: int) -> list[BatchResult]:
        blocks = self._blocks()
        rows = self.sampled.pool

        def run(w: int) -> BatchResult:
            if rows is not None:  # lazy rows: a copy of the head's pool (one worker: the pool)
                mine = rows if self.workers == 1 else rows.copy()
                state = self.worker_rngs[w]
                stats = self.sampled.stats(
                    blocks, state, first, iterations, -1, discount=False, pool=mine
                )
                return mine, mine.sums, state, int(stats[0])
            if self.workers == 1:
                regrets, sums = self.regrets, self.sums  # the serial run's own arrays
            else:
                regrets, sums = self._copies[w]
                regrets[:] = self.regrets
                sums[:] = self.sums
            state = self.worker_rngs[w]
            stats = self.sampled.stats(blocks, state, first, iterations, -1, regrets, sums, False)
            return regrets, sums, state, int(stats[0])

        return self._pool.map(run)

    def close(self) -> None:
        self._pool.close()


class ThreadedBlueprintSolver(ThreadBatches, BlueprintSolver):
    """:class:`~pokerlab.solvers.blueprint.BlueprintSolver` on ``workers`` threads in batches
    of ``batch`` iterations per worker (module docstring): its options, plus ``workers``
    (default 2) and ``batch`` (default 1000)."""


class ThreadedLimitESSolver(ThreadBatches, LimitESSolver):
    """:class:`~pokerlab.solvers.limit_mccfr.LimitESSolver` on ``workers`` threads in batches
    of ``batch`` iterations per worker (module docstring)."""
