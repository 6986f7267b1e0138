"""Preflop search on the full deck (issue 25): what one depth-limited preflop decision costs.

The search agent on a no-limit blueprint checkpoint faces opens of the small blind far from the
blueprint's sizes (``--opens``, raise-to chips; each a new subgame) as the big blind, with
``preflop_far`` so that the preflop is searched: the subgame is the preflop round with the
search menu and the opens inserted, its leaves the flops, ``--deal-sample F,T,R`` cards drawn
at each of the flop's three deals and on the turn and river, the opponent picking among
``--continuations`` of the blueprint there; ``--iterations`` DCFR iterations on ``--threads``.
Each decision is timed end to end after :meth:`SearchAgent.warmup
<pokerlab.solvers.search.agent.SearchAgent.warmup>` (spot built, hand lists, the blueprint
projected onto the subgame, the continuations, the solve), with the subgame's size and the
process's peak memory.

What to expect (docs/search.md): about 146,000 nodes and 165 M numbers an array for the first
open at 3,3,3 against the 60-minute hunl-100 blueprint (the open inserted at its own depth,
``Nc@1``), so half a minute a decision with k = 1 and a minute or more with k = 4 on this
2-core machine (stop 53: 30.6 s and 68.1 s): about 60% of it the passes below every leaf (one
per seat an iteration with k = 1, four continuations' with k = 4), the rest building the spot
and projecting the blueprint; 5-10 GB resident. A line whose subgame does not fit is refused by
the agent (the blueprint plays; counted in the table).

Usage: ``python benchmarks/search_preflop.py [--checkpoint benchmarks/results/hunl-100-60min.npz]
[--continuations 1,4] [--iterations 20] [--threads 2] [--deal-sample 3,3,3] [--opens 550,700]
[--save]``.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import add_save_option, finish_run, load_average, print_table  # noqa: E402
from pokerlab.cli.blueprint_eval import load_agent  # noqa: E402
from pokerlab.evaluate.nolimit.agents import PublicView  # noqa: E402
from pokerlab.games.nolimit.rules import RAISE  # noqa: E402
from pokerlab.solvers.search.agent import SearchAgent  # noqa: E402

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default=str(HERE / "results" / "hunl-100-60min.npz"))
    parser.add_argument("--continuations", default="1,4")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--deal-sample", default="3,3,3")
    parser.add_argument("--opens", default="550,700", help="raise-to chips of the opens faced")
    add_save_option(parser)
    args = parser.parse_args()
    load_before = load_average()
    blueprint, game = load_agent(args.checkpoint, "--checkpoint")
    rules = game.rules
    sample = tuple(int(x) for x in args.deal_sample.split(","))
    rows = []
    for k in (int(x) for x in args.continuations.split(",")):
        agent = SearchAgent(
            blueprint, "preflop", depth="preflop", continuations=k, deal_sample=sample,
            iterations=args.iterations, threads=args.threads, preflop_far=1.0,
        )  # fmt: skip
        agent.warmup()
        start = rules.initial_state()
        for amount in (int(x) for x in args.opens.split(",")):
            view = PublicView(
                rules, start.apply(rules, RAISE, amount), (), ((start.to_act, RAISE, amount),)
            )
            t0 = time.perf_counter()
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")
                agent.policy(view, (0, 5))
            seconds = time.perf_counter() - t0
            record = agent.records[-1] if agent.records else None
            rows.append(
                {
                    "continuations": k,
                    "open": amount,
                    "seconds": seconds,
                    "searched": bool(agent.decisions and agent.decisions[-1][2]),
                    "refused": len(agent.refusals),
                    "iterations": record.iterations if record else 0,
                    "nodes": record.nodes if record else 0,
                    "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6,
                }
            )
            print(f"k={k} open {amount}: {seconds:.1f} s", flush=True)
        del agent
    print_table(
        f"preflop search, full deck: {Path(args.checkpoint).name}, deals {args.deal_sample}, "
        f"{args.iterations} it., {args.threads} threads",
        ["k", "open", "seconds", "iterations", "nodes", "refused", "peak RSS GB"],
        [[r["continuations"], r["open"], r["seconds"], r["iterations"], r["nodes"], r["refused"],
          r["peak_rss_gb"]] for r in rows],
    )  # fmt: skip
    finish_run("search-preflop", args, rows, load_before)


if __name__ == "__main__":
    main()
