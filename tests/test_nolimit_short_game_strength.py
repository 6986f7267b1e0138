"""The E[HS] rule bot in games of fewer rounds (the showdown on the flop or the turn, small
decks): its strength on the game's last board is the hand's HS there, and one card before it
the mean of that HS over the next card, both against a brute-force count with the card
evaluator; finite where the full-river rollout has no cards left (the 8-card deck's flop gave
NaN with a numpy warning before)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest

from pokerlab.cards.evaluator import evaluate
from pokerlab.evaluate.nolimit.agents import HandStrengthRule
from pokerlab.games.nolimit.rules import NoLimitRules


def _hs(hole: tuple[int, int], board: tuple[int, ...], deck: list[int]) -> float:
    """HS by enumeration: wins plus half the ties over opponent hands, divided by their count."""
    mine = evaluate([*hole, *board])
    rest = [c for c in deck if c not in hole and c not in board]
    score = n = 0
    for opp in itertools.combinations(rest, 2):
        theirs = evaluate([*opp, *board])
        score += 2 if mine > theirs else 1 if mine == theirs else 0
        n += 1
    return score / (2 * n)


def _expected(hole: tuple[int, int], board: tuple[int, ...], final: int, deck: list[int]) -> float:
    if len(board) == final:
        return _hs(hole, board, deck)
    nexts = [c for c in deck if c not in hole and c not in board]
    # every opponent hand meets the same number of next cards: the mean of the HS is E[HS]
    return float(np.mean([_hs(hole, (*board, c), deck) for c in nexts]))


@pytest.mark.parametrize(
    ("ranks", "rounds", "cards"), [(2, 2, 3), (2, 3, 3), (2, 3, 4), (3, 2, 3), (3, 3, 3), (3, 3, 4)]
)
def test_short_game_strength_is_the_showdown_hs(ranks: int, rounds: int, cards: int) -> None:
    rules = NoLimitRules(2, (300, 300), 50, 100, ranks=ranks, rounds=rounds)
    final = rules.board_size(rounds - 1)
    deck = list(range(52 - 4 * ranks, 52))
    rng = np.random.default_rng(ranks * 100 + rounds * 10 + cards)
    bot = HandStrengthRule()
    for _ in range(6):
        drawn = [int(c) for c in rng.choice(deck, 2 + cards, replace=False)]
        hole, board = (drawn[0], drawn[1]), tuple(drawn[2:])
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "mean of empty slice"
            got = bot.strength(rules, hole, board)
        assert got == pytest.approx(_expected(hole, board, final, deck), abs=1e-12)
