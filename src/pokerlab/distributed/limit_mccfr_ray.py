"""External-sampling MCCFR on Ray workers (issues 10 and 24): limit hold'em's
:class:`~pokerlab.solvers.limit_mccfr.LimitESSolver` and the no-limit
:class:`~pokerlab.solvers.blueprint.BlueprintSolver` in synchronous batches, each worker a Ray
actor (local, or on a cluster by address).

The batching, the seeds, the merge and what a run equals (one worker: the serial run bit for
bit; any worker count: deterministic, and the same numbers as the threaded run of
:mod:`pokerlab.solvers.batched`) are the head's, :class:`~pokerlab.solvers.batched.
BatchedSampling`; here only the batch's transport: the head broadcasts its two arrays
(regrets, float32 or the blueprint's int32, and float32 sums; one ``ray.put`` each) and each
actor runs its iterations on a copy and sends its arrays back (8 bytes per information-set
action each way per worker), so a batch should take much longer than
that (thousands of iterations, with ``discount_every`` at least the batch). An actor builds its
own solver of the same class and options (seed 0: the head passes each batch's generator).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab._rng import kernel_seed
from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.solvers.batched import BatchedSampling, BatchResult, check_batches, worker_seeds
from pokerlab.solvers.blueprint import BlueprintSolver
from pokerlab.solvers.limit_mccfr import LimitESSolver

__all__ = ["ESWorker", "RayBatches", "RayBlueprintSolver", "RayLimitESSolver", "worker_seeds"]


class ESWorker:
    """One worker: a solver of the head's class (``front``) whose arrays are overwritten by each
    broadcast. Runs inside a Ray actor (``ray.remote(ESWorker)``) or in-process."""

    def __init__(
        self, front: type, game: Any, abstraction: CardAbstraction, options: dict[str, Any]
    ) -> None:
        self.solver = front(game, abstraction, **options)

    def run(
        self,
        regrets: np.ndarray,
        sums: np.ndarray,
        rng: np.ndarray,
        first: int,
        iterations: int,
    ) -> BatchResult:
        """``iterations`` serial iterations numbered from ``first`` on copies of the broadcast
        arrays, without discounting (the head's); returns (regrets, sums, generator state, nodes
        visited)."""
        s = self.solver
        s.regrets[:] = regrets
        s.sums[:] = sums
        state = np.array(rng, dtype=np.uint64)
        touched = s.run_iterations(s.regrets, s.sums, state, first, iterations, False)
        return s.regrets, s.sums, state, touched

    def run_rows(
        self,
        index: np.ndarray,
        regrets: np.ndarray,
        sums: np.ndarray,
        rng: np.ndarray,
        first: int,
        iterations: int,
    ) -> BatchResult:
        """:meth:`run` for lazily allocated rows (:mod:`pokerlab.solvers.lazy_rows`): the
        head's row index and the used part of its pools; returns the worker's pool (its index,
        rows and the rows it claimed) in place of the regrets."""
        s = self.solver
        pool = s.sampled.pool
        used = int(np.shape(regrets)[0])
        pool.load(used, index)
        pool.regrets[:used] = regrets
        if pool.sums_in_rows:
            pool.sums[:used] = sums
        else:
            pool.sums[:] = sums
        state = np.array(rng, dtype=np.uint64)
        blocks = s._blocks()
        stats = s.sampled.stats(blocks, state, first, iterations, -1, discount=False, pool=pool)
        pool.snapshots, pool.snaps = False, np.zeros(0, dtype=np.float32)  # the head's alone
        return pool, pool.sums, state, int(stats[0])


class RayBatches(BatchedSampling):
    """Batches on ``workers`` Ray actors (module docstring): the front's parameters, plus
    ``workers`` (actors, >= 1), ``batch`` (iterations per worker per batch, >= 1) and ``address``
    (a Ray cluster; ``None`` starts or joins a local instance). Call :meth:`close` to end the
    actors."""

    #: The serial class each actor runs (set by the subclasses).
    _front: type

    def __init__(
        self,
        game: Any,
        abstraction: CardAbstraction,
        *,
        workers: int = 2,
        batch: int = 1000,
        address: str | None = None,
        seed: int | np.random.Generator = 0,
        **options: Any,
    ) -> None:
        from pokerlab.distributed.ray_setup import import_ray, start_ray

        workers, batch = check_batches(workers, batch)  # refused before any work
        ray = import_ray()
        seed_value = kernel_seed(seed)
        super().__init__(game, abstraction, seed=seed_value, **options)  # type: ignore[call-arg]
        self._init_batches(workers, batch, seed_value)
        #: Worker nodes (for the CLI's report: each actor runs whole iterations).
        self.worker_nodes = [self.tree.num_nodes] * self.workers  # type: ignore[attr-defined]
        self._ray = ray
        self._started_ray = start_ray(ray, address)
        remote = ray.remote(ESWorker)
        game_ref = ray.put(game)
        abstraction_ref = ray.put(abstraction)
        worker_options = {**options, "seed": 0}
        self._actors = [
            remote.remote(self._front, game_ref, abstraction_ref, worker_options)
            for _ in range(self.workers)
        ]

    def _run_batch(self, first: int, iterations: int) -> list[BatchResult]:
        ray = self._ray
        pool = self.sampled.pool  # type: ignore[attr-defined]
        if pool is not None:  # lazy rows: the index and the used part of the pools
            used = pool.used
            refs = (
                ray.put(pool.index),
                ray.put(pool.regrets[:used]),
                ray.put(pool.sums[:used] if pool.sums_in_rows else pool.sums),
            )
            return ray.get(
                [
                    actor.run_rows.remote(*refs, self.worker_rngs[w], first, iterations)
                    for w, actor in enumerate(self._actors)
                ]
            )
        regrets_ref = ray.put(self.regrets)
        sums_ref = ray.put(self.sums)
        return ray.get(
            [
                actor.run.remote(regrets_ref, sums_ref, self.worker_rngs[w], first, iterations)
                for w, actor in enumerate(self._actors)
            ]
        )

    def close(self) -> None:
        """End the actors, and the local Ray instance if this solver started it."""
        from pokerlab.distributed.ray_setup import stop_actors

        stop_actors(self._ray, self._actors, self._started_ray)
        self._actors = []
        self._started_ray = False


class RayLimitESSolver(RayBatches, LimitESSolver):
    """:class:`~pokerlab.solvers.limit_mccfr.LimitESSolver` on Ray actors
    (:class:`RayBatches`)."""

    _front = LimitESSolver

    def _old_extra(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"workers": state.get("workers"), "batch": state.get("batch")}


class RayBlueprintSolver(RayBatches, BlueprintSolver):
    """:class:`~pokerlab.solvers.blueprint.BlueprintSolver` on Ray actors
    (:class:`RayBatches`)."""

    _front = BlueprintSolver
