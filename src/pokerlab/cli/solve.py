"""``pokerlab solve`` and ``pokerlab show``: solve a game, inspect a strategy file."""

from __future__ import annotations

import math
import signal
import time
from pathlib import Path

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pokerlab.cli.app import app
from pokerlab.cli.render import console, print_json, strategy_table
from pokerlab.errors import PokerlabError
from pokerlab.evaluate import expected_values
from pokerlab.games.registry import game_names, load_game
from pokerlab.io.files import (
    load_checkpoint,
    load_strategy,
    read_metadata,
    save_checkpoint,
    save_strategy,
)
from pokerlab.solvers.base import Progress as SolveProgress
from pokerlab.solvers.base import Solver
from pokerlab.solvers.factory import ALGORITHMS, make_solver, restore_solver
from pokerlab.solvers.mccfr import MCCFRSolver
from pokerlab.solvers.metrics import JsonLinesLog


def _checkpoint_path(out: Path | None, game: str, algorithm: str) -> Path:
    if out is not None:
        return out.with_name(out.name.removesuffix(".npz") + ".ckpt.npz")
    return Path(f"{game}-{algorithm.replace('+', 'plus')}.ckpt.npz")


@app.command()
def solve(
    game: str = typer.Argument(..., help=f"Game to solve: {', '.join(game_names())}."),
    algorithm: str = typer.Option(
        "dcfr", "--algorithm", "-a", help=f"One of: {', '.join(ALGORITHMS)}."
    ),
    players: int | None = typer.Option(None, help="Number of players (Kuhn: 2 or more)."),
    iterations: int | None = typer.Option(None, "--iterations", "-n", help="Iteration limit."),
    target_exploitability: float | None = typer.Option(
        None, "--target-exploitability", "-t", help="Stop at this exploitability (game units)."
    ),
    seconds: float | None = typer.Option(None, help="Stop after this much solving time."),
    check_every: int | None = typer.Option(
        None, help="Measure exploitability every N iterations (default 10; MCCFR 10,000)."
    ),
    checkpoint_every: int | None = typer.Option(
        None, help="Write a checkpoint every N iterations (and on Ctrl-C)."
    ),
    checkpoint_seconds: float | None = typer.Option(
        None, help="Write a checkpoint every S seconds of wall time (checked at each report)."
    ),
    checkpoint: Path | None = typer.Option(
        None, help="Checkpoint file (default: next to --out, or GAME-ALGORITHM.ckpt.npz)."
    ),
    out: Path | None = typer.Option(None, "--out", "-o", help="Save the average strategy here."),
    resume: Path | None = typer.Option(None, help="Resume from this checkpoint file."),
    log: Path | None = typer.Option(
        None, "--log", help="Append metrics as JSON lines (iteration, nodes, seconds, expl)."
    ),
    simultaneous: bool = typer.Option(False, help="Simultaneous instead of alternating updates."),
    prune: bool | None = typer.Option(
        None,
        "--prune/--no-prune",
        help="Full width: zero-reach pruning (default on). MCCFR: Pluribus' regret-based "
        "pruning (default off).",
    ),
    prune_threshold: float | None = typer.Option(
        None, help="MCCFR: prune actions with regret below this (game units)."
    ),
    prune_probability: float = typer.Option(0.95, help="MCCFR: share of traversals that prune."),
    linear_until: int | None = typer.Option(
        None, help="Discount only during the first N iterations (Pluribus), then plain CFR."
    ),
    linear_seconds: float | None = typer.Option(
        None, help="MCCFR: Linear CFR for this much solving time, then plain CFR."
    ),
    discount_every: int = typer.Option(100, help="MCCFR: apply the discount every N iterations."),
    epsilon: float = typer.Option(0.6, help="Outcome sampling: exploration probability."),
    seed: int = typer.Option(0, help="MCCFR: random seed (same seed, same result)."),
    max_rows: int = typer.Option(60, help="Strategy rows to print (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """Solve GAME with a CFR-family algorithm; print the strategy and its exploitability."""
    no_limit = iterations is None and target_exploitability is None and seconds is None
    params = {} if players is None else {"players": players}
    if resume is not None:
        state = load_checkpoint(resume)
        if state["game"] != game.lower() or (params and state["game_params"] != params):
            raise PokerlabError(
                f"checkpoint {str(resume)!r} is for game {state['game']!r} "
                f"{state['game_params']}, not {game!r}"
            )
        solver: Solver = restore_solver(state)
        algorithm = solver.algorithm
    else:
        the_game = load_game(game, **params)
        solver = make_solver(
            the_game,
            algorithm,
            alternating=not simultaneous,
            prune=prune,
            linear_until=linear_until,
            seed=seed,
            epsilon=epsilon,
            prune_threshold=prune_threshold,
            prune_probability=prune_probability,
            discount_every=discount_every,
            linear_seconds=linear_seconds,
        )
        algorithm = solver.algorithm
    if no_limit:  # sampling solvers converge like 1/sqrt(T): a looser default target
        target_exploitability = 1e-2 if isinstance(solver, MCCFRSolver) else 1e-3
    solver_seed = getattr(solver, "seed", None)
    ckpt_path = checkpoint or _checkpoint_path(out, solver.game.name, algorithm)
    two_player = solver.compiled.num_players == 2 and solver.game.zero_sum
    if not two_player and target_exploitability is not None:
        raise PokerlabError(
            "exploitability is defined for two-player zero-sum games; use --iterations/--seconds"
        )
    every = check_every or solver.default_check_every()
    if checkpoint_every is not None:
        every = min(every, checkpoint_every)
    last_saved = [solver.iterations, time.perf_counter()]
    wall_start = time.perf_counter()
    saving = checkpoint_every is not None or checkpoint_seconds is not None

    def save_ckpt() -> None:
        save_checkpoint(ckpt_path, solver.state_dict(), seed=solver_seed)
        last_saved[0] = solver.iterations
        last_saved[1] = time.perf_counter()

    metrics = None
    if log is not None:
        metrics = JsonLinesLog(
            log,
            append=resume is not None,
            game=solver.game.name,
            algorithm=algorithm,
            seed=solver_seed,
        )

    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("iter {task.fields[it]}"),
        TextColumn("expl {task.fields[expl]}"),
        TimeElapsedColumn(),
        console=console,
        disable=as_json,
        transient=False,
    )
    total = iterations if iterations is not None else None
    interrupted = [False]

    def on_progress(p: SolveProgress) -> bool:
        if metrics is not None:
            metrics(p)
        due_iterations = checkpoint_every and p.iterations - last_saved[0] >= checkpoint_every
        due_seconds = (
            checkpoint_seconds and time.perf_counter() - last_saved[1] >= checkpoint_seconds
        )
        if due_iterations or due_seconds:
            save_ckpt()
        expl = "-" if math.isnan(p.exploitability) else f"{p.exploitability:.3g}"
        bar.update(task, completed=p.iterations - start_iterations, it=p.iterations, expl=expl)
        return interrupted[0]

    def on_sigint(signum: int, frame: object) -> None:
        # First Ctrl-C: stop at the end of the current chunk of iterations, with the solver in a
        # consistent state; a second one interrupts at once.
        interrupted[0] = True
        signal.signal(signal.SIGINT, signal.default_int_handler)

    start_iterations = solver.iterations
    previous_handler = signal.signal(signal.SIGINT, on_sigint)
    try:
        with bar:
            task = bar.add_task(f"{solver.game.name} {algorithm}", total=total, it=0, expl="-")
            result = solver.solve(
                iterations=iterations,
                target_exploitability=target_exploitability,
                seconds=seconds,
                callback=on_progress,
                check_every=every,
            )
    finally:
        signal.signal(signal.SIGINT, previous_handler)
        if metrics is not None:
            metrics.close()
    if interrupted[0]:
        save_ckpt()
        console.print(
            f"interrupted: checkpoint saved to {ckpt_path} at iteration "
            f"{solver.iterations}; resume with --resume {ckpt_path}"
        )
        raise SystemExit(130)  # typer.Exit(130) would be returned, not raised, by main()
    if saving:
        save_ckpt()
    strategy = solver.average_strategy()
    values = expected_values(solver.compiled, strategy)
    if out is not None:
        save_strategy(
            out,
            strategy,
            algorithm=algorithm,
            iterations=solver.iterations,
            exploitability=result.exploitability,
            seed=solver_seed,
        )
    summary = {
        "game": solver.game.name,
        "game_params": dict(solver.game.params),
        "algorithm": algorithm,
        "iterations": solver.iterations,
        "seconds": solver.seconds,
        "wall_seconds": time.perf_counter() - wall_start,
        "exploitability": result.exploitability,
        "game_value": float(values[0]),
        "values": [float(v) for v in values],
        "nodes_touched": solver.nodes_touched,
        "seed": solver_seed,
        "out": str(out) if out else None,
        "checkpoint": str(ckpt_path) if saving else None,
        "log": str(log) if log else None,
    }
    if as_json:
        print_json(summary)
        return
    table, left_out = strategy_table(strategy, max_rows=max_rows, title="average strategy")
    console.print(table)
    if left_out:
        console.print(
            f"... {left_out} more information sets (--max-rows 0 prints all"
            + (f"; or pokerlab show {out})" if out else ")")
        )
    expl = "n/a" if math.isnan(result.exploitability) else f"{result.exploitability:.3g}"
    console.print(
        f"[bold]{solver.game.name}[/] {algorithm}: {solver.iterations} iterations in "
        f"{solver.seconds:.3f} s, {solver.nodes_touched:,} nodes touched, exploitability {expl}, "
        f"game value (player 0) {values[0]:.5f}"
    )
    if out:
        console.print(f"strategy saved to {out}")


@app.command()
def show(
    file: Path = typer.Argument(..., help="A strategy file written by `pokerlab solve --out`."),
    contains: str | None = typer.Option(
        None, help="Only information sets whose key contains this."
    ),
    max_rows: int = typer.Option(0, help="Rows to print (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Print a saved strategy: information sets and action probabilities."""
    meta = read_metadata(file)
    if meta.get("format") != "pokerlab-strategy":
        raise PokerlabError(f"{str(file)!r} is a checkpoint, not a strategy file")
    strategy = load_strategy(file)
    if as_json:
        table = {k: v for k, v in strategy.items() if not contains or contains in k}
        print_json({"metadata": meta, "strategy": table})
        return
    table, left_out = strategy_table(
        strategy,
        contains=contains,
        max_rows=max_rows,
        title=f"{meta['game']} {meta.get('algorithm', '')}",
    )
    console.print(table)
    if left_out:
        console.print(f"... {left_out} more")
    extra = {k: meta[k] for k in ("iterations", "exploitability", "created") if k in meta}
    console.print(", ".join(f"{k}: {v}" for k, v in extra.items()))


# `pokerlab compare` lives next door; importing it registers the command (kept out of main.py).
from pokerlab.cli import compare as _compare  # noqa: E402,F401  isort: skip
