"""``Strategy`` as a read-only mapping of information-set keys: ``in``, iteration and a short
``repr`` (not the dataclass dump of the tree arrays), for the engine, limit and postflop forms."""

from __future__ import annotations

import pokerlab
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.registry import load_game
from pokerlab.solvers.limit_holdem import LimitPCSSolver
from pokerlab.solvers.postflop import PostflopSolver


def test_contains_and_iter_on_an_engine_strategy() -> None:
    s = pokerlab.uniform_strategy(pokerlab.load_game("kuhn"))
    assert "K:pb" in s
    assert "K:" in s
    assert "Z:pb" not in s
    assert 0 not in s and None not in s and ("K:pb",) not in s
    assert list(s) == s.keys() == [k for k, _ in s.items()]
    assert dict(s.items()) == {k: s[k] for k in s}


def test_repr_is_short() -> None:
    s = pokerlab.uniform_strategy(pokerlab.load_game("leduc"))
    assert repr(s) == "Strategy(game='leduc', infosets=936)"
    assert str(s) == repr(s)


def test_limit_betting_strategy() -> None:
    game = load_game("limit-holdem", variant="micro")
    abstraction = build_abstraction(3, (3, 3, 3, 3), "ehs", cache=False)
    solver = LimitPCSSolver(game, abstraction, recall="imperfect", seed=3)
    solver.step(2)
    s = solver.average_strategy()
    keys = s.keys()
    assert list(s) == list(keys)
    assert keys[0] in s and keys[-1] in s
    assert "flop:zz/:0" not in s and 7 not in s
    assert repr(s) == f"BettingStrategy(game={game.name!r}, infosets={len(keys)})"


def test_postflop_solved_spot() -> None:
    game = PostflopGame(
        board="AsKdQh", ranges=("AA,KQ", "KK,AQ"), pot=100, stack=300,
        bets="50%, a", raises="a", deck="micro",
    )  # fmt: skip
    solver = PostflopSolver(game, "dcfr")
    solver.step(2)
    s = solver.average_strategy()
    first = next(iter(s))
    assert first == s.keys()[0]
    assert first in s
    assert 0 not in s  # was AttributeError ('int' object has no attribute 'split')
    assert "AhAd|AsKdQh:nonsense" not in s
    assert len(repr(s)) < 100
