"""No-limit evaluation speed (issue 24, "Judging it"): duplicate-match hands per second and LBR
games per second at ACPC HUNL (20,000 chips, blinds 50/100; the push/fold row at 1,000), one
thread.

What to expect and why: a match hand is a pure-Python walk of the rules' state machine (a few
dozen microseconds per decision), so card-blind baselines play thousands of hands per second;
the E[HS] rule bot adds one equity enumeration per decision (the flop sampled). LBR pays an
exact equity enumeration per round it plays (the flop: about a million hand evaluations, the
turn 50,000) plus the agent's action probabilities over its range at each decision, so LBR on
rounds 1-4 is slower than on 3-4; against the rule bot every range query asks its E[HS] for
all 1,326 hands (seconds per game). The last row plays LBR against the push/fold equilibrium
at 10 bb (``solve_pushfold(10.0)`` through :class:`PushFoldAgent`). The oracle against
always-fold is printed beside them (750 mbb/g with fcpa, exactly).

Run: ``python benchmarks/nolimit_eval.py [--pairs N] [--save]``.
"""

from __future__ import annotations

import argparse
import time

from _common import add_save_option, print_table, write_results
from pokerlab.evaluate.nolimit import (
    AlwaysCall,
    AlwaysFold,
    HandStrengthRule,
    PotRaise,
    duplicate_match,
    local_best_response,
)
from pokerlab.evaluate.nolimit.pushfold_agent import PushFoldAgent
from pokerlab.games.nolimit.rules import NoLimitRules
from pokerlab.solvers.pushfold import solve_pushfold


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=200, help="deals per measurement")
    add_save_option(parser)
    args = parser.parse_args()
    rules = NoLimitRules(2, (20_000, 20_000), 50, 100)
    local_best_response(rules, AlwaysFold(), 2, actions="fcpa", rounds="1-4")  # compile, load
    duplicate_match(rules, HandStrengthRule(), AlwaysCall(), 2)

    rows, payload = [], {}
    matches = [
        ("pot-raise v always-call", PotRaise(), AlwaysCall()),
        ("hs-rule v always-call", HandStrengthRule(), AlwaysCall()),
    ]
    for label, hero, opponent in matches:
        t0 = time.perf_counter()
        result = duplicate_match(rules, hero, opponent, args.pairs, seed=1)
        seconds = time.perf_counter() - t0
        games = 2 * args.pairs
        rows.append([f"match {label}", games, seconds, games / seconds,
                     result.mbb_per_game, result.ci95_mbb])  # fmt: skip
        payload[f"match {label}"] = {"hands_per_second": games / seconds, **result.as_dict()}
    lbrs = [
        ("fcpa", "3-4", AlwaysFold()),
        ("fcpa", "3-4", AlwaysCall()),
        ("fcpa", "1-4", AlwaysCall()),
        ("fc", "1-4", AlwaysCall()),
        ("fcpa", "3-4", HandStrengthRule()),
    ]
    for actions, rounds, agent in lbrs:
        pairs = args.pairs if rounds == "3-4" else max(2, args.pairs // 4)
        if isinstance(agent, HandStrengthRule):  # its range queries loop over 1,326 hands
            pairs = max(2, args.pairs // 50)
        t0 = time.perf_counter()
        result = local_best_response(rules, agent, pairs, seed=1, actions=actions, rounds=rounds)
        seconds = time.perf_counter() - t0
        label = f"LBR {actions} {rounds} v {agent.name}"
        rows.append([label, 2 * pairs, seconds, 2 * pairs / seconds,
                     result.mbb_per_game, result.ci95_mbb])  # fmt: skip
        payload[label] = {"games_per_second": 2 * pairs / seconds, **result.as_dict()}
    # LBR against the push/fold equilibrium at 10 bb (1,000 chips): an equilibrium of the
    # push/fold game, so LBR should find little (its small blind may also limp or raise smaller)
    solution = solve_pushfold(10.0)
    pushfold = PushFoldAgent(solution.sb_shove[0], solution.bb_call[0], name="push-fold 10bb")
    short = NoLimitRules(2, (1000, 1000), 50, 100)
    t0 = time.perf_counter()
    result = local_best_response(short, pushfold, args.pairs, seed=1, actions="fcpa", rounds="1-4")
    seconds = time.perf_counter() - t0
    label = "LBR fcpa 1-4 v push-fold (10 bb)"
    rows.append([label, 2 * args.pairs, seconds, 2 * args.pairs / seconds,
                 result.mbb_per_game, result.ci95_mbb])  # fmt: skip
    payload[label] = {"games_per_second": 2 * args.pairs / seconds, **result.as_dict()}
    print_table(
        "No-limit evaluation, HUNL 20,000 chips, blinds 50/100 (one thread)",
        ["run", "games", "seconds", "games/s", "mbb/g", "+-95%"],
        rows,
    )
    path = write_results("nolimit_eval", payload, save=args.save)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
