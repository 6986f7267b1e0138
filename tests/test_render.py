"""Terminal hand grids read without colour and never wrap raggedly (issue 12, item 8)."""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from rich.console import Console

from pokerlab.analysis.pushfold import class_frequencies
from pokerlab.cards.deck import N_CLASSES, class_name, parse_class
from pokerlab.cli.main import main
from pokerlab.cli.render import evolved_table_grids, hand_grid, stack_chart_grid
from pokerlab.solvers.pushfold import solve_pushfold


def _render(renderable: object, width: int) -> str:
    """Render as piped output (no terminal, so no colour) at ``width`` columns."""
    buf = io.StringIO()
    Console(file=buf, width=width, force_terminal=False, color_system=None).print(renderable)
    return buf.getvalue()


def _grid_rows(text: str) -> list[str]:
    """The grid's row lines: 13 cells (names or figures), or 13 name-figure pairs."""
    return [line for line in text.splitlines() if len(line.split()) in (13, 26)]


def test_frequency_grid_shows_every_kind_of_cell_as_text() -> None:
    freq = np.zeros(N_CLASSES)
    freq[parse_class("AA")] = 1.0
    freq[parse_class("KK")] = 0.9999  # within the threshold: pure
    freq[parse_class("72o")] = 0.3
    freq[parse_class("84s")] = 0.995  # mixed: must not read as 100%
    freq[parse_class("Q6o")] = 0.001 + 1e-6  # mixed, tiny: must not read as 0
    text = _render(hand_grid(freq, "small blind shoves"), 80)
    assert "\x1b" not in text
    rows = _grid_rows(text)
    assert len(rows) == 13 and all(len(line) <= 80 for line in text.splitlines())
    cells = [cell for row in rows for cell in row.split()]
    assert len(cells) == 169
    assert cells[parse_class("AA")] == "AA" and cells[parse_class("KK")] == "KK"
    assert cells[parse_class("72o")] == "30%"
    assert cells[parse_class("84s")] == "99%"
    assert cells[parse_class("Q6o")] == "1%"
    assert cells.count("·") == 164
    assert "N% = mixed" in text  # the legend says what the figures mean


def test_stack_chart_grid_fits_80_and_120_columns_without_ragged_rows() -> None:
    top = 25.0
    values = np.round(np.linspace(0.0, top, N_CLASSES) * 2) / 2  # a sweep with step 0.5
    values[:10] = top
    values[10] = 24.5
    values[11] = 1.0 / 7.0  # shown rounded to 0.01
    values[12] = 12.5
    values[-1] = 0.0
    grid = stack_chart_grid(values, "small blind: shove up to (bb)", top)
    for width, lines_per_row in ((80, 2), (120, 1)):
        text = _render(grid, width)
        assert "\x1b" not in text
        assert max(len(line) for line in text.splitlines()) <= width
        rows = _grid_rows(text)
        assert len(rows) == 13 * lines_per_row
        # one cell width throughout: every row line is as long as every other
        assert len({len(line) for line in rows}) == 1
        if lines_per_row == 2:  # name line above figure line
            names = " ".join(rows[0::2]).split()
            figures = " ".join(rows[1::2]).split()
        else:  # name and figure side by side
            tokens = " ".join(rows).split()
            names, figures = tokens[0::2], tokens[1::2]
        assert names == [class_name(c) for c in range(N_CLASSES)]
        assert len(figures) == 169
        assert figures[0] == "25+" and figures[10] == "24.5" and figures[-1] == "-"
        assert figures[11] == "0.14" and figures[12] == "12.5"
        expected = ["-" if v <= 0 else "25+" if v >= top else f"{round(v, 2):g}" for v in values]
        assert figures == expected
        assert len(set(figures)) == 49  # cells differ: 49 distinct stacks in this chart
        if lines_per_row == 1:  # the name and its figure side by side
            assert re.search(r"\bAA 25\+", text) and re.search(r"\b22 -", text)


def test_stack_chart_grid_with_long_figures_stacks_its_cells_at_120_columns() -> None:
    values = np.round(np.linspace(0.0, 25.0, N_CLASSES) * 4) / 4  # "10.25": too wide for one line
    text = _render(stack_chart_grid(values, "big blind: call up to (bb)", 25.0), 120)
    assert max(len(line) for line in text.splitlines()) <= 120
    rows = _grid_rows(text)
    assert len(rows) == 26 and "10.25" in " ".join(rows[1::2]).split()


def test_piped_pushfold_grid_carries_per_cell_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pushfold", "--stack", "10"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    shove = _grid_rows(out)[:13]
    cells = [cell for row in shove for cell in row.split()]
    assert len(cells) == 169
    # at 10 bb the small blind shoves AA, folds 72o and mixes 43s (about 70%)
    assert cells[parse_class("AA")] == "AA"
    assert cells[parse_class("72o")] == "·"
    assert cells[parse_class("43s")] == "70%"
    folded = class_frequencies(solve_pushfold(10.0).sb_shove[0]) <= 1e-3
    assert cells.count("·") == int(folded.sum()) == 55


def test_piped_sweep_grids_fit_the_default_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pushfold", "--sweep", "2:6:2"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    assert max(len(line) for line in out.splitlines()) <= 80
    rows = _grid_rows(out)
    assert len(rows) == 2 * 26  # two charts, name line and figure line per row
    figures = " ".join(rows[1::2]).split()
    assert figures[0] == "6+"  # AA shoves at the top of the sweep
    assert {"6+", "4", "2", "-"} <= set(figures)


def test_piped_range_grid_shows_weights(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range", "QQ+, AKs:0.5, AhKd"]) == 0
    out = capsys.readouterr().out
    cells = [cell for row in _grid_rows(out) for cell in row.split()]
    assert len(cells) == 169
    assert cells[parse_class("AA")] == "AA" and cells[parse_class("QQ")] == "QQ"
    assert cells[parse_class("AKs")] == "50%"
    assert cells[parse_class("AKo")] == "8%"  # 1 of 12 combos
    assert cells.count("·") == 164  # AA KK QQ AKs AKo shown


def test_evolved_table_grids_show_each_table_cell() -> None:
    genes = np.zeros((2, N_CLASSES))
    genes[0, parse_class("AA")] = 10
    genes[0, parse_class("72o")] = 3
    genes[1, parse_class("KK")] = 10
    shove, call = evolved_table_grids("variable", genes, 10.0)
    text = _render(shove, 80)
    figures = " ".join(_grid_rows(text)[1::2]).split()
    assert figures[parse_class("AA")] == "10"  # the largest stack of the game: no '+'
    assert figures[parse_class("72o")] == "3" and figures.count("-") == 167
    tables = (genes > 0).astype(np.uint8)
    shove, call = evolved_table_grids("complex", tables, 10.0)
    cells = [c for row in _grid_rows(_render(call, 80)) for c in row.split()]
    assert cells[parse_class("KK")] == "KK" and cells.count("·") == 168
    assert evolved_table_grids("simple", np.array([0.5, 0.4]), 10.0) == []


def test_piped_evolve_prints_the_best_players_tables(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["evolve", "--players", "complex", "-p", "6", "--patience", "2", "--generations", "200"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "13x13 tables (below)" in out
    assert "best player: small blind shoves" in out and "best player: big blind calls" in out
    rows = _grid_rows(out)
    assert len(rows) == 26 and max(len(line) for line in out.splitlines()) <= 80
    cells = [c for row in rows for c in row.split()]
    assert cells[parse_class("AA")] == "AA"  # seed 0: the best player shoves aces
    assert set(cells) - {"·"} <= {class_name(c) for c in range(N_CLASSES)}
