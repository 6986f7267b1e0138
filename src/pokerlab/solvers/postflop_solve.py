"""What both postflop solvers' ``solve`` and ``exploitability`` run
(:class:`~pokerlab.solvers.postflop.PostflopSolver`, full width, and
:class:`~pokerlab.solvers.postflop_mccfr.PostflopMCCFR`, sampling): the stopping loop in chunks
with the exploitability in chips or in percent of the pot (:func:`solve_spot`), and the checks
that stop a solve whose arrays or exploitability are not finite, naming the node
(:func:`check_finite`, :func:`finite_exploitability`); the kernels compiled or loaded before a
solve on a tiny spot (:func:`warm_kernels`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from pokerlab.errors import NonFiniteError, PokerlabError
from pokerlab.solvers.base import Callback, Progress
from pokerlab.solvers.loop import iteration_count, run_loop
from pokerlab.tree._primitives import first_non_finite_f32
from pokerlab.tree.vector.tree import DECISION

__all__ = [
    "check_exploitability",
    "check_finite",
    "finite_exploitability",
    "solve_spot",
    "warm_kernels",
]


def solve_spot(
    solver: Any,
    iterations: int | None,
    target_exploitability: float | None,
    seconds: float | None,
    callback: Callback | None,
    check_every: int,
    target_pct: float | None,
) -> Progress:
    """``solve`` of every postflop solver (full width and sampling): the engine's stopping loop
    (:func:`~pokerlab.solvers.loop.run_loop`: ``step`` in chunks of ``check_every``
    iterations, exploitability in chips, ``target_pct`` percent of the starting pot, measured
    before each chunk when a target or a callback needs it, until a limit). The solving time
    accrues in ``solver.seconds``, the time of these exploitability checks in
    ``solver.check_seconds`` (wall seconds); a check is ``solver.check_exploitability()``
    where the solver has one, else ``solver.exploitability()``."""
    if target_pct is not None:
        if not target_pct > 0:
            raise PokerlabError(f"target must be > 0% of the pot, got {target_pct}")
        target_exploitability = target_pct / 100.0 * float(solver.game.config.pot)
    if iterations is None and target_exploitability is None and seconds is None:
        raise PokerlabError("solve needs iterations, a target exploitability or seconds")
    if iterations is not None:
        iterations = iteration_count(iterations)
    if check_every < 1:
        raise PokerlabError(f"check_every must be >= 1, got {check_every}")

    measure = getattr(solver, "check_exploitability", solver.exploitability)

    def check() -> float:
        t0 = time.perf_counter()
        value = float(measure())
        solver.check_seconds += time.perf_counter() - t0
        return value

    end = run_loop(
        solver.step,
        lambda: (solver.iterations, solver.seconds, solver.nodes_touched),
        check_every=check_every,
        iterations=iterations,
        target=target_exploitability,
        seconds=seconds,
        measure=check,
        measure_at_reports=callback is not None,
        on_report=callback,
    )
    return end.progress


def check_exploitability(solver: Any) -> float:
    """The exploitability (chips) that a full-width solver's solving loop checks
    (``PostflopSolver.check_exploitability``): its ``exploitability()``, with the two
    best-response passes in float32 where they run in one compiled call (no locks), as the CFR
    passes and postflop-solver's checks (the root sums float64): within about 1e-6 of the
    float64 measure, relative, and a fifth cheaper (a river check 81 -> 64 us)."""
    if not solver.game.zero_sum or solver.lock_probs is not None:
        return float(solver.exploitability())
    solver.check_finite()
    pair = solver.passes.best_responses(solver.strat_sum, solver.regrets, (None, None), True)
    return finite_exploitability(solver, (sum(pair) - float(solver.game.config.pot)) / 2.0)


def check_finite(solver: Any, arrays: Mapping[str, np.ndarray | None]) -> None:
    """Raise :class:`~pokerlab.errors.NonFiniteError` naming the array, the node (its line from
    the root) and the acting player when one of ``arrays`` holds a NaN or an infinity.

    ``arrays``: the flat solver arrays laid out like the tree (``actions x hands`` per decision
    node at ``offset[node]``) or, the same length as the node count, one value per node (the
    16-bit mode's scales); None entries are skipped. The cost is one pass over the arrays, small
    next to the exploitability's best-response passes it runs with."""
    for name, values in arrays.items():
        if values is None or values.size == 0 or values.dtype.kind not in "fc":
            continue
        index = -1
        if values.dtype == np.float32 and values.ndim == 1 and values.flags.c_contiguous:
            index = int(first_non_finite_f32(values))
        else:
            for start in range(0, values.size, 1 << 22):  # bounded temporaries on huge trees
                part = np.isfinite(values[start : start + (1 << 22)])
                if not part.all():
                    index = start + int(np.argmin(part))
                    break
        if index < 0:
            continue
        from pokerlab.games.postflop.naming import SpotNaming

        spot = solver.spot
        a = spot.tree.arrays
        n_nodes = int(a.kind.shape[0])
        if values.size == n_nodes and values.size != solver.tree.size:
            node = index
        else:
            decisions = np.flatnonzero(a.offset >= 0)
            order = decisions[np.argsort(a.offset[decisions], kind="stable")]
            node = int(order[np.searchsorted(a.offset[order], index, side="right") - 1])
        line = ", ".join(SpotNaming(spot).line(node)) or "the root"
        who = ("OOP", "IP")[int(a.player[node])] if a.kind[node] == DECISION else "chance"
        raise NonFiniteError(
            f"{name} is not finite ({values.flat[index]}) at node {line!r} ({who}) after "
            f"{solver.iterations} iterations: the solve stopped, nothing saved as complete"
        )


def finite_exploitability(solver: Any, value: float) -> float:
    """``value``, or :class:`~pokerlab.errors.NonFiniteError` when it is not finite."""
    if not math.isfinite(value):
        raise NonFiniteError(
            f"exploitability is not finite ({value}) after {solver.iterations} iterations: the "
            "solve stopped, nothing saved as complete"
        )
    return value


def warm_kernels(threads: int, compressed: bool, params: np.ndarray) -> None:
    """Compile or load every kernel a solve on ``threads`` threads with that storage type and
    schedule array calls (:meth:`Passes.warmup <pokerlab.tree.vector.passes.Passes.warmup>`),
    on a tiny turn spot: the compiled kernels specialise on argument types, not sizes, so its
    passes serve any spot's, in milliseconds (the spot's own passes took 1.6 s on the flop).
    ``tests/test_postflop_warmup.py`` checks that a solve then compiles nothing."""
    from pokerlab.tree.vector.passes import Passes

    # one thread walks the whole tree in one call, more threads split it at the deals: a spot
    # without deals (a river) takes the first path on any thread count, so both are warmed
    for count in sorted({1, max(1, int(threads))}):
        warm = Passes(_warmup_tree(), count)
        warm.warmup(params, compressed)
        warm.pool.close()


@lru_cache(maxsize=1)
def _warmup_tree() -> Any:
    """Two hands a side on a turn board, with every node kind the passes meet: both seats'
    decisions before and after a deal, folds, showdowns, a split point per river card."""
    from pokerlab.games.postflop.game import PostflopGame

    game = PostflopGame(
        board="Td9d6hQc", ranges=("KK", "QQ"), pot=100, stack=300, bets="50%", raises="a"
    )
    return game.expanded.tree
