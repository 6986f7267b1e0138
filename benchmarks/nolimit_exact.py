"""Exact best response against a no-limit blueprint on a small deck (issues 24 and 25): the
12-card, four-round fold / call / pot / all-in game at 20 big blinds (2,000 chips, blinds
50/100), a blueprint of ``--iterations`` MCCFR iterations on lossless buckets, then
:func:`pokerlab.evaluate.nolimit.exact.exact_best_response` with suit isomorphism (the
blueprint's lossless buckets are suit-canonical).

What to expect and why: the walk batches every board of a round per betting node in numpy, so
its own cost is small; the agent is asked once per (public state, action) it reaches (about
250,000 questions here), and its ``action_probability`` dominates the time. ``--plain`` walks
every board instead of one per suit class (about 20 times the questions).

Run: ``python benchmarks/nolimit_exact.py [--iterations N] [--plain] [--save]``.
"""

from __future__ import annotations

import argparse
import time

import pokerlab
from _common import add_save_option, print_table, write_results
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.exact import exact_best_response
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction


class _Timed(BlueprintAgent):
    """The blueprint agent, timing its own answers."""

    spent = 0.0

    def action_probability(self, view, hands, action):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        out = super().action_probability(view, hands, action)
        _Timed.spent += time.perf_counter() - t0
        return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iterations", type=int, default=20_000, help="MCCFR iterations")
    parser.add_argument("--plain", action="store_true", help="no suit isomorphism")
    add_save_option(parser)
    args = parser.parse_args()
    game = pokerlab.load_game("nolimit-holdem", config="fcpa", ranks=3, rounds=4, stack=2000)
    abstraction = lossless_abstraction(3)
    t0 = time.perf_counter()
    solver = BlueprintSolver(game, abstraction, seed=1)
    solver.step(args.iterations)
    train = time.perf_counter() - t0
    agent = _Timed(solver.average_strategy(), abstraction)
    result = exact_best_response(game, agent, suit_isomorphism=not args.plain)
    rows = [
        [
            f"{args.iterations:,} iterations ({train:.1f} s)",
            result.best_response_values[0],
            result.best_response_values[1],
            result.mbb_per_game,
            result.queries,
            result.seconds,
            _Timed.spent,
        ]
    ]
    print_table(
        "Exact best response, 12 cards, 4 rounds, fcpa, 20 bb"
        + (" (every board)" if args.plain else " (suit isomorphism)"),
        ["blueprint", "BR seat 0", "BR seat 1", "mbb/g", "queries", "seconds", "agent s"],
        rows,
    )
    payload = {**result.to_dict(), "agent_seconds": _Timed.spent, "train_seconds": train}
    path = write_results("nolimit_exact", payload, save=args.save)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
