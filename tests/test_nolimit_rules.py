"""No-limit rules: seat order, minimum raises, short all-ins, side pots (hand-computed)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit.rules import (
    ALLIN,
    BET,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    NoLimitRules,
    payoffs,
)


def rules(stacks: tuple[int, ...], sb: int = 5, bb: int = 10, ante: int = 0) -> NoLimitRules:
    return NoLimitRules(len(stacks), stacks, sb, bb, ante)


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after() -> None:
    r = rules((1000, 1000))
    s = r.initial_state()
    assert s.to_act == 0 and s.bets == (5, 10) and s.contrib == (5, 10)
    assert s.legal_actions(r) == [(FOLD, 0), (CALL, 10), (RAISE, 20), (ALLIN, 1000)]
    s = s.apply(r, CALL)
    assert s.to_act == 1  # the big blind's option
    assert s.legal_actions(r) == [(CHECK, 10), (RAISE, 20), (ALLIN, 1000)]
    s = s.apply(r, CHECK)
    assert (s.street, s.to_act, s.bets, s.contrib) == (1, 1, (0, 0), (10, 10))
    assert s.legal_actions(r)[1] == (BET, 10)  # the smallest bet is the big blind
    s = s.apply(r, CHECK)
    assert s.to_act == 0
    s = s.apply(r, CHECK)
    assert (s.street, s.to_act) == (2, 1)


def test_three_players_under_the_gun_first_then_small_blind_postflop() -> None:
    r = rules((1000, 1000, 1000), ante=2)
    s = r.initial_state()
    assert s.to_act == 2 and s.contrib == (7, 12, 2) and s.pot() == 21
    s = s.apply(r, CALL).apply(r, CALL).apply(r, CHECK)
    assert (s.street, s.to_act, s.contrib) == (1, 0, (12, 12, 12))


def test_position_names() -> None:
    names = {n: [rules((100,) * n).position(s) for s in range(n)] for n in range(2, 7)}
    assert names[2] == ["BTN/SB", "BB"]
    assert names[3] == ["SB", "BB", "BTN"]
    assert names[6] == ["SB", "BB", "UTG", "HJ", "CO", "BTN"]
    with pytest.raises(PokerlabError, match="no seat 6 at a table of 6"):
        rules((100,) * 6).position(6)


def test_minimum_raise_is_the_last_raise_increment() -> None:
    r = rules((1000, 1000))
    s = r.initial_state().apply(r, RAISE, 35)  # raise by 25
    assert s.raise_bounds(r) == (60, 1000)
    with pytest.raises(PokerlabError, match="outside the legal 60..1000"):
        s.apply(r, RAISE, 59)
    s = s.apply(r, RAISE, 100)  # raise by 65
    assert s.raise_bounds(r) == (165, 1000)


def test_short_all_in_does_not_reopen_the_betting() -> None:
    # UTG (seat 2) raises to 100, the small blind calls, the big blind (150 chips) goes all-in
    # for 50 more: less than the full raise of 90, so UTG and the small blind may only call.
    r = rules((1000, 150, 1000))
    s = r.initial_state().apply(r, RAISE, 100).apply(r, CALL)
    assert s.to_act == 1
    s = s.apply(r, ALLIN, 150)
    assert s.to_act == 2 and s.min_raise == 90
    assert s.legal_actions(r) == [(FOLD, 0), (CALL, 150)]
    s = s.apply(r, CALL)
    assert s.to_act == 0 and s.legal_actions(r) == [(FOLD, 0), (CALL, 150)]
    s = s.apply(r, CALL)
    # the all-in big blind is skipped after the flop: the small blind acts first, then UTG
    assert (s.street, s.to_act, s.contrib) == (1, 0, (150, 150, 150))
    s = s.apply(r, CHECK)
    assert s.to_act == 2


@pytest.mark.parametrize(("sb_stack", "reopened"), [(210, True), (180, False)])
def test_short_all_ins_adding_up_to_a_full_raise_reopen(sb_stack: int, reopened: bool) -> None:
    # four seats: UTG raises to 100 (increment 90); the button is all-in for 150 (short); the
    # small blind all-in for sb_stack (short over 150). Back at UTG the raises since it acted add
    # up to sb_stack - 100: 110 >= 90 reopens the betting, 80 does not.
    r = rules((sb_stack, 1000, 1000, 150))
    s = r.initial_state().apply(r, RAISE, 100).apply(r, ALLIN, 150).apply(r, ALLIN, sb_stack)
    assert s.to_act == 1 and s.raise_bounds(r) == (sb_stack + 90, 1000)
    s = s.apply(r, CALL)
    assert s.to_act == 2
    assert (s.raise_bounds(r) is not None) == reopened


def test_short_all_in_reopens_under_the_acpc_option() -> None:
    r = NoLimitRules(3, (1000, 150, 1000), 5, 10, short_allin_reopens=True)
    s = r.initial_state().apply(r, RAISE, 100).apply(r, CALL).apply(r, ALLIN, 150)
    assert s.to_act == 2 and s.raise_bounds(r) == (240, 1000)  # min raise still 90 more


def test_tda_rule_47_example_1() -> None:
    # TDA 2019 rules, addendum to rule 47, example 1 (blinds 50/100): after the flop A bets 100,
    # B is all-in for 125, C calls 125, D is all-in for 200, E calls 200. A faces 100 more, a
    # full raise: A may raise. C faces 75 more: C may only fold or call.
    r = NoLimitRules(5, (10_000, 225, 10_000, 300, 10_000), 50, 100)
    s = r.initial_state()
    for kind in (CALL, CALL, CALL, CALL, CHECK):  # seats 2, 3, 4, 0 call, the big blind checks
        s = s.apply(r, kind)
    assert (s.street, s.to_act) == (1, 0)
    s = s.apply(r, BET, 100).apply(r, ALLIN, 125).apply(r, CALL).apply(r, ALLIN, 200)
    s = s.apply(r, CALL)
    assert s.to_act == 0 and s.raise_bounds(r) == (300, 9900)
    s = s.apply(r, CALL)
    assert s.to_act == 2 and s.legal_actions(r) == [(FOLD, 0), (CALL, 200)]


def test_no_raise_when_every_opponent_is_all_in() -> None:
    r = rules((1000, 300))
    s = r.initial_state().apply(r, RAISE, 40).apply(r, ALLIN, 300)
    assert s.legal_actions(r) == [(FOLD, 0), (CALL, 300)]
    s = s.apply(r, CALL)
    assert s.status == "showdown" and s.street == 3 and s.contrib == (300, 300)


def test_all_in_below_a_min_raise_is_short_and_keeps_the_increment() -> None:
    r = rules((1000, 1000, 15))
    s = r.initial_state()
    assert s.raise_bounds(r) == (15, 15)  # short of the minimum raise to 20: all-in only
    s = s.apply(r, ALLIN, 15)
    assert s.min_raise == 10 and s.raise_bounds(r) == (25, 1000)


def test_all_in_of_a_full_increment_sets_the_new_minimum() -> None:
    r = rules((1000, 1000, 25))
    s = r.initial_state().apply(r, ALLIN, 25)  # a raise of 15 >= 10: a full raise
    assert s.min_raise == 15 and s.raise_bounds(r) == (40, 1000)


def test_side_pots_three_players() -> None:
    # UTG raises to 30, the small blind is all-in for 200, the big blind all-in for 500, UTG
    # calls: main pot 600 (all three), side pot 600 (big blind and UTG).
    r = rules((200, 500, 1000))
    s = r.initial_state().apply(r, RAISE, 30).apply(r, ALLIN, 200).apply(r, ALLIN, 500)
    s = s.apply(r, CALL)
    assert s.status == "showdown" and s.contrib == (200, 500, 500)
    assert payoffs(r, s, [3, 2, 1]) == [400, 100, -500]
    assert payoffs(r, s, [3, 1, 1]) == [400, -200, -200]  # side pot split
    assert payoffs(r, s, [1, 2, 2]) == [-200, 100, 100]  # both pots split
    assert payoffs(r, s, [2, 2, 2]) == [0, 0, 0]
    assert payoffs(r, s, [1, 3, 2]) == [-200, 700, -500]


def test_folded_chips_go_to_the_pots_they_reached() -> None:
    r = rules((200, 500, 1000))
    s = r.initial_state().apply(r, RAISE, 30).apply(r, ALLIN, 200).apply(r, CALL)
    s = s.apply(r, FOLD)  # UTG folds its 30
    assert s.status == "showdown" and s.contrib == (200, 200, 30)
    assert payoffs(r, s, [2, 1, 9]) == [230, -200, -30]
    assert payoffs(r, s, [1, 1, 9]) == [15, 15, -30]


def test_split_pots_are_exact_fractions() -> None:
    r = rules((100, 100, 100), sb=1, bb=2)
    s = r.initial_state().apply(r, CALL).apply(r, CALL).apply(r, CHECK)
    s = s.apply(r, BET, 3).apply(r, FOLD).apply(r, CALL)
    while s.status == "act":
        s = s.apply(r, CHECK)
    assert s.contrib == (5, 2, 5)
    assert payoffs(r, s, [1, 0, 1]) == [1, -2, 1]
    # an odd pot: the small blind folds its chip, the others split 5 chips
    s = r.initial_state().apply(r, CALL).apply(r, FOLD).apply(r, CHECK)
    while s.status == "act":
        s = s.apply(r, CHECK)
    assert s.contrib == (1, 2, 2)
    assert payoffs(r, s, [0, 4, 4]) == [-1, Fraction(1, 2), Fraction(1, 2)]


def test_fold_gives_the_pot_to_the_last_player() -> None:
    r = rules((1000, 1000, 1000), ante=1)
    s = r.initial_state().apply(r, FOLD).apply(r, FOLD)
    assert s.status == "fold"
    assert payoffs(r, s) == [-6, 7, -1]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 7, "stacks": (100,) * 7}, "players must be 2 to 6, got 7"),
        ({"players": 1, "stacks": (100,)}, "players must be 2 to 6, got 1"),
        ({"players": 2, "stacks": (100, 100), "big_blind": 100}, "blinds above the stack: seat 1"),
        ({"players": 2, "stacks": (100, 100), "ante": 95}, "blinds above the stack: seat 0"),
        ({"players": 6, "stacks": (100,) * 6, "ranks": 4}, "16 cards is too small for 6"),
        ({"players": 2, "stacks": (100, 100), "small_blind": 20}, "small blind <= big blind"),
    ],
)
def test_bad_tables_are_refused(kwargs: dict, message: str) -> None:
    args = {"small_blind": 5, "big_blind": 10, **kwargs}
    with pytest.raises(PokerlabError, match=message):
        NoLimitRules(**args)


def test_six_players_need_17_cards_for_four_rounds() -> None:
    NoLimitRules(6, (100,) * 6, 1, 2, ranks=5)  # 20 cards: 12 hole + 5 board
    NoLimitRules(6, (100,) * 6, 1, 2, ranks=4, rounds=2)  # 16 cards: 12 hole + a 3-card flop
    with pytest.raises(PokerlabError, match="need 12 hole cards plus 5 board cards"):
        NoLimitRules(6, (100,) * 6, 1, 2, ranks=4)


def test_random_hands_keep_the_invariants() -> None:
    """Random legal play, 2 to 6 players, unequal stacks, random raise sizes: nobody puts in
    more than their stack, the seat on move can act, a street's bets are matched or all-in when
    it closes, and the payoffs for random hand values sum to zero."""
    rng = np.random.default_rng(11)
    for _ in range(400):
        n = int(rng.integers(2, 7))
        stacks = tuple(int(s) for s in rng.integers(40, 600, size=n))
        r = NoLimitRules(n, stacks, 5, 10, ante=int(rng.integers(0, 3)))
        s = r.initial_state()
        while s.status == "act":
            p = s.to_act
            assert not s.folded[p] and s.behind(r, p) > 0
            legal = s.legal_actions(r)
            kind, amount = legal[int(rng.integers(len(legal)))]
            if kind in (BET, RAISE):
                low, high = s.raise_bounds(r)
                amount = int(rng.integers(low, high + 1))
                kind = s.raise_kind(r, amount)
            before = s
            s = s.apply(r, kind, amount)
            assert all(0 <= c <= stack for c, stack in zip(s.contrib, stacks, strict=True))
            if s.status == "act" and s.street > before.street:
                assert s.bets == (0,) * n
                live = [q for q in range(n) if not s.folded[q] and s.behind(r, q) > 0]
                assert len(live) >= 2
        strengths = [int(v) for v in rng.integers(0, 4, size=n)]
        assert sum(payoffs(r, s, strengths)) == 0
        if s.status == "fold":
            assert s.folded.count(False) == 1
