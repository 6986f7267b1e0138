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

The kernel is the one-process solver's
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

import logging
import os
import time
from typing import Any

import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import DECISION, LimitHoldemGame
from pokerlab.solvers.limit_holdem import BoardBatch, LimitPCSSolver
from pokerlab.solvers.schedule import DiscountSchedule
from pokerlab.tree._primitives import RunArrays
from pokerlab.tree.betting import _kernels as K
from pokerlab.tree.betting._kernels import BettingArrays, Discounts
from pokerlab.tree.betting._subtree_kernels import (
    NO_CUTS,
    Cuts,
    pcs_subtree,
    subtree_buffers,
    tree_depth,
)

__all__ = [
    "RayLimitPCSSolver",
    "SubtreeWorker",
    "check_address",
    "compact_layout",
    "import_ray",
    "start_ray",
]

_TREE_FIELDS = ("kind", "player", "round", "child_start", "children", "payoff_id", "payoff_table")


def import_ray() -> Any:
    """The ``ray`` module, or a clear error saying how to install it."""
    try:
        import ray
    except ImportError:  # pragma: no cover - depends on the environment
        raise PokerlabError(
            "Ray is not installed: pip install 'pokerlab[ray]' (or use threads: no --ray)"
        ) from None
    return ray


def check_address(address: str, timeout: float = 5.0) -> None:
    """Refuse a ``host:port`` (or ``ray://host:port``) Ray address that does not answer.

    Ray itself waits minutes for an unreachable cluster before it fails; a TCP connection with a
    short ``timeout`` (seconds) tells at once. ``"auto"`` and ``"local"`` are Ray's own words and
    pass unchecked.
    """
    import socket

    if address in ("auto", "local"):
        return
    target = address.removeprefix("ray://")
    host, _, port = target.rpartition(":")
    if not host or not port.isdigit():
        raise PokerlabError(f"--address: {address!r} is not host:port (or ray://host:port)")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        raise PokerlabError(f"--address: no Ray cluster answers at {address!r} ({exc})") from None


def start_ray(ray: Any, address: str | None) -> bool:
    """Start or join Ray unless it is running: a local instance (``address`` None) or the
    cluster at ``address`` (checked first, :func:`check_address`), quiet (no dashboard, driver
    logs off, warnings only). Returns True when this call started it (the caller shuts it
    down)."""
    if ray.is_initialized():
        return False
    if address is not None:
        check_address(address)
    else:
        # Ray starts its worker processes at niceness 15 by default; the actors do the
        # training's work, so on a busy machine they would starve behind the head
        # (measured: 4x slower passes with two other jobs running). Keep them at the
        # head's priority unless the user set the variable.
        os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(
        address=address,
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.WARNING,
    )
    return True


def compact_layout(
    tree: Any, offset: np.ndarray, num_states: np.ndarray, owner: np.ndarray, who: int
) -> tuple[np.ndarray, np.ndarray]:
    """The storage layout of one owner's decision nodes.

    Returns ``(local_offset, slots)``: ``local_offset[n]`` is node ``n``'s block start in the
    owner's own arrays (-1 for nodes of other owners), and ``slots[i]`` the position in the full
    layout of the owner's ``i``-th number, so that ``full[slots] = local`` reassembles them.
    """
    dec = np.flatnonzero((tree.kind == DECISION) & (owner == who))
    na = tree.child_start[dec + 1] - tree.child_start[dec]
    sizes = na * num_states[tree.round[dec]]
    starts = np.zeros(dec.size, dtype=np.int64)
    if dec.size:
        starts[1:] = np.cumsum(sizes)[:-1]
    local = np.full(tree.num_nodes, -1, dtype=np.int64)
    local[dec] = starts
    total = int(sizes.sum())
    slots = np.repeat(offset[dec] - starts, sizes) + np.arange(total, dtype=np.int64)
    return local, slots


class SubtreeWorker:
    """One worker's subtrees: their float32 regrets, strategy sums and predictions, and the
    scratch of a pass. Runs inside a Ray actor (``ray.remote(SubtreeWorker)``) or in-process.

    ``tree`` holds the betting tree's arrays (:data:`_TREE_FIELDS`); ``roots`` the
    ``(root, end)`` node ranges of the worker's subtrees; ``offset`` the worker's own layout
    (:func:`compact_layout`) and ``size`` its length; ``width`` the entries of a pass (the
    live hands of each board of a batch; the scratch's row length).
    """

    def __init__(
        self,
        tree: dict[str, np.ndarray],
        worker: int,
        roots: list[tuple[int, int]],
        owner: np.ndarray,
        offset: np.ndarray,
        size: int,
        num_states: np.ndarray,
        width: int,
        scale: float,
        regret_floor: bool,
        predictive: bool,
    ) -> None:
        self.worker = np.int64(worker)
        self.roots = [(int(a), int(b)) for a, b in roots]
        self.owner = np.asarray(owner, dtype=np.int64)
        #: The tree's arrays with this worker's own layout.
        self.arrays = BettingArrays(
            *(np.asarray(tree[name]) for name in _TREE_FIELDS),
            np.asarray(offset, dtype=np.int64),
            np.asarray(num_states, dtype=np.int64),
        )
        self.scale = float(scale)
        self.regret_floor = bool(regret_floor)
        self.predictive = bool(predictive)
        self.regrets = np.zeros(size, dtype=np.float32)
        self.sums = np.zeros(size, dtype=np.float32)
        self.prediction = np.zeros(size if predictive else 0, dtype=np.float32)
        self.buffers = subtree_buffers(
            tree_depth(np.asarray(tree["child_start"]), np.asarray(tree["children"])),
            int(width),
        )
        #: Seconds spent in :meth:`run` since the last :meth:`busy_seconds` (the worker's load).
        self.busy = 0.0

    def busy_seconds(self) -> float:
        """Seconds of passes since the last call (then reset): the measured load of this
        worker, which the node counts only predict."""
        out, self.busy = self.busy, 0.0
        return out

    def discount(self, a: float, b: float, g: float) -> None:
        """The schedule's scaling of this worker's regrets and sums before an iteration."""
        K.discount(self.regrets, self.sums, float(a), float(b), float(g))

    def run(
        self,
        board: BoardBatch,
        traverser: int,
        update: bool,
        factors: tuple[float, float, float, float],
        reach_rows: np.ndarray,
    ) -> np.ndarray:
        """Whole passes over the worker's subtrees for ``traverser``.

        ``board``: the entries of the sampled boards (as the head computes them,
        :meth:`LimitPCSSolver._board_arrays`); ``reach_rows`` (k, 2, entries): each
        player's reach at each subtree root; ``factors``: the next iteration's regret discounts
        (a, b) and the weights of this iteration's additions to the sums and the regrets (the
        head's lazy scales, :class:`~pokerlab.solvers.schedule.LazyScale`). Each subtree is one
        depth-first pass
        (:func:`~pokerlab.tree.betting._subtree_kernels.pcs_subtree`). Returns the value rows
        at the roots (k, entries).
        """
        start = time.perf_counter()
        width = board.states.shape[1]
        out = np.empty((len(self.roots), width), dtype=np.float32)
        run = RunArrays(self.regrets, self.sums, self.prediction)
        disc = Discounts(self.regret_floor, self.predictive, *(float(x) for x in factors))
        for i, (root, _) in enumerate(self.roots):
            pcs_subtree(
                self.arrays, board, self.scale, np.int64(traverser), run, disc, bool(update),
                np.int64(root), np.ascontiguousarray(reach_rows[i]), out[i], self.buffers,
                NO_CUTS,
            )  # fmt: skip
        self.busy += time.perf_counter() - start
        return out

    def state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """This worker's (regrets, sums, prediction) in its own layout."""
        return self.regrets, self.sums, self.prediction

    def load(self, regrets: np.ndarray, sums: np.ndarray, prediction: np.ndarray) -> None:
        """Overwrite this worker's arrays (its own layout)."""
        self.regrets[:] = regrets
        self.sums[:] = sums
        if self.predictive:
            self.prediction[:] = prediction

    def nbytes(self) -> int:
        """Bytes of this worker's stored numbers (regrets, sums, predictions)."""
        return int(self.regrets.nbytes + self.sums.nbytes + self.prediction.nbytes)


class RayLimitPCSSolver(LimitPCSSolver):
    """:class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver` with its subtrees on Ray actors.

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
        ray = import_ray()
        if workers < 1:
            raise PokerlabError(f"workers must be >= 1, got {workers}")
        # the base class splits the tree only for two or more workers: ask for the split with
        # two and reassign below when one actor gets everything
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
        )
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
            np.zeros(size if self.schedule.predictive else 0, dtype=np.float32),
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
                    bool(self.schedule.regret_floor),
                    bool(self.schedule.predictive),
                )
            )
        #: Bytes of stored numbers per actor (regrets, sums, predictions): the spread memory.
        self.worker_bytes = ray.get([a.nbytes.remote() for a in self._actors])
        #: Each actor's subtrees as slots of the cut rows.
        self._cut_slots = [
            np.array([k for k, (_, _, o) in enumerate(self.subtrees) if o == w], np.int64)
            for w in range(self.workers)
        ]
        if chance == "full":
            # every iteration's boards are the same: the actors get their entries once
            self._full_ref = ray.put(self._full_entries)

    def worker_busy_seconds(self) -> list[float]:
        """Seconds each actor spent in passes since the last call (then reset): the load of
        each worker as measured, beside :attr:`worker_nodes`."""
        return [float(x) for x in self._ray.get([a.busy_seconds.remote() for a in self._actors])]

    # --- storage: the head's own part here, the rest on the actors ------------------------------
    def _allocate_storage(self) -> None:
        """Nothing full-size on the head (see :meth:`_gather`)."""

    def _gather(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        full = [np.zeros(self.size, dtype=np.float32) for _ in range(2)]
        pred = np.zeros(self.size if self.schedule.predictive else 0, dtype=np.float32)
        parts = [(self._head_slots, self._head)]
        states = self._ray.get([a.state.remote() for a in self._actors])
        parts += list(zip(self._slots, states, strict=True))
        for slots, (r, s, p) in parts:
            full[0][slots] = r
            full[1][slots] = s
            if pred.size:
                pred[slots] = p
        return full[0], full[1], pred

    @property
    def regrets(self) -> np.ndarray:  # type: ignore[override]
        """The full regret array, gathered from the head and the actors (a copy)."""
        return self._gather()[0]

    @property
    def sums(self) -> np.ndarray:  # type: ignore[override]
        """The full strategy-sum array, gathered (a copy)."""
        return self._gather()[1]

    @property
    def prediction(self) -> np.ndarray:  # type: ignore[override]
        """The full predicted-regret array (empty for a non-predictive schedule), gathered."""
        return self._gather()[2]

    def _set_arrays(
        self, regrets: np.ndarray, sums: np.ndarray, prediction: np.ndarray | None
    ) -> None:
        pred = prediction if (self.schedule.predictive and prediction is not None) else None
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

    # --- one pass -----------------------------------------------------------------------------
    def _pass(self, boards: np.ndarray | BoardBatch, traverser: int, update: bool) -> float:
        entries = boards if isinstance(boards, BoardBatch) else self._board_arrays(boards)
        reach = np.ones((2, entries.states.shape[1]), dtype=np.float32)
        return self._ray_pass(entries, self._ray.put(entries), reach, traverser, update)

    def _full_pass(self, traverser: int, update: bool) -> float:
        """One pass over every canonical board (``chance="full"``; their entries are in the
        object store once)."""
        return self._ray_pass(
            self._full_entries, self._full_ref, self._full_reach, traverser, update
        )

    def _ray_pass(
        self, entries: BoardBatch, entries_ref: Any, reach: np.ndarray, traverser: int,
        update: bool,
    ) -> float:  # fmt: skip
        """The split pass with the actors as workers: the head's depth-first way down to the
        subtree roots over its own nodes (cut mode 1), each actor's subtrees from the reach
        rows there, the head's way up with their value rows (cut mode 2)."""
        width = reach.shape[1]
        out = self._root[:width]
        cuts = Cuts(
            self._cut, np.int64(1), self._cut_reach[:, :, :width], self._cut_values[:, :width]
        )
        storage = (self._head_arrays, *self._head)
        buffers = self._buffers[0]
        self._subtree(entries, traverser, False, 0, reach, out, buffers, cuts, storage=storage)
        futures = [
            actor.run.remote(
                entries_ref, traverser, update, self._next + self._weights, cuts.reach[slots]
            )
            for actor, slots in zip(self._actors, self._cut_slots, strict=True)
        ]
        for slots, rows in zip(self._cut_slots, self._ray.get(futures), strict=True):
            cuts.values[slots] = rows
        cuts = cuts._replace(mode=np.int64(2))
        return self._subtree(
            entries, traverser, update, 0, reach, out, buffers, cuts, storage=storage
        )

    def close(self) -> None:
        """End the actors, and the local Ray instance if this solver started it (other solvers
        on that instance end with it: start Ray yourself to share it)."""
        if self._ray.is_initialized():
            for actor in self._actors:
                self._ray.kill(actor)
        self._actors = []
        if self._started_ray:
            self._ray.shutdown()
            self._started_ray = False
