"""Executors of the subtree seam: who runs the subtrees below a split point.

A split pass (the vector tree's split chance nodes, the betting tree's subtree roots) walks the
part above the split points once to collect the reach rows entering each subtree, computes the
subtrees' value rows from those reach rows, then walks the top part again reading them
(:class:`pokerlab.tree.backend.SubtreeSeam`). The middle step is independent work per subtree:
a :class:`WorkerPool` runs one call per worker, and each worker runs its subtrees in compiled
kernels that let the GIL go. Threads in this process (:class:`ThreadWorkers`) and Ray actors
that own their subtrees' storage are the executors: the betting tree's
(:mod:`pokerlab.distributed.limit_ray`) and the postflop vector tree's chance subtrees
(:mod:`pokerlab.distributed.postflop_ray`: each actor builds the spot's tree from its
parameters, owns a run of neighbouring subtrees cut by :func:`chunks`, and runs the kernel the
threads run on the reach rows it is sent); one worker runs in the calling thread
(:class:`SerialWorkers`). An actor executor replaces the seam's method
(``subtree_values``) rather than implementing :class:`WorkerPool`: its workers keep their
subtrees' numbers, so the work cannot move between them, and a pass costs one call per actor.

The vector tree's subtrees go out in runs of neighbours of about equal work (:func:`chunks`),
sixteen a worker, which the workers draw from a shared counter inside their compiled call
(``tree/vector/_walk_batches.py``): a run handed out from Python cost about 17 microseconds
(the call, the lock, the GIL), so eight such runs made a turn pass slower than four. A CFR
iteration on this process's threads is one compiled call a worker, the passes synchronised by
counters (worker 0 walks the top parts, the others wait spinning), where each thread has a
CPU; elsewhere, and for the best-response passes, each pass is one call a worker from Python.
The search gadgets' leaf items go out from Python (:func:`share_out`: each worker takes the
next piece left until none is). On shared cores a fixed split waits for its slowest thread;
the betting tree's subtrees stay with their owner, as on Ray, where each actor owns one run
(chunks of equal node counts, measured in ``benchmarks/postflop_ray.py``).
Results do not depend on the worker count or on who took which chunk: each subtree reads only
its reach rows and writes only its own storage and value row.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar

import numpy as np

from pokerlab.errors import PokerlabError

__all__ = [
    "SerialWorkers",
    "ThreadWorkers",
    "WorkerPool",
    "chunks",
    "share_out",
    "thread_rows",
    "usable_cpus",
    "worker_pool",
]

R = TypeVar("R")
T = TypeVar("T")

#: Bytes between two threads' scratch blocks: two 64-byte cache lines (AMD and Intel cores
#: prefetch lines in adjacent pairs).
LINE_BYTES = 128


def thread_rows(threads: int, shape: tuple[int, ...], dtype: type = np.float64) -> np.ndarray:
    """Zeros of shape ``(threads, *shape)`` whose per-thread blocks ``a[w]`` (C-contiguous)
    share no cache line: each starts on a :data:`LINE_BYTES` boundary and the next begins at
    least a line after its end. Without the padding, small per-thread rows (a pass's depth
    stack of a few int64, its 52 per-card sums) sat in the line their neighbour's thread wrote
    on every node, and two threads on the turn spot's subtrees ran 10-30% slower each than
    one alone (false sharing; measured with the two halves of the items on two threads)."""
    dt = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    line = LINE_BYTES // dt.itemsize
    per = -(-n // line) * line + line  # whole lines, plus one line between neighbours
    raw = np.zeros(threads * per * dt.itemsize + LINE_BYTES, dtype=np.uint8)
    start = (-raw.ctypes.data) % LINE_BYTES
    buf = raw[start : start + threads * per * dt.itemsize].view(dt).reshape(threads, per)
    return buf[:, :n].reshape((threads, *shape))


class WorkerPool(Protocol):
    """Runs ``run(w)`` for every worker ``w`` in ``0 .. workers - 1`` and returns the results
    in worker order."""

    workers: int

    def map(self, run: Callable[[int], R]) -> list[R]: ...

    def close(self) -> None: ...


class SerialWorkers:
    """One worker, in the calling thread."""

    workers = 1

    def map(self, run: Callable[[int], R]) -> list[R]:
        return [run(0)]

    def close(self) -> None:
        return None


class ThreadWorkers:
    """``workers`` workers on threads of this process: worker 0 in the calling thread, the others
    on a pool started at the first call (the kernels they call must be ``nogil``)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = int(workers)
        self._pool: ThreadPoolExecutor | None = None

    def map(self, run: Callable[[int], R]) -> list[R]:
        if self.workers == 1:
            return [run(0)]
        if self._pool is None:
            self._pool = ThreadPoolExecutor(
                max_workers=self.workers - 1, thread_name_prefix="pokerlab-subtree"
            )
        futures = [self._pool.submit(run, w) for w in range(1, self.workers)]
        first = run(0)
        return [first, *(f.result() for f in futures)]

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_threads() -> int:
    """The most in-process threads :func:`worker_pool` gives: four per CPU of this machine, and
    at least 64 (more only add scratch memory and scheduling; 1,000 threads took 21 s to set up
    a postflop solver on 2 cores)."""
    return max(64, 4 * (os.cpu_count() or 1))


def worker_pool(workers: int) -> SerialWorkers | ThreadWorkers:
    """The in-process executor for ``workers`` threads (one: the calling thread alone); more
    than :func:`max_threads` is refused with :class:`~pokerlab.errors.PokerlabError`."""
    if int(workers) > max_threads():
        raise PokerlabError(
            f"threads: {int(workers)} is more than this machine can use "
            f"({os.cpu_count()} CPUs; at most {max_threads()})"
        )
    return SerialWorkers() if int(workers) <= 1 else ThreadWorkers(int(workers))


def chunks(costs: Sequence[float] | np.ndarray, pieces: int) -> list[np.ndarray]:
    """The items ``0 .. len(costs) - 1`` cut into at most ``pieces`` runs of neighbours (int64
    ids, ascending) of about equal total cost: a run ends where the running cost passes the next
    multiple of ``total / pieces``. Neighbouring items share their parent's memory."""
    costs = np.asarray(costs, dtype=np.float64)
    pieces = max(1, int(pieces))
    if costs.size == 0:
        return []
    running = np.cumsum(costs)
    total = float(running[-1])
    if total <= 0.0:
        return [a for a in np.array_split(np.arange(costs.size, dtype=np.int64), pieces) if a.size]
    # item i closes chunk floor(running[i - 1] * pieces / total): its start falls in that chunk
    start = np.concatenate(([0.0], running[:-1]))
    label = np.minimum((start * pieces / total).astype(np.int64), pieces - 1)
    cuts = np.flatnonzero(np.diff(label)) + 1
    return np.split(np.arange(costs.size, dtype=np.int64), cuts)


def share_out(pool: WorkerPool, work: Sequence[T], run: Callable[[int, T], R]) -> list[R]:
    """``run(w, piece)`` for every piece of ``work``, the pool's workers each taking the next
    piece not yet taken until none is left (worker ``w`` calls with its own id, so it can use
    its own scratch); the results in ``work``'s order."""
    results: list[R | None] = [None] * len(work)
    lock = threading.Lock()
    taken = iter(range(len(work)))

    def worker(w: int) -> None:
        while True:
            with lock:
                i = next(taken, None)
            if i is None:
                return
            results[i] = run(w, work[i])

    pool.map(worker)
    return results  # type: ignore[return-value]
