"""``pokerlab blueprint show CHECKPOINT --line "r300, c"``: a blueprint's strategy at one node
of its betting tree (issue 24, "Judging it"); the line's grammar and the node's figures are
:mod:`pokerlab.analysis.blueprint`'s (shared with the viewer).

Preflop the node is shown as 13x13 grids of the hand classes (suited above the diagonal, as
``pokerlab range``; :class:`~pokerlab.cli.render.HandGrid`): the most likely action per hand,
then each action's frequency, then the action totals over every combo of the deck; hands whose
ranks are not in a small deck are blank. After the flop the private states are card-abstraction
buckets, not hand classes: the node is shown as a table of action probabilities per bucket (with
perfect recall per bucket sequence, written ``b0/b1/...``). ``--png`` draws the same (atomic
write); ``--json`` prints one object.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import typer

from pokerlab.analysis.blueprint import (  # the node's figures (shared with the viewer)
    NodeView,
    line_tokens,
    node_summary,
    preflop_table,
    walk_line,
)
from pokerlab.cli.blueprint import blueprint_app
from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit.rules import STREETS, NoLimitRules

__all__ = ["NodeView", "line_tokens", "walk_line", "preflop_table", "show"]

# cell styles of the actions on a colour terminal: fold, check/call, then raises small to large
_FOLD_STYLE, _CALL_STYLE = "white on grey37", "black on green"
_RAISE_STYLES = ("black on yellow", "black on orange1", "white on red3", "white on magenta")
_FOLD_RGB, _CALL_RGB = (0.55, 0.55, 0.6), (0.3, 0.69, 0.29)
_RAISE_RGB = ((1.0, 0.8, 0.2), (1.0, 0.55, 0.1), (0.85, 0.15, 0.15), (0.6, 0.1, 0.5))


def _styles(view: NodeView) -> list[str]:
    out, k = [], 0
    for short in view.short:
        if short == "f":
            out.append(_FOLD_STYLE)
        elif short in ("k", "c"):
            out.append(_CALL_STYLE)
        else:
            out.append(_RAISE_STYLES[min(k, len(_RAISE_STYLES) - 1)])
            k += 1
    return out


def _rgbs(view: NodeView) -> list[tuple[float, float, float]]:
    lookup = dict(zip(_RAISE_STYLES, _RAISE_RGB, strict=True))
    lookup.update({_FOLD_STYLE: _FOLD_RGB, _CALL_STYLE: _CALL_RGB})
    return [lookup[s] for s in _styles(view)]


def _best_grid(table: np.ndarray, view: NodeView, title: str) -> Any:
    from pokerlab.cards.deck import N_CLASSES, class_grid_position, class_name
    from pokerlab.cli.render import HandGrid

    styles = _styles(view)
    cells: list[list[tuple[str, str, str]]] = [[("", "", "")] * 13 for _ in range(13)]
    for c in range(N_CLASSES):
        r, k = class_grid_position(c)
        if not np.isnan(table[c, 0]):
            a = int(np.argmax(table[c]))
            cells[r][k] = (class_name(c), view.short[a], styles[a])
    legend = "figure = the most likely action: " + ", ".join(
        f"{s} = {w}" for s, w in zip(view.short, view.words, strict=True)
    )
    return HandGrid(title, cells, legend=legend, stacked=True)


def _crop(grid: Any, ranks: int) -> Any:
    """``grid`` cut to the rows and columns of a deck of the top ``ranks`` ranks (A, K, ...)."""
    grid.cells = [row[:ranks] for row in grid.cells[:ranks]]
    return grid


def _title(checkpoint: str, rules: NoLimitRules, view: NodeView, line: str) -> str:
    state = view.state
    p = state.to_act
    where = f"after {line.strip()!r} (tree {view.history!r})" if view.history else "at the root"
    owed = f", to call {state.to_call():,}" if state.to_call() > 0 else ""
    return (
        f"{checkpoint}: {rules.position(p)} (seat {p}) on the {STREETS[state.street]} {where}; "
        f"pot {state.pot():,}{owed}"
    )


def write_node_png(
    path: Path, title: str, view: NodeView, table: np.ndarray, states: list[str] | None
) -> None:
    """Draw the node as a PNG (atomic write): preflop (``states`` None) the most likely action
    per hand class and each action's frequency as 13x13 grids (cut to the ranks of a small
    deck); after the flop a heat map of the action probabilities per bucket."""
    from pokerlab.cards.deck import N_CLASSES, class_grid_position, class_name
    from pokerlab.plots.common import plt, save_png

    na = len(view.labels)
    if states is not None:
        fig, ax = plt.subplots(figsize=(1.2 + 1.1 * na, min(40.0, 1.5 + 0.22 * len(states))))
        im = ax.imshow(table, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
        ax.set_xticks(range(na), view.short)
        ax.set_yticks(range(len(states)), states, fontsize=6 if len(states) > 40 else 8)
        ax.set_ylabel("bucket")
        fig.colorbar(im, ax=ax, label="probability")
        ax.set_title(title, fontsize=8, wrap=True)
        save_png(fig, path, dpi=110)
        return
    n = sum(not np.isnan(table[14 * i, 0]) for i in range(13))  # the deck's ranks: A, K, ..
    panels = 1 + na
    cols = min(3, panels)
    rows = -(-panels // cols)
    side = max(2.6, 0.4 * n)  # inches per panel
    fig, axes = plt.subplots(rows, cols, figsize=(side * cols, (side + 0.3) * rows), squeeze=False)
    rgbs = _rgbs(view)
    best = np.ones((n, n, 3))
    freq = np.zeros((na, n, n))
    cells = []  # (row, col, name, most likely action) of every class of the deck
    for c in range(N_CLASSES):
        r, k = class_grid_position(c)
        if np.isnan(table[c, 0]):
            continue
        a = int(np.argmax(table[c]))
        w = 0.35 + 0.65 * float(table[c, a])  # paler where the choice is mixed
        best[r, k] = [1.0 - w * (1.0 - x) for x in rgbs[a]]
        freq[:, r, k] = table[c]
        cells.append((r, k, class_name(c), a))
    ax = axes[0, 0]
    ax.imshow(best)
    ax.set_title("most likely action (paler: mixed)", fontsize=9)
    for r, k, name, a in cells:
        ax.text(k, r - 0.18, name, ha="center", va="center", fontsize=6.5)
        ax.text(k, r + 0.24, view.short[a], ha="center", va="center", fontsize=6)
    for a in range(na):
        ax = axes.flat[1 + a]
        ax.imshow(freq[a], cmap="Greens", vmin=0.0, vmax=1.0)
        ax.set_title(f"{view.words[a]}: frequency", fontsize=9)
        for r, k, name, _ in cells:
            f = float(freq[a, r, k])
            color = "white" if f > 0.6 else "black"
            ax.text(k, r - 0.18, name, ha="center", va="center", fontsize=6.5, color=color)
            figure = f"{100 * f:.0f}%"
            ax.text(k, r + 0.24, figure, ha="center", va="center", fontsize=6, color=color)
    for ax in axes.flat:
        ax.set_xticks([])
        ax.set_yticks([])
    for ax in list(axes.flat)[panels:]:
        ax.axis("off")
    fig.suptitle(title, fontsize=10)
    save_png(fig, path, dpi=100)


@blueprint_app.command("show")
def show(
    checkpoint: Path = typer.Argument(..., metavar="CHECKPOINT", help="a blueprint .npz"),
    line: str = typer.Option(
        "", "--line", help='actions from the root, e.g. "r300, c" or "r2.5bb c / r200"'
    ),
    png: Path | None = typer.Option(None, "--png", help="also draw the node to this PNG file"),
    rows: int = typer.Option(
        60, "--rows", min=0, help="after the flop: most bucket rows printed (0: all)"
    ),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """A blueprint's strategy at one node: 13x13 grids preflop, buckets after the flop."""
    from pokerlab.cli.blueprint_eval import load_agent
    from pokerlab.cli.render import console, hand_grid, print_json

    if png is not None and png.parent and not png.parent.exists():
        raise PokerlabError(f"--png: folder does not exist: {png.parent}")
    agent, game = load_agent(str(checkpoint), "CHECKPOINT")
    if game is None:
        raise PokerlabError(
            f"CHECKPOINT: {str(checkpoint)!r} is a built-in agent, not a checkpoint of pokerlab "
            "blueprint train"
        )
    rules, layout = game.rules, agent.strategy.layout
    view, table, states, info = node_summary(agent.strategy, agent.abstraction, rules, line)
    info = {"checkpoint": str(checkpoint), **info}
    title = _title(Path(checkpoint).name, rules, view, line)
    if png is not None:
        write_node_png(png, title, view, table, states)
        info["png"] = str(png)
    if as_json:
        print_json(info)
        return
    console.print(title, highlight=False, soft_wrap=True)
    if states is None:
        ranks = rules.ranks
        console.print(_crop(_best_grid(table, view, "most likely action per hand"), ranks))
        legend = "under each hand: blank = always, · = never, N% = sometimes"
        for a, words in enumerate(view.words):
            grid = hand_grid(table[:, a], f"{words}: frequency", legend=legend)
            grid.stacked = True  # every cell named: the hand above its frequency
            console.print(_crop(grid, ranks))
        totals = zip(view.words, info["totals"], strict=True)
        shares = ", ".join(f"{w} {100 * t:.1f}%" for w, t in totals)
        console.print(f"over every combo of the deck: {shares}", highlight=False, soft_wrap=True)
    else:
        from rich.table import Table

        kind = "bucket sequence" if layout.recall == "perfect" else "bucket"
        console.print(
            f"after the flop the private states are card-abstraction buckets, not hand "
            f"classes: action probabilities per {kind}",
            highlight=False,
            soft_wrap=True,
        )
        grid = Table(header_style="bold", show_edge=False)
        grid.add_column(kind, justify="right")
        for words in view.words:
            grid.add_column(words, justify="right")
        shown = states if rows == 0 else states[:rows]
        for s, name in enumerate(shown):
            grid.add_row(name, *(f"{100 * x:.1f}%" for x in table[s]))
        console.print(grid)
        if len(shown) < len(states):
            console.print(
                f"{len(states) - len(shown):,} more {kind}s not shown (--rows 0 shows all)"
            )
    if png is not None:
        console.print(f"wrote {png}", highlight=False)
