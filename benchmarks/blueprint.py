"""The no-limit blueprint's training figures (issue 24): speed against OpenSpiel in the same run,
bytes per information-set action, and threads / Ray speed-up on the full deck.

Table 1. External-sampling MCCFR iterations per second on one game both sides hold exactly:
heads-up no-limit, 16 cards (ranks T-A), four rounds, stacks 2,000, blinds 50/100, fold / call /
pot / all-in at every decision (OpenSpiel's ``universal_poker`` with ``bettingAbstraction=fcpa``
and the gamedef of ``tests/test_nolimit_openspiel.py``; ours ``base = "fcpa"``, lossless buckets,
so the abstract game is the game: 3.9 million information-set actions). An iteration is one
traversal per player on both sides (ours deals once per iteration, OpenSpiel samples chance in
each traversal). Ours: :class:`~pokerlab.solvers.blueprint.BlueprintSolver` (plain CFR
weighting, no pruning, as OpenSpiel's), ``--iterations`` iterations after the kernel is warm;
OpenSpiel: ``pyspiel.ExternalSamplingMCCFRSolver(game, seed=0)``, ``run_iteration()`` for
``--openspiel-seconds`` seconds. Only iteration time is counted on both sides. Target: at least
10x (we are 28x on Leduc, ``benchmarks/mccfr.py``). What to expect and why: OpenSpiel builds and
hashes an information-state string at every decision and clones universal_poker states (ACPC
game logic) at every chance and action node; ours walks flat arrays with the bucket of each seat
read once per round: tens of nanoseconds per node against microseconds.

Table 2. Bytes per stored information-set action (regrets float32, plus the float32 strategy
sums where averages are kept) for ``hunl-100``'s tree with averages on every round, on the
preflop only and none. Target: at most 8 with averages, 4 without.

Table 3. ``hunl-100`` on the full deck (169/50/50/50 E[HS] buckets, read from the cache: the
first run builds them, about 20 minutes) trained for ``--seconds`` on 1 thread, on 2 threads
(:class:`~pokerlab.solvers.batched.ThreadedBlueprintSolver`) and on 2 local Ray actors
(:class:`~pokerlab.distributed.limit_mccfr_ray.RayBlueprintSolver`), discount blocks and batches
of 50,000 iterations per worker, as ``pokerlab blueprint train --threads 2`` / ``--ray`` run by
default (:data:`pokerlab.cli.blueprint_train.BATCH`; about 0.3 s a batch): worker iterations per
second and the speed-up over 1 thread (target at least 1.7x; the machine's parallel capacity,
:func:`_common.parallel_capacity`, is printed beside it: a shared 2-core machine caps it). What
to expect: workers share nothing within a batch, so the speed-up is the cores' minus, per batch,
the head's merge (two arrays of 65,777 entries per worker: about a millisecond), the wait for the
slower worker and, on Ray, a round trip of about 10 ms (measured: each actor busy 87% of the
time with batches of 20,000). Measured in one run at idle (2026-11-27): 1.68x on Ray with
batches of 20,000, 1.80x with 50,000; batches of 1,000 (the old default) gave 1.52x on threads
and 0.99x on Ray.

Table 4 (``--lbr MINUTES``, e.g. ``10,60,240``; hours of work): ``hunl-100`` trained on
``--lbr-threads`` threads, checkpointed at each mark, and LBR (fcpa, rounds 3-4,
``--lbr-pairs`` duplicate pairs) against it, beside always-call and the hand-strength rule bot;
Slumbot 2016's published 4,020 +- 115 mbb/g in the same LBR setting (Lisy and Bowling 2017) is
the mark to beat. Hours of training outlast a session here: ``--lbr-resume F`` goes on from a
checkpoint of an earlier run (the solver's seconds count on; the 60-, 100- and 240-minute ones
are kept in ``benchmarks/results/``, half a megabyte each), e.g. ``--only-lbr --lbr 240
--lbr-resume benchmarks/results/hunl-100-100min.npz --lbr-baseline-pairs 0 --save``. Between
marks the run also keeps ``benchmarks/results/local/hunl-100-latest.npz`` (every
:data:`LATEST_EVERY` seconds of training, written atomically), so an interrupted run goes on
from there with ``--lbr-resume`` and loses at most that much training.

Table 5. On the 8-card two-round fcpa game (stacks 300, blinds 50/100: small enough for the
engine's exact best response on the history interface), the real-game exploitability (mbb/g:
the mean of both seats' best-response gains, 1 big blind = 100 chips) of the blueprint's average
strategy against training seconds (one thread), with lossless buckets: the abstract game is the
real one, so the curve should fall towards 0 about as 1/sqrt(T). (The card abstraction's cost
needs E[HS] buckets, whose tables assume four rounds: a 12-card game's exact best response on
the history interface took over 10 minutes here, so it is not in this table yet.)

Usage: ``python benchmarks/blueprint.py [--quick] [--no-openspiel] [--no-ray] [--seconds 20]
[--lbr 10,60 [--only-lbr]] [--save]``; table 4's rows are
written to ``blueprint-lbr.json`` as each mark is reached.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pokerlab  # noqa: E402
from _common import (  # noqa: E402
    add_save_option,
    load_average,
    parallel_capacity,
    print_table,
    results_dir,
    write_results,
)
from pokerlab.cli.blueprint_train import BATCH  # noqa: E402
from pokerlab.solvers.batched import ThreadedBlueprintSolver  # noqa: E402
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction  # noqa: E402

#: seconds of training between the kept checkpoints of table 4's run
LATEST_EVERY = 600.0

GAMEDEF = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=4,blind=50 100,firstPlayer=1 2 2 2,"
    "numSuits=4,numRanks=4,numHoleCards=2,numBoardCards=0 3 1 1,stack=2000 2000,"
    "bettingAbstraction=fcpa)"
)


def small_game() -> Any:
    return pokerlab.load_game("nolimit-holdem", config="fcpa", ranks=4, stack=2000)


def table_openspiel(iterations: int, openspiel_seconds: float, use_openspiel: bool) -> dict:
    game = small_game()
    solver = BlueprintSolver(game, lossless_abstraction(4), algorithm="cfr", seed=0)
    solver.step(1000)  # warm: kernel loaded, arrays touched
    start_iter, start_sec = solver.iterations, solver.seconds
    solver.step(iterations)
    ours = (solver.iterations - start_iter) / (solver.seconds - start_sec)
    out: dict[str, Any] = {"entries": solver.size, "ours_iterations_per_second": ours}
    theirs = None
    if use_openspiel:
        try:
            import pyspiel
        except ImportError:
            print("OpenSpiel is not installed: no ratio (pip install open_spiel)")
        else:
            os_solver = pyspiel.ExternalSamplingMCCFRSolver(pyspiel.load_game(GAMEDEF), seed=0)
            os_solver.run_iteration()
            n = 0
            t0 = time.perf_counter()
            while time.perf_counter() - t0 < openspiel_seconds:
                os_solver.run_iteration()
                n += 1
            theirs = n / (time.perf_counter() - t0)
    out["openspiel_iterations_per_second"] = theirs
    out["ratio"] = ours / theirs if theirs else None
    print_table(
        "1. ES-MCCFR on 16-card fcpa no-limit (lossless), iterations/s, same run",
        ["ours it/s", "OpenSpiel it/s", "ratio", "entries"],
        [[ours, theirs or float("nan"), out["ratio"] or float("nan"), solver.size]],
    )
    return out


def table_bytes() -> list[dict]:
    game = pokerlab.load_game("nolimit-holdem", config="hunl-100")
    counts = tuple(game.buckets)
    rows = []
    for averages in ("all", "preflop", "none"):
        info = game.summary(counts, averages)
        entries = info["total_infoset_actions"]
        rows.append({"averages": averages, "entries": entries, "bytes": info["bytes"]})
    for r in rows:
        r["bytes_per_infoset_action"] = r["bytes"] / r["entries"]
    print_table(
        "2. hunl-100: bytes per stored information-set action",
        ["averages", "entries", "bytes", "bytes/action"],
        [[r["averages"], r["entries"], r["bytes"], r["bytes_per_infoset_action"]] for r in rows],
    )
    return rows


def _rate(solver: Any, seconds: float) -> float:
    solver.step(2000 * getattr(solver, "workers", 1))  # warm
    i0, s0 = solver.iterations, solver.seconds
    while solver.seconds - s0 < seconds:
        solver.step(4 * BATCH)
    return (solver.iterations - i0) / (solver.seconds - s0)


def table_threads(seconds: float, use_ray: bool) -> dict:
    game = pokerlab.load_game("nolimit-holdem", config="hunl-100")
    abstraction = game.card_abstraction("ehs", buckets=tuple(game.buckets)).abstraction
    rows = []
    # the CLI's batching with workers (module docstring): a batch of 1,000 iterations (6 ms
    # here) is dominated by the head's merge and, on Ray, the round trip
    every = {"seed": 1, "discount_every": BATCH}
    one = _rate(BlueprintSolver(game, abstraction, **every), seconds)
    rows.append(["1 thread", 1, one, 1.0])
    two = ThreadedBlueprintSolver(game, abstraction, workers=2, batch=BATCH, **every)
    rate = _rate(two, seconds)
    two.close()
    rows.append(["2 threads", 2, rate, rate / one])
    if use_ray:
        try:
            import ray

            from pokerlab.distributed.limit_mccfr_ray import RayBlueprintSolver
        except ImportError:
            print("Ray is not installed: no Ray row")
        else:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            actors = RayBlueprintSolver(game, abstraction, workers=2, batch=BATCH, **every)
            rate = _rate(actors, seconds)
            actors.close()
            ray.shutdown()
            rows.append(["2 Ray actors", 2, rate, rate / one])
    capacity = parallel_capacity()
    print_table(
        f"3. hunl-100 full deck, worker iterations/s ({seconds:g} s each; capacity {capacity:.2f})",
        ["run", "workers", "it/s", "speed-up"],
        rows,
    )
    return {
        "capacity": capacity,
        "rows": [dict(zip(("run", "workers", "it_s", "speedup"), r, strict=True)) for r in rows],
    }


def table_lbr(
    minutes: list[float], threads: int, pairs: int, folder: Path, save: bool = False,
    baseline_pairs: int | None = None, workers: int = 1, resume: str | None = None,
    baseline_names: tuple[str, ...] = ("always-call", "rule bot"),
) -> list[dict]:  # fmt: skip
    from pokerlab.evaluate.nolimit.agents import AlwaysCall, HandStrengthRule
    from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
    from pokerlab.evaluate.nolimit.lbr import local_best_response
    from pokerlab.io.files import save_checkpoint

    game = pokerlab.load_game("nolimit-holdem", config="hunl-100")
    if minutes:
        abstraction = game.card_abstraction("ehs", buckets=tuple(game.buckets)).abstraction
        solver = (
            ThreadedBlueprintSolver(game, abstraction, workers=threads, seed=1)
            if threads > 1
            else BlueprintSolver(game, abstraction, seed=1)
        )
        if resume:  # training goes on from a checkpoint of this table (marks: its total time)
            from pokerlab.io.files import load_checkpoint

            solver.load_state_dict(load_checkpoint(resume))
            print(f"resumed {resume}: {solver.iterations:,} iterations, {solver.seconds:.0f} s")
    # rows of an earlier run that this one does not measure again stay (a run of the marks
    # alone, then of the baselines alone, makes one table)
    previous = results_dir(save) / "blueprint-lbr.json"
    rows: list[dict] = json.loads(previous.read_text())["lbr"] if previous.exists() else []

    def keep(row: dict) -> None:
        # each row is written as it comes: an interrupted run of hours keeps its marks
        rows[:] = [r for r in rows if (r["agent"], r["minutes"]) != (row["agent"], row["minutes"])]
        rows.append(row)
        print(f"  {row}", flush=True)
        write_results("blueprint-lbr", {"lbr": rows, "load_average": load_average()}, save=save)

    for mark in minutes:
        kept = solver.seconds
        while solver.seconds < 60 * mark:
            solver.step(50_000)
            if solver.seconds - kept >= LATEST_EVERY:  # an interrupted run resumes from here
                save_checkpoint(folder / "hunl-100-latest.npz", solver.state_dict())
                kept = solver.seconds
        save_checkpoint(folder / f"hunl-100-{mark:g}min.npz", solver.state_dict())
        agent = BlueprintAgent(solver.average_strategy(), abstraction)
        started = time.perf_counter()
        r = local_best_response(game.rules, agent, pairs, 1, actions="fcpa", workers=workers)
        keep({"agent": "blueprint", "minutes": mark, "iterations": solver.iterations,
              "pairs": pairs, "training_seconds": solver.seconds, "lbr": r.mbb_per_game,
              "ci": r.ci95_mbb, "lbr_seconds": time.perf_counter() - started})  # fmt: skip
    # the baselines last, so that training starts at once
    baselines = (("always-call", AlwaysCall()), ("rule bot", HandStrengthRule()))
    for name, agent in baselines if baseline_pairs != 0 else ():
        if name not in baseline_names:
            continue
        started = time.perf_counter()
        n = pairs if baseline_pairs is None else baseline_pairs
        r = local_best_response(game.rules, agent, n, 1, actions="fcpa", workers=workers)
        keep({"agent": name, "minutes": None, "iterations": None, "training_seconds": None,
              "lbr": r.mbb_per_game, "ci": r.ci95_mbb, "pairs": n,
              "lbr_seconds": time.perf_counter() - started})  # fmt: skip
    print_table(
        f"4. LBR (fcpa, rounds 3-4, seed 1) against hunl-100 over training time ({threads} "
        "threads), mbb/g; Slumbot 2016: 4,020 +- 115 (Lisy and Bowling 2017)",
        ["agent", "minutes", "iterations", "pairs", "LBR mbb/g", "95%"],
        [[r["agent"], r["minutes"] or "-", r["iterations"] or "-", r.get("pairs", "-"),
          r["lbr"], r["ci"]] for r in rows],
    )  # fmt: skip
    return rows


def table_small(marks: list[float]) -> list[dict]:
    from pokerlab.evaluate.nolimit.blueprint import history_strategy

    game = pokerlab.load_game("nolimit-holdem", actions="fcpa", ranks=2, rounds=2, stack=300)
    abstractions = {"lossless": lossless_abstraction(2)}
    rows = []
    for name, abstraction in abstractions.items():
        solver = BlueprintSolver(game, abstraction, seed=1, discount_every=100)
        for mark in marks:
            while solver.seconds < mark:
                solver.step(2000)
            strategy = history_strategy(solver.average_strategy(), abstraction)
            mbb = pokerlab.exploitability(game, strategy) / 100.0 * 1000.0
            rows.append(
                {"buckets": name, "seconds": solver.seconds, "iterations": solver.iterations,
                 "exploitability_mbb": mbb}
            )  # fmt: skip
    print_table(
        "5. 8-card fcpa game: real-game exploitability (mbb/g) against training seconds",
        ["buckets", "seconds", "iterations", "mbb/g"],
        [[r["buckets"], r["seconds"], r["iterations"], r["exploitability_mbb"]] for r in rows],
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="short runs (a few minutes)")
    parser.add_argument("--iterations", type=int, default=200_000, help="ours, table 1")
    parser.add_argument("--openspiel-seconds", type=float, default=20.0)
    parser.add_argument("--no-openspiel", action="store_true")
    parser.add_argument("--seconds", type=float, default=20.0, help="per row of table 3")
    parser.add_argument("--no-ray", action="store_true")
    parser.add_argument("--no-threads", action="store_true", help="skip table 3")
    parser.add_argument("--lbr", default="", help="training minutes of table 4, e.g. 10,60,240")
    parser.add_argument("--lbr-threads", type=int, default=2)
    parser.add_argument("--lbr-pairs", type=int, default=500)
    parser.add_argument("--only-lbr", action="store_true", help="table 4 alone")
    parser.add_argument(
        "--lbr-baseline-pairs",
        type=int,
        default=None,
        help="pairs of table 4's baselines (default --lbr-pairs; 0: none; the rule bot's LBR "
        "takes about 1.4 s a game)",
    )
    parser.add_argument("--lbr-baselines", action="store_true", help="table 4's baselines alone")
    parser.add_argument(
        "--lbr-baseline-agents", default="always-call,rule bot", help="which baselines to run"
    )
    parser.add_argument(
        "--lbr-workers", type=int, default=1, help="processes playing table 4's LBR pairs"
    )
    parser.add_argument(
        "--lbr-resume",
        default=None,
        help="go on training from a checkpoint of table 4 (the same threads), e.g. "
        "benchmarks/results/hunl-100-60min.npz",
    )
    add_save_option(parser)
    args = parser.parse_args()
    if args.quick:
        args.iterations, args.openspiel_seconds, args.seconds = 50_000, 5.0, 5.0
    load_before = load_average()
    payload: dict[str, Any] = {}
    if not args.only_lbr:
        payload["openspiel"] = table_openspiel(
            args.iterations, args.openspiel_seconds, not args.no_openspiel
        )
        payload["bytes"] = table_bytes()
        payload["small"] = table_small(
            [0.1, 0.3, 1.0, 3.0] if args.quick else [0.1, 0.3, 1, 3, 10, 30]
        )
        if not args.no_threads:
            payload["threads"] = table_threads(args.seconds, not args.no_ray)
    if args.lbr or args.lbr_baselines:
        marks = [float(m) for m in args.lbr.split(",")] if args.lbr else []
        payload["lbr"] = table_lbr(
            marks, args.lbr_threads, args.lbr_pairs, results_dir(False), args.save,
            args.lbr_baseline_pairs, args.lbr_workers, args.lbr_resume,
            tuple(x.strip() for x in args.lbr_baseline_agents.split(",")),
        )  # fmt: skip
    payload["load_average"] = {"before": load_before, "after": load_average()}
    print(f"\nload average before {load_before}, after {load_average()}")
    if args.only_lbr:  # table 4 wrote blueprint-lbr.json; blueprint.json keeps tables 1-3 and 5
        return
    path = write_results("blueprint", payload, save=args.save)
    print(f"results: {path}")


if __name__ == "__main__":
    main()
