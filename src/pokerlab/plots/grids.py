"""13x13 hand grids (pairs on the diagonal, suited above, offsuit below) and push/fold pictures.

Each picture has a ``*_figure`` function that builds and returns the matplotlib figure (so tests
can inspect it) and a ``plot_*`` function that writes it as PNG through the atomic writer.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pokerlab.cards.deck import N_CLASSES, RANKS, class_grid_position, class_name
from pokerlab.plots.common import plt, save_png

__all__ = [
    "to_grid",
    "relative_luminance",
    "text_color_for",
    "label_hand_axes",
    "share_label",
    "grids_figure",
    "plot_grids",
    "chart_figure",
    "plot_chart",
    "match_curve_figure",
    "plot_match_curve",
]


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


def relative_luminance(rgb: Sequence[float]) -> float:
    """Relative luminance in [0, 1] of an sRGB colour given as components in [0, 1].

    WCAG 2.1 definition: each component is linearised (``c / 12.92`` up to 0.04045, else
    ``((c + 0.055) / 1.055) ** 2.4``) and weighted 0.2126 R + 0.7152 G + 0.0722 B.
    """
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb[:3]]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def text_color_for(rgb: Sequence[float]) -> str:
    """``"black"`` or ``"white"``, whichever has the higher WCAG contrast ratio on ``rgb``.

    The contrast ratio of luminances ``L1 >= L2`` is ``(L1 + 0.05) / (L2 + 0.05)`` (WCAG 2.1), so
    black wins when ``(L + 0.05) / 0.05 >= 1.05 / (L + 0.05)``, i.e. for ``L`` above about 0.18.
    """
    lum = relative_luminance(rgb)
    return "black" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "white"


def label_hand_axes(ax: Any, fontsize: float = 6.0, x: bool = True, y: bool = True) -> None:
    """Put the ranks A..2 as the 13 tick labels of a hand-grid axes (columns and rows)."""
    ticks = np.arange(13)
    ax.set_xticks(ticks, list(RANKS[::-1]) if x else [""] * 13, fontsize=fontsize)
    ax.set_yticks(ticks, list(RANKS[::-1]) if y else [""] * 13, fontsize=fontsize)
    ax.tick_params(length=0, pad=1.5)


def share_label(v: float) -> str:
    """A share in [0, 1] as whole percent; a mixed share stays within 1%..99% (never 0 or 100)."""
    if not np.isfinite(v):
        return ""
    if 0.0 < v < 1.0:
        return f"{min(99, max(1, int(round(100 * v))))}%"
    return f"{v:.0%}"


def grids_figure(
    panels: Sequence[tuple[str, np.ndarray]],
    suptitle: str = "",
    cmap: str = "RdYlGn",
    vmax: float = 1.0,
    fmt: str | Callable[[float], str] = share_label,
    colorbar_label: str = "",
    colorbar_format: Callable[[float], str] | None = None,
    colorbar_ticks: Sequence[float] | None = None,
) -> Any:
    """Side-by-side 13x13 heat maps of per-class values, each cell labelled with hand and value.

    Cell text is black or white, whichever contrasts more with the cell colour
    (:func:`text_color_for`); one colour bar, shared by the panels (all on ``0..vmax``), says what
    the colours mean. ``fmt`` is a format string or a function of the value; ``colorbar_format``
    labels the bar's ticks (default ``%g``). Returns the figure.
    """
    from matplotlib.colors import Normalize
    from matplotlib.ticker import FuncFormatter

    names = _names_grid()
    colormap = plt.get_cmap(cmap)
    norm = Normalize(vmin=0.0, vmax=vmax)
    label = fmt.format if isinstance(fmt, str) else fmt
    fig, axes = plt.subplots(
        1, len(panels), figsize=(5.6 * len(panels) + 1.2, 6.0), squeeze=False, layout="constrained"
    )
    image = None
    for ax, (title, values) in zip(axes[0], panels, strict=True):
        grid = to_grid(np.asarray(values, dtype=np.float64))
        image = ax.imshow(grid, cmap=colormap, norm=norm)
        for r in range(13):
            for k in range(13):
                v = grid[r, k]
                color = text_color_for(colormap(norm(v)))
                ax.text(k, r - 0.17, names[r][k], ha="center", va="center", fontsize=7, color=color)
                ax.text(k, r + 0.25, label(v), ha="center", va="center", fontsize=5.5, color=color)
        ax.set_title(title)
        ax.set_xticks([])
        ax.set_yticks([])
    bar = fig.colorbar(image, ax=list(axes[0]), shrink=0.8, pad=0.01, aspect=30)
    if colorbar_ticks is not None:
        bar.set_ticks(list(colorbar_ticks))
    if colorbar_format is not None:
        bar.ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: colorbar_format(v)))
    if colorbar_label:
        bar.set_label(colorbar_label)
    if suptitle:
        fig.suptitle(suptitle)
    return fig


def plot_grids(
    panels: Sequence[tuple[str, np.ndarray]],
    path: str | os.PathLike[str],
    suptitle: str = "",
    cmap: str = "RdYlGn",
    vmax: float = 1.0,
    fmt: str | Callable[[float], str] = share_label,
    colorbar_label: str = "",
) -> None:
    """Write :func:`grids_figure` as a PNG (atomically)."""
    save_png(grids_figure(panels, suptitle, cmap, vmax, fmt, colorbar_label=colorbar_label), path)


def _stack_label(top: float) -> Callable[[float], str]:
    """Stack figure: ``-`` for 0 (never), ``25+`` for the top of a sweep, else ``%g``."""

    def label(v: float) -> str:
        if not v > 0:
            return "-"
        return f"{top:g}+" if v >= top else f"{v:g}"

    return label


def chart_figure(sb_max: np.ndarray, bb_max: np.ndarray, top: float) -> Any:
    """Push/fold chart: the largest stack (bb) of a sweep at which each hand shoves / calls.

    ``top`` is the sweep's largest stack: a hand that still plays there reads ``25+`` (it may
    play at larger stacks too), as does the top of the colour bar; ``-`` is never. Returns the
    figure.
    """
    from matplotlib.ticker import MaxNLocator

    ticks = [t for t in MaxNLocator(nbins=5).tick_values(0.0, top) if 0 <= t < top * 0.9]
    return grids_figure(
        [("small blind: shove up to (bb)", sb_max), ("big blind: call up to (bb)", bb_max)],
        suptitle="Heads-up push/fold Nash chart",
        cmap="viridis",
        vmax=top,
        fmt=_stack_label(top),
        colorbar_label="largest stack played (bb)",
        colorbar_format=lambda v: f"{v:g}+" if v >= top else f"{v:g}",
        colorbar_ticks=[*ticks, top],
    )


def plot_chart(
    sb_max: np.ndarray, bb_max: np.ndarray, path: str | os.PathLike[str], top: float
) -> None:
    """Write :func:`chart_figure` as a PNG (atomically)."""
    save_png(chart_figure(sb_max, bb_max, top), path)


def _match_ylim(curves: Sequence[np.ndarray]) -> tuple[float, float, float, float]:
    """(low, high, centre, per-hand sd) of the y-axis for running-mean curves.

    The scale is set by the second half of each curve (the first hands swing by several bb and
    would flatten the rest) and by the 95% band around the mean final value at the middle hand,
    with a 12% margin, so every final value lies well inside.
    """
    finals = np.array([c[-1] for c in curves if len(c)])
    centre = float(finals.mean()) if len(finals) else 0.0
    nets = [np.diff(c * np.arange(1, len(c) + 1), prepend=0.0) for c in curves if len(c) > 1]
    sd = float(np.std(np.concatenate(nets))) if nets else 0.0
    tails = [c[len(c) // 2 :] for c in curves if len(c)]
    lo = min([float(t.min()) for t in tails] + [centre])
    hi = max([float(t.max()) for t in tails] + [centre])
    longest = max((len(c) for c in curves), default=1)
    half_band = 1.96 * sd / np.sqrt(max(1, longest // 2))
    lo, hi = min(lo, centre - half_band), max(hi, centre + half_band)
    span = hi - lo
    if not span > 0:
        span = max(abs(centre), 1e-3)
    return lo - 0.12 * span, hi + 0.12 * span, centre, sd


def match_curve_figure(curves: Sequence[np.ndarray], title: str = "") -> Any:
    """Running bb/hand of player A over the hands of each match; returns the figure.

    Hands on a log axis; the y-axis fits the second half of the curves and the final values (see
    :func:`_match_ylim`), the first hands may run off it. A grey funnel is the 95% band
    ``mean final +- 1.96 sd / sqrt(hands)`` (sd of one hand's result, pooled over the matches).
    """
    curves = [np.asarray(c, dtype=np.float64) for c in curves]
    fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
    lo, hi, centre, sd = _match_ylim(curves)
    longest = max((len(c) for c in curves), default=1)
    hands = np.arange(1, longest + 1)
    if sd > 0:
        band = 1.96 * sd / np.sqrt(hands)
        ax.fill_between(
            hands, centre - band, centre + band, color="0.9", lw=0, label="95% band, final mean"
        )
    for k, curve in enumerate(curves):
        ax.plot(np.arange(1, len(curve) + 1), curve, lw=1, label=f"match {k + 1}")
    ax.axhline(0.0, color="black", lw=0.6)
    ax.set_xscale("log")
    ax.set_xlim(1, max(2, longest))
    ax.set_ylim(lo, hi)
    ax.set_xlabel("hands")
    ax.set_ylabel("player A, bb/hand (running mean)")
    ax.set_title(title + (f"\nfinal mean {centre:+.4f} bb/hand" if curves else ""))
    if len(curves) <= 10:
        ax.legend(fontsize=7)
    return fig


def plot_match_curve(
    curves: Sequence[np.ndarray], path: str | os.PathLike[str], title: str = ""
) -> None:
    """Write :func:`match_curve_figure` as a PNG (atomically)."""
    save_png(match_curve_figure(curves, title), path)
