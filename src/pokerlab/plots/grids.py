"""13x13 hand grids (pairs on the diagonal, suited above, offsuit below) and push/fold pictures."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from pokerlab.cards.deck import N_CLASSES, class_grid_position, class_name
from pokerlab.plots.common import plt, save_png

__all__ = ["to_grid", "plot_grids", "plot_match_curve", "plot_chart"]


def to_grid(per_class: np.ndarray) -> np.ndarray:
    """(13, 13) array from 169 per-class values, rows/columns ordered A..2."""
    grid = np.full((13, 13), np.nan)
    for c in range(N_CLASSES):
        r, k = class_grid_position(c)
        grid[r, k] = per_class[c]
    return grid


def _names_grid() -> list[list[str]]:
    names = [["" for _ in range(13)] for _ in range(13)]
    for c in range(N_CLASSES):
        r, k = class_grid_position(c)
        names[r][k] = class_name(c)
    return names


def plot_grids(
    panels: Sequence[tuple[str, np.ndarray]],
    path: str | os.PathLike[str],
    suptitle: str = "",
    cmap: str = "RdYlGn",
    vmax: float = 1.0,
    fmt: str = "{:.0%}",
) -> None:
    """Side-by-side 13x13 heat maps of per-class values, each cell labelled with the hand."""
    names = _names_grid()
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 6.4), squeeze=False)
    for ax, (title, values) in zip(axes[0], panels, strict=True):
        grid = to_grid(np.asarray(values, dtype=np.float64))
        ax.imshow(grid, cmap=cmap, vmin=0.0, vmax=vmax)
        for r in range(13):
            for k in range(13):
                v = grid[r, k]
                ax.text(k, r - 0.15, names[r][k], ha="center", va="center", fontsize=7)
                ax.text(k, r + 0.25, fmt.format(v), ha="center", va="center", fontsize=5.5)
        ax.set_title(title)
        ax.set_xticks([])
        ax.set_yticks([])
    if suptitle:
        fig.suptitle(suptitle)
    save_png(fig, path)


def plot_chart(
    sb_max: np.ndarray, bb_max: np.ndarray, path: str | os.PathLike[str], top: float
) -> None:
    """Push/fold chart: the largest stack (bb) at which each hand shoves / calls."""
    plot_grids(
        [("small blind: shove up to (bb)", sb_max), ("big blind: call up to (bb)", bb_max)],
        path,
        suptitle="Heads-up push/fold Nash chart",
        cmap="viridis",
        vmax=top,
        fmt="{:g}",
    )


def plot_match_curve(
    curves: Sequence[np.ndarray], path: str | os.PathLike[str], title: str = ""
) -> None:
    """Running bb/hand of player A over the hands of each match."""
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k, curve in enumerate(curves):
        ax.plot(np.arange(1, len(curve) + 1), curve, lw=1, label=f"match {k + 1}")
    ax.axhline(0.0, color="black", lw=0.6)
    ax.set_xscale("log")
    ax.set_xlabel("hands")
    ax.set_ylabel("player A, bb/hand (running mean)")
    ax.set_title(title)
    if len(curves) <= 10:
        ax.legend(fontsize=7)
    save_png(fig, path)
