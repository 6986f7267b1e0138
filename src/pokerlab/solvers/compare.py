"""Exploitability against nodes touched and against seconds, for several solvers on one game.

"Nodes touched" is the machine-independent cost of CFR-family solvers (Lanctot et al. 2009 plot
MCCFR variants this way): full-width and sampling solvers are compared on one axis. All solvers
here run on the game's **history tree**, so a node touched is one history visited by any of them
(full-width CFR counts each history once per updating player, sampling solvers each visited
history once per traversal). :func:`plot_convergence` draws both panels on one PNG.
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, field

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame
from pokerlab.io.files import atomic_write_bytes
from pokerlab.solvers.factory import make_solver

__all__ = ["ConvergenceCurve", "convergence_curves", "plot_convergence"]


@dataclass
class ConvergenceCurve:
    """Measurements of one solver: parallel lists, one entry per checkpoint."""

    algorithm: str
    iterations: list[int] = field(default_factory=list)
    nodes_touched: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    exploitability: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "algorithm": self.algorithm,
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
) -> list[ConvergenceCurve]:
    """Run each algorithm until ``budget_nodes`` nodes are touched, measuring exploitability at
    ``points`` budgets spaced geometrically from budget/1000 (game units; seconds are solving
    time only, exploitability checks excluded). Sampling solvers use ``seed``.
    """
    if budget_nodes < 1000:
        raise PokerlabError(f"budget_nodes must be at least 1000, got {budget_nodes}")
    if points < 2:
        raise PokerlabError(f"points must be >= 2, got {points}")
    if game.num_players != 2 or not game.zero_sum:
        raise PokerlabError("convergence curves need a two-player zero-sum game")
    marks = np.geomspace(budget_nodes / 1000.0, budget_nodes, points)
    curves = []
    for name in algorithms:
        solver = make_solver(game, name, seed=seed, representation="history")
        curve = ConvergenceCurve(solver.algorithm)
        for mark in marks:
            while solver.nodes_touched < mark:
                if solver.iterations == 0:
                    solver.step(1)
                    continue
                per_iteration = solver.nodes_touched / solver.iterations
                solver.step(max(1, math.ceil((mark - solver.nodes_touched) / per_iteration)))
            if curve.iterations and curve.iterations[-1] == solver.iterations:
                continue
            curve.iterations.append(solver.iterations)
            curve.nodes_touched.append(solver.nodes_touched)
            curve.seconds.append(solver.seconds)
            curve.exploitability.append(solver.exploitability())
        curves.append(curve)
    return curves


def plot_convergence(
    curves: list[ConvergenceCurve], path: str | os.PathLike[str], title: str = ""
) -> None:
    """Two log-log panels, exploitability against nodes touched and against seconds; written
    atomically as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for curve in curves:
        left.loglog(curve.nodes_touched, curve.exploitability, marker=".", label=curve.algorithm)
        right.loglog(curve.seconds, curve.exploitability, marker=".", label=curve.algorithm)
    left.set_xlabel("nodes touched")
    right.set_xlabel("seconds (solving only)")
    left.set_ylabel("exploitability (game units)")
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
    left.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110)
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())
