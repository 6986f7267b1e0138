"""``pokerlab compare``: exploitability against nodes touched and seconds for several solvers."""

from __future__ import annotations

from pathlib import Path

import typer

from pokerlab.cli.app import app
from pokerlab.cli.render import console, print_json
from pokerlab.games.registry import load_game
from pokerlab.solvers.compare import convergence_curves, plot_convergence


@app.command()
def compare(
    game: str = typer.Argument(..., help="A two-player zero-sum game (kuhn, leduc)."),
    algorithms: str = typer.Option(
        "cfr,cfr+,cs-mccfr,es-mccfr,os-mccfr", help="Comma-separated algorithm names."
    ),
    budget_nodes: int = typer.Option(
        10_000_000, help="Run each solver until it has touched this many nodes."
    ),
    points: int = typer.Option(25, help="Exploitability measurements per solver."),
    seed: int = typer.Option(0, help="Seed of the sampling solvers."),
    png: Path | None = typer.Option(None, help="Write the two-panel picture here (PNG)."),
    as_json: bool = typer.Option(False, "--json", help="Print the curves as JSON."),
) -> None:
    """Exploitability against nodes touched and against seconds, every solver on one picture.

    All solvers run on the game's history tree, so "nodes touched" counts the same thing (one
    history visited) for full-width and sampling solvers.
    """
    the_game = load_game(game)
    names = [a.strip() for a in algorithms.split(",") if a.strip()]
    curves = convergence_curves(the_game, names, budget_nodes, points=points, seed=seed)
    if png is not None:
        plot_convergence(curves, png, title=f"{the_game.name}: exploitability vs cost")
    if as_json:
        print_json(
            {
                "game": the_game.name,
                "budget_nodes": budget_nodes,
                "seed": seed,
                "png": str(png) if png else None,
                "curves": [c.to_dict() for c in curves],
            }
        )
        return
    for c in curves:
        console.print(
            f"{c.algorithm:>9}: {c.iterations[-1]:>9,} iterations, {c.nodes_touched[-1]:>13,} "
            f"nodes, {c.seconds[-1]:7.3f} s, exploitability {c.exploitability[-1]:.4g}"
        )
    if png is not None:
        console.print(f"picture written to {png}")
