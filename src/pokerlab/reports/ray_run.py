"""A report's boards as Ray tasks: one task per board, ``workers`` of them running at once,
locally (a Ray started here with ``workers`` CPUs) or on a cluster (``address``).

Each task runs :func:`pokerlab.reports.run.solve_flop`, the function the one-process run calls,
on the same inputs, so the rows are the same numbers (the solver's results do not depend on
where or on how many threads it runs; only the timing columns differ). A task whose worker
process dies is run again: by Ray itself (``max_retries``) and, should Ray give up, once more
by the driver for each of :data:`RESUBMITS` times; an error raised by the solve itself (bad
input) is not retried and stops the report. Rows reach ``on_row`` as tasks finish, in any
order (the report files keep plan order).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.reports.flops import Flop
from pokerlab.reports.run import ReportSettings, solve_flop

__all__ = ["run_on_ray", "RESUBMITS", "solve_task"]

#: Times the driver submits a board again after Ray's own retries gave up on it.
RESUBMITS = 2
#: Ray's retries of a task whose worker died.
RAY_RETRIES = 3


def solve_task(
    template: Mapping[str, Any],
    flop: Flop,
    settings: ReportSettings,
    threads: int,
    save_dir: str | None = None,
) -> dict[str, Any]:
    """The Ray task: one board's row, with the task's own wall seconds in ``task_seconds``
    (``save_dir``: also save the solution there as ``BOARD.npz``, on the worker's file
    system)."""
    start = time.perf_counter()
    save_to = None if save_dir is None else os.path.join(save_dir, f"{flop.text}.npz")
    row = solve_flop(template, flop, settings, threads, save_to=save_to)
    assert row is not None  # no stop callback in a task
    row["task_seconds"] = time.perf_counter() - start
    return row


def _start(ray: Any, address: str | None, cpus: int) -> bool:
    """Start or join Ray (as :func:`pokerlab.distributed.limit_ray.start_ray`, with ``cpus``
    CPUs for a local instance: the workers times each task's threads); True when this call
    started it."""
    from pokerlab.distributed.limit_ray import check_address

    if ray.is_initialized():
        return False
    options: dict[str, Any] = {
        "include_dashboard": False,
        "log_to_driver": False,
        "logging_level": logging.WARNING,
    }
    if address is not None:
        check_address(address)
        options["address"] = address
    else:
        os.environ.setdefault("RAY_worker_niceness", "0")  # see limit_ray.start_ray
        options["num_cpus"] = cpus
    ray.init(**options)
    return True


def run_on_ray(
    template: Mapping[str, Any],
    todo: Iterable[Flop],
    settings: ReportSettings,
    on_row: Callable[[dict[str, Any]], None],
    workers: int = 2,
    address: str | None = None,
    threads: int = 1,
    should_stop: Callable[[], bool] | None = None,
    task: Callable[..., dict[str, Any]] | None = None,
    save_dir: str | os.PathLike[str] | None = None,
) -> bool:
    """Solve ``todo`` as Ray tasks, ``workers`` at a time, handing each row to ``on_row`` as
    it arrives (``task_seconds`` removed: the driver keeps the per-task overhead figures in
    :data:`LAST_RUN`). Returns False when ``should_stop`` stopped it (running tasks are
    cancelled, their boards dropped), True when every board is done. ``task`` replaces
    :func:`solve_task` (tests: a task that kills its worker); ``save_dir``: each task saves
    its solution there (a local Ray, or a folder every node of the cluster shares)."""
    from pokerlab.distributed.limit_ray import import_ray

    ray = import_ray()
    if workers < 1:
        raise PokerlabError(f"--workers must be at least 1, got {workers}")
    started = _start(ray, address, workers * threads)
    remote = ray.remote(num_cpus=threads, max_retries=RAY_RETRIES)(task or solve_task)
    queue = list(todo)
    queue.reverse()
    running: dict[Any, tuple[Flop, int, float]] = {}
    extra = {} if save_dir is None else {"save_dir": os.fspath(save_dir)}
    LAST_RUN.clear()
    LAST_RUN.update(tasks=0, resubmitted=0, overhead_seconds=[])
    try:
        template_ref = ray.put(dict(template))
        while queue or running:
            if should_stop is not None and should_stop():
                for ref in running:
                    ray.cancel(ref, force=True)
                return False
            while queue and len(running) < workers:
                flop = queue.pop()
                ref = remote.remote(template_ref, flop, settings, threads, **extra)
                running[ref] = (flop, 0, time.perf_counter())
                LAST_RUN["tasks"] += 1
            ready, _ = ray.wait(list(running), num_returns=1, timeout=0.5)
            for ref in ready:
                flop, tries, submitted = running.pop(ref)
                try:
                    row = ray.get(ref)
                except ray.exceptions.RayTaskError as exc:  # the solve raised: bad input
                    cause = getattr(exc, "cause", None)
                    if isinstance(cause, PokerlabError):
                        raise PokerlabError(f"{flop.text}: {cause}") from None
                    raise
                except ray.exceptions.RayError:  # the worker died past Ray's retries
                    if tries >= RESUBMITS:
                        raise PokerlabError(
                            f"{flop.text}: the Ray task failed {tries + 1} times (its worker "
                            "died each time)"
                        ) from None
                    again = remote.remote(template_ref, flop, settings, threads, **extra)
                    running[again] = (flop, tries + 1, time.perf_counter())
                    LAST_RUN["resubmitted"] += 1
                    continue
                wall = time.perf_counter() - submitted
                LAST_RUN["overhead_seconds"].append(wall - float(row.pop("task_seconds", wall)))
                on_row(row)
        return True
    finally:
        if started and ray.is_initialized():
            ray.shutdown()


#: Figures of the last :func:`run_on_ray` call: ``tasks`` submitted, ``resubmitted`` by the
#: driver, and per finished task the seconds between submission and result that the task
#: itself did not spend solving (``overhead_seconds``; queueing behind other tasks included).
LAST_RUN: dict[str, Any] = {}
