"""Terminal rendering of solved postflop nodes: the 13x13 action grid, its legend, range values.

Every cell carries text of its own (the hand, then the code of its most played action and how
often: ``X62`` checks 62% of the time, ``B`` alone always bets), so the grid reads the same when
piped or without colour; on a colour terminal each cell is also filled with the colours of its
action mix, left to right in proportion to the frequencies (:mod:`pokerlab.plots.actions`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pokerlab.cards.deck import class_name
from pokerlab.cli.render import console
from pokerlab.plots.actions import ActionStyle, action_styles

__all__ = [
    "ActionGrid",
    "ONE_LINE_CONSOLE",
    "PURE",
    "action_legend",
    "cell_figure",
    "cell_segments",
    "board_text",
    "grid_json",
    "node_title",
    "print_line",
    "print_line_stderr",
    "print_node_grid",
    "print_spot_summary",
    "range_table",
    "say_compiling",
    "size_text",
    "stderr_is_terminal",
    "summary_table",
]

#: A class plays an action "always" at this frequency or above (its cell shows the code alone).
PURE = 0.995
#: Width of a cell on two lines (name above figure) and on one line (``"AKs X62 "``).
_STACKED_WIDTH = 5
_ONE_LINE_WIDTH = 8
#: The narrowest console that shows cells on one line (13 cells and 12 gaps).
ONE_LINE_CONSOLE = 13 * _ONE_LINE_WIDTH + 12


def cell_figure(mix: Sequence[float], styles: Sequence[ActionStyle]) -> str:
    """The figure of one cell: the code of its most played action, with its share in whole
    percent (1..99) unless it is played always (:data:`PURE`)."""
    a = int(np.argmax(mix))
    share = float(mix[a])
    code = styles[a].code
    if share >= PURE:
        return code
    pct = min(99, max(1, int(round(100 * share))))
    return f"{code}:{pct}" if code.isdigit() else f"{code}{pct}"


def cell_segments(mix: Sequence[float], width: int) -> list[int]:
    """Characters of a ``width``-wide cell given to each action, in proportion to ``mix``
    (largest remainders; the counts add up to ``width``)."""
    freq = np.clip(np.asarray(mix, dtype=np.float64), 0.0, None)
    total = freq.sum()
    if not total > 0:
        return [0] * len(freq)
    exact = freq / total * width
    counts = np.floor(exact).astype(int)
    for i in np.argsort(-(exact - counts), kind="stable")[: width - int(counts.sum())]:
        counts[i] += 1
    return [int(c) for c in counts]


class ActionGrid:
    """The 13x13 grid of a decision node (pairs on the diagonal, suited above, offsuit below).

    ``weight[row, col]`` is the class's reach-weighted combos at the node (0: not in the range,
    shown ``·``), ``mix[row, col, action]`` its action frequencies, ``styles`` the actions'
    codes and colours. Cells are one line (``"AKs X62 "``) on a console at least
    :data:`ONE_LINE_CONSOLE` columns wide, else two (name above figure).
    """

    def __init__(self, weight: np.ndarray, mix: np.ndarray, styles: Sequence[ActionStyle]) -> None:
        self.weight = np.asarray(weight, dtype=np.float64)
        self.mix = np.asarray(mix, dtype=np.float64)
        self.styles = list(styles)

    def _cell(self, row: int, col: int, width: int, texts: list[str]) -> list[Text]:
        """The cell's lines (``texts`` centred in ``width``), each character coloured by the
        action whose segment it falls in."""
        in_range = self.weight[row, col] > 0
        lines = []
        if not in_range:
            for text in texts:
                lines.append(Text(text.center(width), style="dim"))
            return lines
        counts = cell_segments(self.mix[row, col], width)
        char_styles: list[str] = []
        for style, count in zip(self.styles, counts, strict=True):
            char_styles += [f"{style.text} on {style.colour}"] * count
        for text in texts:
            line = Text()
            for ch, style in zip(text.center(width), char_styles, strict=True):
                line.append(ch, style=style)
            lines.append(line)
        return lines

    def rows(self, console_width: int) -> list[Text]:
        """The grid's lines for a console ``console_width`` columns wide."""
        one_line = ONE_LINE_CONSOLE <= console_width
        out = []
        for r in range(13):
            cells = []
            for c in range(13):
                name = class_name(13 * r + c)
                figure = cell_figure(self.mix[r, c], self.styles) if self.weight[r, c] > 0 else "·"
                if one_line:
                    text = f"{name} {figure:<4}"
                    cells.append(self._cell(r, c, _ONE_LINE_WIDTH, [text]))
                else:
                    cells.append(self._cell(r, c, _STACKED_WIDTH, [name, figure]))
            for k in range(len(cells[0])):
                line = Text(no_wrap=True, overflow="crop")
                for c, cell in enumerate(cells):
                    if c:
                        line.append(" ")
                    line.append_text(cell[k])
                out.append(line)
        return out

    def __rich_console__(self, console: Console, options: Any) -> Any:
        yield from self.rows(options.max_width)


def action_legend(styles: Sequence[ActionStyle], totals: Sequence[float] | None = None) -> Text:
    """One line naming each action's code and colour, with its range-weighted frequency."""
    line = Text()
    for i, style in enumerate(styles):
        if i:
            line.append("   ")
        line.append(f" {style.code} ", style=f"bold {style.text} on {style.colour}")
        line.append(f" {style.label}")
        if totals is not None:
            line.append(f" {100 * totals[i]:.1f}%")
    return line


def range_table(view: Any, title: str | None = None) -> Table:
    """Both players' range values at a node: weighted combos, EV (chips), equity and EQR."""
    table = Table(title=title, header_style="bold", box=None, pad_edge=False)
    table.add_column("player")
    table.add_column("combos", justify="right")
    table.add_column("EV (chips)", justify="right")
    table.add_column("EV (% pot)", justify="right")
    table.add_column("equity", justify="right")
    table.add_column("EQR", justify="right")
    for p, name in enumerate(("OOP", "IP")):
        ev, equity = view.range_value(p)
        combos = float(np.sum(view.weights(p)))
        acting = " (acts)" if view.player == p else ""
        if np.isfinite(ev):
            eqr = ev / (equity * view.pot) if equity > 0 else float("nan")
            cells = [f"{ev:.2f}", f"{100 * ev / view.pot:.1f}%", f"{100 * equity:.1f}%"]
            cells.append(f"{eqr:.2f}" if np.isfinite(eqr) else "-")
        else:
            cells = ["-", "-", "-", "-"]
        table.add_row(name + acting, f"{combos:.1f}", *cells)
    return table


def styles_of(view: Any) -> list[ActionStyle]:
    """:func:`~pokerlab.plots.actions.action_styles` of a node view's actions."""
    return action_styles(view.actions)


def size_text(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def summary_table(game: Any, summary: dict[str, Any]) -> Table:
    """Betting-tree nodes by street and kind, and the dealt tree's size (an upper bound)."""
    streets = game.config.streets
    first = ("flop", "turn", "river").index(streets[0])
    action = summary["action_tree"]
    dealt = summary["dealt_upper_bound"]
    table = Table(header_style="bold", box=None, pad_edge=False)
    table.add_column("nodes")
    for street in streets:
        table.add_column(street, justify="right")
    table.add_column("dealt (at most)", justify="right")
    rows = {
        "decision": action["decision"],
        "chance": action["chance"],
        "terminal": [f + s for f, s in zip(action["fold"], action["showdown"], strict=True)],
    }
    for kind, counts in rows.items():
        per_street = [f"{n:,}" for n in counts[first:]]
        table.add_row(kind, *per_street, f"{dealt[kind]:,}")
    return table


def print_spot_summary(
    game: Any, name: str, summary: dict[str, Any], compressed: bool = False
) -> None:
    """The spot in one line, its tree summary and the memory estimate, on stdout."""
    from pokerlab.cards.deck import format_cards
    from pokerlab.cards.ranges import combo_count
    from pokerlab.games.postflop.game import available_memory_bytes, process_bytes_estimate

    c = game.config
    oop, ip = (combo_count(w) for w in c.weights())
    rake = ""
    if c.rake_rate > 0:
        rake = f", rake {100 * c.rake_rate:g}%" + (
            f" (cap {c.rake_cap:g})" if c.rake_cap is not None else ""
        )
    deck = "" if c.ranks == 13 else f", {c.deck_text().removeprefix('the ')}"
    console.print(
        f"[bold]{name}[/]: {c.street} spot, board {format_cards(c.board)}, pot {c.pot:g}, stack "
        f"{c.stack:g} (SPR {c.stack / c.pot:.2g}){rake}{deck}; OOP {oop:g} combos, IP {ip:g} "
        "combos",
        highlight=False,
        soft_wrap=True,
    )
    console.print(summary_table(game, summary))
    available = available_memory_bytes()
    arrays = summary["memory_upper_bound_bytes"] // (2 if compressed else 1)
    console.print(
        f"memory: up to {size_text(arrays)} of solver arrays "
        f"({'16-bit' if compressed else 'float32'} regrets and strategy sums), about "
        f"{size_text(process_bytes_estimate(arrays))} for the whole process at its peak"
        + (f"; {size_text(available)} available" if available is not None else ""),
        highlight=False,
        soft_wrap=True,
    )


def print_node_grid(view: Any, title: str) -> None:
    """A decision node's 13x13 grid, its legend with the action totals, and the key."""
    styles = styles_of(view)
    grid = view.grid()
    totals = view.action_totals()
    console.print(Text(title, style="bold"), soft_wrap=True)
    console.print(ActionGrid(grid["weight"], grid["mix"], styles))
    console.print(action_legend(styles, [totals[s.label] for s in styles]), soft_wrap=True)
    console.print(
        "cell: hand, most played action and its share (X62: check 62%; X: always; ·: not in range)",
        style="dim",
        highlight=False,
        soft_wrap=True,
    )


def node_title(view: Any, config: Any, where: str) -> str:
    from pokerlab.cards.deck import format_cards

    who = ("OOP", "IP")[view.player]
    return f"{who} to act {where} ({format_cards(view.board)}, pot {view.pot:g})"


def say_compiling() -> None:
    """On a terminal, say that the first solve compiles its kernels (numba's cache is cold):
    tens of seconds with nothing else on screen otherwise. Stderr only (never in --json's
    output); nothing when stderr is piped, like the progress bar."""
    from pokerlab.warmup import COMPILING_MESSAGE, postflop_kernels_cold

    if stderr_is_terminal() and postflop_kernels_cold():
        print_line_stderr(COMPILING_MESSAGE)


def stderr_is_terminal() -> bool:
    return Console(stderr=True).is_terminal


def print_line_stderr(message: str) -> None:
    """One unwrapped line on stderr."""
    Console(stderr=True, soft_wrap=True).print(message, highlight=False, markup=False)


def print_line(message: str) -> None:
    """One unwrapped line on stdout, printed as is (no markup)."""
    console.print(message, highlight=False, markup=False, soft_wrap=True)


def grid_json(view: Any) -> dict[str, Any]:
    """Per hand class in the range: its reach-weighted combos and its action mix."""
    grid = view.grid()
    weight = grid["weight"].reshape(169)
    mix = grid["mix"].reshape(169, -1)
    out = {}
    for c in range(169):
        if weight[c] > 0:
            out[class_name(c)] = {
                "combos": float(weight[c]),
                "actions": {a: float(mix[c, i]) for i, a in enumerate(view.actions)},
            }
    return out


def board_text(board: Any) -> str:
    from pokerlab.cards.deck import format_cards

    return format_cards(board)
