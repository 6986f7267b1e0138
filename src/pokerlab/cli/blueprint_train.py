"""``pokerlab blueprint train CONFIG``: train a no-limit hold'em blueprint (issue 24).

CONFIG is a built-in configuration (``hunl-100``, ``acpc-hunl``, ``6max-100``, ``fcpa``) or a
``.toml`` file (:mod:`pokerlab.games.nolimit.config`). The card abstraction is built (or read
from the cache) for the configuration's deck and ``buckets`` (``--buckets`` overrides them;
``--bucketing lossless``: one bucket per suit-isomorphism class, small decks), then
:class:`~pokerlab.solvers.blueprint.BlueprintSolver` runs external-sampling MCCFR through a
:class:`~pokerlab.solvers.run.TrainingRun` for ``--iterations`` (in all, a resumed checkpoint's
included) or ``--seconds``: the checkpoint is written at the end, every ``--checkpoint-every``
iterations and on Ctrl-C (exit 130; ``--resume`` continues it exactly), ``--log`` appends one
JSON line per block, a progress bar on a terminal shows iterations per second. ``--json`` prints
one object: ``iterations``, ``seconds`` (this run's), ``iterations_per_second``,
``infoset_actions``, ``bytes`` (the regrets, 4 a regret as float32 or ``--regrets int32``, and the
sums; with ``--lazy`` the index and the row pools as allocated), ``reached`` (the fraction of the
entries whose rows were reached: 1 without ``--lazy``), ``workers`` (1: one thread), ``ray`` and
the run's ``status``.

``--threads K`` trains on K threads, ``--ray [--address A] --workers W`` on W Ray actors, both
in synchronous batches of ``--batch`` iterations per worker
(:mod:`pokerlab.solvers.batched`: deterministic for a seed and worker count, one worker equal to
the serial run); a checkpoint resumes with the same workers and batch. ``--lazy`` allocates each
(node, state) row when a traversal first reaches it (:mod:`pokerlab.solvers.lazy_rows`: the same
numbers as the dense run, on threads and Ray workers too).

Registered on the ``blueprint`` command group: the group another module made, when one is
registered first, else its own.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pokerlab.cli.blueprint import blueprint_app, parse_counts
from pokerlab.errors import PokerlabError

__all__ = ["BATCH", "train_blueprint"]

#: Iterations per worker per batch with ``--threads K`` or ``--ray`` (and the discount block,
#: unless given: a batch ends at every discount boundary). Measured on hunl-100 (2 cores,
#: 2026-11-27, same run against one thread): batches of 1,000 gave 1.5x on threads and 1.0x on
#: Ray (the head's merge and Ray's round trip per batch), 20,000 gave 1.73-1.78x and 50,000
#: 1.80x on 2 Ray actors; a batch of 50,000 is about 0.3 s of a worker's time.
BATCH = 50_000


def train_blueprint(
    config: str = typer.Argument(..., metavar="CONFIG", help="built-in name or .toml file"),
    iterations: int | None = typer.Option(
        None, "--iterations", "-n", min=1, help="iterations in all (default 10,000)"
    ),
    seconds: float | None = typer.Option(None, "--seconds", min=0.0, help="solving seconds"),
    checkpoint: Path = typer.Option(..., "--checkpoint", help="checkpoint file (.npz)"),
    resume: bool = typer.Option(False, "--resume", help="continue from --checkpoint"),
    checkpoint_every: int | None = typer.Option(None, "--checkpoint-every", min=1),
    buckets: str | None = typer.Option(None, "--buckets", help="a,b,c,d (default: CONFIG's)"),
    bucketing: str = typer.Option("emd", "--bucketing", help="emd, ehs, ehs2 or lossless"),
    recall: str = typer.Option("imperfect", "--recall", help="imperfect or perfect"),
    averages: str | None = typer.Option(
        None, "--averages", help="all, preflop or none (default: CONFIG's)"
    ),
    linear_until: int | None = typer.Option(
        None, "--linear-until", min=0, help="discount (Linear CFR) up to this iteration"
    ),
    discount_every: int | None = typer.Option(
        None,
        "--discount-every",
        min=1,
        help="Linear CFR discount block (default 1000; with workers, the batch)",
    ),
    prune: bool = typer.Option(False, "--prune", help="Pluribus' regret-based pruning"),
    regrets: str = typer.Option(
        "float32", "--regrets", help="float32 or int32 (Pluribus' integer regrets)"
    ),
    snapshot_every: int | None = typer.Option(
        None, "--snapshot-every", min=1, help="snapshot the current strategy every N iterations"
    ),
    snapshot_after: int = typer.Option(0, "--snapshot-after", min=0, help="first after N"),
    lazy: bool = typer.Option(False, "--lazy", help="allocate rows when first reached (Pluribus)"),
    seed: int = typer.Option(0, "--seed", min=0),
    threads: int = typer.Option(1, "--threads", min=1, help="workers on threads (batched)"),
    use_ray: bool = typer.Option(
        False, "--ray", help="workers as Ray actors (local unless --address)"
    ),
    address: str | None = typer.Option(None, "--address", help="Ray cluster (implies --ray)"),
    workers: int | None = typer.Option(None, "--workers", min=1, help="Ray actors (default 2)"),
    batch: int | None = typer.Option(
        None, "--batch", min=1, help=f"iterations per worker per batch (default {BATCH:,})"
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="neither read nor write tables"),
    log: Path | None = typer.Option(None, "--log", help="append JSON lines (one per block)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Train a no-limit hold'em blueprint (external-sampling MCCFR, Pluribus' options)."""
    from pokerlab.abstraction.buckets import METHODS
    from pokerlab.games.registry import load_game
    from pokerlab.io.files import load_checkpoint
    from pokerlab.io.paths import check_input_file, check_new_checkpoint, check_output_file
    from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction
    from pokerlab.solvers.run import TrainingRun

    if seconds is not None and not (math.isfinite(seconds) and seconds > 0):
        raise PokerlabError(f"--seconds must be a finite number > 0, got {seconds}")
    if iterations is None and seconds is None:
        iterations = 10_000
    if regrets not in ("float32", "int32"):
        raise PokerlabError(f"--regrets: unknown {regrets!r}; known: float32, int32")
    if bucketing not in (*METHODS, "lossless"):
        raise PokerlabError(f"--bucketing: unknown {bucketing!r}; known: ehs, ehs2, emd, lossless")
    if resume:
        check_input_file(checkpoint, "--checkpoint")
    check_output_file(checkpoint, "--checkpoint")
    state = load_checkpoint(checkpoint) if resume else None
    if log is not None:
        check_output_file(log, "--log")
    use_ray = use_ray or address is not None
    if use_ray and threads > 1:
        raise PokerlabError("--threads with --ray: the Ray actors are the workers (--workers)")
    if workers is not None and not use_ray:
        raise PokerlabError("--workers counts Ray actors: add --ray (or use --threads)")
    if batch is not None and not use_ray and threads == 1:
        raise PokerlabError("--batch is the batch of --threads K > 1 or --ray workers")
    if use_ray:
        from pokerlab.distributed.ray_setup import check_address, import_ray

        import_ray()  # not installed: refused before any work
        if address is not None:
            check_address(address)
    game = load_game("nolimit-holdem", config=config)
    lossless = None
    if bucketing == "lossless":
        if buckets is not None:
            raise PokerlabError("--buckets with --bucketing lossless: lossless counts every class")
        if game.rules.ranks > 4:
            raise PokerlabError("--bucketing lossless is for decks of at most 16 cards")
        lossless = lossless_abstraction(game.rules.ranks)
        counts = tuple(lossless.buckets)
    else:
        counts = (
            tuple(parse_counts(buckets, "--buckets", 4, minimum=1))
            if buckets is not None
            else tuple(game.buckets)
        )
    info = game.summary(counts, averages)  # the size, refused before the tables
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    _check_fits(info, lazy, err)
    if not resume:  # after the options' checks, before the tables: never over another run
        check_new_checkpoint(checkpoint, "--checkpoint", "--resume")
    show = not as_json and sys.stderr.isatty()
    if lossless is not None:
        abstraction = lossless
    else:
        if game.rules.ranks == 13:
            from pokerlab.abstraction.store import cache_dir, load_tables
            from pokerlab.abstraction.strength import estimate_seconds

            cached = not no_cache and (
                load_tables(cache_dir() / "strength-r13.npz", kind="strength", ranks=13) is not None
            )
            if not cached:
                minutes = estimate_seconds(13)["total"] / 60
                err.print(
                    f"building the full deck's tables: about {minutes:.0f} min of hand strength, "
                    "then the buckets (EMD: about 16 min in all on 2 cores)"
                )
        abstraction = game.card_abstraction(
            bucketing, buckets=counts, seed=seed, cache=not no_cache
        ).abstraction
    batch, discount_every = _batching(batch, discount_every, use_ray or threads > 1, state)
    options: dict[str, Any] = {}
    cls: Any = BlueprintSolver
    if use_ray:
        from pokerlab.distributed.limit_mccfr_ray import RayBlueprintSolver

        cls = RayBlueprintSolver
        options = {"workers": workers or 2, "batch": batch, "address": address}
    elif threads > 1:
        from pokerlab.solvers.batched import ThreadedBlueprintSolver

        cls = ThreadedBlueprintSolver
        options = {"workers": threads, "batch": batch}
    solver = cls(
        game,
        abstraction,
        **options,
        recall=recall,
        averages=averages,
        linear_until=linear_until,
        seed=seed,
        discount_every=discount_every,
        regret_pruning=prune,
        regrets=regrets,
        snapshot_every=snapshot_every,
        snapshot_after=snapshot_after,
        **({"lazy": True} if lazy else {}),
    )
    if state is not None:
        solver.load_state_dict(state)
    start_iterations, start_seconds = solver.iterations, solver.seconds
    bar = Progress(
        TextColumn("[bold]blueprint"),
        BarColumn(),
        TextColumn("iter {task.completed:,.0f}"),
        TextColumn("{task.fields[rate]} it/s"),
        TimeElapsedColumn(),
        console=err,
        disable=not show,
    )
    task = bar.add_task("train", total=iterations, completed=solver.iterations, rate="-")

    def on_report(progress: Any) -> bool:
        done = solver.iterations - start_iterations
        spent = solver.seconds - start_seconds
        rate = f"{done / spent:,.0f}" if spent > 0 else "-"
        bar.update(task, completed=progress.iterations, rate=rate)
        return False

    # (not "config": a checkpoint's metadata sits beside the state's own "config")
    meta = {"game": "nolimit-holdem", "configuration": str(config), "seed": seed}
    training = TrainingRun(
        solver,
        iterations=iterations,
        seconds=seconds,
        checkpoint=checkpoint,
        checkpoint_every=checkpoint_every,
        checkpoint_metadata=meta,
        log=log,
        log_fields={**meta, "algorithm": solver.algorithm},
        measure=lambda s: math.nan,  # no exact exploitability of the full game here
        on_report=on_report,
        on_write=lambda path, kind: err.print(f"wrote {path}", markup=False),
    )
    try:
        with bar:
            result = training.run()
    finally:
        getattr(solver, "close", lambda: None)()
    done = solver.iterations - start_iterations
    spent = solver.seconds - start_seconds
    if result.status == "interrupted":
        err.print(
            f"interrupted at iteration {solver.iterations}: checkpoint {checkpoint}; resume with "
            f"--resume",
            markup=False,
        )
        raise SystemExit(result.exit_code)
    out = {
        "iterations": solver.iterations,
        "iterations_this_run": done,
        "seconds": spent,
        "iterations_per_second": done / spent if spent > 0 else None,
        "infoset_actions": solver.size,
        "bytes": solver.storage_bytes,
        "reached": solver.pool.fraction_reached if getattr(solver, "pool", None) else 1.0,
        "workers": getattr(solver, "workers", 1),
        "ray": use_ray,
        "status": result.status,
    }
    if as_json:
        print(json.dumps(out))
    else:
        rate = out["iterations_per_second"]
        print(
            f"{solver.iterations:,} iterations ({done:,} this run, {spent:.1f} s, "
            f"{rate or 0:,.0f} it/s); {solver.size:,} information-set actions, "
            f"{out['bytes']:,} bytes"
        )


blueprint_app.command("train")(train_blueprint)


def _check_fits(info: dict[str, Any], lazy: bool, err: Console) -> None:
    """Refuse a dense game whose rows will not fit this machine's free memory; with ``--lazy``
    only the row index is dense (8 bytes per information set at most), so the dense size is a
    bound that a run reaching a fraction of the rows may stay far below: said, not refused."""
    from pokerlab._system import memory_available_or_physical
    from pokerlab.games.nolimit.size import check_fits, format_bytes

    if not lazy:
        check_fits(info["bytes"])
        return
    available = memory_available_or_physical()
    index = 8 * sum(int(n) for n in info["infosets"].values())
    if available is not None and index > available:
        raise PokerlabError(
            f"--lazy: the row index alone needs {format_bytes(index)}, more than the "
            f"{format_bytes(available)} available; use fewer sizes or fewer buckets"
        )
    if available is not None and info["bytes"] > available:
        err.print(
            f"--lazy: the dense game would need {format_bytes(info['bytes'])}, more than the "
            f"{format_bytes(available)} available; rows are allocated as traversals reach "
            "them, so the run goes on until the reached rows outgrow the memory"
        )


def _batching(
    batch: int | None, discount_every: int | None, batched: bool, state: dict[str, Any] | None
) -> tuple[int, int]:
    """The batch (per worker) and the discount block of a run: the options given; else, resuming,
    the checkpoint's (a run resumes with its own); else :data:`BATCH` for both with workers, and
    a block of 1000 for one thread (the batch is then unused)."""
    if state is not None:
        config = state.get("config") if isinstance(state.get("config"), dict) else {}
        extra = state.get("extra") if isinstance(state.get("extra"), dict) else {}
        if discount_every is None and isinstance(config.get("discount_every"), int):
            discount_every = config["discount_every"]
        if batch is None and isinstance(extra.get("batch"), int):
            batch = extra["batch"]
    if batch is None:
        batch = BATCH if batched else 1000
    if discount_every is None:
        discount_every = batch if batched else 1000
    return batch, discount_every
