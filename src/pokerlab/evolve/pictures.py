"""Pictures of a genetic push/fold search (SPEC 5.5); the files of a finished run are written by
:mod:`pokerlab.evolve.run_files`.

* simple players: the population in the (r, c) plane, a strip of generations (PNG) and an
  animation (GIF), with the CFR equilibrium's shove / call shares marked (and, in adaptive mode,
  the exact best response's);
* table players: 13x13 heat maps of the best player's tables and of the population mean (PNG),
  a strip of the population mean over generations (PNG) and an animation (GIF);
* the fitness curve (best and mean performance, and the best player's exact exploitability, per
  generation) and a match's running bb/hand curve.

Every file is written atomically (temporary name, then rename).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.evolve.judgement import EvolutionResult, GenerationRecord
from pokerlab.evolve.players import MAX_STACK_CELL
from pokerlab.io.atomic import atomic_write_bytes
from pokerlab.plots.common import plt, save_png
from pokerlab.plots.grids import grids_figure, label_hand_axes, share_label, to_grid

__all__ = [
    "pick_generations",
    "plot_simple_strip",
    "animate_simple",
    "tables_figure",
    "plot_tables",
    "table_strip_figure",
    "plot_table_strip",
    "animate_tables",
    "plot_fitness_curve",
]


def pick_generations(count: int, frames: int) -> list[int]:
    """Up to ``frames`` generation indices spread evenly over ``count``, first and last included."""
    if count <= frames:
        return list(range(count))
    return sorted({int(round(x)) for x in np.linspace(0, count - 1, frames)})


def _save_gif(anim: Any, path: str | os.PathLike[str], fps: int) -> None:
    from matplotlib.animation import PillowWriter

    # Pillow writes to a path: render in a private scratch folder, then hand the bytes to the one
    # atomic writer (fsync, rename, mode 0644) like every other file of the run.
    with tempfile.TemporaryDirectory() as scratch:
        rendered = Path(scratch) / "animation.gif"
        anim.save(rendered, writer=PillowWriter(fps=fps))
        atomic_write_bytes(path, rendered.read_bytes())


def _scatter(
    ax: Any,
    record: GenerationRecord,
    marks: dict[str, tuple[float, float]],
) -> None:
    g = record.genes
    ax.scatter(g[:, 0], g[:, 1], s=14, alpha=0.6, color="tab:blue", label="players")
    best = record.best_genes
    ax.scatter([best[0]], [best[1]], s=60, marker="*", color="tab:red", label="best")
    for (label, (r, c)), color in zip(marks.items(), ("black", "tab:green"), strict=False):
        ax.scatter([r], [c], s=70, marker="x", color=color, label=label)
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_title(f"generation {record.generation}", fontsize=9)


def plot_simple_strip(
    history: list[GenerationRecord],
    path: str | os.PathLike[str],
    marks: dict[str, tuple[float, float]] | None = None,
    frames: int = 6,
) -> None:
    """Scatter of simple players in the (r, c) plane for a strip of generations (PNG)."""
    picks = pick_generations(len(history), frames)
    fig, axes = plt.subplots(1, len(picks), figsize=(3.0 * len(picks), 3.3), squeeze=False)
    for ax, k in zip(axes[0], picks, strict=True):
        _scatter(ax, history[k], marks or {})
        ax.set_xlabel("r (shove share)")
    axes[0][0].set_ylabel("c (call share)")
    axes[0][-1].legend(fontsize=6, loc="upper right")
    save_png(fig, path)


def animate_simple(
    history: list[GenerationRecord],
    path: str | os.PathLike[str],
    marks: dict[str, tuple[float, float]] | None = None,
    frames: int = 40,
    fps: int = 4,
) -> None:
    """Animated GIF of the simple population in the (r, c) plane over the generations."""
    from matplotlib.animation import FuncAnimation

    picks = pick_generations(len(history), frames)
    fig, ax = plt.subplots(figsize=(4.2, 4.2))

    def draw(i: int) -> list[Any]:
        ax.clear()
        _scatter(ax, history[picks[i]], marks or {})
        ax.set_xlabel("r (shove share)")
        ax.set_ylabel("c (call share)")
        ax.legend(fontsize=6, loc="upper right")
        return []

    anim = FuncAnimation(fig, draw, frames=len(picks), blit=False)
    _save_gif(anim, path, fps)
    plt.close(fig)


def _table_scale(players: str) -> tuple[float, Any]:
    return (float(MAX_STACK_CELL), "{:.1f}") if players == "variable" else (1.0, share_label)


def _table_meaning(players: str) -> str:
    if players == "variable":
        return "largest stack played (bb)"
    return "share playing the hand (best player: 0 or 1)"


def tables_figure(result: EvolutionResult) -> Any:
    """Heat maps of the best player's shove / call tables and of the population mean (figure).

    Complex players: share of 0/1 cells (a hand shoves / calls); variable players: the largest
    stack (bb) at which a hand shoves / calls. Text colour per cell follows its luminance.
    """
    players = result.config.players
    vmax, fmt = _table_scale(players)
    last = result.history[-1].genes.astype(np.float64)
    best = result.best_genes.astype(np.float64)
    unit = " (bb)" if players == "variable" else ""
    return grids_figure(
        [
            (f"best: shove{unit}", best[0]),
            (f"best: call{unit}", best[1]),
            (f"population mean: shove{unit}", last[:, 0].mean(axis=0)),
            (f"population mean: call{unit}", last[:, 1].mean(axis=0)),
        ],
        suptitle=f"{players} players, generation {result.generations - 1}",
        cmap="viridis" if players == "variable" else "RdYlGn",
        vmax=vmax,
        fmt=fmt,
        colorbar_label=_table_meaning(players),
    )


def plot_tables(result: EvolutionResult, path: str | os.PathLike[str]) -> None:
    """Write :func:`tables_figure` as a PNG (atomically)."""
    save_png(tables_figure(result), path)


def _mean_grids(record: GenerationRecord) -> tuple[np.ndarray, np.ndarray]:
    g = record.genes.astype(np.float64)
    return to_grid(g[:, 0].mean(axis=0)), to_grid(g[:, 1].mean(axis=0))


def table_strip_figure(
    history: list[GenerationRecord],
    players: str,
    frames: int = 6,
) -> Any:
    """Population-mean shove (top) and call (bottom) tables over a strip of generations (figure).

    Every panel carries the ranks A..2 on both axes (pairs on the diagonal, suited above it) and
    one colour bar says what the colours mean.
    """
    vmax, _ = _table_scale(players)
    picks = pick_generations(len(history), frames)
    fig, axes = plt.subplots(
        2, len(picks), figsize=(2.5 * len(picks) + 1.0, 5.4), squeeze=False, layout="constrained"
    )
    image = None
    for col, k in enumerate(picks):
        shove, call = _mean_grids(history[k])
        for row, grid in enumerate((shove, call)):
            ax = axes[row][col]
            image = ax.imshow(grid, cmap="viridis", vmin=0, vmax=vmax)
            label_hand_axes(ax, fontsize=5.5)
            if row == 0:
                ax.set_title(f"generation {history[k].generation}", fontsize=8)
    axes[0][0].set_ylabel("shove (population mean)", fontsize=8)
    axes[1][0].set_ylabel("call (population mean)", fontsize=8)
    bar = fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, aspect=30)
    bar.set_label(_table_meaning(players).replace(" (best player: 0 or 1)", ""), fontsize=8)
    fig.suptitle(
        f"{players} players: population over generations (suited above the diagonal)", fontsize=9
    )
    return fig


def plot_table_strip(
    history: list[GenerationRecord],
    path: str | os.PathLike[str],
    players: str,
    frames: int = 6,
) -> None:
    """Write :func:`table_strip_figure` as a PNG (atomically)."""
    save_png(table_strip_figure(history, players, frames), path)


def animate_tables(
    history: list[GenerationRecord],
    path: str | os.PathLike[str],
    players: str,
    frames: int = 40,
    fps: int = 4,
) -> None:
    """Animated GIF of the population-mean shove and call tables over the generations."""
    from matplotlib.animation import FuncAnimation

    vmax, _ = _table_scale(players)
    picks = pick_generations(len(history), frames)
    fig, (left, right) = plt.subplots(1, 2, figsize=(6.4, 3.4))
    images = []
    for ax, title in ((left, "shove (population mean)"), (right, "call (population mean)")):
        images.append(ax.imshow(np.zeros((13, 13)), cmap="viridis", vmin=0, vmax=vmax))
        label_hand_axes(ax, fontsize=5.5)
        ax.set_title(title, fontsize=8)
    fig.colorbar(images[0], ax=[left, right], shrink=0.8).set_label(
        _table_meaning(players).replace(" (best player: 0 or 1)", ""), fontsize=7
    )
    label = fig.suptitle("")

    def draw(i: int) -> list[Any]:
        shove, call = _mean_grids(history[picks[i]])
        images[0].set_data(shove)
        images[1].set_data(call)
        label.set_text(f"generation {history[picks[i]].generation}")
        return [*images, label]

    anim = FuncAnimation(fig, draw, frames=len(picks), blit=False)
    _save_gif(anim, path, fps)
    plt.close(fig)


def plot_fitness_curve(
    history: list[GenerationRecord],
    path: str | os.PathLike[str],
    title: str = "",
) -> None:
    """Best and mean performance per generation (bb/hand) and the best player's exact
    exploitability (bb/hand, log scale)."""
    gens = [r.generation for r in history]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    top.plot(gens, [r.best_performance_bb for r in history], label="best performance")
    top.plot(gens, [r.mean_performance_bb for r in history], label="mean performance")
    top.axhline(0.0, color="black", lw=0.5)
    top.set_ylabel("bb/hand")
    top.legend(fontsize=8)
    top.set_title(title)
    bottom.plot(gens, [max(r.best_exploitability_bb, 1e-9) for r in history], color="tab:red")
    bottom.set_yscale("log")
    bottom.set_ylabel("best player's exploitability (bb/hand)")
    bottom.set_xlabel("generation")
    save_png(fig, path)


