"""The no-limit action abstraction: size tokens (``2.5bb``, ``3x``, ``%``, ``a``), depths, raise
caps, the tree thresholds, and errors naming the bad token or key."""

from __future__ import annotations

import pytest

from pokerlab.errors import ParseError, PokerlabError
from pokerlab.games.nolimit.actions import (
    ActionAbstraction,
    BigBlinds,
    abstract_actions,
    parse_street_sizes,
)
from pokerlab.games.nolimit.rules import ALLIN, BET, CALL, CHECK, FOLD, RAISE, NoLimitRules
from pokerlab.games.postflop.betsizes import BetSize


def hu(stack: int = 10_000) -> NoLimitRules:
    return NoLimitRules(2, (stack, stack), 50, 100)


def abstraction(**streets: object) -> ActionAbstraction:
    return ActionAbstraction.from_dict(streets)


def test_tokens_parse_with_big_blinds_and_the_postflop_grammar() -> None:
    assert parse_street_sizes(" 2.5BB, 3x,75%, a ") == (
        BigBlinds(2.5),
        BetSize("prev", 3.0),
        BetSize("pot", 0.75),
        BetSize("allin"),
    )
    assert parse_street_sizes("") == ()


@pytest.mark.parametrize(
    ("text", "token", "position"),
    [("2.5bb, 3q", "3q", 7), ("2.5b", "2.5b", 0), ("50%, -1bb", "-1bb", 5), ("a,,3x", ",", 2)],
)
def test_bad_tokens_are_named_with_their_offset(text: str, token: str, position: int) -> None:
    with pytest.raises(ParseError) as info:
        parse_street_sizes(text)
    assert info.value.token == token and info.value.position == position
    assert repr(token) in str(info.value)


def test_config_errors_name_the_street_depth_and_key() -> None:
    with pytest.raises(PokerlabError, match=r"actions\.flop\[1\]: bad bet size .*'2z'"):
        abstraction(flop=["50%", "2z"])
    with pytest.raises(PokerlabError, match="unknown actions key 'prefop'"):
        abstraction(prefop="a")
    with pytest.raises(PokerlabError, match="unknown street 'flp' in raise_cap"):
        abstraction(raise_cap={"flp": 1})
    with pytest.raises(PokerlabError, match="merging_threshold must be a number >= 0"):
        abstraction(merging_threshold=-1)
    with pytest.raises(PokerlabError, match="add_allin_threshold must be a number >= 0, got nan"):
        abstraction(add_allin_threshold=float("nan"))
    with pytest.raises(PokerlabError, match=r"actions\.turn must be a size list .* got 3"):
        abstraction(turn=3)


def test_preflop_open_sizes_in_chips() -> None:
    r = hu()
    acts = abstract_actions(r, abstraction(preflop="2.5bb, 3x, 100%, a"), r.initial_state())
    # 2.5bb -> 250; 3x the big blind -> 300; a pot raise (call 50, then the pot of 200) -> 300
    assert acts == [(FOLD, 0), (CALL, 100), (RAISE, 250), (RAISE, 300), (ALLIN, 10_000)]


def test_sizes_per_raise_depth_and_the_last_list_for_deeper_raises() -> None:
    r = hu()
    ab = abstraction(preflop=["2.5bb", "3x", "a"])
    s = r.initial_state()
    assert abstract_actions(r, ab, s)[2:] == [(RAISE, 250)]
    s = s.apply(r, RAISE, 250)
    assert abstract_actions(r, ab, s)[2:] == [(RAISE, 750)]  # the 3-bet: 3 x 250
    s = s.apply(r, RAISE, 750)
    assert abstract_actions(r, ab, s)[2:] == [(ALLIN, 10_000)]
    s = s.apply(r, ALLIN, 10_000)
    assert abstract_actions(r, ab, s) == [(FOLD, 0), (CALL, 10_000)]


def test_postflop_pot_fractions_count_every_chip_in_the_middle() -> None:
    r = NoLimitRules(2, (10_000, 10_000), 50, 100, ante=10)
    ab = abstraction(preflop="a", flop=["50%, 100%", "100%"])
    s = r.initial_state().apply(r, CALL).apply(r, CHECK)  # pot 220 on the flop
    assert s.pot() == 220 and s.to_act == 1
    assert abstract_actions(r, ab, s) == [(CHECK, 0), (BET, 110), (BET, 220)]
    s = s.apply(r, BET, 110)
    # a pot raise: call 110 (pot 440), then raise by 440 -> to 550
    assert abstract_actions(r, ab, s) == [(FOLD, 0), (CALL, 110), (RAISE, 550)]


def test_raise_cap_per_street() -> None:
    r = hu()
    ab = abstraction(preflop="3x", raise_cap={"preflop": 2})
    s = r.initial_state().apply(r, RAISE, 300).apply(r, RAISE, 900)
    assert abstract_actions(r, ab, s) == [(FOLD, 0), (CALL, 900)]
    assert ab.raise_cap == (2, None, None, None)


def test_add_allin_threshold() -> None:
    # all-in 400 is 300 over the big blind, at most 1.5 x the pot after calling (200): added
    r = hu(400)
    ab = abstraction(preflop="2.5bb")
    assert abstract_actions(r, ab, r.initial_state())[2:] == [(RAISE, 250), (ALLIN, 400)]
    r = hu(401)
    assert abstract_actions(r, ab, r.initial_state())[2:] == [(RAISE, 250)]
    no_add = abstraction(preflop="2.5bb", add_allin_threshold=0)
    assert abstract_actions(hu(400), no_add, hu(400).initial_state())[2:] == [(RAISE, 250)]


def test_force_allin_threshold() -> None:
    # a raise to 250 called makes a pot of 500; 300 - 250 = 50 <= 0.15 x 500: it becomes all-in
    r = hu(300)
    ab = abstraction(preflop="2.5bb", add_allin_threshold=0)
    assert abstract_actions(r, ab, r.initial_state())[2:] == [(ALLIN, 300)]
    keep = abstraction(preflop="2.5bb", add_allin_threshold=0, force_allin_threshold=0.09)
    assert abstract_actions(r, keep, r.initial_state())[2:] == [(RAISE, 250)]


def test_merging_threshold_drops_the_smaller_of_two_near_sizes() -> None:
    r = hu()
    # pot ratios over the big blind (pot after calling 200): 2.5bb -> 0.75, 2.6bb -> 0.8,
    # 0.75 >= (0.8 - 0.1) / 1.1: merged into the larger
    merged = abstraction(preflop="2.5bb, 2.6bb")
    assert abstract_actions(r, merged, r.initial_state())[2:] == [(RAISE, 260)]
    apart = abstraction(preflop="2.5bb, 2.6bb", merging_threshold=0)
    assert abstract_actions(r, apart, r.initial_state())[2:] == [(RAISE, 250), (RAISE, 260)]


def test_sizes_below_the_minimum_raise_are_clamped() -> None:
    r = hu()
    ab = abstraction(preflop="1.5bb, 10%")  # to 150 and to 120: both below the min raise 200
    assert abstract_actions(r, ab, r.initial_state())[2:] == [(RAISE, 200)]


def test_no_abstract_raise_after_a_short_all_in() -> None:
    # a raise to 250 (by 150), a call, then the big blind all-in for 300: 50 more, short
    r = NoLimitRules(3, (1000, 300, 1000), 50, 100)
    ab = abstraction(preflop="100%, a")
    s = r.initial_state().apply(r, RAISE, 250).apply(r, CALL).apply(r, ALLIN, 300)
    assert s.to_act == 2
    assert abstract_actions(r, ab, s) == [(FOLD, 0), (CALL, 300)]


def test_round_trip_of_the_dictionary_form() -> None:
    ab = abstraction(
        preflop=["2.5bb, a", "3x, a"], flop="33%, e, a", raise_cap={"flop": 2}, merging_threshold=0
    )
    again = ActionAbstraction.from_dict(ab.to_dict())
    assert again == ab
    for value in (2.5, 3.0, 1234567.5, 0.0001):
        assert parse_street_sizes(str(BigBlinds(value))) == (BigBlinds(value),)
    assert str(BigBlinds(1234567.5)) == "1234567.5bb" and str(BigBlinds(3.0)) == "3bb"
