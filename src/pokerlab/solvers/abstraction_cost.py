"""The exact cost of a blueprint's action and card abstraction on a small deck (issue 24,
"Judging it"): the exact best response in the blueprint's own abstract game and in a richer
game standing in for every chip amount.

Five exploitabilities (mbb/g, :func:`~pokerlab.evaluate.nolimit.exact.exact_best_response`,
suit isomorphism on: every agent here is suit-blind), from blueprints trained alike
(:class:`~pokerlab.solvers.blueprint.BlueprintSolver`, the same iterations and seed):

- ``a``: lossless cards (one bucket per suit class), the base action set, in the base game;
- ``b``: that blueprint in the rich game, answering off-tree sizes by its randomised
  pseudo-harmonic translation with the draws averaged out
  (:class:`~pokerlab.evaluate.nolimit.translated.AveragedTranslationAgent`): ``b - a`` is the
  cost of the action abstraction;
- ``c``, ``d``: a bucketed blueprint (card abstraction) in the base and the rich game:
  ``c - a`` is the cost of the card abstraction, ``d - a`` of both;
- ``e``: lossless cards trained on the rich action set itself, in the rich game: what the
  finer action abstraction buys (its own game, so no translation).

The rich game's responder has every action of the base game wherever the base game's line is
(both sets hold ``100%`` and all-in, thresholds off), and there the agent plays as in the base
game, so each seat's best-response value in the rich game is at least its value in the base
game: ``b >= a`` and ``d >= c`` seat by seat (a responder with more actions against a fixed
strategy; the agent gains nothing from the responder's extra actions, which it only
translates).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.exact import exact_best_response
from pokerlab.evaluate.nolimit.translated import AveragedTranslationAgent
from pokerlab.games.registry import load_game
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction

__all__ = ["BASE_SIZES", "RICH_SIZES", "sized_game", "abstraction_cost"]

#: The base action set: fold, call, pot, all-in (OpenSpiel's ``fcpa``).
BASE_SIZES = "100%, a"
#: The rich action set: seven sizes at every street and depth.
RICH_SIZES = "25%, 50%, 75%, 100%, 150%, 200%, a"

_NO_THRESHOLDS = {
    "add_allin_threshold": 0.0,
    "force_allin_threshold": 0.0,
    "merging_threshold": 0.0,
}


def sized_game(ranks: int, stack: int, sizes: str, rounds: int = 4) -> Any:
    """The heads-up ``nolimit-holdem`` game of ``ranks`` ranks, ``stack`` chips (blinds 50/100)
    offering the bet sizes ``sizes`` at every street and raise depth, no raise cap, the tree
    thresholds off (so each listed size is played as it resolves)."""
    streets = ("preflop", "flop", "turn", "river")
    actions: dict[str, Any] = {s: sizes for s in streets} | _NO_THRESHOLDS
    return load_game(
        "nolimit-holdem", config="fcpa", actions=actions, ranks=ranks, rounds=rounds, stack=stack
    )


def abstraction_cost(
    *,
    ranks: int = 3,
    stack: int = 1000,
    base: str = BASE_SIZES,
    rich: str = RICH_SIZES,
    buckets: Sequence[int] = (9, 4, 4, 4),
    method: str = "emd",
    iterations: int = 200_000,
    seed: int = 1,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Train the three blueprints (module docstring) for ``iterations`` external-sampling
    iterations each with ``seed``, evaluate the five cases exactly and return
    ``{"rows": [...], "costs": {...}}``: per case its key, blueprint, game, each seat's
    best-response value (chips), exploitability (chips and mbb/g), public states, training and
    evaluation seconds; the costs in mbb/g (``action``: b - a, ``card``: c - a, ``both``:
    d - a, ``rich_vs_translated``: e - b). ``buckets``: the card abstraction per round
    (``method`` of :meth:`~pokerlab.games.nolimit.game.NoLimitHoldemGame.card_abstraction`,
    built without the disk cache)."""
    if not isinstance(iterations, int) or iterations < 1:
        raise PokerlabError(f"iterations must be a positive integer, got {iterations!r}")
    say = progress or (lambda _msg: None)
    base_game = sized_game(ranks, stack, base)
    rich_game = sized_game(ranks, stack, rich)
    lossless = lossless_abstraction(ranks)
    bucketed = base_game.card_abstraction(method, buckets=list(buckets), cache=False).abstraction

    def train(game: Any, cards: Any, name: str) -> tuple[AveragedTranslationAgent, float]:
        t0 = time.perf_counter()
        solver = BlueprintSolver(game, cards, seed=seed)
        solver.step(iterations)
        agent = AveragedTranslationAgent(solver.average_strategy(), cards, name=name)
        seconds = time.perf_counter() - t0
        say(f"trained {name}: {iterations:,} iterations in {seconds:.1f} s")
        return agent, seconds

    lossless_agent, t_a = train(base_game, lossless, "lossless, base actions")
    bucket_agent, t_c = train(base_game, bucketed, "bucketed, base actions")
    rich_agent, t_e = train(rich_game, lossless, "lossless, rich actions")
    cases = [
        ("a", lossless_agent, t_a, base_game, "base"),
        ("b", lossless_agent, t_a, rich_game, "rich"),
        ("c", bucket_agent, t_c, base_game, "base"),
        ("d", bucket_agent, t_c, rich_game, "rich"),
        ("e", rich_agent, t_e, rich_game, "rich"),
    ]
    rows = []
    for key, agent, trained, game, where in cases:
        result = exact_best_response(game, agent, suit_isomorphism=True)
        rows.append(
            {
                "case": key,
                "blueprint": agent.name,
                "game": where,
                "best_response_values": list(result.best_response_values),
                "exploitability": result.exploitability,
                "mbb_per_game": result.mbb_per_game,
                "public_states": result.public_states,
                "train_seconds": trained,
                "seconds": result.seconds,
            }
        )
        say(f"({key}) {agent.name} in the {where} game: {result.mbb_per_game:.1f} mbb/g")
    mbb = {r["case"]: r["mbb_per_game"] for r in rows}
    costs = {
        "action": mbb["b"] - mbb["a"],
        "card": mbb["c"] - mbb["a"],
        "both": mbb["d"] - mbb["a"],
        "rich_vs_translated": mbb["e"] - mbb["b"],
    }
    return {"rows": rows, "costs": costs}
