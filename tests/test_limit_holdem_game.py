"""Heads-up limit hold'em rules: the betting tree against the history interface and by hand."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab import load_game
from pokerlab.cards.deck import parse_cards
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import (
    DEAL,
    DECISION,
    FOLD_END,
    SHOWDOWN_END,
    LimitHoldemGame,
    LimitHoldemRules,
    build_betting_tree,
)


@pytest.fixture(scope="module")
def full() -> LimitHoldemGame:
    game = load_game("limit-holdem")
    assert isinstance(game, LimitHoldemGame)
    return game


def test_variants_and_parameters() -> None:
    small = load_game("limit-holdem", variant="small")
    assert small.rules.num_cards == 24
    assert small.rules.card_names()[:4] == ["9c", "9d", "9h", "9s"]
    assert load_game("limit-holdem").rules.num_cards == 52
    capped = load_game("limit-holdem", variant="small", raise_caps=[1, 1, 1, 1], rounds=2)
    assert capped.params == {"variant": "small", "raise_caps": [1, 1, 1, 1], "rounds": 2}
    with pytest.raises(PokerlabError, match="variant"):
        LimitHoldemGame(variant="huge")
    with pytest.raises(PokerlabError, match="ranks"):
        LimitHoldemGame(ranks=1)
    with pytest.raises(PokerlabError, match="too few"):
        LimitHoldemGame(ranks=2)  # 8 cards cannot deal four hole cards and a five-card board


def test_seven_preflop_sequences_reach_the_flop(full: LimitHoldemGame) -> None:
    tree = full.betting_tree
    seqs = sorted(tree.history[n] for n in tree.flop_sequences())
    assert seqs == sorted(["cc", "crc", "crrc", "crrrc", "rc", "rrc", "rrrc"])


def test_betting_tree_matches_history_interface(full: LimitHoldemGame) -> None:
    """Walk every betting sequence through the history interface (cards fixed) and compare
    actions, players, terminals and payoffs node by node."""
    tree = full.betting_tree
    cards = tuple(parse_cards("AsKsQdQc2h7c9dTc3s"))  # QQ wins the showdown
    root = full.initial_history()
    for c in cards[:4]:
        root = root.child(c)
    visited = 0
    stack = [(0, root)]
    while stack:
        n, h = stack.pop()
        visited += 1
        kind = tree.kind[n]
        if kind == DEAL:
            while h.is_chance():
                h = h.child(cards[len(h.cards)])
            stack.append((int(tree.children[tree.child_start[n]]), h))
            continue
        if kind in (FOLD_END, SHOWDOWN_END):
            assert h.is_terminal()
            for p in (0, 1):
                expected = h.terminal_utility(p)
                assert tree.terminal_value(n, p, winner=1) == pytest.approx(expected)
            continue
        assert kind == DECISION and not h.is_terminal()
        assert h.current_player() == tree.player[n]
        assert list(h.legal_actions()) == tree.actions(n)
        kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
        for a, k in zip(tree.actions(n), kids, strict=True):
            stack.append((int(k), h.child(a)))
    assert visited == tree.num_nodes


def test_tree_sizes_and_shared_payoffs(full: LimitHoldemGame) -> None:
    tree = full.betting_tree
    assert tree.num_decisions == 6378
    assert tree.num_terminals == 10206
    # Distinct (kind, amount) rows: 23 fold stakes and 24 showdown stakes.
    assert tree.num_payoffs == 47
    assert np.all(tree.payoff_id[tree.kind >= FOLD_END] >= 0)
    assert np.all(tree.payoff_id[tree.kind < FOLD_END] == -1)


def test_payoffs_by_hand(full: LimitHoldemGame) -> None:
    tree = full.betting_tree
    # The small blind folds at once: it loses its half big blind.
    assert tree.terminal_value(tree.find("f"), 0, winner=-1) == -0.5
    assert tree.terminal_value(tree.find("f"), 1, winner=-1) == 0.5
    # Capped every round: 4 small bets preflop and on the flop, 4 big bets on turn and river.
    capped = "rrrc/rrrrc/rrrrc/rrrrc"
    n = tree.find(capped)
    assert tree.kind[n] == SHOWDOWN_END
    assert tree.terminal_value(n, 0, winner=0) == 4 + 4 + 8 + 8
    assert tree.terminal_value(n, 1, winner=0) == -24
    assert tree.terminal_value(n, 1, winner=-1) == 0
    # Limp, check it down.
    assert tree.terminal_value(tree.find("cc/cc/cc/cc"), 1, winner=1) == 1.0
    # Limp, big blind raises, small blind folds: loses 1; flop bet folded by the small blind.
    assert tree.terminal_value(tree.find("crf"), 0, winner=-1) == -1.0
    assert tree.terminal_value(tree.find("rc/rf"), 0, winner=-1) == -2.0  # seat 0 folds a bet
    # Raise caps: no raise after the fourth bet of the flop.
    assert tree.actions(tree.find("rc/rrrr")) == [0, 1]
    assert tree.actions(tree.find("rrr")) == [0, 1]


def test_fewer_rounds_end_in_a_showdown() -> None:
    tree = build_betting_tree(LimitHoldemRules(ranks=6, rounds=2))
    n = tree.find("rc/rc")
    assert tree.kind[n] == SHOWDOWN_END
    assert tree.terminal_value(n, 0, winner=0) == 3.0
