"""Exploitability against nodes touched and seconds on a postflop spot: full width and sampling.

The postflop twin of :func:`pokerlab.solvers.compare.convergence_curves`: every solver runs on the
spot's vector tree, the full-width schedules as :class:`~pokerlab.solvers.postflop.PostflopSolver`
(``dcfr-ps``, ``dcfr``, ``cfr+``, ``linear``, ``cfr``, ``pcfr+``, ``dcfr+``, ``pdcfr+``,
``hs-pcfr+``, ``hs-dcfr``) and chance and external sampling as
:class:`~pokerlab.solvers.postflop_mccfr.PostflopMCCFR` (Lanctot et al. 2009), each measured by the
same exact best-response passes. A node touched is one public-tree node visited: a full-width
visit handles every hand of both ranges at once (vector work, O(hands)), a sampling visit one
sampled hand per player (scalar work), so the seconds panel is the one that compares costs.

Budgets: ``budget_nodes`` (each solver runs until it has touched that many nodes, measured at
geometrically spaced node counts from a thousandth of it) or ``seconds`` (each solver gets that
much solving time: a short probe measures its nodes per second, the measurements are spaced
geometrically in the nodes it should touch in that time). Exploitability checks are not counted
in the seconds. The loop steps in pieces of about a fifth of a second and stops at the next piece
when the shared :class:`~pokerlab.io.interrupts.StopFlag` is set (Ctrl-C).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.io.interrupts import StopFlag
from pokerlab.solvers.compare import ConvergenceCurve
from pokerlab.solvers.postflop import POSTFLOP_ALGORITHMS, PostflopSolver
from pokerlab.solvers.postflop_mccfr import POSTFLOP_MCCFR_ALGORITHMS, PostflopMCCFR
from pokerlab.solvers.resume import canonical_algorithm
from pokerlab.solvers.schedule import schedule_by_name

__all__ = ["SPOT_ALGORITHMS", "spot_convergence_curves"]

#: What ``pokerlab compare SPOT`` runs by default.
SPOT_ALGORITHMS = ("dcfr-ps", "dcfr", "cfr+", "cs-mccfr", "es-mccfr")


def _make(game: PostflopGame, name: str, seed: int, schedule: str, threads: int) -> Any:
    if name in POSTFLOP_ALGORITHMS:
        return PostflopSolver(game, name, threads=threads)
    sched = None if schedule == "cfr" else schedule_by_name(schedule)
    return PostflopMCCFR(game, name, schedule=sched, seed=seed, threads=threads)


def _probe(solver: Any, want: float) -> float:
    """Doubling steps until ``want`` seconds of solving (they count in the curve); the nodes per
    second of the last, longest step (the least diluted by per-call costs)."""
    n = 1
    rate = 0.0
    while solver.seconds < want or rate <= 0.0:
        nodes, secs = solver.nodes_touched, solver.seconds
        solver.step(n)
        rate = (solver.nodes_touched - nodes) / max(solver.seconds - secs, 1e-9)
        n *= 2
    return rate


def _run_curve(
    solver: Any,
    curve: ConvergenceCurve,
    flag: StopFlag,
    *,
    budget_nodes: int | None,
    seconds: float | None,
    points: int,
) -> None:
    """Step ``solver`` to geometrically spaced node counts and measure its exploitability at each.

    Steps aim slightly past each mark from the mean nodes per iteration, in pieces of about a
    fifth of a second so that a stop request is seen promptly; with ``seconds``, the marks come
    from the nodes per second of a short probe and continue (x1.25 each) past the estimate until
    the time is spent.
    """

    def record() -> None:
        if solver.iterations and (
            not curve.iterations or curve.iterations[-1] != solver.iterations
        ):
            curve.iterations.append(solver.iterations)
            curve.nodes_touched.append(solver.nodes_touched)
            curve.seconds.append(solver.seconds)
            curve.exploitability.append(float(solver.exploitability()))

    if seconds is not None:
        rate = _probe(solver, min(0.05, seconds / 100.0))
        goal = max(rate * seconds, solver.nodes_touched * 1.5)
        low = max(goal / 1000.0, solver.nodes_touched * 1.3)
        marks = list(np.geomspace(low, goal, points))
        while marks[-1] < 100.0 * goal:
            marks.append(marks[-1] * 1.25)
    else:
        assert budget_nodes is not None
        solver.step(1)
        marks = list(np.geomspace(budget_nodes / 1000.0, budget_nodes, points))
    record()
    for mark in marks:
        while solver.nodes_touched < mark:
            per_iteration = solver.nodes_touched / max(solver.iterations, 1)
            piece_cap = max(
                1,
                int(
                    0.2
                    * solver.nodes_touched
                    / max(solver.seconds, 1e-9)
                    / max(per_iteration, 1e-9)
                ),
            )
            need = max(1, math.ceil(1.02 * (mark - solver.nodes_touched) / per_iteration))
            solver.step(min(need, piece_cap))
            if flag.requested:
                break
            if seconds is not None and solver.seconds >= seconds:
                break
        record()
        if flag.requested:
            curve.complete = False
            return
        if seconds is not None and solver.seconds >= seconds:
            return
        if budget_nodes is not None and solver.nodes_touched >= budget_nodes:
            return


def spot_convergence_curves(
    game: PostflopGame,
    algorithms: list[str] | tuple[str, ...] = SPOT_ALGORITHMS,
    *,
    budget_nodes: int | None = None,
    seconds: float | None = None,
    points: int = 25,
    seed: int = 0,
    mccfr_schedule: str = "linear",
    threads: int = 1,
    stop: StopFlag | None = None,
) -> list[ConvergenceCurve]:
    """Run each algorithm on ``game`` under one budget and measure its exploitability (chips) at
    ``points`` reports (see the module docstring). Sampling solvers use ``seed`` and the discount
    schedule ``mccfr_schedule`` (default ``linear``: Linear CFR weighting in blocks of 100
    iterations; ``cfr`` for none); their curves are labelled ``name/schedule``.

    ``stop`` (Ctrl-C through :func:`~pokerlab.io.interrupts.stop_on_sigint`) ends the running
    solver at its next safe point: its curve is returned marked ``complete=False`` and the
    algorithms not yet started are left out.
    """
    if not isinstance(game, PostflopGame):
        raise PokerlabError("spot convergence curves need a postflop spot")
    if (budget_nodes is None) == (seconds is None):
        raise PokerlabError("give one budget: budget_nodes or seconds")
    if budget_nodes is not None and budget_nodes < 1000:
        raise PokerlabError(f"budget_nodes must be at least 1000, got {budget_nodes}")
    if seconds is not None and not (seconds > 0 and math.isfinite(seconds)):
        raise PokerlabError(f"seconds must be a number > 0, got {seconds}")
    if points < 2:
        raise PokerlabError(f"points must be >= 2, got {points}")
    known = (*POSTFLOP_ALGORITHMS, *POSTFLOP_MCCFR_ALGORITHMS)
    names = [canonical_algorithm(a) for a in algorithms]
    for name, given in zip(names, algorithms, strict=True):
        if name not in known:
            raise PokerlabError(
                f"unknown algorithm {given!r} for a postflop spot; choose one of {', '.join(known)}"
            )
    if mccfr_schedule != "cfr":
        sched = schedule_by_name(mccfr_schedule)
        if sched.predictive or sched.scheduled:
            raise PokerlabError(
                f"mccfr schedule {mccfr_schedule!r} is full-width only (prediction or a "
                "hyperparameter schedule); sampling solvers take cfr, cfr+, linear or dcfr"
            )
    check_memory = getattr(game, "check_memory", None)
    if check_memory is not None:
        check_memory()
    flag = stop if stop is not None else StopFlag()
    curves: list[ConvergenceCurve] = []
    for name in names:
        if flag.requested:
            break
        solver = _make(game, name, seed, mccfr_schedule, threads)
        label = name if name in POSTFLOP_ALGORITHMS else f"{name}/{mccfr_schedule}"
        curve = ConvergenceCurve(label)

        _run_curve(solver, curve, flag, budget_nodes=budget_nodes, seconds=seconds, points=points)
        if curve.iterations:
            curves.append(curve)
    return curves
