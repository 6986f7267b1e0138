"""Limit hold'em CFR with public chance sampling on Ray: a head and subtree actors (issue 10).

The distributed design of the seed (after Johanson et al.'s public-chance-sampling CFR and the
split of the tree after the preflop used by the first limit hold'em solvers): the betting tree is
cut below a round's betting (``split_round`` 0: the sequences that reach the flop, seven under
the ACPC caps; 1: those that reach the turn). The **head** owns the nodes above the cut (the
preflop, its regrets and strategy sums) and the card abstraction; each **actor** owns some of
the subtrees below it, with their regrets, strategy sums and predictions, so the memory of the
large part of the game spreads over the workers (and over machines on a Ray cluster).

One pass for a traverser (two per iteration, each over the iteration's batch of
``boards_per_iteration`` sampled boards: the seed samples a batch of boards per iteration, which
also gives each call enough work to pay for Ray's per-call cost):

1. the head maps the boards' hands to bucket states, sorts them by strength, and walks its
   nodes down to the subtree roots (reach vectors; cut mode 1 of the pass kernel);
2. it sends each actor the boards' arrays and the two players' reach rows at the roots of its
   subtrees; the actors run one depth-first pass per subtree (reach down, terminal values,
   values and regret updates up) and return the value rows at their roots;
3. the head walks its nodes again with those rows (cut mode 2): terminals, values and regret
   updates upward.

The head is the one-process run's split pass (:class:`~pokerlab.tree.betting.pcs.PCSState`)
with Ray actors as the executor of its subtree seam (:meth:`RayPCSState.subtree_values`: the
value rows at the subtree roots from the reach rows there) and as the owners of the subtrees'
numbers. The kernel is the one-process solver's
(:func:`pokerlab.tree.betting._subtree_kernels.pcs_subtree`, for the head's walks and for the
subtrees), and every node is computed by the same arithmetic in the same order, so a Ray run
equals :class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver`'s for the same seed bit for bit
(tested). The discount of each iteration runs where the numbers live. An actor's scratch is one
root-to-leaf path of rows (:func:`~pokerlab.tree.betting._subtree_kernels.subtree_buffers`),
so its memory is its subtrees' regrets and sums.

Ray is an optional dependency (``pip install "pokerlab[ray]"``): ``ray.init()`` starts a local
instance unless one is running; ``address=`` joins a cluster whose nodes have pokerlab
installed.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.distributed.limit_ray_worker import _TREE_FIELDS, SubtreeWorker, compact_layout
from pokerlab.distributed.ray_setup import check_address, import_ray, start_ray, stop_actors
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.solvers.limit_holdem import LimitPCSSolver
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.tree.betting import _kernels as K
from pokerlab.tree.betting._kernels import BoardBatch
from pokerlab.tree.betting.pcs import PCSState

__all__ = [
    "RayLimitPCSSolver",
    "RayPCSState",
    "SubtreeWorker",
    "check_address",
    "compact_layout",
    "import_ray",
    "start_ray",
]


class RayPCSState(PCSState):
    """The run of :class:`RayLimitPCSSolver`: a :class:`~pokerlab.tree.betting.pcs.PCSState`
    whose subtrees live on Ray actors (their regrets, sums and predictions) and whose subtree
    seam (:meth:`subtree_values`) runs on them; the head keeps only its own nodes' numbers, and
    :meth:`regrets`, :meth:`strategy_sum` and :meth:`prediction` gather the full arrays (copies).

    ``backend``'s options ask for at least two workers (the split); ``workers`` is the number
    of actors (one gets every subtree when 1); ``address``: a Ray cluster's, or None."""

    def __init__(self, backend: Any, params: np.ndarray, *, address: str | None, workers: int):
        ray = import_ray()
        super().__init__(backend, params)
        self._buffers = self._buffers[:1]  # the head's own passes; the actors hold theirs
        if workers == 1:
            self.workers = 1
            self.subtrees = [(root, end, 0) for root, end, _ in self.subtrees]
            self._owner[self._owner >= 0] = 0
            self.worker_nodes = [sum(end - root for root, end, _ in self.subtrees)]
        self._ray = ray
        self._started_ray = start_ray(ray, address)
        t = self.tree
        self._head_offset, self._head_slots = compact_layout(
            t, self.offset, self.num_states, self._owner, -1
        )
        size = self._head_slots.size
        self._head_arrays = self._tree_arrays._replace(offset=self._head_offset)
        self._head = (
            np.zeros(size, dtype=np.float32),
            np.zeros(size, dtype=np.float32),
            np.zeros(size if self.predictive else 0, dtype=np.float32),
        )
        tree_arrays = {name: getattr(t, name) for name in _TREE_FIELDS}
        tree_ref = ray.put(tree_arrays)
        owner_ref = ray.put(self._owner)
        remote = ray.remote(SubtreeWorker)
        self._slots: list[np.ndarray] = []
        self._actors: list[Any] = []
        for w in range(self.workers):
            mine = [(root, end) for root, end, owner in self.subtrees if owner == w]
            local, slots = compact_layout(t, self.offset, self.num_states, self._owner, w)
            self._slots.append(slots)
            self._actors.append(
                remote.remote(
                    tree_ref,
                    w,
                    mine,
                    owner_ref,
                    local,
                    int(slots.size),
                    self.num_states,
                    int(self._root.size),  # the entries of a pass (every board's with "full")
                    self._scale,
                    self.regret_floor,
                    self.predictive,
                )
            )
        #: Bytes of stored numbers per actor (regrets, sums, predictions): the spread memory.
        self.worker_bytes = ray.get([a.nbytes.remote() for a in self._actors])
        #: Each actor's subtrees as slots of the cut rows.
        self._cut_slots = [
            np.array([k for k, (_, _, o) in enumerate(self.subtrees) if o == w], np.int64)
            for w in range(self.workers)
        ]
        if self.chance == "full":
            # every iteration's boards are the same: the actors get their entries once
            self._full_ref = ray.put(self._full_entries)

    def worker_busy_seconds(self) -> list[float]:
        """Seconds each actor spent in passes since the last call (then reset)."""
        return [float(x) for x in self._ray.get([a.busy_seconds.remote() for a in self._actors])]

    # --- storage: the head's own part here, the rest on the actors ------------------------------
    def _allocate_storage(self) -> None:
        """Nothing full-size on the head (see :meth:`_gather`)."""

    def _gather(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        full = [np.zeros(self.size, dtype=np.float32) for _ in range(2)]
        pred = np.zeros(self.size if self.predictive else 0, dtype=np.float32)
        parts = [(self._head_slots, self._head)]
        states = self._ray.get([a.state.remote() for a in self._actors])
        parts += list(zip(self._slots, states, strict=True))
        for slots, (r, s, p) in parts:
            full[0][slots] = r
            full[1][slots] = s
            if pred.size:
                pred[slots] = p
        return full[0], full[1], pred

    def regrets(self) -> np.ndarray:
        """The full regret array, gathered from the head and the actors (a copy)."""
        return self._gather()[0]

    def strategy_sum(self) -> np.ndarray:
        """The full strategy-sum array, gathered (a copy)."""
        return self._gather()[1]

    def prediction(self) -> np.ndarray:
        """The full predicted-regret array (empty for a non-predictive schedule), gathered."""
        return self._gather()[2]

    def _set_arrays(
        self, regrets: np.ndarray, sums: np.ndarray, prediction: np.ndarray | None
    ) -> None:
        pred = prediction if (self.predictive and prediction is not None) else None
        for arr, src in zip(self._head, (regrets, sums, pred), strict=True):
            if src is not None and arr.size:
                arr[:] = src[self._head_slots]
        empty = np.zeros(0, dtype=np.float32)
        self._ray.get(
            [
                actor.load.remote(
                    regrets[slots], sums[slots], pred[slots] if pred is not None else empty
                )
                for actor, slots in zip(self._actors, self._slots, strict=True)
            ]
        )

    def _discount(self, a: float, b: float, g: float) -> None:
        K.discount(self._head[0], self._head[1], a, b, g)
        for actor in self._actors:  # runs before the actor's next pass (calls run in order)
            actor.discount.remote(a, b, g)

    def _head_storage(self) -> Any:
        return (self._head_arrays, *self._head)

    # --- one pass -----------------------------------------------------------------------------
    def _pass(self, boards: np.ndarray | BoardBatch, traverser: int, update: bool) -> float:
        entries = boards if isinstance(boards, BoardBatch) else self._board_arrays(boards)
        reach = np.ones((2, entries.states.shape[1]), dtype=np.float32)
        ref = self._ray.put(entries)
        return self._split_pass(entries, reach, traverser, update, entries_ref=ref)

    def _full_pass(self, traverser: int, update: bool) -> float:
        """One pass over every canonical board (``chance="full"``; their entries are in the
        object store once)."""
        return self._split_pass(
            self._full_entries, self._full_reach, traverser, update, entries_ref=self._full_ref
        )

    def subtree_values(
        self,
        traverser: int,
        entries: BoardBatch,
        update: bool,
        reach_rows: np.ndarray,
        value_rows: np.ndarray,
        frozen: np.ndarray | None = None,
        entries_ref: Any = None,
    ) -> None:
        """The subtree seam on the actors: each actor's subtrees from their reach rows, the
        value rows back into ``value_rows`` (``entries_ref``: the entries in the object store,
        put there now if None). No frozen regrets: the Ray run walks every board at once."""
        ref = self._ray.put(entries) if entries_ref is None else entries_ref
        futures = [
            actor.run.remote(ref, traverser, update, self._next + self._weights, reach_rows[slots])
            for actor, slots in zip(self._actors, self._cut_slots, strict=True)
        ]
        for slots, rows in zip(self._cut_slots, self._ray.get(futures), strict=True):
            value_rows[slots] = rows

    def close(self) -> None:
        """End the actors, and the local Ray instance if this run started it."""
        stop_actors(self._ray, self._actors, self._started_ray)
        self._actors = []
        self._started_ray = False


class RayLimitPCSSolver(LimitPCSSolver):
    """:class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver` with its subtrees on Ray actors:
    the same solver configured with :class:`RayPCSState` as the backend's run.

    The same parameters, plus ``address`` (a Ray cluster's address; ``None`` starts or joins a
    local instance). ``workers`` actors own the subtrees after ``split_round``'s betting,
    assigned to the least loaded by node count (``worker_nodes``). The head keeps only its own
    nodes' numbers; :attr:`regrets`, :attr:`sums` and :attr:`prediction` gather the full arrays
    from the actors when read (checkpoints, the average strategy). Call :meth:`close` to end the
    actors.
    """

    def __init__(
        self,
        game: LimitHoldemGame,
        abstraction: CardAbstraction,
        *,
        recall: str = "imperfect",
        algorithm: str | DiscountSchedule = "cfr+",
        seed: int | None = 0,
        max_bytes: int = 8 << 30,
        workers: int = 2,
        split_round: int = 0,
        address: str | None = None,
        boards_per_iteration: int = 1,
        chance: str = "sampled",
    ) -> None:
        import_ray()
        if workers < 1:
            raise PokerlabError(f"workers must be >= 1, got {workers}")
        # the run splits the tree only for two or more workers: ask for the split with two and
        # let the state reassign when one actor gets everything
        super().__init__(
            game,
            abstraction,
            recall=recall,
            algorithm=algorithm,
            seed=seed,
            max_bytes=max_bytes,
            workers=max(workers, 2),
            split_round=split_round,
            boards_per_iteration=boards_per_iteration,
            chance=chance,
            state_factory=partial(RayPCSState, address=address, workers=workers),
        )
        self.workers = int(workers)

    @property
    def worker_bytes(self) -> list[int]:
        """Bytes of stored numbers per actor (regrets, sums, predictions)."""
        return self.state.worker_bytes

    def worker_busy_seconds(self) -> list[float]:
        """Seconds each actor spent in passes since the last call (then reset): the load of
        each worker as measured, beside :attr:`worker_nodes`."""
        return self.state.worker_busy_seconds()

    def close(self) -> None:
        """End the actors, and the local Ray instance if this solver started it (other solvers
        on that instance end with it: start Ray yourself to share it)."""
        self.state.close()
