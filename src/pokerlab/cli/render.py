"""Terminal rendering helpers shared by CLI commands (rich tables, JSON output)."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from pokerlab.strategy import Strategy

__all__ = [
    "HandGrid",
    "console",
    "hand_grid",
    "print_json",
    "evolved_table_grids",
    "stack_chart_grid",
    "strategy_table",
]

console = Console()


def _clean(value: Any) -> Any:
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def print_json(obj: dict[str, Any]) -> None:
    """Print one JSON object on stdout (NaN and infinities become null)."""
    sys.stdout.write(json.dumps(_clean(obj), indent=2) + "\n")
    sys.stdout.flush()


def strategy_table(
    strategy: Strategy, contains: str | None = None, max_rows: int = 0, title: str | None = None
) -> tuple[Table, int]:
    """A table of information sets and action probabilities; returns (table, rows left out)."""
    table = Table(title=title, show_lines=False, header_style="bold")
    table.add_column("information set", style="cyan")
    table.add_column("player", justify="right")
    table.add_column("actions")
    idx = strategy.compiled.index
    shown = 0
    left_out = 0
    for k, key in enumerate(idx.keys):
        if contains and contains not in key:
            continue
        if max_rows and shown >= max_rows:
            left_out += 1
            continue
        probs = strategy.probs[idx.positions(k)]
        cells = "  ".join(
            f"{label}={p:6.1%}" for label, p in zip(idx.labels[k], probs, strict=True)
        )
        table.add_row(key, str(int(idx.player[k])), cells)
        shown += 1
    return table, left_out


# Background colours of the stack-chart cells, from few big blinds to the top of the sweep: five
# steps of matplotlib's viridis map, with the text colour that keeps each step readable.
_CHART_STEPS = (
    ("#440154", "white"),
    ("#3b528b", "white"),
    ("#21918c", "white"),
    ("#5ec962", "black"),
    ("#fde725", "black"),
)


class HandGrid:
    """A 13x13 hand grid as a rich renderable that reads with and without colour.

    Every cell carries text of its own (a hand name, a figure or ``·``), so the grid reads the same
    when piped, under ``NO_COLOR`` or on a terminal without colour; a cell style adds colour on
    top. All cells of a grid have one width and rows are never wrapped. A ``stacked`` grid shows
    both the name and the figure of every cell: on one line (``"A4o 25+ "``) when the console is
    wide enough for 13 such cells, else on two lines (name above figure), chosen at render time
    from the console width. A plain grid shows the figure, or the name where the figure is empty.

    Parameters: ``title``; ``cells[row][col]``, a tuple ``(name, figure, style)`` with a rich
    style string (may be empty); ``legend``, one line printed under the grid saying what the
    figures mean; ``stacked`` as above.
    """

    def __init__(
        self,
        title: str,
        cells: list[list[tuple[str, str, str]]],
        legend: str = "",
        stacked: bool = False,
    ) -> None:
        self.title = title
        self.cells = cells
        self.legend = legend
        self.stacked = stacked

    def lines(self, width: int) -> list[tuple[str, list[tuple[str, str]]]]:
        """The grid's lines for a console ``width`` columns wide.

        Returns ``[(kind, [(text, style), ...]), ...]``: ``kind`` is ``"title"``, ``"row"`` or
        ``"legend"``; a row line is 13 cells of one width separated by one space.
        """
        flat = [cell for row in self.cells for cell in row]
        name_w = max(len(name) for name, _, _ in flat)
        fig_w = max((len(fig) for _, fig, _ in flat), default=0)
        out: list[tuple[str, list[tuple[str, str]]]] = []
        if self.title:
            out.append(("title", [(self.title, "bold")]))
        one_line_w = name_w + 1 + fig_w
        if self.stacked and 13 * one_line_w + 12 <= width:
            for row in self.cells:
                out.append(("row", [(f"{n:>{name_w}} {f:<{fig_w}}", st) for n, f, st in row]))
        elif self.stacked:
            w = max(name_w, fig_w)
            for row in self.cells:
                out.append(("row", [(f"{n:>{w}}", st) for n, _, st in row]))
                out.append(("row", [(f"{f:>{w}}", st) for _, f, st in row]))
        else:
            w = max(name_w, fig_w)
            for row in self.cells:
                out.append(("row", [(f"{(f or n):>{w}}", st) for n, f, st in row]))
        if self.legend:
            out.append(("legend", [(self.legend, "dim")]))
        return out

    def __rich_console__(self, console: Console, options: Any) -> Any:
        from rich.text import Text

        lines = self.lines(options.max_width)
        grid_w = max(
            (sum(len(t) for t, _ in parts) + len(parts) - 1 for k, parts in lines if k == "row"),
            default=0,
        )
        for kind, parts in lines:
            if kind == "row":
                text = Text(no_wrap=True, overflow="crop")
                for j, (cell, style) in enumerate(parts):
                    if j:
                        text.append(" ")
                    text.append(cell, style=style or None)
                yield text
            else:
                line, style = parts[0]
                pad = max(0, (grid_w - len(line)) // 2) if kind == "title" else 0
                yield Text(" " * pad + line, style=style, overflow="fold")


def _percent_figure(f: float) -> str:
    """A share in (0, 1) as whole percent kept strictly inside 1..99, so it never reads as pure."""
    return f"{min(99, max(1, int(round(100 * f))))}%"


def hand_grid(
    per_class: Sequence[float],
    title: str,
    threshold: float = 1e-3,
    legend: str = "name = always, · = never, N% = mixed (share of the hand's combos)",
) -> HandGrid:
    """A 13x13 grid of per-class frequencies in [0, 1] (a strategy's shove / call, a range).

    A cell shows the hand's name when it plays with frequency ``>= 1 - threshold``, ``·`` when
    ``<= threshold``, and the percentage (kept within 1..99) otherwise; on a colour terminal the
    same three kinds are also green, plain and yellow. A NaN frequency (a hand not in a small
    deck) is a blank cell. Pairs are on the diagonal, suited hands above it, offsuit below (rows
    and columns A..2; class id ``13 * row + col``).
    """
    from pokerlab.cards.deck import N_CLASSES, class_grid_position, class_name

    cells: list[list[tuple[str, str, str]]] = [[("", "", "")] * 13 for _ in range(13)]
    for c in range(N_CLASSES):
        r, k = class_grid_position(c)
        f = float(per_class[c])
        name = class_name(c)
        if f != f:  # NaN: not in the deck
            cells[r][k] = (name, " ", "")
        elif f >= 1 - threshold:
            cells[r][k] = (name, "", "bold black on green")
        elif f <= threshold:
            cells[r][k] = (name, "·", "dim")
        else:
            cells[r][k] = (name, _percent_figure(f), "black on yellow")
    return HandGrid(title, cells, legend=legend)


def stack_chart_grid(
    values_bb: Sequence[float], title: str, top_bb: float, open_top: bool = True
) -> HandGrid:
    """A 13x13 grid of per-class stacks (bb), e.g. the largest stack at which a hand shoves.

    Each cell shows the hand and its figure: ``-`` for 0 (never), ``25+`` for a value at the top
    ``top_bb`` of the sweep (it plays there and may at larger stacks), else the stack (``%g``).
    Colour, on a terminal, steps through five shades of viridis from few big blinds to the top.
    ``open_top=False`` is for a fixed largest stack (variable-stack players, 1..10 bb): the top
    value then prints as itself, without ``+``.
    """
    from pokerlab.cards.deck import N_CLASSES, class_grid_position, class_name

    cells: list[list[tuple[str, str, str]]] = [[("", "", "")] * 13 for _ in range(13)]
    for c in range(N_CLASSES):
        r, k = class_grid_position(c)
        v = float(values_bb[c])
        if v <= 0:
            figure, style = "-", "dim"
        else:
            plus = "+" if open_top and v >= top_bb else ""
            figure = f"{round(min(v, top_bb) if plus else v, 2):g}{plus}"
            step = min(len(_CHART_STEPS) - 1, int(len(_CHART_STEPS) * v / top_bb))
            bg, fg = _CHART_STEPS[step]
            style = f"{fg} on {bg}"
        cells[r][k] = (class_name(c), figure, style)
    legend = "figure = largest stack (bb) played, - = never" + (
        f", {top_bb:g}+ = to the top of the sweep" if open_top else ""
    )
    return HandGrid(title, cells, legend=legend, stacked=True)


def evolved_table_grids(players: str, best_genes: Any, max_stack_bb: float) -> list[HandGrid]:
    """Terminal grids of an evolved table player's shove and call tables (SPEC 5.1).

    ``players`` ``"complex"``: ``best_genes`` is ``(2, 169)`` 0/1, shown as :func:`hand_grid`;
    ``"variable"``: the largest stack (bb, up to ``max_stack_bb``) at which each hand shoves /
    calls, shown as :func:`stack_chart_grid`. Other players have no tables: an empty list.
    """
    import numpy as np

    genes = np.asarray(best_genes, dtype=np.float64)
    if players == "complex":
        return [
            hand_grid(
                genes[0], "best player: small blind shoves", legend="name = shoves, · = folds"
            ),
            hand_grid(genes[1], "best player: big blind calls", legend="name = calls, · = folds"),
        ]
    if players == "variable":
        return [
            stack_chart_grid(genes[0], "best player: shove up to (bb)", max_stack_bb, False),
            stack_chart_grid(genes[1], "best player: call up to (bb)", max_stack_bb, False),
        ]
    return []
