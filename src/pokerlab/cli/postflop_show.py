"""``pokerlab postflop show FILE --line "bet 66, call"``: one node of a saved postflop solution
(the acting player's grid, the action totals, both players' EVs, equities and EQRs; ``--png``
draws the grid, ``--json`` prints one object)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import typer

from pokerlab.analysis.postflop import PLAYER_KEYS
from pokerlab.cli.postflop import postflop_app
from pokerlab.cli.render import console, print_json
from pokerlab.cli.render_postflop import (
    board_text,
    grid_json,
    node_title,
    print_line,
    print_line_stderr,
    print_node_grid,
    range_table,
)
from pokerlab.errors import PokerlabError


@postflop_app.command("show")
def show(
    file: Path = typer.Argument(..., help="A solution written by pokerlab postflop --out."),
    line: str = typer.Option(
        "",
        "--line",
        "-l",
        help="The node: actions from the root, comma separated, dealt cards by name, e.g. "
        '"check, bet 100, call, Qs". Default: the root.',
    ),
    png: Path | None = typer.Option(None, help="Write the node's grid picture here (PNG)."),
    threads: int = typer.Option(1, min=1, help="Threads for reading values."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """Print one node of a saved postflop solution: the acting player's 13x13 grid (action mix
    per hand), the action totals and both players' EVs, equities and EQRs.

    A bad --line names the bad action and lists the actions available there.
    """
    from pokerlab.io.files import read_metadata
    from pokerlab.io.paths import check_input_file, check_output_file
    from pokerlab.solvers.postflop import load_spot_solution

    check_input_file(file, "solution file")
    if png is not None:
        check_output_file(png, "--png")
    meta = read_metadata(file)
    if meta.get("kind") != "postflop-solution" and meta.get("game") != "postflop":
        raise PokerlabError(
            f"{str(file)!r} is not a postflop solution (write one with pokerlab postflop SPOT "
            "--out FILE)"
        )
    solver = load_spot_solution(file, threads=threads)
    view = solver.average_strategy().node(line)
    where = f"after {', '.join(view.line)}" if view.line else "at the root"
    config = solver.game.config
    if png is not None and view.kind != "decision":
        raise PokerlabError(
            f"--png draws a decision node; the line {line!r} ends at a {view.kind} node"
        )
    ev = {k: view.range_value(p)[0] for p, k in enumerate(PLAYER_KEYS)}
    equity = {k: view.range_value(p)[1] for p, k in enumerate(PLAYER_KEYS)}
    if png is not None:
        from pokerlab.plots.postflop import plot_node_grid

        plot_node_grid(view, png, title=node_title(view, config, where))
    if as_json:
        print_json(
            {
                "file": str(file),
                "line": list(view.line),
                "kind": view.kind,
                "player": PLAYER_KEYS[view.player] if view.player >= 0 else None,
                "board": board_text(view.board),
                "pot": view.pot,
                "actions": view.action_totals(),
                "ev": ev,
                "equity": equity,
                "combos": {k: float(np.sum(view.weights(p))) for p, k in enumerate(PLAYER_KEYS)},
                "grid": grid_json(view) if view.kind == "decision" else {},
                "iterations": meta.get("iterations"),
                "exploitability": meta.get("exploitability"),
                "png": None if png is None else str(png),
            }
        )
    else:
        if view.kind == "decision":
            print_node_grid(view, node_title(view, config, where))
        else:
            from pokerlab.cards.deck import format_card

            card = format_card(next(c for c in range(52) if c not in view.board))
            what = {
                "chance": "a card is dealt here: add it to the line (e.g. '"
                + ", ".join([*view.line, card])
                + "')",
                "fold": "a player folded: the hand is over",
                "showdown": "showdown: the hand is over",
            }.get(view.kind, view.kind)
            console.print(
                f"[bold]{where}[/] ({board_text(view.board)}, pot {view.pot:g}): {what}",
                highlight=False,
                soft_wrap=True,
            )
        console.print(range_table(view))
        if meta.get("iterations") is not None:
            expl = meta.get("exploitability")
            console.print(
                f"{file}: {meta.get('algorithm', '')} {meta['iterations']} iterations"
                + (f", exploitability {expl:.3g} chips" if isinstance(expl, float) else "")
                + (" (partial)" if meta.get("partial") else ""),
                highlight=False,
                soft_wrap=True,
            )
    if png is not None:
        (print_line_stderr if as_json else print_line)(f"wrote {png}")
