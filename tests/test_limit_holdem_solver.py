"""Public-chance-sampling CFR on abstracted limit hold'em (small deck, caps of one raise)."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from pokerlab import load_game
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.solvers.limit_holdem import LimitPCSSolver

BOARD = np.array([28, 33, 41, 46, 51])  # 9c Td Jd Qh As


@pytest.fixture(scope="module")
def game() -> LimitHoldemGame:
    return load_game("limit-holdem", variant="small", raise_caps=[1, 1, 1, 1])


@pytest.fixture(scope="module")
def abstraction():
    return build_abstraction(6, (8, 8, 8, 8), "ehs", cache=False)


def _uniform_value(history, player: int) -> float:
    """Expected payoff of ``player`` when both play uniformly (cards already dealt)."""
    if history.is_terminal():
        return history.terminal_utility(player)
    if history.is_chance():
        raise AssertionError("cards are dealt in advance")
    actions = history.legal_actions()
    return sum(_uniform_value(history.child(a), player) for a in actions) / len(actions)


def _deal(game: LimitHoldemGame, mine: tuple[int, int], theirs: tuple[int, int], seat: int):
    h = game.initial_history()
    holes = (mine + theirs) if seat == 0 else (theirs + mine)
    for c in holes:
        h = h.child(c)

    class Dealt:
        """Deals the board whenever the history asks for a card."""

        def __init__(self, inner) -> None:
            self.inner = inner

        def _settle(self):
            inner = self.inner
            while inner.is_chance():
                inner = inner.child(int(BOARD[len(inner.cards) - 4]))
            return inner

        def is_terminal(self) -> bool:
            return self._settle().is_terminal()

        def is_chance(self) -> bool:
            return False

        def terminal_utility(self, p: int) -> float:
            return self._settle().terminal_utility(p)

        def legal_actions(self):
            return self._settle().legal_actions()

        def child(self, a: int):
            return Dealt(self._settle().child(a))

    return Dealt(h)


@pytest.mark.parametrize("seat", [0, 1])
def test_root_values_equal_enumeration(game, abstraction, seat: int) -> None:
    solver = LimitPCSSolver(game, abstraction, recall="imperfect")
    values = solver.root_values(BOARD, seat)
    deck = [int(c) for c in game.rules.cards if c not in BOARD]
    scale = 1.0 / comb(len(deck) - 2, 2)
    for mine in [(48, 49), (34, 44)]:  # aces (a set), T-K
        h = next(i for i, pair in enumerate(solver.hands) if tuple(pair) == mine)
        expected = 0.0
        for theirs in itertools.combinations([c for c in deck if c not in mine], 2):
            expected += _uniform_value(_deal(game, mine, theirs, seat), seat)
        assert values[h] == pytest.approx(expected * scale, rel=1e-5, abs=1e-6)
    # hands meeting the board have no value; the game is zero-sum
    assert np.all(values[np.isin(solver.hands, BOARD).any(axis=1)] == 0)
    other = solver.root_values(BOARD, 1 - seat)
    assert values.sum() == pytest.approx(-other.sum(), rel=1e-5)


def test_training_plays_sensibly_and_resumes(game, abstraction) -> None:
    solver = LimitPCSSolver(game, abstraction, recall="imperfect", seed=3)
    solver.step(150)
    probs = solver.average_strategy()
    tree = game.betting_tree
    n = tree.find("rc/cc/cc/r")  # seat 0 faces a river bet
    assert tree.actions(n) == [0, 1]  # fold or call: one raise per round
    ns = int(solver.num_states[3])
    sums = solver.sums[solver.offset[n] : solver.offset[n] + 2 * ns].reshape(2, ns)
    river_bucket = np.arange(ns) % 8  # the last digit of the bucket sequence
    fold_share = [
        sums[0, river_bucket == b].sum() / sums[:, river_bucket == b].sum() for b in (0, 7)
    ]
    # weighted over every sequence: the best river bucket (almost) never folds, the worst folds
    # much more often
    assert fold_share[1] < 0.01
    assert fold_share[0] > 0.8
    assert probs.min() >= 0 and probs.max() <= 1

    # exact resume (perfect recall): 10 + 20 iterations equal a run that reloads at 10
    solver = LimitPCSSolver(game, abstraction, recall="perfect", seed=3)
    solver.step(10)
    state = solver.state_dict()
    solver.step(20)
    again = LimitPCSSolver(game, abstraction, recall="perfect", seed=99)
    again.load_state_dict(state)
    again.step(20)
    np.testing.assert_array_equal(again.regrets, solver.regrets)
    np.testing.assert_array_equal(again.sums, solver.sums)


def test_refusals(game, abstraction) -> None:
    with pytest.raises(PokerlabError, match="recall"):
        LimitPCSSolver(game, abstraction, recall="total")
    with pytest.raises(PokerlabError, match="predictive"):
        LimitPCSSolver(game, abstraction, algorithm="pcfr+")
    with pytest.raises(PokerlabError, match="GiB"):
        LimitPCSSolver(game, abstraction, recall="perfect", max_bytes=1 << 20)
    with pytest.raises(PokerlabError, match="deck"):
        LimitPCSSolver(load_game("limit-holdem"), abstraction)


def test_two_workers_equal_one(game, abstraction) -> None:
    """The subtree split (head: preflop; workers: the subtrees after it) changes nothing."""
    one = LimitPCSSolver(game, abstraction, recall="imperfect", seed=11)
    two = LimitPCSSolver(game, abstraction, recall="imperfect", seed=11, workers=2)
    one.step(4)
    two.step(4)
    np.testing.assert_array_equal(one.regrets, two.regrets)
    np.testing.assert_array_equal(one.sums, two.sums)
    assert len(two.subtrees) == len(game.betting_tree.flop_sequences()) == 3  # caps of one
    assert {w for _, _, w in two.subtrees} == {0, 1}
    fine = LimitPCSSolver(game, abstraction, recall="imperfect", seed=11, workers=3, split_round=1)
    fine.step(4)
    np.testing.assert_array_equal(one.regrets, fine.regrets)
    assert len(fine.subtrees) > len(two.subtrees)
