"""``pokerlab compare``: exploitability against nodes touched and seconds for several solvers."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from pokerlab.cli.app import app
from pokerlab.cli.render import console, print_json
from pokerlab.errors import PokerlabError
from pokerlab.games.registry import load_game
from pokerlab.io.interrupts import stop_on_sigint
from pokerlab.io.paths import check_output_file
from pokerlab.plots.curves import plot_convergence
from pokerlab.solvers.compare import convergence_curves
from pokerlab.solvers.stopping import EXIT_INTERRUPTED

#: Budget of ``compare`` on history-tree games when none is given.
DEFAULT_BUDGET_NODES = 10_000_000
#: Solving seconds per solver of ``compare SPOT`` when no budget is given.
DEFAULT_SPOT_SECONDS = 10.0


def _is_spot(game: str) -> bool:
    """A spot file (.toml, .json, or an existing file) or a built-in spot name, not a game."""
    from pokerlab.games.postflop.spot import builtin_spots
    from pokerlab.games.registry import game_names

    if game.lower().strip() in game_names():
        return False
    path = Path(game)
    return (
        path.suffix.lower() in (".toml", ".json")
        or path.is_file()
        or game.lower().strip() in builtin_spots()
    )


@app.command()
def compare(
    game: str = typer.Argument(
        ...,
        help="A two-player zero-sum game (kuhn, leduc), or a postflop spot: a .toml/.json spot "
        "file or a built-in spot name (river, turn, flop).",
    ),
    algorithms: str | None = typer.Option(
        None,
        help="Comma-separated algorithm names (default: cfr,cfr+,cs-mccfr,es-mccfr,os-mccfr; "
        "spots: dcfr-ps,dcfr,cfr+,cs-mccfr,es-mccfr; also linear, cfr, pcfr+, dcfr+, pdcfr+, "
        "hs-pcfr+, hs-dcfr).",
    ),
    budget_nodes: int | None = typer.Option(
        None,
        max=10**15,  # past a float's whole numbers (the curve's points are logarithmic)
        help="Run each solver until it has touched this many nodes (default 10,000,000; "
        "spots default to --seconds 10).",
    ),
    seconds: float | None = typer.Option(
        None, help="Postflop spots: solving seconds per solver (instead of --budget-nodes)."
    ),
    mccfr_schedule: str | None = typer.Option(
        None,
        help="Postflop spots: discount schedule of the sampling solvers (linear, the default; "
        "cfr for none, cfr+, dcfr).",
    ),
    points: int = typer.Option(25, max=10_000, help="Exploitability measurements per solver."),
    seed: int = typer.Option(0, help="Seed of the sampling solvers."),
    png: Path | None = typer.Option(None, help="Write the two-panel picture here (PNG)."),
    as_json: bool = typer.Option(False, "--json", help="Print the curves as JSON."),
) -> None:
    """Exploitability against nodes touched and against seconds, every solver on one picture.

    On kuhn and leduc all solvers run on the game's history tree, so "nodes touched" counts the
    same thing (one history visited) for full-width and sampling solvers. On a postflop spot
    the full-width schedules (PostflopSolver) and chance and external sampling (PostflopMCCFR)
    run on the spot's vector tree; exploitability is drawn in percent of the pot and a node
    touched is one public-tree node visited (for every hand at once in full width, for one
    sampled hand per player in sampling). Ctrl-C stops the running solver at a safe point,
    prints and draws what was measured (marked partial) and exits with code 130.
    """
    if png is not None:
        check_output_file(png, "--png")
    from pokerlab.solvers.spot_compare import SPOT_ALGORITHMS, spot_convergence_curves

    spot = _is_spot(game)
    if not spot:
        for option, value in (("--seconds", seconds), ("--mccfr-schedule", mccfr_schedule)):
            if value is not None:
                raise PokerlabError(f"{option} is an option of postflop spots, not of {game!r}")
    if spot:
        the_game = load_game("postflop", spot=game)
        if budget_nodes is None and seconds is None:
            seconds = DEFAULT_SPOT_SECONDS
        if budget_nodes is not None and seconds is not None:
            raise PokerlabError("give one budget: --budget-nodes or --seconds")
        names = _names(algorithms, ",".join(SPOT_ALGORITHMS))
    else:
        the_game = load_game(game)
        if budget_nodes is None:
            budget_nodes = DEFAULT_BUDGET_NODES
        names = _names(algorithms, "cfr,cfr+,cs-mccfr,es-mccfr,os-mccfr")
    pot = float(the_game.config.pot) if spot else 1.0
    with stop_on_sigint() as stop:
        if spot:
            curves = spot_convergence_curves(
                the_game,
                names,
                budget_nodes=budget_nodes,
                seconds=seconds,
                points=points,
                seed=seed,
                mccfr_schedule=mccfr_schedule or "linear",
                stop=stop,
            )
        else:
            assert budget_nodes is not None
            curves = convergence_curves(
                the_game, names, budget_nodes, points=points, seed=seed, stop=stop
            )
        interrupted = stop.requested
        say = (lambda m: _err(m)) if as_json else (lambda m: console.print(m, highlight=False))
        if png is not None and curves:
            name = Path(game).stem if spot else the_game.name
            title = f"{name}: exploitability vs cost"
            if interrupted:
                title += " (interrupted: partial)"
            if spot:
                plot_convergence(
                    curves,
                    png,
                    title=title,
                    scale=100.0 / pot,
                    ylabel="exploitability (% of pot)",
                    nodes_label="public-tree nodes visited",
                )
            else:
                plot_convergence(curves, png, title=title)
            say(f"wrote {png}")
    if as_json:
        result: dict[str, object] = {
            "game": the_game.name,
            "budget_nodes": budget_nodes,
            "seed": seed,
            "status": "interrupted" if interrupted else "completed",
            "partial": interrupted,
            "png": str(png) if png is not None and curves else None,
            "curves": [c.to_dict() for c in curves],
        }
        if spot:
            result.update(spot=game, pot=pot, seconds=seconds, exploitability_unit="chips")
            for entry, c in zip(result["curves"], curves, strict=True):  # type: ignore[call-overload]
                entry["exploitability_pct"] = [100.0 * e / pot for e in c.exploitability]
        print_json(result)
    else:
        width = max([9, *(len(c.algorithm) for c in curves)])
        for c in curves:
            expl = (
                f"exploitability {100.0 * c.exploitability[-1] / pot:.4g}% of the pot"
                if spot
                else f"exploitability {c.exploitability[-1]:.4g}"
            )
            console.print(
                f"{c.algorithm:>{width}}: {c.iterations[-1]:>9,} iterations, "
                f"{c.nodes_touched[-1]:>13,} nodes, {c.seconds[-1]:7.3f} s, "
                + expl
                + ("" if c.complete else "  (partial: interrupted)")
            )
    if interrupted:
        done = ", ".join(c.algorithm for c in curves if c.complete) or "none"
        _err(f"interrupted: partial results (complete curves: {done})")
        raise SystemExit(EXIT_INTERRUPTED)  # typer.Exit would be returned, not raised, by main()


def _names(algorithms: str | None, default: str) -> list[str]:
    return [a.strip() for a in (algorithms or default).split(",") if a.strip()]


def _err(message: str) -> None:
    Console(stderr=True, soft_wrap=True).print(message, highlight=False, markup=False)
