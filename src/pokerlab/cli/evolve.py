"""``pokerlab evolve``: genetic search of push/fold strategies, judged against the equilibrium."""

from __future__ import annotations

from pathlib import Path

import typer

from pokerlab.cli.app import app
from pokerlab.cli.render import console, print_json
from pokerlab.errors import PokerlabError


@app.command()
def evolve(
    players: str = typer.Option("simple", help="Player type: simple, complex or variable."),
    mode: str = typer.Option("equilibrium", help="equilibrium (round robin) or adaptive."),
    opponent: str | None = typer.Option(
        None, help="Adaptive mode: the fixed opponent, e.g. '70/60', ranges or a file."
    ),
    population: int = typer.Option(20, "--population", "-p", help="Number of players."),
    stack: float | None = typer.Option(
        None, "--stack", "-s", help="Stack in big blinds (default 10; variable players: 1..10)."
    ),
    fitness: str = typer.Option("exact", help="exact (expected value) or simulated (hands)."),
    generations: int = typer.Option(2000, help="Generation cap."),
    patience: int = typer.Option(
        100, help="Stop after this many generations without a better best."
    ),
    p_cross: float = typer.Option(0.7, help="Crossover probability per pair."),
    p_mut: float | None = typer.Option(None, help="Mutation probability (default by player type)."),
    elite: int | None = typer.Option(None, help="Elite players kept (default 0 / 1 adaptive)."),
    hands: int = typer.Option(1000, help="Simulated fitness: hands per match."),
    matches: int = typer.Option(2, help="Simulated fitness: matches per pairing."),
    workers: int = typer.Option(0, help="Simulated fitness: processes (0 = one per core)."),
    seed: int = typer.Option(0, help="Random seed."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Folder for pictures and files."),
    no_gif: bool = typer.Option(False, "--no-gif", help="Skip the animations."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Evolve push/fold players by tournaments; judge the best exactly (exploitability, EV)."""
    from pokerlab.evolve.search import EvolutionConfig, GenerationRecord
    from pokerlab.evolve.search import evolve as run_evolution

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
    )
    if config.opponent:
        from pokerlab.analysis.pushfold import strategy_from_spec

        strategy_from_spec(config.opponent, config.game())  # a bad spec fails before the run

    if as_json:
        result = run_evolution(config)
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

            def show(record: GenerationRecord) -> None:
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

            result = run_evolution(config, show)
            progress.update(task, total=result.generations)

    files: dict[str, str] = {}
    if out is not None:
        from pokerlab.evolve.pictures import save_run

        files = save_run(result, out, gif=not no_gif)
    if as_json:
        data = result.to_dict(history=False)
        if files:
            data["files"] = files
        print_json(data)
        return
    judgement = result.judgement
    console.print(
        f"{result.generations} generations in {result.seconds:.2f} s ({result.stop_reason})"
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
    if files:
        console.print(
            f"files written to {out}: " + ", ".join(sorted(Path(f).name for f in files.values()))
        )


def _describe(result: object) -> str:
    best = result.best  # type: ignore[attr-defined]
    if "r" in best:
        return f"r = {best['r']:.3f}, c = {best['c']:.3f}"
    return "13x13 tables (see --out)"
