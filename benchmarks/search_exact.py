"""Testbed T4 of issue 25 (BLUEPRINT.md 3.1): a small-deck no-limit game, preflop included,
where the whole pipeline, a blueprint plus real-time search, is judged by an exact best response
over what the agent plays at every public state it reaches.

The game: 12 cards (Q, K, A), four rounds, fold / call / pot / all-in at every decision
(``base = "fcpa"``), stacks ``--stack`` chips (blinds 50/100). The blueprint: external-sampling
MCCFR on lossless buckets for ``--iterations`` iterations. The agents: the blueprint, and the
:class:`~pokerlab.solvers.search.agent.SearchAgent` on it searching the streets of each
``--streets`` entry (its menu is the game's own: pot and all-in, so that the responder's game is
the agent's), ``--search-iterations`` of DCFR per subgame, ranges from the previous search.
Each is judged by :func:`~pokerlab.evaluate.nolimit.exact.exact_best_response` (a public-tree
walk over every deal, suit isomorphism on: the blueprint's buckets and the searches are
suit-blind), which asks the agent once per public state it reaches: the search agent solves one
subgame per round start (line and board) there.

What to expect: the blueprint after a short run is far from equilibrium; search re-solves each
round exactly (lossless cards, no sampling noise) from the blueprint's ranges and should lower
the exploitability, more when it starts earlier, unless unsafe search's trust in the ranges
bites (Brown and Sandholm 2017; BLUEPRINT.md 3.5 C5).

Depth-limited agents (``--streets "turn,river:4"``): the flop and turn subgames stop at the end of
their round, the opponent picking among k continuations of the blueprint there
(:mod:`~pokerlab.solvers.search.table_depth`), the river searched to the end; ``":4@5,5"``
deals 5 of the 9 turn cards and 5 of the 8 river cards below the leaves (public chance
sampling, the full deck's way to the flop's budget), which measures what the sample costs.

Preflop search (``"preflop,..."``): to the end of the game, or depth-limited with the flop too
(``":4"``; ``"@F,T,R"`` samples F cards at each of the flop's three deals). Off-tree preflop
sizes (``--blueprint-preflop "50%, a"``): the blueprint is trained with that preflop menu while
the responder plays the game's, which adds those sizes (here the pot raise) to it; the blueprint
reads them by translation, and ``--preflop-far F`` makes the preflop-searching agents search only
once the opponent's size lies more than F big blinds from every blueprint size (Pluribus' rule).

Usage: ``python benchmarks/search_exact.py [--stack 1000] [--iterations 20000]
[--search-iterations 100] [--streets "river;turn,river;turn,river:4"]
[--blueprint-preflop SIZES --preflop-far F] [--save]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pokerlab  # noqa: E402
from _common import add_save_option, finish_run, load_average, print_table  # noqa: E402
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent  # noqa: E402
from pokerlab.evaluate.nolimit.exact import exact_best_response  # noqa: E402
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction  # noqa: E402
from pokerlab.solvers.search.agent import SearchAgent, SearchMenu  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stack", type=int, default=1000)
    parser.add_argument("--iterations", type=int, default=20_000, help="blueprint MCCFR")
    parser.add_argument("--search-iterations", type=int, default=100)
    parser.add_argument(
        "--streets",
        default="river;turn,river",
        help="';'-separated agents; a suffix ':1', ':4' or ':self' makes the flop and turn "
        "searches depth-limited with those continuations (e.g. 'flop,turn,river:self'), and "
        "'@T,R' after it deals T turn and R river cards below the leaves (e.g. ':4@5,5'), "
        "'xK' after that solves K draws in turn (':4@5,5x4'); ':4=preflop' limits the "
        "preflop's subgames alone (the streets named)",
    )
    parser.add_argument(
        "--blueprint-preflop",
        default=None,
        help="the blueprint's preflop raises (e.g. '50%%, a'); the game then offers them and "
        "the pot raise, so the pot raise is off the blueprint's tree",
    )
    parser.add_argument(
        "--preflop-far", type=float, default=None, help="preflop_far of the preflop searches"
    )
    add_save_option(parser)
    args = parser.parse_args()
    load_before = load_average()
    game = pokerlab.load_game("nolimit-holdem", actions="fcpa", ranks=3, rounds=4, stack=args.stack)
    trained = game
    if args.blueprint_preflop is not None:
        actions = dict(game.abstraction.to_dict())
        actions["preflop"] = args.blueprint_preflop
        trained = pokerlab.load_game(
            "nolimit-holdem", actions=actions, ranks=3, rounds=4, stack=args.stack
        )
        actions = dict(actions, preflop=f"{args.blueprint_preflop}, 100%")
        game = pokerlab.load_game(
            "nolimit-holdem", actions=actions, ranks=3, rounds=4, stack=args.stack
        )
    abstraction = lossless_abstraction(3)
    solver = BlueprintSolver(trained, abstraction, seed=1)
    solver.step(args.iterations)
    blueprint = BlueprintAgent(solver.average_strategy(), abstraction)
    menu = SearchMenu("100%, a", "100%, a", raise_limit=8)
    agents: list[Any] = [blueprint]
    for entry in filter(None, (s.strip() for s in args.streets.split(";"))):
        streets, _, k = entry.partition(":")
        limited: dict[str, Any] = {}
        name = None
        if k:
            k, _, sample = k.partition("@")
            k, _, depth = k.partition("=")
            limited = {"depth": depth or "round", "continuations": k if k == "self" else int(k)}
            name = f"search({streets}; depth-limited{f' {depth}' if depth else ''}, k={k})"
            if sample:
                sample, _, draws = sample.partition("x")
                limited["deal_sample"] = tuple(sample.split(","))
                limited["deal_draws"] = int(draws or 1)
                name = f"search({streets}; depth-limited, k={k}, deals {sample}" + (
                    f" x{draws} draws)" if draws else ")"
                )
        if "preflop" in streets and args.preflop_far is not None:
            limited["preflop_far"] = args.preflop_far
            name = f"{name or f'search({streets})'} far {args.preflop_far:g} bb"
        agents.append(
            SearchAgent(
                blueprint,
                streets,
                menu=menu,
                iterations=args.search_iterations,
                cache=10**7,
                name=name,
                **limited,
            )  # fmt: skip
        )
    rows = []
    judged = [(agent, game) for agent in agents]
    if trained is not game:  # the translation's cost: the blueprint judged in its own game too
        judged.insert(
            1,
            (BlueprintAgent(blueprint.strategy, abstraction, name="blueprint, own game"), trained),
        )
    for agent, responder_game in judged:
        t0 = time.perf_counter()
        result = exact_best_response(responder_game, agent, suit_isomorphism=True)
        seconds = time.perf_counter() - t0
        records = getattr(agent, "records", [])
        rows.append(
            {
                "agent": agent.name,
                "exploitability_mbb": result.mbb_per_game,
                "best_response_values": list(result.best_response_values),
                "queries": result.queries,
                "subgames": len(records),
                "search_mean_ms": 1e3 * sum(r.seconds for r in records) / max(len(records), 1),
                "seconds": seconds,
            }
        )
        print(f"{agent.name}: {result.mbb_per_game:.1f} mbb/g in {seconds:.0f} s", flush=True)
    print_table(
        f"T4: 12 cards, 4 rounds, fcpa, stacks {args.stack}; blueprint {args.iterations:,} "
        f"it. (lossless); search {args.search_iterations} it. per subgame; exact best response",
        ["agent", "exploitability mbb/g", "subgames", "mean ms", "seconds"],
        [[r["agent"], r["exploitability_mbb"], r["subgames"], r["search_mean_ms"], r["seconds"]]
         for r in rows],
    )  # fmt: skip
    stem = "search-exact" if args.blueprint_preflop is None else "search-exact-offtree"
    finish_run(stem, args, rows, load_before)


if __name__ == "__main__":
    main()
