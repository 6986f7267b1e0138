"""What the limit hold'em evaluators share: the strategy they read and its card abstraction.

The abstract and real best responses, LBR and matches take a
:class:`~pokerlab.strategy.BettingStrategy` (the table over (decision node, bucket state) with
its layout) and the :class:`~pokerlab.abstraction.buckets.CardAbstraction` it plays by: the one
it carries, the one given, or one rebuilt (from the cache) from the identity a strategy file
keeps. They never read a solver. For callers written before that (the CLI's training loop, old
scripts), a solver is still accepted where a strategy is expected and read through its
``average_strategy()``; that path is deprecated.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction, build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.strategy import BettingStrategy
from pokerlab.tree.betting.layout import state_counts

__all__ = ["as_betting_strategy", "strategy_abstraction", "deck_hands"]


def as_betting_strategy(strategy: BettingStrategy | Any) -> BettingStrategy:
    """``strategy`` itself, or (deprecated: pass the strategy) a limit solver's average
    strategy; anything else is refused by type."""
    if isinstance(strategy, BettingStrategy):
        return strategy
    if hasattr(strategy, "average_strategy"):  # deprecated: a solver, read through its verb
        average = strategy.average_strategy()
        if isinstance(average, BettingStrategy):
            return average
    raise PokerlabError(
        f"a limit hold'em strategy (BettingStrategy) is needed, got {type(strategy).__name__}"
    )


def strategy_abstraction(
    strategy: BettingStrategy, abstraction: CardAbstraction | None = None, cache: bool = True
) -> CardAbstraction:
    """The card abstraction ``strategy`` plays by: ``abstraction`` if given, else the one it
    carries, else one rebuilt from its identity (a strategy read from a file; from the cache
    when there). Refused by name when its buckets do not give the strategy's layout."""
    if abstraction is None:
        abstraction = strategy.abstraction
    if abstraction is None:
        identity = strategy.identity or {}
        if "bucketing" not in identity:
            raise PokerlabError(
                "this limit hold'em strategy carries no abstraction and no bucketing to "
                "rebuild it from; pass abstraction="
            )
        layout = strategy.layout
        abstraction = build_abstraction(
            int(identity.get("ranks", strategy.game.rules.ranks)),
            layout.buckets,
            str(identity["bucketing"]),
            seed=int(identity.get("abstraction_seed", 0)),
            cache=cache,
        )
    layout = strategy.layout
    used = abstraction.num_buckets if layout.recall == "imperfect" else abstraction.buckets
    if tuple(abstraction.buckets) != layout.buckets or state_counts(used, layout.recall) != tuple(
        int(s) for s in layout.num_states
    ):
        raise PokerlabError(
            f"abstraction of buckets {tuple(abstraction.buckets)} (states "
            f"{state_counts(used, layout.recall)}) for a strategy of states "
            f"{tuple(int(s) for s in layout.num_states)}"
        )
    if abstraction.ranks != strategy.game.rules.ranks:
        raise PokerlabError(
            f"abstraction of a {4 * abstraction.ranks}-card deck for a "
            f"{strategy.game.rules.num_cards}-card game"
        )
    return abstraction


def deck_hands(game: LimitHoldemGame) -> np.ndarray:
    """Every hole-card pair of the game's deck, int64 ``(H, 2)`` (lower card first, in the
    order of ``itertools.combinations``; the solvers' order)."""
    deck = [int(c) for c in game.rules.cards]
    return np.array(list(itertools.combinations(deck, 2)), dtype=np.int64)
