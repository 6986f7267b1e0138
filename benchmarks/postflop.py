"""Benchmark B6: no-limit postflop spots (river R, turn T, flop F of ../shared/BENCHMARKS.md).

For each spot and thread count: seconds and iterations to exploitability <= 0.5% and <= 0.1% of
the starting pot (checked every 10 iterations, check time excluded), milliseconds per iteration,
regret + strategy-sum memory (float32) and bytes per (information set, action, hand), peak RSS,
and OOP's EV. Tree building and JIT compilation are excluded and reported apart.

What to expect and why: the solver does the same arithmetic per (node, hand) as postflop-solver
(sorted showdown sweeps, blocker sums, one actions x hands block per node), so iterations to the
targets should match theirs (R ~60 to 0.5%; T ~90 and ~220; we run their DCFR variant), and time
per iteration should be within a small factor of their 0.075 ms (R) and 8.6 ms (T) on one
thread. Memory is 8 bytes per (node, action, hand) (float32 regret and strategy sum), as theirs.
The flop spot (190,078 decision nodes, ~1 GiB) takes minutes: ``--flop`` includes it.

Usage: ``python benchmarks/postflop.py [--flop] [--threads 1,2] [--save]``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pokerlab  # noqa: E402
from _common import print_table, write_results  # noqa: E402
from pokerlab.solvers.postflop import PostflopSolver  # noqa: E402

SPOTS = ("river", "turn", "flop")  # built-in spots (pokerlab/data/spots)
#: postflop-solver (one thread) on this kind of machine, from BENCHMARKS.md B6
REFERENCE = {
    "river": {"s_0.5": 0.0056, "it_0.5": 60},
    "turn": {"s_0.5": 0.86, "s_0.1": 2.24, "it_0.5": 90, "it_0.1": 220, "ms_it": 8.6},
    "flop": {"s_0.5": 135.0, "s_0.1": 386.0, "it_0.5": 110, "it_0.1": 310},
}


def run_spot(name: str, threads: int, max_iterations: int) -> dict[str, object]:
    t0 = time.perf_counter()
    game = pokerlab.load_game("postflop", spot=name)
    solver = PostflopSolver(game, "dcfr-ps", threads=threads)
    build = time.perf_counter() - t0
    pot = float(game.config.pot)
    marks: dict[str, tuple[int, float]] = {}

    def callback(progress: pokerlab.solvers.base.Progress) -> bool:
        pct = 100.0 * progress.exploitability / pot
        for target in (0.5, 0.1):
            key = f"{target}"
            if key not in marks and pct <= target:
                marks[key] = (progress.iterations, progress.seconds)
        return "0.1" in marks or progress.iterations >= max_iterations

    solver.solve(callback=callback, check_every=10, iterations=max_iterations)
    counts = solver.tree.node_counts()
    ev = solver.values()["ev"]
    mem = solver.tree.memory_bytes(4)
    slots = solver.tree.size
    return {
        "spot": name,
        "threads": threads,
        "build_and_compile_s": build,
        "iterations_0.5": marks.get("0.5", (None, None))[0],
        "seconds_0.5": marks.get("0.5", (None, None))[1],
        "iterations_0.1": marks.get("0.1", (None, None))[0],
        "seconds_0.1": marks.get("0.1", (None, None))[1],
        "ms_per_iteration": 1000.0 * solver.seconds / max(solver.iterations, 1),
        "memory_bytes": mem,
        "bytes_per_slot": mem / slots,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "oop_ev": ev[0],
        "nodes": counts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flop", action="store_true", help="include the flop spot (minutes)")
    parser.add_argument("--threads", default="1,2", help="thread counts, comma separated")
    parser.add_argument("--save", action="store_true", help="write results/postflop.json")
    args = parser.parse_args()
    spots = [name for name in SPOTS if name != "flop" or args.flop]
    threads = [int(x) for x in args.threads.split(",")]
    rows = []
    results = []
    for name in spots:
        for k in threads:
            r = run_spot(name, k, 1000)
            results.append(r)
            ref = REFERENCE[name]
            ratio = (
                r["seconds_0.5"] / ref["s_0.5"] if r["seconds_0.5"] is not None else float("nan")
            )
            rows.append(
                [
                    name, k, r["iterations_0.5"], r["seconds_0.5"], r["iterations_0.1"],
                    r["seconds_0.1"], r["ms_per_iteration"], r["memory_bytes"] / 2**20,
                    r["peak_rss_mib"], r["oop_ev"], ratio,
                ]
            )
    print_table(
        "B6 postflop spots (dcfr-ps; seconds exclude exploitability checks and compilation)",
        ["spot", "threads", "it 0.5%", "s 0.5%", "it 0.1%", "s 0.1%", "ms/it", "MiB f32",
         "peak RSS MiB", "OOP EV", "s 0.5% / ref"],
        rows,
    )
    if args.save:
        path = write_results("postflop", {"results": results, "reference": REFERENCE}, save=True)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
