"""``pokerlab solve``: solve a game (``pokerlab show`` is in :mod:`pokerlab.cli.show`)."""

from __future__ import annotations

import math
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pokerlab.cli.app import app
from pokerlab.cli.render import console, print_json, strategy_table
from pokerlab.errors import PokerlabError
from pokerlab.evaluate import expected_values
from pokerlab.games.registry import game_names, load_game
from pokerlab.solvers.base import Progress as SolveProgress
from pokerlab.solvers.base import Solver
from pokerlab.solvers.factory import ALGORITHMS, SAMPLING, make_solver


def _checkpoint_path(out: Path | None, game: str, algorithm: str) -> Path:
    if out is not None:
        return out.with_name(out.name.removesuffix(".npz") + ".ckpt.npz")
    return Path(f"{game}-{algorithm.replace('+', 'plus')}.ckpt.npz")


def _err(message: str) -> None:
    Console(stderr=True, soft_wrap=True).print(message, highlight=False, markup=False)


def _has_option(option: str) -> bool:
    import inspect

    return option in inspect.signature(make_solver).parameters


def _sampling_name(algorithm: str) -> bool:
    from pokerlab.solvers.resume import canonical_algorithm

    return canonical_algorithm(algorithm) in SAMPLING


@app.command()
def solve(
    game: str = typer.Argument(..., help=f"Game to solve: {', '.join(game_names())}."),
    algorithm: str | None = typer.Option(
        None,
        "--algorithm",
        "-a",
        help=f"One of: {', '.join(ALGORITHMS)} (default dcfr; with --resume: the checkpoint's).",
    ),
    players: int | None = typer.Option(None, help="Number of players (Kuhn: 2 or more)."),
    iterations: int | None = typer.Option(
        None,
        "--iterations",
        "-n",
        min=1,
        help="Stop at this many iterations in total; with --resume the checkpoint's iterations "
        "count, so the same -n gives the same run.",
    ),
    target_exploitability: float | None = typer.Option(
        None, "--target-exploitability", "-t", help="Stop at this exploitability (game units)."
    ),
    seconds: float | None = typer.Option(
        None, help="Stop after this much solving time in this run."
    ),
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
        None,
        help="Checkpoint file (default: the --resume file, else next to --out, else "
        "GAME-ALGORITHM.ckpt.npz).",
    ),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Save the average strategy here (also on Ctrl-C, marked partial)."
    ),
    resume: Path | None = typer.Option(
        None, help="Resume from this checkpoint file and save back to it (unless --checkpoint)."
    ),
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
    prune_probability: float | None = typer.Option(
        None, help="MCCFR: share of traversals that prune (default 0.95)."
    ),
    linear_until: int | None = typer.Option(
        None, help="Discount only during the first N iterations (Pluribus), then plain CFR."
    ),
    linear_seconds: float | None = typer.Option(
        None, help="MCCFR: Linear CFR for this much solving time, then plain CFR."
    ),
    horizon: int | None = typer.Option(
        None, help="hs-pcfr+, hs-dcfr: iterations over which the schedule moves (default 1000)."
    ),
    discount_every: int | None = typer.Option(
        None, help="MCCFR: apply the discount every N iterations (default 100)."
    ),
    epsilon: float | None = typer.Option(
        None, help="Outcome sampling: exploration probability (default 0.6)."
    ),
    seed: int | None = typer.Option(
        None, help="MCCFR: random seed (default 0; same seed, same result)."
    ),
    max_rows: int = typer.Option(60, help="Strategy rows to print (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """Solve GAME with a CFR-family algorithm; print the strategy and its exploitability.

    Without -n, -t or --seconds: target exploitability 1e-3 (MCCFR 1e-2) in two-player zero-sum
    games, else 10,000 iterations (MCCFR 1,000,000). A run ends at the first limit met.
    Exit codes: 0 done; 2 bad input (nothing solved); 3 a limit ended the run before the target
    exploitability was reached (results written, marked partial); 130 Ctrl-C (checkpoint and
    --out written, marked partial).
    """
    from pokerlab.io.paths import check_new_checkpoint, check_output_file, same_file, unused_path
    from pokerlab.solvers.guards import check_history_tree_size
    from pokerlab.solvers.resume import resume_solver
    from pokerlab.solvers.run import TrainingRun
    from pokerlab.solvers.stopping import default_limits

    if checkpoint_every is not None and checkpoint_every < 1:
        raise PokerlabError(f"--checkpoint-every must be >= 1, got {checkpoint_every}")
    if check_every is not None and check_every < 1:
        raise PokerlabError(f"--check-every must be >= 1, got {check_every}")
    if checkpoint_seconds is not None and not checkpoint_seconds > 0:
        raise PokerlabError(f"--checkpoint-seconds must be > 0, got {checkpoint_seconds}")
    for option, path in (("--out", out), ("--log", log)):
        if path is not None:
            check_output_file(path, option)
    if checkpoint is not None:  # another run's checkpoint is never written over
        if same_file(checkpoint, resume):
            check_output_file(checkpoint, "--checkpoint")
        else:
            check_new_checkpoint(checkpoint, "--checkpoint")
    params = {} if players is None else {"players": players}
    options: dict[str, object] = {
        "prune": prune,
        "linear_until": linear_until,
        "seed": seed,
        "epsilon": epsilon,
        "prune_threshold": prune_threshold,
        "prune_probability": prune_probability,
        "discount_every": discount_every,
        "linear_seconds": linear_seconds,
        "horizon": horizon,
    }
    given = {k: v for k, v in options.items() if v is not None}
    if simultaneous:
        given["alternating"] = False
    solver: Solver
    if resume is not None:
        fixed = [k for k in given if k != "seed"]
        if fixed:
            flags = ", ".join(
                "--" + ("simultaneous" if k == "alternating" else k.replace("_", "-"))
                for k in fixed
            )
            raise PokerlabError(
                f"{flags}: a resumed run keeps the settings of checkpoint {str(resume)!r}; "
                "leave these options out"
            )
        solver = resume_solver(
            resume, game_name=game, game_params=params, algorithm=algorithm, seed=seed
        )
    else:
        the_game = load_game(game, **params)
        name = algorithm or "dcfr"
        if _sampling_name(name) or the_game.public_tree() is None:
            check_history_tree_size(
                the_game,
                name,
                advice="use a full-width solver on its public tree (-a dcfr, dcfr+, cfr+, ...)"
                + (" or pokerlab pushfold" if the_game.name == "pushfold" else ""),
            )
        if _sampling_name(name) and "prune" in given and _has_option("regret_pruning"):
            given["regret_pruning"] = given.pop("prune")  # --prune of MCCFR: regret-based
        solver = make_solver(the_game, name, **given)  # type: ignore[arg-type]
    algorithm = solver.algorithm
    limits: dict[str, float | int | None] = {
        "iterations": iterations,
        "target_exploitability": target_exploitability,
        "seconds": seconds,
    }
    if all(v is None for v in limits.values()):
        limits.update(default_limits(solver))
    solver_seed = getattr(solver, "seed", None)
    saving = any(x is not None for x in (checkpoint_every, checkpoint_seconds, checkpoint, resume))
    ckpt_path: Path | None = checkpoint or resume
    if ckpt_path is None:  # a name made from --out's: never over an earlier run's file
        derived = _checkpoint_path(out, solver.game.name, algorithm)
        ckpt_path = check_new_checkpoint(derived) if saving else unused_path(derived)
    try:
        check_output_file(ckpt_path, "--checkpoint")
    except PokerlabError:
        if saving:
            raise
        ckpt_path = None  # only a Ctrl-C would have written it: run without
    wall_start = time.perf_counter()
    say = _err if as_json else (lambda m: console.print(m, highlight=False, markup=False))

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
    start_iterations = solver.iterations
    total = limits["iterations"]
    task = None

    def on_report(p: SolveProgress) -> bool:
        expl = "-" if math.isnan(p.exploitability) else f"{p.exploitability:.3g}"
        if task is not None:
            bar.update(task, completed=p.iterations - start_iterations, it=p.iterations, expl=expl)
        return False

    training = TrainingRun(
        solver,
        iterations=limits["iterations"],  # type: ignore[arg-type]
        target_exploitability=limits["target_exploitability"],
        seconds=limits["seconds"],
        check_every=check_every,
        checkpoint=ckpt_path,
        checkpoint_every=checkpoint_every,
        checkpoint_seconds=checkpoint_seconds,
        checkpoint_at_end=saving,
        checkpoint_metadata={"seed": solver_seed},
        out=out,
        out_metadata={"seed": solver_seed},
        log=log,
        log_fields={"game": solver.game.name, "algorithm": algorithm, "seed": solver_seed},
        on_report=on_report,
        on_write=lambda path, kind: say(f"wrote {path}"),
    )
    with bar:
        task = bar.add_task(
            f"{solver.game.name} {algorithm}",
            total=None if total is None else max(0, int(total) - start_iterations),
            it=solver.iterations,
            expl="-",
        )
        result = training.run()
    strategy = solver.average_strategy()
    values = expected_values(solver.compiled, strategy)
    summary = {
        "game": solver.game.name,
        "game_params": dict(solver.game.params),
        "algorithm": algorithm,
        "status": result.status,
        "partial": result.partial,
        "stop_reason": result.stop_reason,
        "iterations": solver.iterations,
        "seconds": solver.seconds,
        "wall_seconds": time.perf_counter() - wall_start,
        "exploitability": result.exploitability,
        "target_exploitability": result.target_exploitability,
        "game_value": float(values[0]),
        "values": [float(v) for v in values],
        "nodes_touched": solver.nodes_touched,
        "seed": solver_seed,
        "out": str(out) if out else None,
        "checkpoint": str(ckpt_path) if ckpt_path in result.files else None,
        "log": str(log) if log else None,
        "files": [str(p) for p in result.files],
    }
    if result.status == "interrupted":
        if as_json:
            print_json(summary)
        say(
            f"interrupted at iteration {solver.iterations}: checkpoint {ckpt_path}; "
            f"resume with --resume {ckpt_path}"
            if ckpt_path is not None
            else f"interrupted at iteration {solver.iterations} (no checkpoint: its folder "
            "is not writable)"
        )
        raise SystemExit(result.exit_code)  # typer.Exit would be returned, not raised, by main()
    if as_json:
        print_json(summary)
    else:
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
            f"{solver.seconds:.3f} s, {solver.nodes_touched:,} nodes touched, exploitability "
            f"{expl}, game value (player 0) {values[0]:.5f}",
            soft_wrap=True,  # one line whatever the width (piped output is read by scripts)
        )
    if result.status == "target not reached":
        _err(
            f"warning: target exploitability {result.target_exploitability:g} not reached "
            f"(exploitability {result.exploitability:.4g} after {solver.iterations} iterations; "
            f"stopped at {result.stop_reason}); exit code {result.exit_code}"
        )
        raise SystemExit(result.exit_code)


# `pokerlab compare` lives next door; importing it registers the command (kept out of main.py).
from pokerlab.cli import compare as _compare  # noqa: E402,F401  isort: skip
