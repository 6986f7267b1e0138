"""Benchmark B8 (part): limit hold'em card abstraction build times.

Figures:

- the exact E[HS] / E[HS^2] tables of every canonical class of each round of the small variant
  (24 cards, 9..A), per round, from scratch (no cache);
- the bucket build time of each bucketing (``ehs``, ``ehs2``, ``emd``) at the benchmark's bucket
  counts, on top of those tables;
- the full deck's estimated build time of the same tables (a timed sample of boards and classes,
  extrapolated; one core): the river, 123,156,254 classes, by one sort per canonical board.

JIT compile time is excluded (the kernels are warmed first on a 16-card deck).

Usage: ``python benchmarks/limit.py [--buckets 8,8,8,8] [--ranks 6] [--save]``
"""

from __future__ import annotations

import argparse
import time

from _common import add_save_option, print_table, write_results
from pokerlab.abstraction.buckets import METHODS, build_abstraction
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.abstraction.strength import estimate_seconds, strength_tables


def main() -> None:
    parser = argparse.ArgumentParser(description="B8: limit hold'em abstraction build times.")
    parser.add_argument("--buckets", default="8,8,8,8", help="buckets per round")
    parser.add_argument("--ranks", type=int, default=6, help="ranks of the deck (6: small)")
    parser.add_argument("--no-estimate", action="store_true", help="skip the full-deck estimate")
    add_save_option(parser)
    args = parser.parse_args()
    buckets = tuple(int(b) for b in args.buckets.split(","))

    t0 = time.perf_counter()
    build_abstraction(4, (4, 4, 4, 4), "emd", cache=False)  # compile every kernel once
    warmup = time.perf_counter() - t0

    strength = strength_tables(args.ranks, cache=False)
    rows = []
    builds = {}
    for method in METHODS:
        t0 = time.perf_counter()
        abstraction = build_abstraction(args.ranks, buckets, method, cache=False, strength=strength)
        seconds = time.perf_counter() - t0
        builds[method] = {
            "seconds": seconds,
            "seconds_per_round": abstraction.seconds,
            "buckets_used": list(abstraction.num_buckets),
        }
        rows.append([method, f"{seconds:.2f}"] + [f"{s:.2f}" for s in abstraction.seconds])
    classes = [round_indexer(r, args.ranks).size for r in range(4)]
    print(f"deck of {4 * args.ranks} cards; classes per round {classes}; warm-up {warmup:.1f} s")
    print(
        "E[HS] tables: "
        + ", ".join(
            f"{n} {s:.2f} s"
            for n, s in zip(("preflop", "flop", "turn", "river"), strength.seconds, strict=True)
        )
    )
    print_table(
        f"bucket builds at {args.buckets} (seconds, on top of the E[HS] tables)",
        ["method", "total", "preflop", "flop", "turn", "river"],
        rows,
    )
    payload = {
        "ranks": args.ranks,
        "buckets": list(buckets),
        "classes_per_round": classes,
        "warmup_seconds": warmup,
        "strength_seconds_per_round": strength.seconds,
        "bucket_builds": builds,
    }
    if not args.no_estimate:
        estimate = estimate_seconds(13)
        payload["full_deck_estimate_seconds"] = estimate
        print(
            "full deck (52 cards), estimated E[HS] tables on one core: "
            + ", ".join(f"{k} {v / 60:.1f} min" for k, v in estimate.items())
        )
    print(f"wrote {write_results('limit', payload, save=args.save)}")


if __name__ == "__main__":
    main()
