"""The no-limit blueprint's card abstraction (issue 24): build time, memory, k-means quality.

``python benchmarks/nolimit_abstraction.py --ranks 13 --cache DIR`` builds the full deck's
169/200/200/200 EMD tables end to end in a fresh cache folder (strength tables, histograms,
sampled k-means; :func:`pokerlab.games.nolimit.abstraction.card_abstraction`) and prints wall
and CPU time, the load average before and after, the peak resident memory, each stage's time and
each round's k-means objective. Run it with ``NUMBA_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` for
one thread.

``--quality`` measures what the sampled k-means costs on a deck where exact k-means over every
class runs (``--quality-ranks``, default 6: 93,750 turn and 21,150 flop classes): the objective
over every class (weighted mean squared distance to the cluster mean in the EMD embedding) of
exact scikit-learn k-means (3 starts, Lloyd to convergence) and of the sampled k-means with
``--quality-samples`` draws, for the turn (river-HS histograms) and the flop (histograms over the
exact run's turn buckets, so that both flop runs cluster the same points).

Prints a table and one JSON file (``benchmarks/results/local/nolimit-abstraction.json``, or the
tracked one with ``--save``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from _common import add_save_option, load_average, print_table, write_results
from pokerlab.games.nolimit.abstraction import KMEANS_PASSES, KMEANS_SAMPLE, card_abstraction


def _progress_printer() -> tuple[dict, object]:
    """A progress callback printing one line per stage every 30 s, on stderr."""
    state: dict = {"last": 0.0, "t0": time.perf_counter(), "stages": {}}

    def progress(stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        state["stages"].setdefault(stage, now - state["t0"])
        if now - state["last"] > 30 or done == total:
            state["last"] = now
            print(f"[{now - state['t0']:7.1f} s] {stage} {done:,}/{total:,}", file=sys.stderr)

    return state, progress


def build(args: argparse.Namespace) -> dict:
    counts = [int(b) for b in args.buckets.split(",")]
    folder = Path(args.cache)
    load_before = load_average()
    state, progress = _progress_printer()
    result = card_abstraction(
        args.ranks,
        counts,
        args.method,
        seed=args.seed,
        cache=folder,
        progress=progress,
        kmeans_sample=args.kmeans_sample,
        kmeans_passes=args.kmeans_passes,
    )
    info = result.as_dict()
    info["load_average_before"] = load_before
    info["load_average_after"] = load_average()
    info["stage_started_seconds"] = {k: round(v, 1) for k, v in state["stages"].items()}
    info["kmeans_sample"] = args.kmeans_sample
    info["kmeans_passes"] = args.kmeans_passes
    rows = [
        [
            s["street"],
            s["classes"],
            s["buckets"],
            round(info["round_seconds"][r], 1),
            "" if s["objective"] is None else f"{s['objective']:.4g}",
        ]
        for r, s in enumerate(info["streets"])
    ]
    print_table(
        f"card abstraction, {4 * args.ranks} cards, {args.method}, {args.buckets}: "
        f"{'read from the cache' if result.from_cache else 'built'} in {result.seconds:.1f} s "
        f"wall, {result.cpu_seconds:.1f} s CPU (strength tables {info['feature_seconds']:.1f} s), "
        f"peak memory {result.peak_bytes / 2**30:.2f} GiB, load {load_before} -> "
        f"{info['load_average_after']}",
        ["street", "classes", "buckets", "seconds", "k-means objective"],
        rows,
    )
    return info


def quality(args: argparse.Namespace) -> dict:
    from pokerlab.abstraction.kmeans import _cluster_means, _cluster_round
    from pokerlab.abstraction.strength import (
        class_weights,
        next_round_histograms,
        strength_tables,
    )

    ranks, k, hb = args.quality_ranks, args.quality_buckets, 50
    strength = strength_tables(ranks, cache=Path(args.cache))
    w = [class_weights(r, ranks).astype(np.float64) for r in range(4)]
    bins = np.minimum((strength.ehs[3] * hb).astype(np.int64), hb - 1)
    turn_hist = next_round_histograms(2, bins, hb, ranks)
    centres = (np.arange(hb) + 0.5) / hb
    out: dict = {"ranks": ranks, "buckets": k, "rows": []}
    rows = []

    def run(street: str, hist, positions, r: int, sample: int | None) -> np.ndarray:
        t = time.perf_counter()
        labels, objective = _cluster_round(
            hist, positions, w[r], strength.ehs[r], k, args.seed, street,
            sample=sample, passes=args.kmeans_passes,
        )  # fmt: skip
        seconds = time.perf_counter() - t
        row = {
            "street": street,
            "classes": int(hist.shape[0]),
            "kmeans": "exact" if sample is None else f"sampled {sample:,}",
            "objective": objective,
            "seconds": round(seconds, 2),
        }
        out["rows"].append(row)
        rows.append([street, row["classes"], row["kmeans"], f"{objective:.5g}", row["seconds"]])
        return labels

    turn_labels = run("turn", turn_hist, centres, 2, None)
    for sample in args.quality_samples:
        run("turn", turn_hist, centres, 2, sample)
    means = _cluster_means(turn_labels, strength.ehs[2], w[2])
    flop_hist = next_round_histograms(1, turn_labels, k, ranks)
    run("flop", flop_hist, means, 1, None)
    for sample in args.quality_samples:
        run("flop", flop_hist, means, 1, sample)
    for row in out["rows"]:
        exact = next(x for x in out["rows"] if x["street"] == row["street"])
        row["vs_exact"] = row["objective"] / exact["objective"]
    for row, printed in zip(out["rows"], rows, strict=True):
        printed.append(f"{row['vs_exact']:.4f}")
    print_table(
        f"k-means objective over every class, {4 * ranks} cards, {k} buckets "
        f"(passes {args.kmeans_passes})",
        ["street", "classes", "k-means", "objective", "seconds", "vs exact"],
        rows,
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="No-limit card abstraction: build and quality.")
    parser.add_argument("--ranks", type=int, default=13, help="ranks of the deck (13: full)")
    parser.add_argument("--buckets", default="169,200,200,200", help="buckets per street")
    parser.add_argument("--method", default="emd", help="emd, ehs or ehs2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kmeans-sample", type=int, default=KMEANS_SAMPLE)
    parser.add_argument("--kmeans-passes", type=int, default=KMEANS_PASSES)
    parser.add_argument(
        "--cache",
        default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "pokerlab-nolimit-abstraction"),
        help="cache folder (a fresh one measures the whole build)",
    )
    parser.add_argument("--no-build", action="store_true", help="skip the build")
    parser.add_argument("--quality", action="store_true", help="sampled against exact k-means")
    parser.add_argument("--quality-ranks", type=int, default=6)
    parser.add_argument("--quality-buckets", type=int, default=200)
    parser.add_argument(
        "--quality-samples",
        type=lambda s: [int(x) for x in s.split(",")],
        default=[5_000, 20_000],
        help="sample sizes compared with exact k-means",
    )
    add_save_option(parser)
    args = parser.parse_args()
    payload: dict = {}
    if not args.no_build:
        payload["build"] = build(args)
    if args.quality:
        payload["quality"] = quality(args)
    path = write_results("nolimit-abstraction", payload, save=args.save)
    print(json.dumps(payload, indent=1, default=str)[:4000])
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
