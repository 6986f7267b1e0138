"""``pokerlab compare``: exploitability against nodes touched and seconds for several solvers."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from pokerlab.cli.app import app
from pokerlab.cli.render import console, print_json
from pokerlab.games.registry import load_game
from pokerlab.solvers.compare import convergence_curves, plot_convergence
from pokerlab.solvers.run import EXIT_INTERRUPTED, check_output_file, stop_on_sigint


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
    history visited) for full-width and sampling solvers. Ctrl-C stops the running solver at a
    safe point, prints and draws what was measured (marked partial) and exits with code 130.
    """
    if png is not None:
        check_output_file(png, "--png")
    the_game = load_game(game)
    names = [a.strip() for a in algorithms.split(",") if a.strip()]
    with stop_on_sigint() as stop:
        curves = convergence_curves(
            the_game, names, budget_nodes, points=points, seed=seed, stop=stop
        )
        interrupted = stop.requested
        say = (lambda m: _err(m)) if as_json else (lambda m: console.print(m, highlight=False))
        if png is not None and curves:
            title = f"{the_game.name}: exploitability vs cost"
            if interrupted:
                title += " (interrupted: partial)"
            plot_convergence(curves, png, title=title)
            say(f"wrote {png}")
    if as_json:
        print_json(
            {
                "game": the_game.name,
                "budget_nodes": budget_nodes,
                "seed": seed,
                "status": "interrupted" if interrupted else "completed",
                "partial": interrupted,
                "png": str(png) if png is not None and curves else None,
                "curves": [c.to_dict() for c in curves],
            }
        )
    else:
        for c in curves:
            console.print(
                f"{c.algorithm:>9}: {c.iterations[-1]:>9,} iterations, "
                f"{c.nodes_touched[-1]:>13,} nodes, {c.seconds[-1]:7.3f} s, "
                f"exploitability {c.exploitability[-1]:.4g}"
                + ("" if c.complete else "  (partial: interrupted)")
            )
    if interrupted:
        done = ", ".join(c.algorithm for c in curves if c.complete) or "none"
        _err(f"interrupted: partial results (complete curves: {done})")
        raise SystemExit(EXIT_INTERRUPTED)  # typer.Exit would be returned, not raised, by main()


def _err(message: str) -> None:
    Console(stderr=True, soft_wrap=True).print(message, highlight=False, markup=False)
