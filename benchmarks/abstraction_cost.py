"""The exact cost of a no-limit blueprint's action and card abstraction on a small deck (issue
24, "Judging it": exact best response in the abstract game and in a richer real game).

The game: 12 cards (Q, K, A; ``--ranks``), four rounds, blinds 50/100, stacks ``--stack`` chips
(10 big blinds by default, testbed T4's depth). The base action set is fold / call / pot /
all-in (``fcpa``); the rich game offers ``--rich`` (default 25%, 50%, 75%, 100%, 150%, 200% of
the pot and all-in) at every street and raise depth, thresholds off, standing in for every chip
amount (every chip amount at 10 bb is too many actions for a walk of every line: the rich set
already has 12,400 betting decisions to fcpa's 256). Three blueprints, external-sampling MCCFR
(Linear CFR) for each ``--iterations`` count, the same seed: lossless cards and fcpa; bucketed
cards (``--buckets``, EMD k-means, built without the disk cache) and fcpa; lossless cards and
the rich set. Each is judged by the exact best response (public-tree walk over every deal,
suit isomorphism on), the fcpa blueprints answering the rich game's sizes by their randomised
pseudo-harmonic translation with the draws averaged out
(:class:`~pokerlab.evaluate.nolimit.translated.AveragedTranslationAgent`):

- (a) lossless fcpa in the fcpa game, (b) the same in the rich game: b - a is the cost of the
  action abstraction;
- (c) bucketed fcpa in the fcpa game, (d) in the rich game: c - a is the cost of the card
  abstraction, d - a of both;
- (e) lossless rich in the rich game: what the finer action abstraction buys.

What to expect: b >= a and d >= c seat by seat, exactly (the rich game's responder keeps every
fcpa action where the agent is on its tree, and the agent plays as in the fcpa game there);
the gap should grow as training shrinks a (the translation's exploit is a fixed hole while
the fcpa game's own exploitability falls). c - a should become positive with training (the
buckets merge hands that play differently) but may be negative early: fewer information sets
converge faster. e pays for its 50 times more entries with slower convergence, so at equal
iterations it can be above b even though its abstraction is finer.

Usage: ``python benchmarks/abstraction_cost.py [--ranks 3] [--stack 1000]
[--iterations 20000,200000,1000000] [--buckets 9,4,4,4] [--rich "25%, ..., a"] [--seed 1]
[--save]`` (about 8 minutes on 2 shared cores).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import add_save_option, load_average, print_table, write_results  # noqa: E402
from pokerlab.solvers.abstraction_cost import (  # noqa: E402
    BASE_SIZES,
    RICH_SIZES,
    abstraction_cost,
)

CASES = {
    "a": "lossless fcpa, fcpa game",
    "b": "lossless fcpa, rich game",
    "c": "bucketed fcpa, fcpa game",
    "d": "bucketed fcpa, rich game",
    "e": "lossless rich, rich game",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", type=int, default=3)
    parser.add_argument("--stack", type=int, default=1000)
    parser.add_argument("--iterations", default="20000,200000,1000000", help="comma-separated")
    parser.add_argument("--buckets", default="9,4,4,4", help="per round, preflop first")
    parser.add_argument("--method", default="emd")
    parser.add_argument("--rich", default=RICH_SIZES)
    parser.add_argument("--seed", type=int, default=1)
    add_save_option(parser)
    args = parser.parse_args()
    counts = [int(x) for x in args.iterations.split(",") if x.strip()]
    buckets = [int(x) for x in args.buckets.split(",")]
    load_before = load_average()
    runs = []
    start = time.perf_counter()
    for n in counts:
        got = abstraction_cost(
            ranks=args.ranks,
            stack=args.stack,
            base=BASE_SIZES,
            rich=args.rich,
            buckets=buckets,
            method=args.method,
            iterations=n,
            seed=args.seed,
            progress=lambda msg: print(msg, flush=True),
        )
        runs.append({"iterations": n, **got})
    seconds = time.perf_counter() - start
    rows = []
    for run in runs:
        for r in run["rows"]:
            v0, v1 = r["best_response_values"]
            rows.append(
                [run["iterations"], f"({r['case']}) {CASES[r['case']]}", v0, v1,
                 r["mbb_per_game"], r["public_states"], r["seconds"]]
            )  # fmt: skip
    print_table(
        f"Exact exploitability, {4 * args.ranks} cards, 4 rounds, stacks {args.stack} (blinds "
        f"50/100); rich sizes: {args.rich}; buckets {args.buckets} ({args.method}); seed "
        f"{args.seed}",
        ["iterations", "blueprint, game", "BR seat 0 (chips)", "BR seat 1 (chips)", "mbb/g",
         "public states", "BR seconds"],
        rows,
    )  # fmt: skip
    print_table(
        "Costs (mbb/g)",
        ["iterations", "action (b - a)", "card (c - a)", "both (d - a)", "e - b"],
        [[run["iterations"], run["costs"]["action"], run["costs"]["card"], run["costs"]["both"],
          run["costs"]["rich_vs_translated"]] for run in runs],
    )  # fmt: skip
    load_after = load_average()
    print(f"\n{seconds:.0f} s in all; load average before {load_before}, after {load_after}")
    payload = {
        "args": vars(args),
        "runs": runs,
        "seconds": seconds,
        "load_average": [load_before, load_after],
    }
    path = write_results("abstraction-cost", payload, save=args.save)
    print(f"results: {path}")


if __name__ == "__main__":
    main()
