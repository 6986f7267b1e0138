"""External-sampling MCCFR on abstracted limit hold'em with Ray workers (issue 10, B7).

A **batched** variant of :class:`~pokerlab.solvers.limit_mccfr.LimitESSolver`, in the style of
the parallel MCCFR of Pluribus' blueprint (Brown and Sandholm 2019: workers traverse against a
shared regret table) but synchronous, so a run is reproducible:

1. the head owns the regrets and strategy sums (float32, the solver layout) and, at a discount
   boundary, applies the schedule's discount to them (as the serial run does);
2. it broadcasts them (one ``ray.put``) and each of the N actors runs a batch of iterations of
   the serial algorithm on its own copy, with its own generator: worker 0 the run's own stream
   (``seed_state(seed)``), worker w >= 1 the stream of child seed w - 1
   (``child_seeds(seed, N - 1)``, :mod:`pokerlab._rng`); the states persist across batches;
3. the head adds the changes: ``R <- R + sum_w (R_w - R)`` in float64, then the schedule's floor
   (CFR+) and ``min_regret``, stored as float32; likewise the strategy sums. With N = 1 the
   head takes the worker's arrays as they are.

A batch ends after ``batch`` iterations, at the next discount boundary (a multiple of
``discount_every``; the discount is the head's) and at the end of a :meth:`step` call, all
counted in global iterations (a batch covers iterations ``(b-1) K + 1 .. b K`` of its worker
when the calls stop at multiples of K, as :meth:`solve` does). So a run is deterministic for a
given seed, N, ``batch``, ``discount_every`` and step sizes, and **with N = 1 it equals the serial
:class:`LimitESSolver` of the same seed bit for bit, for any batch size** (every worker iteration
runs on the arrays the serial run would have; tested). With N >= 2 an iteration counts as N
deals (``iterations`` counts worker iterations: each batch of K adds N K), and within a batch a
worker does not see the others' updates (the price of the parallelism: a delay of one batch).

Cost per batch: the head sends and receives the two float32 arrays per worker (8 bytes per
information-set action each way), so a batch should take much longer than that (thousands of
iterations, with ``discount_every`` at least the batch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab._rng import child_seeds, kernel_seed, seed_state
from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.solvers.limit_mccfr import LimitESSolver
from pokerlab.tree._primitives import discount_factors, discount_range

__all__ = ["ESWorker", "RayLimitESSolver", "worker_seeds"]


def worker_seeds(seed: int, workers: int) -> list[int]:
    """The seed of each worker's generator: ``seed`` itself for worker 0 (so one worker is the
    serial run), child ``w - 1`` of ``seed`` for worker ``w >= 1``."""
    return [int(seed)] + child_seeds(seed, workers - 1)


class ESWorker:
    """One worker: a :class:`LimitESSolver` whose arrays are overwritten by each broadcast.
    Runs inside a Ray actor (``ray.remote(ESWorker)``) or in-process."""

    def __init__(
        self, game: LimitHoldemGame, abstraction: CardAbstraction, options: dict[str, Any]
    ) -> None:
        self.solver = LimitESSolver(game, abstraction, **options)

    def run(
        self,
        regrets: np.ndarray,
        sums: np.ndarray,
        rng: np.ndarray,
        first: int,
        iterations: int,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """``iterations`` serial iterations numbered from ``first`` on copies of the broadcast
        arrays, without discounting (the head's); returns (regrets, sums, generator state, nodes
        visited)."""
        s = self.solver
        s.regrets[:] = regrets
        s.sums[:] = sums
        state = np.array(rng, dtype=np.uint64)
        touched = s.run_iterations(s.regrets, s.sums, state, first, iterations, False)
        return s.regrets, s.sums, state, touched


class RayLimitESSolver(LimitESSolver):
    """:class:`~pokerlab.solvers.limit_mccfr.LimitESSolver` on ``workers`` Ray actors in
    batches of ``batch`` iterations (see the module docstring for what it equals).

    The parameters of :class:`LimitESSolver`, plus ``workers`` (actors, >= 1), ``batch``
    (iterations per worker per batch, >= 1) and ``address`` (a Ray cluster; ``None`` starts or
    joins a local instance). Call :meth:`close` to end the actors.
    """

    def __init__(
        self,
        game: LimitHoldemGame,
        abstraction: CardAbstraction,
        *,
        workers: int = 2,
        batch: int = 1000,
        address: str | None = None,
        seed: int | np.random.Generator = 0,
        **options: Any,
    ) -> None:
        from pokerlab.distributed.limit_ray import import_ray, start_ray

        if isinstance(workers, bool) or int(workers) < 1:
            raise PokerlabError(f"workers must be >= 1, got {workers!r}")
        if isinstance(batch, bool) or int(batch) < 1:
            raise PokerlabError(f"batch must be >= 1 iteration, got {batch!r}")
        ray = import_ray()
        seed_value = kernel_seed(seed)
        super().__init__(game, abstraction, seed=seed_value, **options)
        self.workers = int(workers)
        self.batch = int(batch)
        #: Each worker's xoshiro state (worker 0's is :attr:`rng`, the serial run's stream).
        self.worker_rngs = np.stack([seed_state(s) for s in worker_seeds(seed_value, workers)])
        self.rng = self.sampled.rng = self.worker_rngs[0]
        #: Worker nodes (for the CLI's report: each actor runs whole iterations).
        self.worker_nodes = [self.tree.num_nodes] * self.workers
        self._ray = ray
        self._started_ray = start_ray(ray, address)
        worker_options = {
            "recall": self.recall,
            "algorithm": self.schedule,
            "seed": 0,
            "discount_every": self.discount_every,
            "regret_pruning": self.regret_pruning,
            "prune_threshold": self.prune_threshold,
            "prune_probability": self.prune_probability,
            "min_regret": self.min_regret,
        }
        remote = ray.remote(ESWorker)
        game_ref = ray.put(game)
        abstraction_ref = ray.put(abstraction)
        self._actors = [
            remote.remote(game_ref, abstraction_ref, worker_options) for _ in range(self.workers)
        ]
        #: :meth:`solve` reports after one batch of every worker.
        self._default_every = self.batch * self.workers

    def _discount_at(self, t: int) -> None:
        """The serial kernel's discount before iteration ``t`` (1-based), on the head."""
        every = self.discount_every
        if t > 1 and (t - 1) % every == 0:
            params = self._blocks().schedule.as_array()
            a, b, g = discount_factors(params, (t - 1) // every + 1)
            discount_range(self.regrets, self.sums, 0, self.size, a, b, g)  # the kernel's own

    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` iterations in all (worker iterations: with N workers, batches of
        N times fewer rounds); the last batch may be shorter."""
        left = int(iterations)
        ray = self._ray
        n = self.workers
        while left > 0:
            t = self.iterations // n + 1  # each worker's next iteration number
            self._discount_at(t)
            room = min(
                self.batch - (t - 1) % self.batch,
                self.discount_every - (t - 1) % self.discount_every,
            )
            k = max(1, min(room, -(-left // n)))
            regrets_ref = ray.put(self.regrets)
            sums_ref = ray.put(self.sums)
            results = ray.get(
                [
                    actor.run.remote(regrets_ref, sums_ref, self.worker_rngs[w], t, k)
                    for w, actor in enumerate(self._actors)
                ]
            )
            self._merge(results)
            self.iterations += n * k
            left -= n * k

    def _merge(self, results: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]) -> None:
        for w, (_, _, state, touched) in enumerate(results):
            self.worker_rngs[w] = state
            self.nodes_touched += int(touched)
        if len(results) == 1:
            self.regrets[:] = results[0][0]
            self.sums[:] = results[0][1]
            return
        r0 = self.regrets.astype(np.float64)
        s0 = self.sums.astype(np.float64)
        regrets = r0.copy()
        sums = s0.copy()
        for r, s, _, _ in results:
            regrets += r.astype(np.float64) - r0
            sums += s.astype(np.float64) - s0
        if self.schedule.regret_floor:
            np.maximum(regrets, 0.0, out=regrets)
        if self.min_regret is not None:
            np.maximum(regrets, self.min_regret, out=regrets)
        self.regrets[:] = regrets
        self.sums[:] = sums

    # --- checkpoints: the workers' generators and the batching are part of the run -------------
    def _arrays(self) -> dict[str, np.ndarray]:
        return {**super()._arrays(), "worker_rngs": self.worker_rngs}

    def _extra_state(self) -> dict[str, Any]:
        return {**super()._extra_state(), "workers": self.workers, "batch": self.batch}

    def _old_extra(self, state: dict[str, Any]) -> dict[str, Any]:
        return {"workers": state.get("workers"), "batch": state.get("batch")}

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
        super().load_state_dict(state)

    def close(self) -> None:
        """End the actors, and the local Ray instance if this solver started it."""
        if self._ray.is_initialized():
            for actor in self._actors:
                self._ray.kill(actor)
        self._actors = []
        if self._started_ray:
            self._ray.shutdown()
            self._started_ray = False
