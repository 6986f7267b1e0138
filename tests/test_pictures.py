"""Pictures read well: cell text contrasts with its cell, charts have colour bars, the match curve
is scaled to its final value, population strips carry hand labels (issue 12, item 9)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from pokerlab.cards.deck import N_CLASSES, parse_class
from pokerlab.evolve.pictures import table_strip_figure, tables_figure
from pokerlab.plots.common import plt
from pokerlab.plots.grids import (
    chart_figure,
    grids_figure,
    match_curve_figure,
    relative_luminance,
    share_label,
    text_color_for,
)


def _contrast(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """WCAG 2.1 contrast ratio of two colours (1 to 21)."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _cell_text_contrasts(fig: object) -> list[float]:
    """Contrast of every cell label against the colour drawn under it, read from the figure."""
    from matplotlib.colors import to_rgba

    out = []
    for ax in fig.axes:  # type: ignore[attr-defined]
        if not ax.images or not ax.texts:
            continue
        image = ax.images[0]
        rgba = image.to_rgba(image.get_array(), norm=True)
        for text in ax.texts:
            x, y = text.get_position()
            cell = tuple(rgba[int(round(y)), int(round(x))][:3])
            out.append(_contrast(to_rgba(text.get_color())[:3], cell))
    return out


def test_relative_luminance_and_text_colour_follow_wcag() -> None:
    assert relative_luminance((1.0, 1.0, 1.0)) == pytest.approx(1.0)
    assert relative_luminance((0.0, 0.0, 0.0)) == 0.0
    assert relative_luminance((1.0, 0.0, 0.0)) == pytest.approx(0.2126)
    assert relative_luminance((0.5, 0.5, 0.5)) == pytest.approx(0.2140, abs=1e-4)
    viridis = plt.get_cmap("viridis")
    assert text_color_for(viridis(0.0)) == "white"  # dark purple
    assert text_color_for(viridis(1.0)) == "black"  # yellow
    assert text_color_for((0.0, 0.0, 1.0)) == "white"
    assert text_color_for((1.0, 1.0, 0.0)) == "black"


def _variable_result(rng: np.random.Generator) -> SimpleNamespace:
    genes = rng.integers(0, 11, size=(8, 2, N_CLASSES)).astype(np.int8)
    record = SimpleNamespace(genes=genes, generation=0)
    return SimpleNamespace(
        config=SimpleNamespace(players="variable"),
        history=[record],
        best_genes=genes[0],
        generations=1,
    )


def test_variable_tables_text_is_readable_on_every_cell() -> None:
    fig = tables_figure(_variable_result(np.random.default_rng(1)))
    contrasts = _cell_text_contrasts(fig)
    plt.close(fig)
    assert len(contrasts) == 4 * 169 * 2  # four panels, hand and value per cell
    # WCAG AA for text is 4.5; black or white, whichever is better, always reaches it
    assert min(contrasts) >= 4.5


def test_grid_cells_of_every_colour_are_readable() -> None:
    shares = np.linspace(0.0, 1.0, N_CLASSES)
    for cmap in ("RdYlGn", "viridis"):
        fig = grids_figure([("shares", shares)], cmap=cmap)
        contrasts = _cell_text_contrasts(fig)
        plt.close(fig)
        assert len(contrasts) == 169 * 2 and min(contrasts) >= 4.5


def test_share_label_never_rounds_a_mixed_share_to_pure() -> None:
    assert [share_label(v) for v in (0.0, 0.001, 0.3, 0.995, 1.0)] == [
        "0%",
        "1%",
        "30%",
        "99%",
        "100%",
    ]


def test_chart_has_a_colour_bar_ending_in_top_plus() -> None:
    top = 25.0
    sb = np.full(N_CLASSES, 3.5)
    sb[parse_class("AA")] = top
    sb[parse_class("72o")] = 0.0
    bb = np.full(N_CLASSES, 12.5)
    fig = chart_figure(sb, bb, top)
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 2
    bars = [ax.images[0].colorbar for ax in panels if ax.images[0].colorbar is not None]
    assert len(bars) == 1  # one bar shared by both panels
    bar = bars[0]
    assert bar.ax in fig.axes
    assert bar.ax.get_ylabel() == "largest stack played (bb)"
    ticks = [t.get_text() for t in bar.ax.get_yticklabels() if t.get_text()]
    assert ticks[-1] == "25+" and "0" in ticks
    cell_text = {t.get_text() for t in panels[0].texts}
    assert {"25+", "3.5", "-"} <= cell_text and "25" not in cell_text
    assert "12.5" in {t.get_text() for t in panels[1].texts}
    plt.close(fig)


def _running_mean(net: np.ndarray) -> np.ndarray:
    return np.cumsum(net) / np.arange(1, len(net) + 1)


def test_match_curve_y_axis_fits_the_final_value_not_the_first_hands() -> None:
    rng = np.random.default_rng(7)
    net = rng.normal(0.05, 1.0, 20_000)
    net[:3] = -10.0  # the first hands swing the running mean to -10 bb/hand
    curve = _running_mean(net)
    fig = match_curve_figure([curve], "test")
    lo, hi = fig.axes[0].get_ylim()
    plt.close(fig)
    span = hi - lo
    final = curve[-1]
    assert lo + 0.1 * span < final < hi - 0.1 * span
    assert curve.min() < lo  # the start runs off the axis instead of setting its scale
    assert span < 0.5
    # the final rate stands clear of zero on this scale: at least 1/10 of the axis away
    assert abs(final) > 0.1 * span


def test_match_curve_of_several_lengths_and_one_hand() -> None:
    rng = np.random.default_rng(3)
    curves = [_running_mean(rng.normal(0.1, 2.0, n)) for n in (5_000, 800, 1)]
    fig = match_curve_figure(curves)
    lo, hi = fig.axes[0].get_ylim()
    plt.close(fig)
    assert np.isfinite(lo) and np.isfinite(hi) and lo < hi
    for curve in curves[:2]:
        assert lo < curve[-1] < hi


@pytest.mark.parametrize("players", ["complex", "variable"])
def test_population_strip_has_hand_labels_on_every_panel(players: str) -> None:
    rng = np.random.default_rng(5)
    high = 2 if players == "complex" else 11
    history = [
        SimpleNamespace(
            genes=rng.integers(0, high, size=(6, 2, N_CLASSES)).astype(np.int8), generation=g
        )
        for g in range(10)
    ]
    fig = table_strip_figure(history, players, frames=4)
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 8
    ranks = list("AKQJT98765432")
    for ax in panels:
        assert [t.get_text() for t in ax.get_xticklabels()] == ranks
        assert [t.get_text() for t in ax.get_yticklabels()] == ranks
    assert sum(ax.images[0].colorbar is not None for ax in panels) == 1  # one shared bar
    plt.close(fig)
