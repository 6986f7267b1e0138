"""Real-time search's exact table (issue 25): the real-game exploitability of a blueprint and of
the blueprint refined by search at every public state of a street, every cell from this one
command, with what each search costs.

Testbed T2 (BLUEPRINT.md 3.1): the built-in turn spot (Td9d6h Qc, pot 200, stacks 900, the
spot of benchmark B6). The blueprint plays the turn losslessly and the river with its hands
pooled into ``--buckets`` classes per river node by hand strength against the opponent's range
(:func:`~pokerlab.solvers.search.blueprints.bucketed_blueprint`, ``--blueprint-iterations`` of
DCFR). Search re-solves every river public state (one per stored river card and turn line) for
each seat with lossless cards, ``--search-iterations`` of DCFR, with the unsafe, resolve (CFR-D)
and maxmargin gadgets (:mod:`pokerlab.solvers.search`), and the assembled strategy is judged by
the exact best response of the whole turn game.

Table 1 (T2): exploitability in percent of the pot (the mean over the seats of a best response's
gain) of the blueprint and of each search; ``bound``: what the subgames' changes can add to a
best response at most (0 for a safe gadget solved exactly). What to expect (Brown and Sandholm,
NIPS 2017, tables 1-3; Libratus 2018, table 1): every gadget lowers a bucketed blueprint's
exploitability; unsafe the most while the blueprint's ranges are right, maxmargin below resolve.

Table 2 (the regression case): the spot solved losslessly to near equilibrium
(``--exact-iterations``), then searched (``--exact-search-iterations``): unsafe search lets
the opponent arrive with other hands than the blueprint's and must come out *more* exploitable
than the blueprint (BLUEPRINT.md 3.5 C5, the analogue of Libratus's 41.3 -> 397 mbb/g), the safe
gadgets within their bound.

Table 3 (testbed T3, a narrow flop spot: Td9d6h, 7 hand classes a side, pot 100, stacks 300,
bets 75% or all-in; 3 million solver entries): the same kind of blueprint (flop and turn
lossless, river bucketed), and search with ``--t3-gadget`` (maxmargin) at the river, at the turn
to the end of the game, and at the turn to the end of the turn with the opponent picking among
k = 1 or 4 continuation profiles at the leaves (Modicum; BLUEPRINT.md 3.5 C7: k = 4 should be
no worse than k = 1), and at the flop (the spot's root) to the end of the flop with k = 4; then
nested chains, each search reading the previous one's strategy as its blueprint (Pluribus
searches every round from the last search): the turn's depth-limited search followed by river
search, the flop's followed by turn search to the end, and flop, turn and river depth-limited
as Pluribus plays (the river's subgame reaches the end of the game); the same with Modicum's
self-generative continuations (``k=self``: the blueprint, then the opponent's best response
below the leaves to the current search, three rounds). Expected (stop 48): one depth-limited
search alone is worse than the blueprint with k = 1 or 4 (the blueprint's river, bucketed,
then meets ranges it was not solved for), better once nested searches follow, and the
self-generative set better than k = 4 on every chain.

Table 5 (off-tree sizes, BLUEPRINT.md 3.5 C8): the blueprint is the spot solved losslessly
(``--exact-iterations``) on a coarser river menu (``--coarse-river``, 33% and all-in: no 75%
bet), played in the real spot by pseudo-harmonic translation
(:func:`~pokerlab.solvers.search.translation.translated_profile`), then searched at the river
with the real menu, so the opponent's actual 75% bet is in every subgame. Anchor: Brown and
Sandholm's table 4, translation 1,465 against 119-150 mbb/g for nested search (about 10x).

Table 4 (budgets): seconds per search (one subgame, one seat, after its ranges are known; the
kernels compiled first by :func:`~pokerlab.solvers.search.warm_search`, untimed):
river searches of table 1 (mean and largest; target 50 ms), the whole turn spot searched from
its root to the end of the game (target 2 s), the flop search of table 3 (target 10 s).

Usage: ``python benchmarks/search.py [--quick] [--only 1,2,3,4,5] [--save]`` (``--quick``: a
small turn spot, seconds; the default takes about half an hour on 2 cores).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pokerlab  # noqa: E402
from _common import add_save_option, load_average, print_table, write_results  # noqa: E402
from pokerlab.solvers.search import (  # noqa: E402
    GADGETS,
    profile_exploitability,
    search_everywhere,
    warm_search,
)
from pokerlab.solvers.search.blueprints import (  # noqa: E402
    bucketed_blueprint,
    lossless_blueprint,
)
from pokerlab.tree.vector.passes import Passes  # noqa: E402

T3_SPOT = dict(
    board="Td9d6h",
    ranges=("AA,KK,QQ,AK,KQs,JTs,T9s", "TT,99,88,AQs,QJs,J8s,AJo"),
    pot=100,
    stack=300,
    bets="75%, a",
    raises="a",
)

#: ``--quick``: the same ranges and sizes on a turn (Qc dealt)
QUICK_SPOT = {**T3_SPOT, "board": "Td9d6hQc"}


def _searches(game: Any, profile: np.ndarray, base: float, iterations: int) -> list[dict]:
    pot = float(game.config.pot)
    passes = Passes(game.expanded.tree, 1)
    rows = [{"config": "blueprint", "pct": 100 * base / pot, "bound_pct": 0.0, "seconds": 0.0}]
    for gadget in GADGETS:
        report = search_everywhere(game, profile, gadget, iterations=iterations)
        expl = profile_exploitability(passes, report.profile, pot)
        times = [r["seconds"] for r in report.per_subgame]
        rows.append(
            {
                "config": f"+ river search, {gadget}",
                "pct": 100 * expl / pot,
                "bound_pct": 100 * report.gain_bound / pot,
                "seconds": report.seconds,
                "subgames": report.subgames,
                "search_mean_s": float(np.mean(times)),
                "search_max_s": float(np.max(times)),
            }
        )
    return rows


def _t3(args: argparse.Namespace) -> tuple[list[dict], dict[Any, float]]:
    """Table 3's rows and the flop searches' seconds per subgame and seat, by continuations."""
    game = pokerlab.load_game("postflop", **T3_SPOT)
    pot = float(game.config.pot)
    passes = Passes(game.expanded.tree, 1)
    start = time.perf_counter()
    profile, _ = bucketed_blueprint(game, args.buckets, args.t3_blueprint_iterations)
    rows = [
        {
            "config": "blueprint",
            "pct": 100 * profile_exploitability(passes, profile, pot) / pot,
            "bound_pct": 0.0,
            "seconds": time.perf_counter() - start,
        }
    ]
    flop_seconds: dict[Any, float] = {}
    profiles = {(): profile}  # the strategy after each chain of searches, by the chain
    # one search each, then nested chains: each search reads the strategy of the chain before
    # it as its blueprint (ranges and, for a safe gadget, CBVs), as Pluribus searches the next
    # round from the previous round's search
    chains = [
        (("river", "end", 1),),
        (("turn", "end", 1),),
        (("turn", "round", 1),),
        (("turn", "round", 4),),
        (("flop", "round", 4),),
        (("turn", "round", 4), ("river", "end", 1)),
        (("flop", "round", 4), ("turn", "end", 1)),
        (("flop", "round", 4), ("turn", "round", 4)),
        (("flop", "round", 4), ("turn", "round", 4), ("river", "end", 1)),
        # Modicum's self-generative continuations (the blueprint, then best responses)
        (("turn", "round", "self"),),
        (("flop", "round", "self"),),
        (("turn", "round", "self"), ("river", "end", 1)),
        (("flop", "round", "self"), ("turn", "end", 1)),
        (("flop", "round", "self"), ("turn", "round", "self")),
        (("flop", "round", "self"), ("turn", "round", "self"), ("river", "end", 1)),
    ]
    for chain in chains:  # a chain's prefix comes before it
        street, depth, k = chain[-1]
        its = args.t3_flop_iterations if street == "flop" else args.t3_iterations
        report = search_everywhere(
            game, profiles[chain[:-1]], args.t3_gadget, street=street, iterations=its,
            depth=depth, continuations=k,
        )  # fmt: skip
        profiles[chain] = report.profile
        label = ", then ".join(
            f"{s} " + ("to the end" if d == "end" else f"depth-limited k={n}") for s, d, n in chain
        )
        rows.append(
            {
                "config": f"+ {label}" + (" (nested)" if len(chain) > 1 else ""),
                "pct": 100 * profile_exploitability(passes, report.profile, pot) / pot,
                "bound_pct": 100 * report.gain_bound / pot,
                "seconds": report.seconds,
                "subgames": report.subgames,
                "search_mean_s": float(np.mean([r["seconds"] for r in report.per_subgame])),
            }
        )
        if len(chain) == 1 and street == "flop":
            flop_seconds[k] = rows[-1]["search_mean_s"]
    return rows, flop_seconds


def _off_tree(game: Any, args: argparse.Namespace) -> list[dict]:
    """Table 5's rows: the coarse blueprint in its own game, translated, and searched."""
    from pokerlab.solvers.search.translation import translated_profile

    params = game.config.to_dict()
    params["river"] = {"bet": args.coarse_river, "raise": "a"}
    coarse = pokerlab.load_game("postflop", **params)
    start = time.perf_counter()
    blueprint, own = lossless_blueprint(coarse, args.exact_iterations)
    played = translated_profile(game, coarse, blueprint)
    pot = float(game.config.pot)
    passes = Passes(game.expanded.tree, 1)
    translated = profile_exploitability(passes, played, pot)
    rows = _searches(game, played, translated, args.search_iterations)
    rows[0]["config"] = "blueprint + translation"
    rows[0]["seconds"] = time.perf_counter() - start
    rows.insert(
        0,
        {
            "config": "blueprint in its own game",
            "pct": 100 * own / pot,
            "bound_pct": 0.0,
            "seconds": 0.0,
        },
    )
    return rows


def _print(title: str, rows: list[dict]) -> None:
    print_table(
        title,
        ["configuration", "expl % pot", "bound % pot", "seconds"],
        [[r["config"], r["pct"], r["bound_pct"], r["seconds"]] for r in rows],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small turn spot (seconds)")
    parser.add_argument("--buckets", type=int, default=5, help="river classes of the blueprint")
    parser.add_argument("--blueprint-iterations", type=int, default=300)
    parser.add_argument("--search-iterations", type=int, default=200)
    parser.add_argument("--exact-iterations", type=int, default=1000)
    parser.add_argument(
        "--exact-search-iterations",
        type=int,
        default=600,
        help="table 2's searches: the safe gadgets' bound is their solve error, so more",
    )
    parser.add_argument("--t3-blueprint-iterations", type=int, default=100)
    parser.add_argument("--t3-iterations", type=int, default=100)
    parser.add_argument("--t3-gadget", default="maxmargin", choices=GADGETS)
    parser.add_argument(
        "--t3-flop-iterations",
        type=int,
        default=30,
        help="the flop search's iterations (each values every turn card below each leaf 8 times)",
    )
    parser.add_argument("--no-t3", action="store_true", help="skip table 3 (minutes)")
    parser.add_argument(
        "--coarse-river", default=None, help="table 5's blueprint river bets (default 33%%, a)"
    )
    parser.add_argument(
        "--only", default="", help="run only these tables, e.g. 5 or 1,2 (default: all)"
    )
    add_save_option(parser)
    args = parser.parse_args()
    if args.quick:
        game = pokerlab.load_game("postflop", **QUICK_SPOT)
        spot_name = "quick turn spot"
    else:
        game = pokerlab.load_game("postflop", spot="turn")
        spot_name = "turn spot T (B6)"
    load_before = load_average()
    # numba compiles (or loads) each kernel at its first call: done here, untimed, so that the
    # seconds below are searching (a flop search's first subgame took 47 s compiling, 2.9 s warm)
    warm_seconds = warm_search()
    print(f"kernels compiled or loaded in {warm_seconds:.1f} s (not in the figures below)")
    pot = float(game.config.pot)
    passes = Passes(game.expanded.tree, 1)

    only = {int(x) for x in args.only.split(",") if x.strip()} or {1, 2, 3, 4, 5}
    if args.coarse_river is None:
        args.coarse_river = "a" if args.quick else "33%, a"
    payload: dict[str, Any] = {
        "spot": spot_name, "options": vars(args), "warmup_seconds": warm_seconds
    }  # fmt: skip
    t1: list[dict] = []
    if only & {1, 4}:
        start = time.perf_counter()
        profile, _ = bucketed_blueprint(game, args.buckets, args.blueprint_iterations)
        bp_seconds = time.perf_counter() - start
        base = profile_exploitability(passes, profile, pot)
        t1 = _searches(game, profile, base, args.search_iterations)
        t1[0]["seconds"] = bp_seconds
        payload["bucketed"] = t1
        _print(
            f"1. {spot_name}: river bucketed ({args.buckets} classes, "
            f"{args.blueprint_iterations} it.), river search {args.search_iterations} it.",
            t1,
        )

    if 2 in only:
        start = time.perf_counter()
        exact, exact_expl = lossless_blueprint(game, args.exact_iterations)
        exact_seconds = time.perf_counter() - start
        t2 = _searches(game, exact, exact_expl, args.exact_search_iterations)
        t2[0]["seconds"] = exact_seconds
        payload["lossless"] = t2
        _print(
            f"2. {spot_name}: lossless blueprint ({args.exact_iterations} it.), river search "
            f"{args.exact_search_iterations} it. (unsafe must lose here)",
            t2,
        )

    t3: list[dict] = []
    flop_seconds: dict[Any, float] = {}
    if only & {3, 4} and not args.no_t3 and not args.quick:
        t3, flop_seconds = _t3(args)
        payload["t3"] = t3
        _print(
            f"3. T3 flop spot: river bucketed ({args.buckets} classes, "
            f"{args.t3_blueprint_iterations} it.), {args.t3_gadget} search "
            f"{args.t3_iterations} it.",
            t3,
        )

    if 5 in only:
        t5 = _off_tree(game, args)
        payload["off_tree"] = t5
        _print(
            f"5. {spot_name}: blueprint solved without the 75% river bet (river "
            f"{args.coarse_river!r}, {args.exact_iterations} it.), played by translation, "
            f"then river search {args.search_iterations} it. with the real sizes",
            t5,
        )

    if 4 in only:
        whole = search_everywhere(
            game, profile, "resolve", street=game.config.street, iterations=args.search_iterations
        )
        searched = [r for r in t1 if "search_mean_s" in r]
        budget_rows = [
            [f"river, {r['config'].split(', ')[-1]}", 1e3 * r["search_mean_s"],
             1e3 * r["search_max_s"], 50.0]
            for r in searched
        ]  # fmt: skip
        if game.config.street == "turn":
            turn_ms = 1e3 * whole.per_subgame[0]["seconds"]
            budget_rows.append(["the whole turn spot, resolve", turn_ms, turn_ms, 2000.0])
        for k, seconds in flop_seconds.items():
            flop_label = f"T3 flop, depth-limited, k={k}, {args.t3_flop_iterations} it."
            budget_rows.append([flop_label, 1e3 * seconds, 1e3 * seconds, 10000.0])
        payload["budgets_ms"] = budget_rows
        print_table(
            f"4. milliseconds per search (one subgame, one seat; {args.search_iterations} or "
            f"{args.t3_iterations} it.)",
            ["search", "mean ms", "largest ms", "target ms"],
            budget_rows,
        )
    load_after = load_average()
    print(f"\nload average before {load_before}, after {load_after}")
    payload["load_average"] = {"before": load_before, "after": load_after}
    name = "search-quick" if args.quick else "search"
    if args.only:
        name += "-" + args.only.replace(",", "")
    path = write_results(name, payload, save=args.save)
    print(f"results: {path}")


if __name__ == "__main__":
    main()
