"""Compile (or load from numba's cache) every kernel once, visibly, before timed work."""

from __future__ import annotations

import time

__all__ = ["warmup"]


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
