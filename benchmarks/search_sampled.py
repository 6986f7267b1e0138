"""What sampled deals below a depth-limited flop search's leaves cost, exactly, on the full deck
(issue 25): testbed T3 of ``search.py`` (Td9d6h, 7 hand classes a side, pot 100, stacks 300,
75% and all-in; the river-bucketed blueprint), whose narrow ranges let the flop's leaves be
valued exactly, every turn and river dealt, and the result judged by an exact best response.

For each continuation set the flop is searched at its root, depth-limited (the search's
strategy for the flop round replaces the blueprint's, which plays on below): once with exact
leaves, and with ``--deal-sample`` turn and river cards below the leaves, the deals drawn with
``--samples`` seeds (each sampled spot's flop round mapped back onto the full tree by its action
line; the blueprint mapped onto the sampled tree by line and board). The gap between the two is
the sample's cost in the real game; the table agent (``SearchAgent(deal_sample=...)``) plays
the sampled search on hunl-100, where exact leaves do not fit a decision's 10 s.

What to expect: a depth-limited flop search alone, the blueprint below, is worse than the
blueprint on T3 (``search.py`` table 3: the bucketed river meets ranges it was not solved for);
the question here is the sample's gap, which should shrink as the sample grows and stay small
beside the continuation set's effect.

``--draws K``: each solve rotates K sampled trees of other draws, iteration i on tree i mod K
(``SearchAgent(deal_draws=K)``), so that its iterations see K draws at one draw's cost.

Usage: ``python benchmarks/search_sampled.py [--deal-sample 6,6] [--samples 3] [--draws 4]
[--save]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import add_save_option, finish_run, load_average, print_table  # noqa: E402
from pokerlab.games.postflop.game import PostflopGame  # noqa: E402
from pokerlab.solvers.search import profile_exploitability, search_everywhere  # noqa: E402
from pokerlab.solvers.search.blueprints import bucketed_blueprint  # noqa: E402
from pokerlab.tree.vector.passes import Passes  # noqa: E402
from pokerlab.tree.vector.tree import DECISION  # noqa: E402
from search import T3_SPOT  # noqa: E402


def _blocks(game: PostflopGame) -> dict[str, tuple[int, int]]:
    """Each decision node's key (board and line) to its block (start, length) of the profile."""
    spot = game.expanded
    a = spot.tree.arrays
    naming = game.public_tree().naming
    out = {}
    for n in np.flatnonzero(a.kind == DECISION).tolist():
        width = int(a.child_start[n + 1] - a.child_start[n]) * int(spot.tree.hands.num[a.player[n]])
        out[naming.node_key(n)] = (int(a.offset[n]), width)
    return out


def _mapped(
    game: PostflopGame, blocks: dict[str, tuple[int, int]], profile: np.ndarray,
    full_blocks: dict[str, tuple[int, int]],
) -> np.ndarray:  # fmt: skip
    """``profile`` (the full tree's layout) on ``game``'s tree, block by block through the
    nodes' keys."""
    out = np.empty(game.expanded.tree.size)
    for key, (lo, width) in blocks.items():
        flo, fwidth = full_blocks[key]
        assert fwidth == width, key
        out[lo : lo + width] = profile[flo : flo + fwidth]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deal-sample", default="6,6", help="TURN,RIVER cards below the leaves")
    parser.add_argument("--samples", type=int, default=3, help="seeds of the sampled deals")
    parser.add_argument(
        "--draws", type=int, default=1, help="sampled trees rotated per iteration of a solve"
    )
    parser.add_argument("--buckets", type=int, default=5, help="river classes of the blueprint")
    parser.add_argument("--blueprint-iterations", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=30, help="the flop search's")
    parser.add_argument("--gadget", default="unsafe", help="the table's: unsafe")
    parser.add_argument("--continuations", default="1,4,self")
    add_save_option(parser)
    args = parser.parse_args()
    load_before = load_average()
    sample = tuple(int(x) for x in args.deal_sample.split(","))
    full = PostflopGame(isomorphism=False, **T3_SPOT)  # a sampled spot has no isomorphism
    pot = float(full.config.pot)
    passes = Passes(full.expanded.tree, 1)
    profile, _ = bucketed_blueprint(full, args.buckets, args.blueprint_iterations)
    base = 100 * profile_exploitability(passes, profile, pot) / pot
    full_blocks = _blocks(full)
    rows: list[dict[str, Any]] = [{"config": "blueprint", "k": "-", "pct": base, "seconds": 0.0}]
    for token in args.continuations.split(","):
        k: int | str = token if token == "self" else int(token)
        start = time.perf_counter()
        report = search_everywhere(
            full, profile, args.gadget, street="flop", iterations=args.iterations,
            depth="round", continuations=k,
        )  # fmt: skip
        exact = 100 * profile_exploitability(passes, report.profile, pot) / pot
        rows.append({"config": "exact leaves", "k": token, "pct": exact,
                     "seconds": time.perf_counter() - start})  # fmt: skip
        got = []
        for seed in range(args.samples):
            start = time.perf_counter()
            draws = [
                PostflopGame(deal_sample=sample, deal_seed=seed * args.draws + i, **T3_SPOT)
                for i in range(args.draws)
            ]
            sampled = draws[0]
            blocks = _blocks(sampled)
            others = [(g, _mapped(g, _blocks(g), profile, full_blocks)) for g in draws[1:]]
            rep = search_everywhere(
                sampled, _mapped(sampled, blocks, profile, full_blocks), args.gadget,
                street="flop", iterations=args.iterations, depth="round", continuations=k,
                rotation=others or None,
            )  # fmt: skip
            played = profile.copy()
            nb = sampled.expanded.node_board
            naming = sampled.public_tree().naming
            for n in np.flatnonzero(sampled.expanded.tree.arrays.kind == DECISION).tolist():
                if np.count_nonzero(nb[n] >= 0) == 3:  # the flop round: the search's strategy
                    key = naming.node_key(n)
                    lo, width = blocks[key]
                    flo, _ = full_blocks[key]
                    played[flo : flo + width] = rep.profile[lo : lo + width]
            pct = 100 * profile_exploitability(passes, played, pot) / pot
            got.append(pct)
            label = f"deals {args.deal_sample} x{args.draws}"
            rows.append({"config": f"{label}, seed {seed}", "k": token, "pct": pct,
                         "seconds": time.perf_counter() - start})  # fmt: skip
        rows.append({"config": f"deals {args.deal_sample} x{args.draws}, mean of {args.samples}",
                     "k": token,
                     "pct": float(np.mean(got)), "seconds": 0.0})  # fmt: skip
        print(f"k={token}: exact {exact:.3f}%, sampled {np.mean(got):.3f}% ({got})", flush=True)
    print_table(
        f"T3 (full deck, Td9d6h): the flop depth-limited ({args.gadget}, {args.iterations} it.), "
        f"exploitability % of the pot; blueprint {args.buckets} river classes",
        ["leaves", "k", "% of pot", "seconds"],
        [[r["config"], r["k"], r["pct"], r["seconds"]] for r in rows],
    )
    finish_run("search-sampled", args, rows, load_before)


if __name__ == "__main__":
    main()
