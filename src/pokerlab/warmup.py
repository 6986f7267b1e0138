"""Compile (or load from numba's cache) every kernel once, visibly, before timed work; tell
whether numba's on-disk cache is cold (the first call of a kernel then compiles it)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from types import ModuleType

__all__ = ["warmup", "kernels_cold", "COMPILING_MESSAGE"]

#: What a command prints (on a terminal's stderr) before work whose kernels must compile first.
COMPILING_MESSAGE = "compiling (once, about a minute)"


def kernels_cold(modules: Iterable[ModuleType]) -> bool:
    """True when numba's on-disk cache holds no compiled kernel of some module in ``modules``
    (never run, or its source changed since: numba keys the cache by the source file's stamp,
    so a module's kernels are cached or stale together), False otherwise or when the cache
    cannot be read. Reads the cache index files only; compiles nothing."""
    from numba.core.registry import CPUDispatcher

    try:
        for module in modules:
            cached = [
                d._cache._cache_file._load_index()
                for d in vars(module).values()
                if isinstance(d, CPUDispatcher) and hasattr(d._cache, "_cache_file")
            ]
            if cached and not any(cached):
                return True
    except Exception:  # noqa: BLE001  numba internals: say nothing rather than fail a solve
        return False
    return False


def postflop_kernels_cold() -> bool:
    """:func:`kernels_cold` for the kernels every postflop solve runs (the passes and the
    discount factors; the strategy normalisation and the locked-policy kernels run only for
    some readings, so a solve that skipped them must not be announced as compiling again)."""
    from pokerlab.tree import _primitives
    from pokerlab.tree.vector import _kernels

    return kernels_cold([_kernels, _primitives])


def warmup() -> float:
    """Compile the solver and evaluator kernels on Kuhn poker; return the seconds it took."""
    from pokerlab.evaluate import exploitability
    from pokerlab.games.kuhn import KuhnGame
    from pokerlab.solvers.factory import make_solver

    start = time.perf_counter()
    for representation in ("public", "history"):
        solver = make_solver(KuhnGame(), "cfr", representation=representation)  # type: ignore[arg-type]
        solver.step(1)
        exploitability(solver.compiled, solver.average_strategy())
    make_solver(KuhnGame(), "es-mccfr").step(1)  # type: ignore[arg-type]  # the sampling kernels
    return time.perf_counter() - start
