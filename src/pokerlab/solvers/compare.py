"""Exploitability against nodes touched and against seconds, for several solvers on one game.

"Nodes touched" is the machine-independent cost of CFR-family solvers (Lanctot et al. 2009 plot
MCCFR variants this way): full-width and sampling solvers are compared on one axis. All solvers
here run on the game's **history tree**, so a node touched is one history visited by any of them
(full-width CFR counts each history once per updating player, sampling solvers each visited
history once per traversal). :func:`pokerlab.plots.curves.plot_convergence` draws both panels on
one PNG.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame
from pokerlab.io.interrupts import StopFlag
from pokerlab.solvers.base import Progress
from pokerlab.solvers.factory import ALGORITHMS, SAMPLING, make_solver
from pokerlab.solvers.guards import check_history_tree_size
from pokerlab.solvers.resume import canonical_algorithm
from pokerlab.solvers.run import TrainingRun

__all__ = ["ConvergenceCurve", "convergence_curves"]


@dataclass
class ConvergenceCurve:
    """Measurements of one solver: parallel lists, one entry per checkpoint.

    ``complete`` is False for a curve cut short by an interruption (its last point is the last
    budget reached before the stop).
    """

    algorithm: str
    iterations: list[int] = field(default_factory=list)
    nodes_touched: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    exploitability: list[float] = field(default_factory=list)
    complete: bool = True

    def to_dict(self) -> dict[str, object]:
        return {
            "algorithm": self.algorithm,
            "complete": self.complete,
            "iterations": self.iterations,
            "nodes_touched": self.nodes_touched,
            "seconds": self.seconds,
            "exploitability": self.exploitability,
        }


def convergence_curves(
    game: HistoryGame,
    algorithms: list[str],
    budget_nodes: int,
    points: int = 25,
    seed: int = 0,
    *,
    stop: StopFlag | None = None,
) -> list[ConvergenceCurve]:
    """Run each algorithm until ``budget_nodes`` nodes are touched, measuring exploitability at
    ``points`` budgets spaced geometrically from budget/1000 (game units; seconds are solving
    time only, exploitability checks excluded). Sampling solvers use ``seed``.

    Each solver is driven by a :class:`~pokerlab.solvers.run.TrainingRun`. When ``stop`` is set
    (Ctrl-C through :func:`~pokerlab.io.interrupts.stop_on_sigint`, or another thread), the running
    solver stops at its next safe point: its curve is returned marked ``complete=False`` and the
    algorithms not yet started are left out. A game whose history tree would take minutes to
    build is refused at once (:func:`~pokerlab.solvers.guards.check_history_tree_size`).
    """
    if budget_nodes < 1000:
        raise PokerlabError(f"budget_nodes must be at least 1000, got {budget_nodes}")
    if points < 2:
        raise PokerlabError(f"points must be >= 2, got {points}")
    if game.num_players != 2 or not game.zero_sum:
        raise PokerlabError("convergence curves need a two-player zero-sum game")
    names = [canonical_algorithm(a) for a in algorithms]
    for name, given in zip(names, algorithms, strict=True):
        if name not in ALGORITHMS:
            raise PokerlabError(
                f"unknown algorithm {given!r}; choose one of {', '.join(ALGORITHMS)}"
            )
    check_history_tree_size(
        game,
        "compare",
        advice="compare runs every solver on the history tree: compare kuhn or leduc, and "
        "solve push/fold with pokerlab pushfold or pokerlab solve pushfold -a dcfr",
    )
    flag = stop if stop is not None else StopFlag()
    marks = np.geomspace(budget_nodes / 1000.0, budget_nodes, points)
    curves = []
    for name in names:
        if flag.requested:
            break
        options: dict[str, object] = (
            {"seed": seed} if name in SAMPLING else {"representation": "history"}
        )
        solver = make_solver(game, name, **options)  # type: ignore[arg-type]
        curve = ConvergenceCurve(solver.algorithm)

        def record(progress: Progress, curve: ConvergenceCurve = curve) -> None:
            if progress.iterations == 0:
                return
            if curve.iterations and curve.iterations[-1] == progress.iterations:
                return
            curve.iterations.append(progress.iterations)
            curve.nodes_touched.append(progress.nodes_touched)
            curve.seconds.append(progress.seconds)
            curve.exploitability.append(progress.exploitability)

        result = TrainingRun(
            solver, nodes=budget_nodes, report_nodes=list(marks), on_report=record, stop=flag
        ).run()
        curve.complete = result.status != "interrupted"
        if curve.iterations:
            curves.append(curve)
    return curves
