"""Postflop chance subtrees on threads against Ray actors: seconds per iteration of the same run.

The built-in turn spot (benchmark B6's; ``--quick``: a turn spot of a few hands per range)
solved with ``dcfr-ps`` on one thread, on ``--workers`` threads and on ``--workers`` Ray actors
of a local Ray instance (:class:`~pokerlab.distributed.postflop_ray.RayPostflopSolver`): the
three runs give the same numbers bit for bit (tests/test_postflop_ray.py), so only the time
differs. Each run does one warm-up iteration, then ``--iterations`` timed. For the Ray run,
``actor busy``: the share of the wall time the busiest actor spent in its kernel (the rest is
the head's walks over the top of the tree and Ray's calls: two round trips per iteration, the
reach rows out and the value rows back).

    python benchmarks/postflop_ray.py [--quick] [--iterations 10] [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pokerlab  # noqa: E402
from _common import load_average, print_table  # noqa: E402
from pokerlab.distributed.postflop_ray import RayPostflopSolver  # noqa: E402
from pokerlab.solvers.postflop import PostflopSolver  # noqa: E402

QUICK = dict(
    board="Td9d6hQc",
    ranges=("AA,KK,QQ,AK,KQs,JTs,T9s", "TT,99,88,AQs,QJs,J8s,AJo"),
    pot=100,
    stack=300,
    bets="75%, a",
    raises="a",
)


def timed(solver: Any, iterations: int) -> float:
    """Seconds per iteration after one warm-up iteration."""
    solver.step(1)
    start = time.perf_counter()
    solver.step(iterations)
    return (time.perf_counter() - start) / iterations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small turn spot")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    game = (
        pokerlab.load_game("postflop", **QUICK)
        if args.quick
        else pokerlab.load_game("postflop", spot="turn")
    )
    w = args.workers
    rows = [
        ["threads 1", 1000 * timed(PostflopSolver(game, threads=1), args.iterations), ""],
        [f"threads {w}", 1000 * timed(PostflopSolver(game, threads=w), args.iterations), ""],
    ]
    ray_solver = RayPostflopSolver(game, workers=w)
    try:
        ray_solver.step(1)
        ray_solver.worker_busy_seconds()  # reset
        per = timed(ray_solver, args.iterations)
        busy = max(ray_solver.worker_busy_seconds()) / (per * (args.iterations + 1))
        rows.append([f"Ray actors {w}", 1000 * per, f"{100 * busy:.0f}%"])
    finally:
        ray_solver.close()
    print_table(
        f"{'quick turn spot' if args.quick else 'turn spot (B6)'}, dcfr-ps, load average "
        f"{load_average()}",
        ["executor", "ms / iteration", "actor busy"],
        rows,
    )


if __name__ == "__main__":
    main()
