"""``pokerlab train limit-holdem``: build a card abstraction and train on it (issue 10).

Builds (or reads from the cache) the exact E[HS] tables and the buckets of the chosen deck, with
a progress bar on a terminal (and, on the full deck, the estimated build time first), then runs
CFR with public chance sampling (:class:`~pokerlab.solvers.limit_holdem.LimitPCSSolver`;
``--boards B`` samples a batch of B boards per iteration, ``--workers N`` splits the tree over
threads or, with ``--ray``, Ray actors), with ``--sampling full`` the same CFR over every
suit-canonical board each iteration (no sampling; decks up to 16 cards, ``--variant micro`` or
``tiny``: ``chance="full"``), or with ``--sampling es``, external-sampling MCCFR
(:class:`~pokerlab.solvers.limit_mccfr.LimitESSolver`; ``--discount-every``, ``--prune``; on
Ray workers with ``--ray --workers N --batch K``,
:class:`~pokerlab.distributed.limit_mccfr_ray.RayLimitESSolver`) for ``--iterations`` or
``--seconds``. ``--log FILE`` appends one JSON line per block of iterations (``iterations``,
``seconds`` of training, ``algorithm``, and ``exploitability_abstract_mbb`` where the exact
abstract exploitability is measured by the S x S tables: decks below the full one, at most
8192 river bucket sequences, without ``--no-exploitability``; on the first and last block and
on others while measuring stays within half the training time; the viewer draws it as a
convergence curve). Prints ``wrote FILE``
for the checkpoint and where the abstraction tables are cached (``POKERLAB_CACHE_DIR``,
default ``~/.cache/pokerlab``). ``--json`` prints one object: ``iterations`` (in all, a resumed
checkpoint's included), ``iterations_this_run``, ``seconds`` (this run's), ``workers``,
``sampling``, ``boards_per_iteration`` (pcs), ``canonical_boards`` (full),
``bytes_per_infoset_action``,
``infoset_actions``, ``abstraction_seconds``,
``exploitability_abstract_mbb`` (exact, :mod:`pokerlab.evaluate.limit_abstract`, on decks smaller
than the full one: the S x S tables up to 8192 river bucket sequences, the by-board path beyond,
refused before training when that would need more than its memory limit;
``--no-exploitability`` skips it; ``null`` on the full deck) and ``exploitability_real_mbb``
(with ``--real-exploitability``: the exact best response that sees the cards,
:mod:`pokerlab.evaluate.limit_real`; ``null`` otherwise).
"""

from __future__ import annotations

import math
import re
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from pokerlab.cli.app import app
from pokerlab.errors import PokerlabError


def _parse_buckets(text: str) -> tuple[int, int, int, int]:
    """``a,b,c,d``: four whole numbers in ASCII digits, each 1 ..
    :data:`~pokerlab.abstraction.buckets.MAX_BUCKETS`."""
    from pokerlab.abstraction.buckets import MAX_BUCKETS

    parts = [p.strip() for p in text.split(",")]
    for p in parts:
        if not re.fullmatch(r"-?[0-9]+", p):
            raise PokerlabError(f"--buckets: {p[:40]!r} is not a whole number")
        if len(p.lstrip("-")) > 10 or int(p) > MAX_BUCKETS:
            raise PokerlabError(f"--buckets: {p[:40]!r} is above the largest {MAX_BUCKETS:,}")
    counts = tuple(int(p) for p in parts)
    if len(counts) != 4 or min(counts) < 1:
        raise PokerlabError(f"--buckets needs four positive counts (a,b,c,d), got {text!r}")
    return counts  # type: ignore[return-value]


@app.command()
def train(
    game_name: str = typer.Argument(..., metavar="GAME", help="limit-holdem"),
    variant: str = typer.Option(
        "small", "--variant", help="deck: small (24 cards), tiny (16), micro (12) or full"
    ),
    buckets: str = typer.Option("8,8,8,8", "--buckets", help="buckets per round a,b,c,d"),
    bucketing: str = typer.Option("ehs", "--bucketing", help="ehs, ehs2 or emd"),
    recall: str = typer.Option("imperfect", "--recall", help="perfect or imperfect"),
    algorithm: str | None = typer.Option(
        None,
        "--algorithm",
        help="discount schedule: cfr+, linear, dcfr, dcfr+, pcfr+, pdcfr+, hs-dcfr, hs-pcfr+ "
        "(default cfr+; with --sampling es: linear, and no predictive or hs- schedule)",
    ),
    sampling: str = typer.Option(
        "pcs",
        "--sampling",
        help="pcs: public chance sampling (vectors over every hand of a sampled board); "
        "full: no sampling, every canonical board each iteration (small decks); "
        "es: external-sampling MCCFR (one deal per iteration)",
    ),
    discount_every: int | None = typer.Option(
        None, "--discount-every", min=1, help="es: discount every N iterations (default 100)"
    ),
    prune: bool = typer.Option(
        False, "--prune", help="es: Pluribus' regret-based pruning (not with cfr+)"
    ),
    batch: int | None = typer.Option(
        None, "--batch", min=1, help="es with --ray: iterations per worker per batch (1000)"
    ),
    iterations: int | None = typer.Option(None, "--iterations", "-n", min=1),
    seconds: float | None = typer.Option(None, "--seconds", min=0.0),
    workers: int = typer.Option(
        1,
        "--workers",
        min=1,
        help="workers updating the subtrees after the split (threads, or Ray actors with --ray)",
    ),
    use_ray: bool = typer.Option(
        False, "--ray", help="run the workers as Ray actors (local Ray unless --address)"
    ),
    address: str | None = typer.Option(
        None, "--address", help="Ray cluster address (implies --ray; nodes need pokerlab)"
    ),
    split_round: int = typer.Option(
        0, "--split-round", min=0, max=1, help="split after the preflop (0) or flop (1) betting"
    ),
    boards: int | None = typer.Option(
        None,
        "--boards",
        min=1,
        help="pcs: boards sampled per iteration, updated together (default 1; more work per "
        "worker call, the seed's batch)",
    ),
    board_chunk: int | None = typer.Option(
        None,
        "--board-chunk",
        min=1,
        help="full: walk the boards in chunks of N (less scratch; the same numbers)",
    ),
    seed: int = typer.Option(0, "--seed"),
    no_cache: bool = typer.Option(False, "--no-cache", help="neither read nor write tables"),
    exploitability: bool = typer.Option(
        True,
        "--exploitability/--no-exploitability",
        help="exact abstract-game exploitability at the end (decks below the full one)",
    ),
    real_exploitability: bool = typer.Option(
        False,
        "--real-exploitability",
        help="also the exact real-game exploitability (small decks; minutes on 24 cards)",
    ),
    checkpoint: Path | None = typer.Option(None, "--checkpoint", help="checkpoint file to write"),
    checkpoint_every: int | None = typer.Option(
        None, "--checkpoint-every", min=1, help="also write it every N iterations"
    ),
    resume: Path | None = typer.Option(None, "--resume", help="continue from a checkpoint"),
    log: Path | None = typer.Option(None, "--log", help="append JSON lines (one per block)"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
) -> None:
    """Train limit hold'em on a card abstraction with public chance sampling CFR, CFR over
    every board (--sampling full) or external-sampling MCCFR (--sampling es)."""
    from pokerlab.abstraction.buckets import build_abstraction
    from pokerlab.abstraction.strength import estimate_seconds, strength_tables
    from pokerlab.games.registry import load_game
    from pokerlab.solvers.limit_holdem import LimitPCSSolver

    if game_name.lower() != "limit-holdem":
        raise PokerlabError(f"train: only limit-holdem is trained here, got {game_name!r}")
    if iterations is None and seconds is None:
        iterations = 100
    counts = _parse_buckets(buckets)
    if seconds is not None and not math.isfinite(seconds):
        raise PokerlabError(f"--seconds must be a finite number, got {seconds}")
    from pokerlab.io.paths import check_output_file

    for path, option in ((checkpoint, "--checkpoint"), (log, "--log")):
        if path is not None:  # before the tables and the run, not after
            check_output_file(path, option)
    if recall not in ("perfect", "imperfect"):
        raise PokerlabError(f"--recall must be perfect or imperfect, got {recall!r}")
    from pokerlab.abstraction.buckets import METHODS

    if bucketing.lower() not in METHODS:
        raise PokerlabError(f"unknown bucketing {bucketing!r}; known: {', '.join(METHODS)}")
    from pokerlab.solvers.schedule import schedule_by_name

    sampling = sampling.lower()
    if sampling not in ("pcs", "full", "es"):
        raise PokerlabError(f"--sampling: unknown {sampling!r}; choose pcs, full or es")
    use_ray = use_ray or address is not None
    if board_chunk is not None and sampling != "full":
        raise PokerlabError("--board-chunk is an option of --sampling full")
    if sampling == "full":
        if board_chunk is not None and use_ray:
            raise PokerlabError("--board-chunk runs on threads; Ray actors take every board")
        if boards is not None:
            raise PokerlabError("--boards is the board batch of --sampling pcs (full walks all)")
    if sampling in ("pcs", "full"):
        for given, name in ((discount_every, "--discount-every"), (batch, "--batch")):
            if given is not None:
                raise PokerlabError(f"{name} is an option of --sampling es")
        if prune:
            raise PokerlabError("--prune is an option of --sampling es")
    else:
        if workers > 1 and not use_ray:
            raise PokerlabError(f"--workers {workers} with --sampling es runs on Ray: add --ray")
        if split_round != 0:
            raise PokerlabError("--split-round is the subtree split of --sampling pcs")
        if boards is not None:
            raise PokerlabError("--boards is the board batch of --sampling pcs")
        if batch is not None and not use_ray:
            raise PokerlabError("--batch is the batch of the Ray workers: add --ray")
    if algorithm is None:
        algorithm = "linear" if sampling == "es" else "cfr+"
    schedule = schedule_by_name(algorithm)  # an unknown name is refused before the abstraction
    if sampling == "es" and (schedule.predictive or schedule.scheduled):
        raise PokerlabError(
            f"--algorithm {algorithm!r} with --sampling es: predictive and hyperparameter "
            "schedules are full-width only; use linear, cfr+, dcfr, dcfr+ or cfr"
        )
    if sampling == "es" and prune and schedule.regret_floor:
        raise PokerlabError(f"--prune with --algorithm {algorithm!r}: its regrets are never < 0")
    if use_ray:
        from pokerlab.distributed.limit_ray import import_ray

        import_ray()  # not installed: refused before any work
        if address is not None:
            from pokerlab.distributed.limit_ray import check_address

            check_address(address)
    game = load_game("limit-holdem", variant=variant)
    ranks = game.rules.ranks
    if recall == "perfect":  # the storage is known from the counts: refused before the tables
        from pokerlab.solvers.limit_holdem import (
            BYTES_PER_INFOSET_ACTION,
            check_storage,
            layout_size,
        )

        states = tuple(math.prod(counts[: r + 1]) for r in range(4))
        size = layout_size(game.betting_tree, states)
        check_storage(size, BYTES_PER_INFOSET_ACTION + 4 * schedule.predictive, 8 << 30)
    if sampling == "full":
        from pokerlab.solvers.limit_holdem import full_chance_bytes

        need = full_chance_bytes(game, workers, split_round, board_chunk)
        if need > 8 << 30:  # the solver's limit, storage included; refused before the tables
            raise PokerlabError(
                f"--sampling full (chance='full') on {game.rules.num_cards} cards: about "
                f"{need / 2**30:.1f} GiB of scratch before the regrets (limit 8 GiB); "
                "add --board-chunk N (boards per pass) or use --sampling pcs"
            )
    if real_exploitability and ranks == 13:
        raise PokerlabError("--real-exploitability: the full deck is too large (small decks)")
    if exploitability and ranks < 13:
        from pokerlab.evaluate.limit_abstract import (
            MAX_BOARD_PATH_BYTES,
            MAX_SEQUENCES,
            board_path_bytes,
        )

        need = board_path_bytes(counts, ranks)
        if math.prod(counts) > MAX_SEQUENCES and need > MAX_BOARD_PATH_BYTES:
            raise PokerlabError(
                f"the exact abstract exploitability of {math.prod(counts):,} river bucket "
                f"sequences needs about {need / 2**30:.1f} GiB (limit "
                f"{MAX_BOARD_PATH_BYTES / 2**30:.0f} GiB): add --no-exploitability"
            )
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    show = not as_json and sys.stderr.isatty()
    if ranks == 13 and not no_cache:
        from pokerlab.abstraction.store import cache_dir, load_tables

        if load_tables(cache_dir() / "strength-r13.npz", kind="strength", ranks=13) is None:
            est = estimate_seconds(13)
            err.print(f"building the full deck's E[HS] tables: about {est['total'] / 60:.0f} min")
    elif ranks == 13:
        est = estimate_seconds(13)
        err.print(f"building the full deck's E[HS] tables: about {est['total'] / 60:.0f} min")

    cache: Any = not no_cache
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=not show,
    )
    tasks: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage not in tasks:
            tasks[stage] = bar.add_task(stage, total=total)
        bar.update(tasks[stage], completed=done)

    t0 = time.perf_counter()
    with bar:
        strength = strength_tables(ranks, cache=cache, progress=progress)
        abstraction = build_abstraction(
            ranks, counts, bucketing, seed=seed, cache=cache, progress=progress, strength=strength
        )
    abstraction_seconds = time.perf_counter() - t0
    options: dict[str, Any] = {
        "recall": recall,
        "algorithm": algorithm,
        "seed": seed,
        "workers": workers,
        "split_round": split_round,
        "boards_per_iteration": 1 if boards is None else boards,
    }
    if sampling == "full":
        options["chance"] = "full"
        if board_chunk is not None:
            options["board_chunk"] = board_chunk
    if sampling == "es":
        es_options: dict[str, Any] = {
            "recall": recall,
            "algorithm": algorithm,
            "seed": seed,
            "discount_every": 100 if discount_every is None else discount_every,
            "regret_pruning": prune,
        }
        if use_ray:
            from pokerlab.distributed.limit_mccfr_ray import RayLimitESSolver

            solver: Any = RayLimitESSolver(
                game,
                abstraction,
                workers=workers,
                batch=1000 if batch is None else batch,
                address=address,
                **es_options,
            )
        else:
            from pokerlab.solvers.limit_mccfr import LimitESSolver

            solver = LimitESSolver(game, abstraction, **es_options)
    elif use_ray:
        from pokerlab.distributed.limit_ray import RayLimitPCSSolver

        solver = RayLimitPCSSolver(game, abstraction, address=address, **options)
    else:
        solver = LimitPCSSolver(game, abstraction, **options)
    from pokerlab.cli.train_run import TrainSettings, run_training

    settings = TrainSettings(
        variant=variant,
        buckets=buckets,
        counts=counts,
        recall=recall,
        sampling=sampling,
        seed=seed,
        workers=workers,
        use_ray=use_ray,
        iterations=iterations,
        seconds=seconds,
        checkpoint=checkpoint,
        checkpoint_every=checkpoint_every,
        resume=resume,
        log=log,
        exploitability=exploitability,
        real_exploitability=real_exploitability,
        as_json=as_json,
        show=show,
        abstraction_seconds=abstraction_seconds,
    )
    try:
        run_training(solver, abstraction, ranks, cache, err, settings)
    finally:
        close = getattr(solver, "close", None)
        if close is not None:
            close()
