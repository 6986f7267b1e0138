"""B2: Monte Carlo CFR on Leduc hold'em against OpenSpiel's C++ MCCFR solvers in the same run.

External-sampling and outcome-sampling MCCFR (Lanctot et al. 2009): iterations per second and
exploitability after 10^5 and 10^6 iterations, fixed seeds. An iteration is one traversal (outcome
sampling: one sampled episode) per player, as OpenSpiel's ``run_iteration``; epsilon = 0.6 as
OpenSpiel's default. Ours: ``make_solver(leduc, "es-mccfr" | "os-mccfr", seed=s)``, plain CFR
weighting, no pruning (the same algorithm as OpenSpiel's), seeds 0..--seeds-1, JIT warm.
OpenSpiel: ``pyspiel.ExternalSamplingMCCFRSolver(game, seed=s)`` and
``pyspiel.OutcomeSamplingMCCFRSolver(game, seed=s)`` (keyword: its second positional parameter is
epsilon), ``run_iteration()``, ``pyspiel.exploitability(game, solver.average_policy())``; 10^5
iterations for --seeds seeds and 10^6 for seed 0 only (tens of seconds each); only
``run_iteration`` time is counted on both sides. Rows "+prune +linear" (seed 0) show our Pluribus
options for information: regret-based pruning (external sampling only) and Linear CFR for the
first 10^5 iterations.

The figure to judge: our iterations per second / OpenSpiel's, at equal or lower exploitability
for the same iteration count. Target: at least 3x. What to expect and why: a Leduc ES traversal
visits about 22 histories per player and an OS episode about 4; compiled loops over flat arrays
with no string keys or hash maps take tens of nanoseconds per node, so about 2 us per ES iteration
and 1 us per OS iteration, against OpenSpiel's ~30 us and ~11 us (it builds an information-state
string and hashes it at every node). Exploitability after the same iterations should match
OpenSpiel's within seed noise, since the algorithms are the same.

The figure ``benchmarks/results/mccfr_nodes.png``: exploitability against nodes touched (left)
and against seconds (right), log-log, for vanilla CFR, chance, external and outcome sampling, all
on Leduc's history tree so that a node touched means the same thing (one history visited), until
each has touched --budget-nodes nodes. Nodes touched is the machine-independent cost measure that
lets full-width and sampling solvers share one axis. On a game as small as Leduc, sampling's
advantage (cheap, early progress) shows only at the very start; the curves' slopes show the
1/sqrt(T) rate of the sampled variants against full-width CFR.

Run: ``python benchmarks/mccfr.py`` (``--quick``: 10^5 only, no OpenSpiel 10^6, small figure).
"""

from __future__ import annotations

import argparse
import statistics
import time

import pokerlab
from _common import RESULTS, add_save_option, load_average, print_table, write_results
from pokerlab.plots.curves import plot_convergence
from pokerlab.solvers.compare import convergence_curves

CHECKS = (100_000, 1_000_000)


def ours(game: pokerlab.HistoryGame, variant: str, seed: int, checks: tuple[int, ...], **kw):
    solver = pokerlab.make_solver(game, variant, seed=seed, **kw)
    out: dict[str, float] = {}
    for n in checks:
        solver.step(n - solver.iterations)
        out[f"expl@{n}"] = solver.exploitability()
    out["iterations_per_second"] = solver.iterations / solver.seconds
    out["nodes_touched"] = solver.nodes_touched
    return out


def openspiel(variant: str, seed: int, checks: tuple[int, ...]) -> dict[str, float] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("leduc_poker")
    if variant == "es-mccfr":
        solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed)
    else:
        solver = pyspiel.OutcomeSamplingMCCFRSolver(game, seed=seed)
    out: dict[str, float] = {}
    done = 0
    seconds = 0.0
    for n in checks:
        start = time.perf_counter()
        for _ in range(n - done):
            solver.run_iteration()
        seconds += time.perf_counter() - start
        done = n
        out[f"expl@{n}"] = pyspiel.exploitability(game, solver.average_policy())
    out["iterations_per_second"] = done / seconds
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--budget-nodes", type=int, default=200_000_000)
    parser.add_argument("--quick", action="store_true", help="10^5 only, small figure")
    add_save_option(parser)
    args = parser.parse_args()
    checks = CHECKS[:1] if args.quick else CHECKS
    budget = 20_000_000 if args.quick else args.budget_nodes

    load_start = load_average()
    print(f"load average (1, 5, 15 min) at start: {load_start}")
    compile_seconds = pokerlab.warmup()
    game = pokerlab.load_game("leduc")
    pokerlab.make_solver(game, "es-mccfr").step(1)  # history tree built outside the timings

    results: dict[str, object] = {}
    rows = []
    ratios = {}
    for variant in ("es-mccfr", "os-mccfr"):
        mine = [ours(game, variant, s, checks) for s in range(args.seeds)]
        pruning = variant == "es-mccfr"  # outcome sampling follows one action: nothing to prune
        extra = ours(game, variant, 0, checks, regret_pruning=pruning, linear_until=100_000)
        theirs_short = [openspiel(variant, s, CHECKS[:1]) for s in range(args.seeds)]
        theirs_long = None if args.quick else openspiel(variant, 0, CHECKS)
        rate = statistics.median(m["iterations_per_second"] for m in mine)
        row = [f"{variant} (ours)", rate]
        for n in CHECKS:
            key = f"expl@{n}"
            row.append(statistics.mean(m[key] for m in mine) if key in mine[0] else None)
            row.append(mine[0].get(key))
        rows.append(row)
        rows.append(
            [
                f"{variant} {'+prune ' if variant == 'es-mccfr' else ''}+linear",
                extra["iterations_per_second"],
            ]
            + [x for n in CHECKS for x in (None, extra.get(f"expl@{n}"))]
        )
        results[variant] = {"ours": mine, "ours_pluribus_options": extra}
        if theirs_short[0] is not None:
            os_rate = statistics.median(t["iterations_per_second"] for t in theirs_short)
            short_mean = statistics.mean(t["expl@100000"] for t in theirs_short)
            long0 = theirs_long.get("expl@1000000") if theirs_long else None
            rows.append(
                [f"{variant} (OpenSpiel C++)", os_rate, short_mean, theirs_short[0]["expl@100000"]]
                + [None, long0]
            )
            ratios[variant] = rate / os_rate
            results[variant]["openspiel_1e5"] = theirs_short
            results[variant]["openspiel_seed0"] = theirs_long

    print_table(
        f"B2 Leduc MCCFR (ours: {args.seeds} seeds; OpenSpiel: {args.seeds} seeds at 1e5, "
        "seed 0 at 1e6)",
        ["solver", "iter/s", "expl@1e5 mean", "expl@1e5 s0", "expl@1e6 mean", "expl@1e6 s0"],
        rows,
    )
    for variant, ratio in ratios.items():
        print(f"{variant}: our iterations per second / OpenSpiel's = {ratio:.1f}x (target >= 3x)")
    if not ratios:
        print("OpenSpiel reference: pyspiel not installed; no ratios printed")
    print(f"load average (1, 5, 15 min) at start: {load_start}, now: {load_average()}")
    print(f"JIT compile / cache load: {compile_seconds:.2f} s (excluded)")

    curves = convergence_curves(game, ["cfr", "cs-mccfr", "es-mccfr", "os-mccfr"], budget)
    png = RESULTS / "mccfr_nodes.png"
    plot_convergence(curves, png, title="Leduc: exploitability vs nodes touched and seconds")
    print_table(
        f"nodes-touched comparison (budget {budget:,} nodes, history tree)",
        ["solver", "iterations", "nodes", "seconds", "exploitability"],
        [
            [c.algorithm, c.iterations[-1], c.nodes_touched[-1]]
            + [c.seconds[-1], c.exploitability[-1]]
            for c in curves
        ],
    )
    path = write_results(
        "mccfr",
        {
            "seeds": args.seeds,
            "checks": list(checks),
            "compile_seconds": compile_seconds,
            "results": results,
            "speedup_vs_openspiel": ratios,
            "load_average_start": load_start,
            "nodes_figure": str(png.relative_to(RESULTS.parent.parent)),
            "curves": [c.to_dict() for c in curves],
        },
        save=args.save,
    )
    print(f"wrote {path} and {png}")


if __name__ == "__main__":
    main()
