"""Lazily allocated rows against the dense layout (issue 24): bytes allocated after N iterations,
the fraction of entries reached, and iterations per second, dense and lazy in alternating
chunks on the same solver pair (one thread, or ``--threads K`` batched workers; the machine is
shared, so each chunk is timed alone and the chunks alternate).

    python benchmarks/blueprint_lazy.py hunl-100 --chunk 100000 --rounds 3
    python benchmarks/blueprint_lazy.py acpc-hunl --chunk 50000 --rounds 3
    python benchmarks/blueprint_lazy.py acpc-hunl --chunk 20000 --rounds 4 --averages all
    python benchmarks/blueprint_lazy.py hunl-100 --dense-only   # the dense path alone

The card abstraction is E[HS] with the configuration's bucket counts (read from the cache as
``pokerlab blueprint train CONFIG --bucketing ehs`` builds it).
"""

from __future__ import annotations

import argparse
import json
import time

import pokerlab
from pokerlab.solvers.blueprint import BlueprintSolver


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config")
    parser.add_argument("--chunk", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dense-only", action="store_true")
    parser.add_argument("--threads", type=int, default=1, help="workers on threads (batched)")
    parser.add_argument("--batch", type=int, default=1000, help="iterations per worker per batch")
    parser.add_argument("--averages", default=None, help="all, preflop or none (default: CONFIG's)")
    args = parser.parse_args()
    game = pokerlab.load_game("nolimit-holdem", config=args.config)
    abstraction = game.card_abstraction("ehs", buckets=tuple(game.buckets), seed=0).abstraction
    options: dict[str, object] = {"seed": 0, "discount_every": args.chunk}
    if args.averages is not None:
        options["averages"] = args.averages
    kinds = ["dense"] if args.dense_only else ["dense", "lazy"]
    cls: type = BlueprintSolver
    if args.threads > 1:
        from pokerlab.solvers.batched import ThreadedBlueprintSolver

        cls = ThreadedBlueprintSolver
        options.update(workers=args.threads, batch=args.batch)
    solvers = {
        k: cls(game, abstraction, **options, **({"lazy": True} if k == "lazy" else {}))
        for k in kinds
    }
    rates: dict[str, list[float]] = {k: [] for k in kinds}
    reached: list[float] = []
    for r in range(args.rounds):
        for k in kinds if r % 2 == 0 else kinds[::-1]:
            start = time.perf_counter()
            solvers[k].step(args.chunk)
            rates[k].append(args.chunk / (time.perf_counter() - start))
            if k == "lazy":
                reached.append(round(solvers[k].pool.fraction_reached, 4))
    out: dict[str, object] = {"config": args.config, "iterations": args.chunk * args.rounds}
    out["averages"] = next(iter(solvers.values())).averages
    out["threads"] = args.threads
    out["reached_after_each_chunk"] = reached
    for k, solver in solvers.items():
        pool = getattr(solver, "pool", None)
        out[k] = {
            "iterations_per_second": [round(x) for x in rates[k]],
            "bytes": solver.storage_bytes,
            "reached": pool.fraction_reached if pool is not None else 1.0,
            # the index and the used part of the pools (what a pool grown exactly would hold)
            "used_bytes": (
                pool.index.nbytes
                + pool.used * pool.regrets.itemsize
                + (pool.used * 4 if pool.sums_in_rows else pool.sums.nbytes)
                if pool is not None
                else solver.storage_bytes
            ),
        }
    for solver in solvers.values():
        getattr(solver, "close", lambda: None)()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
