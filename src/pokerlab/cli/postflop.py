"""``pokerlab postflop``: solve a no-limit postflop spot and browse the solution.

``pokerlab postflop SPOT [OPTIONS]`` is short for ``pokerlab postflop solve SPOT [OPTIONS]``
(any first argument that is not a subcommand goes to ``solve``); ``pokerlab postflop show FILE
--line "bet 66, call"`` prints one node of a saved solution (:mod:`.postflop_show`).

``solve`` prints the tree summary (betting-tree nodes by street and kind, the dealt tree's size
and its memory) before anything large is allocated, refuses a tree too large for this machine's
memory with the estimate, solves with a progress bar on stderr (terminals only) and prints the
first player's root strategy as a 13x13 grid with both players' EVs and equities, or one JSON
object with ``--json`` (its ``seconds`` and ``solve_seconds``: time in iterations;
``check_seconds``: time in exploitability checks; ``wall_seconds``: all of it, tree included).
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pokerlab.analysis.postflop import spot_numbers
from pokerlab.cli.app import UsageErrorGroup, app, warn
from pokerlab.cli.postflop_options import (
    DEFAULT_MAX_ITERATIONS,
    DEFAULT_TARGET_PCT,
    canonical_postflop_algorithm,
    check_ray_options,
    parse_raise_limit,
    parse_target,
    ray_solver,
    spot_config,
)
from pokerlab.cli.render import console, print_json
from pokerlab.cli.render_postflop import (
    node_title,
    print_line,
    print_line_stderr,
    print_node_grid,
    print_spot_summary,
    range_table,
    say_compiling,
)
from pokerlab.errors import PokerlabError
from pokerlab.solvers.factory import make_solver

__all__ = ["DEFAULT_TARGET_PCT", "DEFAULT_MAX_ITERATIONS", "parse_target"]


class _DefaultSolveGroup(UsageErrorGroup):
    """A group whose first argument, when it is not a subcommand (or ``--help``), goes to
    ``solve``: ``pokerlab postflop turn`` runs ``pokerlab postflop solve turn``."""

    def missing_message(self) -> str:
        return "give a spot (e.g. pokerlab postflop turn) or a command; usage:"

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = ["solve", *args]
        return super().parse_args(ctx, args)


postflop_app = typer.Typer(
    cls=_DefaultSolveGroup,
    name="postflop",
    help="Solve a no-limit postflop spot (pokerlab postflop SPOT = pokerlab postflop solve "
    "SPOT) and show a node of a saved solution (pokerlab postflop show FILE --line ...).",
    no_args_is_help=True,
    add_completion=False,
)
app.add_typer(postflop_app, name="postflop")


@postflop_app.command("solve")
def solve(
    spot: str | None = typer.Argument(
        None,
        help="A built-in spot (river, turn, flop) or a spot file (.toml, .json; "
        "docs/postflop-spots.md); or give the spot with --board, --oop-range, ... instead.",
        show_default=False,
    ),
    board: str | None = typer.Option(None, help="Board cards, e.g. Td9d6hQc (3, 4 or 5)."),
    oop_range: str | None = typer.Option(None, help="Range of the player out of position."),
    ip_range: str | None = typer.Option(None, help="Range of the player in position."),
    pot: float | None = typer.Option(None, help="Starting pot, chips."),
    stack: float | None = typer.Option(None, help="Effective stack behind, chips."),
    bets: str | None = typer.Option(
        None, help='Bet sizes on every street, e.g. "33%, 75%, a" (default "50%").'
    ),
    raises: str | None = typer.Option(
        None, help='Raise sizes on every street, e.g. "60%, 2.5x, a" (default "a").'
    ),
    donks: str | None = typer.Option(None, help="OOP's donk-bet sizes (turn and river)."),
    rake_rate: float | None = typer.Option(None, help="Rake, a fraction of the pot in [0, 1)."),
    rake_cap: float | None = typer.Option(None, help="Rake cap, chips (default: no cap)."),
    deck: str | None = typer.Option(
        None,
        help="The deck: full (default), small (6 ranks, 9 to A), tiny (4), micro (3), or a "
        "number of top ranks from 2 to 13 (as nolimit-holdem's decks).",
        show_default=False,
    ),
    raise_limit: str | None = typer.Option(
        None,
        help='Most raises per street, or "none" for no limit as postflop-solver (default 3).',
    ),
    algorithm: str | None = typer.Option(
        None,
        "--algorithm",
        "-a",
        help="dcfr-ps (default), dcfr, cfr+, linear, cfr, pcfr+, dcfr+, pdcfr+, hs-pcfr+ or "
        "hs-dcfr (on --resume: the checkpoint's).",
        show_default=False,
    ),
    target: str | None = typer.Option(
        None,
        "--target",
        "-t",
        help=f"Stop at this exploitability, percent of the starting pot: 0.5% or 0.5 (default "
        f"{DEFAULT_TARGET_PCT:g}% when no other limit is given).",
        show_default=False,
    ),
    iterations: int | None = typer.Option(
        None,
        "--iterations",
        "-n",
        min=1,
        help=f"Stop after this many iterations (with a target: at most "
        f"{DEFAULT_MAX_ITERATIONS} unless given).",
    ),
    seconds: float | None = typer.Option(None, help="Stop after this much solving time."),
    threads: int = typer.Option(1, min=1, help="Threads (results do not depend on it)."),
    use_ray: bool = typer.Option(
        False, "--ray", help="Run the chance subtrees on Ray actors (the same results)."
    ),
    address: str | None = typer.Option(
        None, "--address", help="Ray cluster host:port (implies --ray; nodes need pokerlab)."
    ),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Ray actors (default 2)."),
    compressed: bool = typer.Option(
        False,
        "--compressed",
        help="16-bit storage: int16 regrets and uint16 strategy sums with a scale per node "
        "(half the memory).",
    ),
    average: str | None = typer.Option(
        None,
        "--average",
        help="Strategy sums: reach (times the own reach, the default) or plain (the current "
        "strategy as it is, as postflop-solver).",
    ),
    check_every: int = typer.Option(10, min=1, help="Measure exploitability every N iterations."),
    out: Path | None = typer.Option(
        None, "--out", "-o", help="Save the solution (reopen with pokerlab postflop show)."
    ),
    checkpoint: Path | None = typer.Option(
        None,
        "--checkpoint",
        help="Checkpoint file, written at the end and on Ctrl-C (without it, Ctrl-C writes "
        "OUT.ckpt.npz or postflop-ALGORITHM.ckpt.npz).",
    ),
    checkpoint_every: int | None = typer.Option(
        None, "--checkpoint-every", min=1, help="Also write the checkpoint every N iterations."
    ),
    resume: Path | None = typer.Option(
        None,
        "--resume",
        help="Continue from a checkpoint or a saved solution of the same spot (-n counts "
        "iterations in all; the result equals an uninterrupted run's).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead."),
) -> None:
    """Solve a postflop spot; print the first player's root strategy grid, EVs and equities.

    Without --target, --iterations or --seconds the run stops at exploitability 0.5% of the
    pot. Exit codes: 0 done; 2 bad input or a tree too large for this machine's memory (nothing
    solved); 3 a limit came before the target (results printed, --out marked partial); 130
    Ctrl-C (stops after the current chunk of iterations: the solution so far printed, the
    checkpoint and --out written, marked partial; a second Ctrl-C while writing waits for the
    files).
    """
    from pokerlab.games.postflop.game import PostflopGame, process_bytes_estimate
    from pokerlab.io.interrupts import shield_sigint, stop_on_sigint
    from pokerlab.io.paths import check_new_checkpoint, check_output_file, same_file, unused_path
    from pokerlab.solvers.postflop import save_spot_solution
    from pokerlab.solvers.run import TrainingRun

    name = canonical_postflop_algorithm(algorithm or "dcfr-ps")
    use_ray = check_ray_options(use_ray, address, workers, threads)  # before any work
    target_pct = parse_target(target) if target is not None else None
    if seconds is not None and not (seconds > 0 and math.isfinite(seconds)):
        raise PokerlabError(f"--seconds must be a number > 0, got {seconds}")
    if out is not None:
        check_output_file(out, "--out")
    if checkpoint_every is not None and checkpoint is None and resume is None:
        raise PokerlabError("--checkpoint-every needs --checkpoint (or --resume) to write to")
    state = None
    if resume is not None:
        from pokerlab.io.files import load_checkpoint
        from pokerlab.io.paths import check_input_file

        state = load_checkpoint(check_input_file(resume, "--resume"))
        if state.get("game") != "postflop":
            raise PokerlabError(f"--resume {str(resume)!r} is not a postflop checkpoint")
        if algorithm is not None and name != state.get("algorithm"):
            raise PokerlabError(
                f"--resume {str(resume)!r} was made by {state.get('algorithm')!r}; -a "
                f"{algorithm!r} conflicts (leave it out to resume)"
            )
        name = str(state.get("algorithm"))
    flags = {
        "board": board,
        "oop_range": oop_range,
        "ip_range": ip_range,
        "pot": pot,
        "stack": stack,
        "bets": bets,
        "raises": raises,
        "donks": donks,
        "rake_rate": rake_rate,
        "rake_cap": rake_cap,
        "deck": None if deck is None else (int(deck) if deck.strip().isdigit() else deck),
        "raise_limit": parse_raise_limit(raise_limit),
    }
    config, spot_name = spot_config(spot, flags)
    game = PostflopGame(config)
    summary = game.tree_summary()
    if not as_json:
        print_spot_summary(game, spot_name, summary, compressed)
    wall_start = time.perf_counter()
    if state is not None:
        if state.get("game_params") != game.params:
            raise PokerlabError(
                f"--resume {str(resume)!r} is a checkpoint of another spot (its spot: "
                f"{state.get('game_params')})"
            )
        compressed = bool((state.get("config") or {}).get("compressed"))
    # refuses a tree too large first
    game.check_memory(compressed=compressed)
    say_compiling()  # after the memory check, before anything compiles
    solver: Any = (
        ray_solver(game, name, address, workers, compressed, average)
        if use_ray
        else make_solver(game, name, threads=threads, compressed=compressed, average=average)
    )
    if state is not None:
        solver.load_state_dict(state)  # exact: the run continues as if never stopped
    ckpt_path = checkpoint or resume
    if ckpt_path is None:  # written only on Ctrl-C; skipped when it cannot be
        ckpt_path = unused_path(  # an earlier run's file under that name is kept
            out.with_name(out.name.removesuffix(".npz") + ".ckpt.npz")
            if out is not None
            else Path(f"postflop-{name.replace('+', 'plus')}.ckpt.npz")
        )
        try:
            check_output_file(ckpt_path, "--checkpoint")
        except PokerlabError:
            ckpt_path = None
    elif checkpoint is not None and not same_file(checkpoint, resume):
        check_new_checkpoint(checkpoint, "--checkpoint")  # never over another run's file
    else:
        check_output_file(ckpt_path, "--checkpoint")
    if target_pct is None and iterations is None and seconds is None:
        target_pct = DEFAULT_TARGET_PCT
    if target_pct is not None and iterations is None and seconds is None:
        iterations = DEFAULT_MAX_ITERATIONS
    pot_chips = float(config.pot)
    target_chips = None if target_pct is None else target_pct / 100.0 * pot_chips

    err = Console(stderr=True)
    show_bar = not as_json and err.is_terminal
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("iter {task.fields[it]}"),
        TextColumn("exploitability {task.fields[expl]}"),
        TimeElapsedColumn(),
        console=err,
        disable=not show_bar,
        transient=True,
    )
    task = bar.add_task(f"{spot_name} {name}", total=iterations, it=0, expl="-")

    # the solving loop's check (float32 best responses where the solver has them)
    check = getattr(solver, "check_exploitability", solver.exploitability)

    def measure(s: Any) -> float:
        # measured at every report only when something reads it (a target, the bar)
        return check() if target_chips is not None or show_bar else math.nan

    def on_report(p: Any) -> bool:
        expl = "-" if math.isnan(p.exploitability) else f"{100 * p.exploitability / pot_chips:.3f}%"
        bar.update(task, completed=p.iterations, it=p.iterations, expl=expl)
        return False

    say = print_line_stderr if as_json else print_line
    with stop_on_sigint() as stop:  # armed until every file is written
        training = TrainingRun(
            solver,
            iterations=iterations,
            target_exploitability=target_chips,
            seconds=seconds,
            check_every=check_every,
            measure=measure,
            on_report=on_report,
            checkpoint=ckpt_path,
            checkpoint_every=checkpoint_every,
            checkpoint_at_end=checkpoint is not None or resume is not None,
            on_write=lambda path, kind: say(f"wrote {path}"),
            stop=stop,
        )
        with bar:
            result = training.run()
        exploitability = result.exploitability
        check_seconds = result.check_seconds
        if math.isnan(exploitability):
            check_start = time.perf_counter()
            exploitability = check()
            check_seconds += time.perf_counter() - check_start
        numbers, root = spot_numbers(solver, exploitability)
        if out is not None:
            with shield_sigint(str(out)):
                save_spot_solution(
                    out,
                    solver,
                    status=result.status,
                    partial=result.partial,
                    exploitability=exploitability,
                    exploitability_pct=numbers["exploitability_pct"],
                )
        if use_ray:
            solver.close()  # the actors end (and the local Ray instance this run started)
    summary_json = {
        "spot": spot_name,
        "game_params": config.to_dict(),
        "algorithm": name,
        "threads": solver.threads,
        **({"ray_workers": solver.workers} if use_ray else {}),
        "status": result.status,
        "partial": result.partial,
        "stop_reason": result.stop_reason,
        "target_pct": target_pct,
        **numbers,
        "solve_seconds": solver.seconds,
        "check_seconds": check_seconds,
        "wall_seconds": time.perf_counter() - wall_start,
        "tree_upper_bound": {
            **summary["dealt_upper_bound"],
            "memory_bytes": summary["memory_upper_bound_bytes"] // (2 if compressed else 1),
            "process_bytes": process_bytes_estimate(
                summary["memory_upper_bound_bytes"] // (2 if compressed else 1)
            ),
        },
        "out": None if out is None else str(out),
    }
    if as_json:
        print_json(summary_json)
    else:
        if root.actions:
            print_node_grid(root, node_title(root, config, "at the root"))
        else:  # e.g. stack 0: nobody acts, the cards are shown down
            console.print(
                "no decision at the root: nothing behind to bet, the hand goes to showdown"
            )
        console.print(range_table(root))
        console.print(
            f"[bold]{spot_name}[/] {name}: {solver.iterations} iterations in "
            f"{solver.seconds:.2f} s of solving ({check_seconds:.2f} s more in exploitability "
            f"checks), exploitability {exploitability:.3g} chips = "
            f"{numbers['exploitability_pct']:.3f}% of the pot",
            highlight=False,
            soft_wrap=True,
        )
    if out is not None:  # announced on stderr with --json, as every command does
        (print_line_stderr if as_json else print_line)(f"wrote {out}")
    if result.status == "interrupted":
        print_line_stderr(
            f"interrupted at iteration {solver.iterations}: partial results"
            + (f" (saved in {out}, marked partial)" if out is not None else "")
            + (
                f"; resume with --resume {ckpt_path}"
                if ckpt_path is not None and ckpt_path in result.files
                else ""
            )
        )
        raise SystemExit(result.exit_code)
    if result.status == "target not reached":
        warn(
            f"target {target_pct:g}% of the pot not reached (exploitability "
            f"{numbers['exploitability_pct']:.3f}% after {solver.iterations} iterations; stopped "
            f"at {result.stop_reason}); exit code {result.exit_code}"
        )
        raise SystemExit(result.exit_code)
