"""The 13x13 strategy picture of a solved postflop node (``pokerlab postflop show --png``).

Each cell is a hand class (pairs on the diagonal, suited above, offsuit below). Its filled height
is the share of the class's combos (those the board does not block) in the acting player's range at
the node, as if the dealt cards had been chosen; the fill is split
left to right into the colours of the actions in proportion to their frequencies
(:mod:`pokerlab.plots.actions`). Labels are the hand and its most played action with its share;
a legend names every action with its colour and its range-weighted frequency.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS, COMBO_CLASS, N_CLASSES, class_grid_position, class_name
from pokerlab.plots.actions import action_styles
from pokerlab.plots.common import plt, save_png

__all__ = ["node_grid_figure", "plot_node_grid"]

#: Background of an in-range cell above its filled part, and of a class not in the range.
_EMPTY = "#e4e4e4"
_OUT = "#fafafa"


def _figure_text(mix: np.ndarray, codes: list[str]) -> str:
    a = int(np.argmax(mix))
    share = float(mix[a])
    if share >= 0.995:
        return codes[a]
    pct = min(99, max(1, int(round(100 * share))))
    return f"{codes[a]}:{pct}" if codes[a].isdigit() else f"{codes[a]}{pct}"


def _available_combos(board: Any) -> np.ndarray:
    """Per hand class, its combos that the board does not block (a cell's full height)."""
    dead = np.zeros(52, dtype=bool)
    dead[np.asarray(list(board), dtype=np.int64)] = True
    blocked = dead[COMBO_CARDS].any(axis=1)
    return np.bincount(COMBO_CLASS[~blocked], minlength=N_CLASSES).astype(np.float64)


def node_grid_figure(view: Any, title: str = "") -> Any:
    """The figure of a decision node's 13x13 strategy grid; returns the matplotlib figure.

    ``view`` is a :class:`~pokerlab.analysis.postflop.NodeView` of a decision node (its
    ``grid()``, ``actions`` and ``action_totals()`` are drawn).
    """
    from matplotlib.patches import Patch, Rectangle

    grid = view.grid()  # combos, as if the dealt cards had been chosen
    weight = grid["weight"].reshape(169)
    available = _available_combos(view.board)
    mix = grid["mix"].reshape(169, -1)
    styles = action_styles(view.actions)
    codes = [s.code for s in styles]
    totals = view.action_totals()
    fig, ax = plt.subplots(figsize=(9.0, 10.0), layout="constrained")
    for c in range(N_CLASSES):
        r, k = class_grid_position(c)
        x0, y0 = k - 0.5, r + 0.5  # the y axis points down: a cell's bottom edge is r + 0.5
        share = min(1.0, float(weight[c]) / available[c]) if available[c] > 0 else 0.0
        in_range = share > 0 and mix[c].sum() > 0
        background = _EMPTY if in_range else _OUT
        ax.add_patch(Rectangle((x0, r - 0.5), 1.0, 1.0, facecolor=background, edgecolor="none"))
        centre_style = None
        if in_range:
            left = x0
            for a, style in enumerate(styles):
                width = float(mix[c, a]) / float(mix[c].sum())
                if left <= k < left + width:
                    centre_style = style  # the colour behind the labels' centre
                if width > 0:
                    ax.add_patch(
                        Rectangle(
                            (left, y0 - share),
                            width,
                            share,
                            facecolor=style.colour,
                            edgecolor="none",
                        )
                    )
                    left += width
            figure = _figure_text(mix[c], codes)
        else:
            figure = "·"
        ax.add_patch(Rectangle((x0, r - 0.5), 1.0, 1.0, fill=False, edgecolor="white", lw=1.0))
        for y, text, size in ((r - 0.16, class_name(c), 8.5), (r + 0.24, figure, 7.5)):
            on_fill = centre_style is not None and y >= y0 - share  # inside the filled part
            ink = centre_style.text if on_fill else ("black" if in_range else "#9a9a9a")
            weight_ = "bold" if in_range and size > 8 else "normal"
            ax.text(
                k, y, text, ha="center", va="center", fontsize=size, fontweight=weight_, color=ink
            )
    ax.set_xlim(-0.5, 12.5)
    ax.set_ylim(12.5, -0.5)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)
    handles = [
        Patch(
            facecolor=s.colour,
            edgecolor="none",
            label=f"{s.code}  {s.label}: {100 * totals.get(s.label, 0.0):.1f}%",
        )
        for s in styles
    ]
    handles.append(Patch(facecolor=_OUT, edgecolor="#9a9a9a", label="not in range"))
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.01),
        ncol=min(len(handles), 3),
        fontsize=9,
        frameon=False,
        title="action: share of the range (cell height: share of the hand's combos in the "
        "range; label: most played action and its %)",
        title_fontsize=8,
    )
    if title:
        ax.set_title(title, fontsize=11)
    return fig


def plot_node_grid(view: Any, path: str | os.PathLike[str], title: str = "") -> None:
    """Write :func:`node_grid_figure` as a PNG (atomically)."""
    save_png(node_grid_figure(view, title), path)
