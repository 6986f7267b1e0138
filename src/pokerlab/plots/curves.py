"""Convergence curves: exploitability against nodes touched and against seconds, for the solvers
that :func:`pokerlab.solvers.compare.convergence_curves` (or a postflop comparison) measured."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pokerlab.plots.common import plt, save_png

if TYPE_CHECKING:
    from pokerlab.solvers.compare import ConvergenceCurve

__all__ = ["plot_convergence"]


def plot_convergence(
    curves: Sequence[ConvergenceCurve],
    path: str | os.PathLike[str],
    title: str = "",
    *,
    scale: float = 1.0,
    ylabel: str = "exploitability (game units)",
    nodes_label: str = "nodes touched",
) -> None:
    """Two log-log panels, exploitability against nodes touched and against seconds; written
    atomically as a PNG. Exploitability is multiplied by ``scale`` (postflop spots: 100 / pot,
    with ``ylabel`` "exploitability (% of pot)")."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5), sharey=True)
    for curve in curves:
        y = [scale * e for e in curve.exploitability]
        left.loglog(curve.nodes_touched, y, marker=".", label=curve.algorithm)
        right.loglog(curve.seconds, y, marker=".", label=curve.algorithm)
    left.set_xlabel(nodes_label)
    right.set_xlabel("seconds (solving only)")
    left.set_ylabel(ylabel)
    for ax in (left, right):
        ax.grid(True, which="both", alpha=0.3)
    left.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    save_png(fig, path, dpi=110)
