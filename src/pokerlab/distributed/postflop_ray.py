"""Postflop CFR with the chance subtrees on Ray actors: the vector tree's subtree seam on Ray.

A postflop spot's split passes (:class:`~pokerlab.tree.vector.passes.Passes`) walk the part of
the tree above the split chance nodes (the first dealt card: the turn of a flop spot, the river
of a turn spot) to collect the reach rows entering each dealt card's subtree, get the subtrees'
value rows from the subtree seam (:meth:`~pokerlab.tree.vector.passes.Passes.subtree_values`),
and walk the top part again reading them. In one process the seam's executor is threads; here
(:class:`RayPasses`) it is Ray actors (:class:`~pokerlab.distributed.postflop_ray_worker.
PostflopSubtreeWorker`), each owning a run of neighbouring subtrees of about equal size
(:func:`~pokerlab.tree.executors.chunks`) with their regrets, strategy sums, predictions and
16-bit scales. An actor builds the spot's tree itself from the spot's parameters (the tree does
not travel), receives the reach rows of its subtrees each pass and returns their value rows;
the head keeps the top part's numbers.

The actors run the kernel the threads run
(:func:`~pokerlab.tree.vector._walk_batches.traverse_items`) on the same rows, and each subtree's
arithmetic does not depend on where its numbers are stored, so a run equals the one-process
solver's (:class:`~pokerlab.solvers.postflop.PostflopSolver`, any thread count) bit for bit
(tested). The head's full-size arrays hold the top part live and the subtrees' blocks as last
gathered: :meth:`RayPostflopSolver.state_dict`, :meth:`~RayPostflopSolver.average_strategy`
and the finiteness check gather the actors' blocks first, so a saved solve is the same file as
a one-process one, and resumes on either. Best-response and expected-value passes run on the
actors too (float64 rows, as in one process).

Node locking is refused (the locks rescale the strategy sums on the head): lock on a
one-process solver. Ray is an optional dependency; ``address=`` joins a cluster whose nodes
have pokerlab installed (:func:`~pokerlab.distributed.ray_setup.start_ray`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pokerlab.distributed.postflop_ray_worker import PostflopSubtreeWorker, items_layout
from pokerlab.distributed.ray_setup import import_ray, start_ray, stop_actors
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.tree.executors import chunks
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector.passes import Passes, item_costs

__all__ = ["RayPasses", "RayPostflopSolver"]

LOCKS_REFUSED = (
    "node locking is not supported with Ray workers (the locks rescale the strategy sums on "
    "the head): lock on a solver without --ray"
)


class RayPasses(Passes):
    """The passes of one vector tree whose subtrees (the work items below the split chance
    nodes) live on ``workers`` Ray actors: the subtree seam (:meth:`subtree_values`) sends each
    actor its subtrees' reach rows and reads back their value rows.

    The seam runs on the actors for passes over the solver's own arrays (:meth:`attach`); a
    pass over other arrays (a profile being evaluated) runs its subtrees on the head's thread.
    ``game``: the spot (its parameters, ``game.params``, travel to the actors, which build the
    tree themselves); ``compressed`` / ``predictive``: the solver's storage (16-bit, with
    predictions); ``address``: a Ray cluster's, or None for a local instance (started unless
    one runs).
    """

    #: the subtrees' storage lives on the actors: every pass takes the split walk
    items_local = False

    def __init__(
        self,
        game: PostflopGame,
        *,
        workers: int,
        compressed: bool,
        predictive: bool,
        address: str | None = None,
    ) -> None:
        tree = game.expanded.tree
        if tree.num_items == 0:
            raise PokerlabError(
                "this spot deals no card (a river spot): it has no chance subtrees to put on "
                "Ray workers; solve it without --ray"
            )
        super().__init__(tree, 1)  # the head's own walks, and passes over other arrays
        ray = import_ray()
        self._ray = ray
        self._started_ray = start_ray(ray, address)
        costs = item_costs(tree)
        #: Each actor's work items (a run of neighbouring subtrees of about equal node count).
        self.worker_items = chunks(costs, int(workers))
        self.workers = len(self.worker_items)
        self._slots: list[np.ndarray] = []
        self._nodes: list[np.ndarray] = []
        for ids in self.worker_items:
            _, slots, nodes = items_layout(tree, ids, costs)
            self._slots.append(slots)
            self._nodes.append(nodes)
        remote = ray.remote(PostflopSubtreeWorker)
        params = dict(game.params)
        self._actors = [
            remote.remote(params, ids, bool(compressed), bool(predictive))
            for ids in self.worker_items
        ]
        try:
            sizes = ray.get([a.size.remote() for a in self._actors])
        except Exception:
            self.close()
            raise
        if sizes != [s.size for s in self._slots]:
            self.close()
            raise PokerlabError(
                f"the Ray workers built a different tree (sizes {sizes}, expected "
                f"{[s.size for s in self._slots]}): do the cluster's nodes run this pokerlab?"
            )
        self._own: tuple[np.ndarray, np.ndarray] | None = None

    def attach(self, regrets: np.ndarray, strat: np.ndarray) -> None:
        """The solver arrays whose subtree blocks live on the actors (the head's full-size
        regrets and strategy sums): passes over them run their subtrees on the actors."""
        self._own = (regrets, strat)

    def set_threads(self, threads: int, pool: Any = None) -> None:
        """The head walks on one thread; a second call (a thread count) is refused."""
        if getattr(self, "pool", None) is not None:
            raise PokerlabError("a Ray solver's subtrees run on its actors: no thread count")
        super().set_threads(1)

    @property
    def worker_bytes(self) -> list[int]:
        """Bytes of stored numbers per actor (the spread memory)."""
        return [int(x) for x in self._ray.get([a.nbytes.remote() for a in self._actors])]

    def worker_busy_seconds(self) -> list[float]:
        """Seconds each actor spent in passes since the last call (then reset)."""
        return [float(x) for x in self._ray.get([a.busy_seconds.remote() for a in self._actors])]

    def subtree_values(
        self, trav: int, mode: int, items: K.Items, store: K.Storage, disc: K.Discounts, cfr: bool
    ) -> int:
        """The subtree seam on the actors: each actor's subtrees from their reach rows
        (``items.ro``, ``items.rp``), their value rows back into ``items.val``. Passes over
        arrays other than the attached ones run on the head (:meth:`Passes.subtree_values`)."""
        own = self._own
        if own is None or store.regrets is not own[0] or store.strat is not own[1]:
            return super().subtree_values(trav, mode, items, store, disc, cfr)
        if store.lock_probs.size:
            raise PokerlabError(LOCKS_REFUSED)
        factors = (
            float(disc.fa), float(disc.fb), float(disc.fg), bool(disc.floor),
            float(disc.next_a), float(disc.next_b), bool(disc.weighted),
        )  # fmt: skip
        futures = [
            actor.run.remote(int(trav), int(mode), factors, items.ro[ids], items.rp[ids])
            for actor, ids in zip(self._actors, self.worker_items, strict=True)
        ]
        visited = 0
        for ids, (rows, n) in zip(self.worker_items, self._ray.get(futures), strict=True):
            items.val[ids] = rows
            visited += n
        return visited

    def gather(
        self,
        regrets: np.ndarray,
        strat: np.ndarray,
        prediction: np.ndarray | None,
        scales: tuple[np.ndarray, np.ndarray] | None,
    ) -> None:
        """Copy the actors' blocks into the full-size arrays (in place)."""
        states = self._ray.get([a.state.remote() for a in self._actors])
        for slots, nodes, (r, s, p, rs, ss) in zip(self._slots, self._nodes, states, strict=True):
            regrets[slots] = r
            strat[slots] = s
            if prediction is not None:
                prediction[slots] = p
            if scales is not None:
                scales[0][nodes] = rs
                scales[1][nodes] = ss

    def scatter(
        self,
        regrets: np.ndarray,
        strat: np.ndarray,
        prediction: np.ndarray | None,
        scales: tuple[np.ndarray, np.ndarray] | None,
    ) -> None:
        """Overwrite the actors' blocks from the full-size arrays."""
        empty = np.zeros(0, dtype=np.float32)
        self._ray.get(
            [
                actor.load.remote(
                    regrets[slots],
                    strat[slots],
                    prediction[slots] if prediction is not None else empty,
                    scales[0][nodes] if scales is not None else empty,
                    scales[1][nodes] if scales is not None else empty,
                )
                for actor, slots, nodes in zip(self._actors, self._slots, self._nodes, strict=True)
            ]
        )

    def close(self) -> None:
        """End the actors, and the local Ray instance if this object started it."""
        stop_actors(self._ray, self._actors, self._started_ray)
        self._actors = []
        self._started_ray = False


class RayPostflopSolver(PostflopSolver):
    """:class:`~pokerlab.solvers.postflop.PostflopSolver` with the chance subtrees on Ray
    actors (:class:`RayPasses`): the same parameters without ``threads``, plus ``workers``
    (actors, each owning a run of subtrees; at most one per subtree) and ``address`` (a Ray
    cluster's ``host:port``; None starts or joins a local instance). Results, checkpoints and
    :meth:`average_strategy` equal the one-process solver's. Call :meth:`close` to end the
    actors."""

    def __init__(
        self,
        game: PostflopGame,
        algorithm: str = "dcfr-ps",
        *,
        workers: int = 2,
        address: str | None = None,
        compressed: bool = False,
        average: str | None = None,
    ) -> None:
        import_ray()
        if not isinstance(workers, int) or workers < 1:
            raise PokerlabError(f"workers must be a positive integer, got {workers!r}")
        super().__init__(game, algorithm, threads=1, compressed=compressed, average=average)
        self.passes = RayPasses(
            game,
            workers=workers,
            compressed=self.compressed,
            predictive=self.predictive,
            address=address,
        )
        self.passes.attach(self.regrets, self.strat_sum)
        self._fresh = True  # the head's arrays hold the actors' blocks (all zero so far)

    @property
    def workers(self) -> int:
        """The number of actors."""
        return self.passes.workers

    @property
    def worker_bytes(self) -> list[int]:
        """Bytes of stored numbers per actor."""
        return self.passes.worker_bytes

    def worker_busy_seconds(self) -> list[float]:
        """Seconds each actor spent in passes since the last call (then reset)."""
        return self.passes.worker_busy_seconds()

    def set_threads(self, threads: int) -> None:
        """Refused: the subtrees run on the actors."""
        raise PokerlabError("a Ray solver's subtrees run on its actors: no thread count")

    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` more iterations (the actors update their subtrees)."""
        self._fresh = False
        super().step(iterations)

    def _gather(self) -> None:
        if not self._fresh:
            self.passes.gather(self.regrets, self.strat_sum, self.prediction, self.scales)
            self._fresh = True

    def _arrays(self, copy: bool = False) -> dict[str, np.ndarray]:
        """The full solver arrays, the actors' blocks gathered first."""
        self._gather()
        return super()._arrays(copy)

    def average_strategy(self) -> Any:
        """The solved spot for reading (the actors' blocks gathered first: a snapshot of the
        strategy sums as of now)."""
        self._gather()
        return super().average_strategy()

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a state (of either solver) and send the actors their blocks."""
        if (state.get("extra") or {}).get("locks"):
            raise PokerlabError(f"the state holds node locks: {LOCKS_REFUSED}")
        super().load_state_dict(state)
        self.passes.scatter(self.regrets, self.strat_sum, self.prediction, self.scales)
        self._fresh = True

    def lock(
        self,
        line: str,
        strategy: Mapping[str, float],
        hands: str | Sequence[str] | None = None,
    ) -> None:
        """Refused (:data:`LOCKS_REFUSED`)."""
        raise PokerlabError(LOCKS_REFUSED)

    def close(self) -> None:
        """End the actors, and the local Ray instance if this solver started it (other users
        of that instance end with it: start Ray yourself to share it)."""
        self.passes.close()
