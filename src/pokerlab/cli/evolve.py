"""``pokerlab evolve``: genetic search of push/fold strategies, judged against the equilibrium."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from pokerlab.cli.app import app, warn
from pokerlab.cli.pushfold import MAX_MATCH_HANDS, MAX_STACK_BB, _stack_above_blind
from pokerlab.cli.render import console, print_json
from pokerlab.errors import PokerlabError

#: Largest population (an exact round robin plays population^2 / 2 pairings per generation).
MAX_POPULATION = 10_000
#: Largest generation cap.
MAX_GENERATIONS = 1_000_000
#: Most simulated matches per pairing.
MAX_MATCHES = 1_000
#: Most worker processes.
MAX_WORKERS = 1_024
#: ``EvolutionResult.stop_reason`` of a search that ran into its generation cap.
GENERATION_CAP = "generation cap"


#: The files ``evolve --out`` writes (patterns): their stale temporaries are removed at the start.
EVOLVE_FILES = (
    "best_strategy*",
    "summary.json",
    "fitness.png",
    "match.png",
    "population.*",
    "tables.png",
)


@app.command()
def evolve(
    players: str = typer.Option("simple", help="Player type: simple, complex or variable."),
    mode: str = typer.Option("equilibrium", help="equilibrium (round robin) or adaptive."),
    opponent: str | None = typer.Option(
        None, help="Adaptive mode: the fixed opponent, e.g. '70/60', ranges or a file."
    ),
    population: int = typer.Option(
        20, "--population", "-p", min=2, max=MAX_POPULATION, help="Number of players."
    ),
    stack: float | None = typer.Option(
        None,
        "--stack",
        "-s",
        max=MAX_STACK_BB,
        callback=_stack_above_blind,
        help="Stack in big blinds (default 10; variable players: 1..10).",
    ),
    fitness: str = typer.Option("exact", help="exact (expected value) or simulated (hands)."),
    generations: int = typer.Option(
        2000,
        min=1,
        max=MAX_GENERATIONS,
        help="Generation cap; a run that reaches it before --patience stops it warns and "
        "exits with code 3.",
    ),
    patience: int = typer.Option(
        100, min=1, help="Stop after this many generations without a better best."
    ),
    p_cross: float = typer.Option(0.7, min=0.0, max=1.0, help="Crossover probability per pair."),
    p_mut: float | None = typer.Option(
        None, min=0.0, max=1.0, help="Mutation probability (default by player type)."
    ),
    elite: int | None = typer.Option(
        None, min=0, help="Elite players kept (default 0 / 1 adaptive)."
    ),
    hands: int = typer.Option(
        1000, min=1, max=MAX_MATCH_HANDS, help="Simulated fitness: hands per match."
    ),
    matches: int = typer.Option(
        2, min=1, max=MAX_MATCHES, help="Simulated fitness: matches per pairing."
    ),
    workers: int = typer.Option(
        0, min=0, max=MAX_WORKERS, help="Simulated fitness: processes (0 = one per core)."
    ),
    use_ray: bool = typer.Option(
        False, "--ray", help="Simulated fitness: matches as Ray tasks (local Ray unless --address)."
    ),
    address: str | None = typer.Option(
        None,
        "--address",
        help="Ray cluster address host:port (implies --ray; nodes need pokerlab).",
    ),
    seed: int = typer.Option(0, min=0, help="Random seed (an integer >= 0)."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder for pictures and files."),
    no_gif: bool = typer.Option(False, "--no-gif", help="Skip the animations."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Evolve push/fold players by tournaments; judge the best exactly (exploitability, EV).

    Ctrl-C stops after the current generation: the best player so far is judged, the files are
    written (summary marked partial) and the exit code is 130.
    """
    from pokerlab.evolve.search import EvolutionConfig
    from pokerlab.evolve.search import evolve as run_evolution
    from pokerlab.io.interrupts import stop_on_sigint
    from pokerlab.io.paths import check_output_folder
    from pokerlab.solvers.stopping import EXIT_INTERRUPTED

    if players == "variable" and stack is not None:
        raise PokerlabError("variable-stack players play stacks 1..10 bb; --stack does not apply")
    config = EvolutionConfig(
        players=players,  # type: ignore[arg-type]  (validated by EvolutionConfig)
        mode=mode,  # type: ignore[arg-type]
        opponent=opponent,
        population=population,
        stack_bb=10.0 if stack is None else stack,
        fitness=fitness,  # type: ignore[arg-type]
        p_cross=p_cross,
        p_mut=p_mut,
        elite=elite,
        patience=patience,
        max_generations=generations,
        hands=hands,
        matches=matches,
        workers=workers,
        seed=seed,
        ray=use_ray or address is not None,
        ray_address=address,
    )
    if config.ray:
        from pokerlab.distributed.limit_ray import check_address, import_ray

        import_ray()  # not installed: refused before any work
        if address is not None:
            check_address(address)
    if config.opponent:
        from pokerlab.analysis.pushfold import strategy_from_spec

        strategy_from_spec(config.opponent, config.game())  # a bad spec fails before the run
    if out is not None:
        check_output_folder(out, "--out", targets=EVOLVE_FILES)  # before the run, not after

    with stop_on_sigint(notice="stopping after this generation...") as stop:
        result, files = _run_and_save(config, run_evolution, stop, as_json, out, no_gif)
    # a Ctrl-C after the last generation (judging, writing) still ends the command with 130
    late_stop = stop.requested and not result.interrupted
    if as_json:
        data = result.to_dict(history=False)
        if files:
            data["files"] = files
        print_json(data)
    else:
        _print_result(result, config)
    if result.interrupted:
        _err(f"interrupted after {result.generations} generations: partial results")
        raise SystemExit(EXIT_INTERRUPTED)  # typer.Exit would be returned, not raised, by main()
    if late_stop:
        _err(
            f"interrupted after the search ({result.generations} generations, complete)"
            + (": files written, animations skipped" if out is not None and not no_gif else "")
        )
        raise SystemExit(EXIT_INTERRUPTED)
    if result.stop_reason == GENERATION_CAP:
        from pokerlab.solvers.stopping import EXIT_TARGET_NOT_REACHED

        warn(
            f"the generation cap ({config.max_generations}) came before the stopping rule "
            f"(no better best for {config.patience} generations): the search may not have "
            "converged; raise --generations or lower --patience"
        )
        raise SystemExit(EXIT_TARGET_NOT_REACHED)


def _run_and_save(
    config: Any,
    run_evolution: Any,
    stop: Any,
    as_json: bool,
    out: Path | None,
    no_gif: bool,
) -> tuple[Any, dict[str, str]]:
    """Run the search (with a progress bar unless ``as_json``), then write its files into
    ``out``, printing a ``wrote PATH`` line for each (on stderr with ``--json``)."""
    if as_json:
        result = run_evolution(config, stop=stop)
    else:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(
            TextColumn("[bold]generation {task.completed:>4}"),
            BarColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        ) as progress:
            task = progress.add_task("evolve", total=config.max_generations, status="")

            def show(record: Any) -> None:
                progress.update(
                    task,
                    completed=record.generation + 1,
                    status=(
                        f"best {record.best_performance_bb:+.4f} bb/hand, "
                        f"shove {record.best_fractions[0]:.1%} "
                        f"call {record.best_fractions[1]:.1%}, "
                        f"exploitability {record.best_exploitability_bb:.4f}"
                    ),
                )

            result = run_evolution(config, show, stop=stop)
            progress.update(task, total=result.generations)

    files: dict[str, str] = {}
    if out is not None:
        from pokerlab.evolve.run_files import save_run
        from pokerlab.io.interrupts import shield_sigint

        started = time.time()
        with shield_sigint(str(out)):  # a Ctrl-C now waits for the files; animations skipped
            files = save_run(result, out, gif=not no_gif and not stop.requested)
        written = {str(Path(p)) for p in files.values()}
        for entry in sorted(Path(out).iterdir()):  # every file, several per kind included
            if (
                entry.is_file()
                and not entry.name.startswith(".")
                and entry.stat().st_mtime >= started - 1
            ):
                written.add(str(entry))
        say = _err if as_json else (lambda m: console.print(m, highlight=False, markup=False))
        for path in sorted(written):
            say(f"wrote {path}")
    return result, files


def _err(message: str) -> None:
    Console(stderr=True, soft_wrap=True).print(message, highlight=False, markup=False)


def _print_result(result: Any, config: Any) -> None:
    judgement = result.judgement
    partial = " - interrupted: partial result" if result.interrupted else ""
    console.print(
        f"{result.generations} generations in {result.seconds:.2f} s ({result.stop_reason})"
        + partial
    )
    console.print(
        f"best player: {_describe(result)}  shove {judgement.shove_fraction:.1%}, "
        f"call {judgement.call_fraction:.1%} "
        f"(CFR equilibrium {result.equilibrium_shove_fraction:.1%} / "
        f"{result.equilibrium_call_fraction:.1%})"
    )
    console.print(
        f"performance {result.best_performance_bb:+.4f} bb/hand "
        f"(exact {result.best_exact_performance_bb:+.4f}); "
        f"exploitability {judgement.exploitability_bb:.4f} bb/hand; "
        f"EV vs equilibrium {judgement.ev_vs_equilibrium_bb:+.4f} bb/hand"
    )
    if result.best_response_value_bb is not None:
        console.print(
            f"the exact best response to {config.opponent} wins "
            f"{result.best_response_value_bb:+.4f} bb/hand"
        )
    from pokerlab.cli.render import evolved_table_grids
    from pokerlab.evolve.players import MAX_STACK_CELL

    for grid in evolved_table_grids(config.players, result.best_genes, MAX_STACK_CELL):
        console.print(grid)


def _describe(result: object) -> str:
    best = result.best  # type: ignore[attr-defined]
    if "r" in best:
        return f"r = {best['r']:.3f}, c = {best['c']:.3f}"
    return "13x13 tables (below)"
