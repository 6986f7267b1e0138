"""Independent blocks of an evaluation (duplicate pairs, LBR games) on several processes or on
an executor (Ray), with results equal to the serial run's (issue 24).

The agents that matches and LBR play are Python objects that hold the GIL, so threads would
not run them at once; processes do. Local processes are forked where the platform allows, so
the job (a blueprint's arrays and its card abstraction: hundreds of MB) is inherited, not
copied; elsewhere it is pickled once per process. An executor (``concurrent.futures``: a
:class:`~pokerlab.distributed.ray_executor.RayExecutor` for Ray, local or a cluster) gets one
task per block, each carrying the job.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any, TypeVar

import numpy as np

__all__ = ["run_blocks"]

R = TypeVar("R")

_JOB: tuple[Callable[..., Any], Any] | None = None  # a worker process's function and job


def _install(fn: Callable[..., Any], job: Any) -> None:
    global _JOB
    _JOB = (fn, job)


def _block(lo: int, hi: int) -> Any:
    assert _JOB is not None, "the worker was started without its job"
    fn, job = _JOB
    return fn(job, lo, hi)


def run_blocks(
    fn: Callable[[Any, int, int], R],
    job: Any,
    items: int,
    workers: int,
    executor: Executor | None = None,
) -> list[R]:
    """``fn(job, lo, hi)`` over ``items`` cut into ``workers`` blocks of neighbours (``fn`` a
    module-level function), on ``workers`` local processes or on ``executor``; the blocks'
    results in order."""
    edges = np.linspace(0, items, max(1, int(workers)) + 1).astype(np.int64)
    blocks = [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:], strict=True) if b > a]
    if executor is not None:
        futures = [executor.submit(fn, job, a, b) for a, b in blocks]
        return [f.result() for f in futures]
    if len(blocks) == 1:
        return [fn(job, *blocks[0])]
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    with ProcessPoolExecutor(
        len(blocks), mp_context=context, initializer=_install, initargs=(fn, job)
    ) as pool:
        return list(pool.map(_block, *zip(*blocks, strict=True)))
