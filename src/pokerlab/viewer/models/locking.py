"""Node locking in the viewer: a lock or unlock on a solved spot, then a re-solve of the spot in
chunks that the job queue runs (progress, cancel), with the values before and after."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from pokerlab.errors import PokerlabError
from pokerlab.solvers.loop import Progress, run_loop
from pokerlab.viewer.models.base import _jsonable, finite
from pokerlab.viewer.models.postflop import PostflopModel, _tokens

__all__ = [
    "RESOLVE_CHUNK_SECONDS",
    "LockingUnavailable",
    "ResolveProgress",
    "check_lock",
    "check_unlock",
    "lock_and_resolve",
    "unlock_and_resolve",
]


class LockingUnavailable(PokerlabError):
    """The installed solver has no node locking."""


def _snapshot(model: PostflopModel, line: list[str]) -> dict[str, Any]:
    """Root values (EV per player, exploitability) and the range EVs at ``line``."""
    values = model.values()
    try:
        v = model.view(line)
        node_ev = [finite(v.range_value(p)[0], 6) for p in (0, 1)]
    except PokerlabError:
        node_ev = [None, None]
    return {
        "ev": values["ev"],
        "exploitability": values["exploitability"],
        "exploitability_pct": values["exploitability_pct"],
        "node_ev": node_ev,
    }


#: Target length of one chunk of re-solve iterations (seconds; a chunk is at least one iteration).
#: A chunk holds the model's lock; between chunks it is let go, so reads of the same spot wait
#: about this long at most, and a cancel takes effect. (The kernels let the GIL go while they
#: run, so requests for other files do not wait for chunks at all.)
RESOLVE_CHUNK_SECONDS = 0.02


class ResolveProgress(Protocol):
    """What a re-solve reports to and asks of its caller (a viewer job's context)."""

    def progress(self, done: int) -> None: ...

    def cancelled(self) -> bool: ...


def _resolve(
    model: PostflopModel,
    tokens: list[str],
    change: Callable[[], None],
    iterations: int,
    job: ResolveProgress | None,
) -> dict[str, Any]:
    """Values before, ``change()`` (set or drop locks), ``iterations`` more iterations in chunks
    of about :data:`RESOLVE_CHUNK_SECONDS` (the model's lock held per chunk, the job's cancel
    flag checked between chunks), values after. A cancelled re-solve keeps the change and the
    iterations it ran and reports no values after."""
    with model.lock:
        before = _snapshot(model, tokens)
        change()
        model.modified = True
        model.invalidate()
    start_iterations = int(model.solver.iterations)
    chunk = [1]  # the next chunk's size: about RESOLVE_CHUNK_SECONDS, at most twice the last

    def step(n: int) -> None:
        start = time.perf_counter()
        with model.lock:
            model.solver.step(n)
            model.invalidate()
        per_iteration = (time.perf_counter() - start) / n
        fit = int(RESOLVE_CHUNK_SECONDS / per_iteration) if per_iteration > 0 else 2 * n
        chunk[0] = max(1, min(2 * n, fit))

    def report(progress: Progress) -> bool:
        if job is not None and progress.iterations > start_iterations:
            job.progress(progress.iterations - start_iterations)
        return False

    end = run_loop(  # the engine's stopping loop; the model's lock is held per chunk only
        step,
        lambda: (int(model.solver.iterations), 0.0, 0),
        check_every=max(1, int(iterations)),
        iterations=int(iterations),
        on_report=report,
        stop=(lambda: job.cancelled()) if job is not None else None,
        next_chunk=lambda default: chunk[0],
    )
    cancelled = end.reason == "stop"
    done = end.progress.iterations - start_iterations
    with model.lock:
        after = None if cancelled else _snapshot(model, tokens)
        return {
            "line": tokens,
            "iterations": done,
            "requested_iterations": int(iterations),
            "cancelled": cancelled,
            "total_iterations": int(model.solver.iterations),
            "before": before,
            "after": after,
            "locks": _jsonable(model.solver.locks()),
        }


def check_lock(
    model: PostflopModel, line: str, strategy: dict[str, float], hands: str | None
) -> None:
    """Raise the error :func:`lock_and_resolve` would raise for this lock (bad line, action,
    probability or hand), without changing anything; a request checks before queueing."""
    if not hasattr(model.solver, "lock"):
        raise LockingUnavailable("this pokerlab's postflop solver has no node locking")
    check = getattr(model.solver, "_resolve_lock", None)
    if check is not None:
        with model.lock:
            check(", ".join(_tokens(line)), dict(strategy), hands or None)


def check_unlock(model: PostflopModel, line: str | None) -> None:
    """Raise the error :func:`unlock_and_resolve` would raise (no locking, or nothing locked at
    ``line``), without changing anything."""
    if not hasattr(model.solver, "unlock"):
        raise LockingUnavailable("this pokerlab's postflop solver has no node locking")
    if line is None:
        return
    find = getattr(model.solver, "_find_decision", None)
    if find is None:
        return
    with model.lock:
        node, tokens, _ = find(", ".join(_tokens(line)))
        # by node, not by line: a lock set through a suit-swapped twin line is the same lock
        if not any(r.node == node for r in getattr(model.solver, "_locks", ())):
            raise PokerlabError(f"nothing is locked at {', '.join(tokens) or 'the root'!r}")


def lock_and_resolve(
    model: PostflopModel,
    line: str,
    strategy: dict[str, float],
    hands: str | None,
    iterations: int,
    job: ResolveProgress | None = None,
) -> dict[str, Any]:
    """Lock the actor's strategy at ``line`` for ``hands`` (None: all), run ``iterations`` more
    iterations, and return the values before and after (root EVs, exploitability of the locked
    game, both ranges' EV at the node) with the locks now set. The change stays in memory (the
    file is not written). ``job``: progress and cancellation (see :func:`_resolve`)."""
    if not hasattr(model.solver, "lock"):
        raise LockingUnavailable("this pokerlab's postflop solver has no node locking")
    tokens = _tokens(line)

    def change() -> None:
        model.solver.lock(", ".join(tokens), dict(strategy), hands or None)

    return _resolve(model, tokens, change, iterations, job)


def unlock_and_resolve(
    model: PostflopModel,
    line: str | None,
    iterations: int,
    job: ResolveProgress | None = None,
) -> dict[str, Any]:
    """Remove the locks at ``line`` (None: all), run ``iterations`` more iterations; values
    before and after as :func:`lock_and_resolve` gives them."""
    if not hasattr(model.solver, "unlock"):
        raise LockingUnavailable("this pokerlab's postflop solver has no node locking")
    tokens = _tokens(line or "")

    def change() -> None:
        model.solver.unlock(None if line is None else ", ".join(tokens))

    return _resolve(model, tokens, change, iterations, job)
