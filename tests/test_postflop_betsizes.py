"""Bet-size grammar of postflop spots: parse, format, resolve (pokerlab.games.postflop.betsizes)."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerlab.errors import ParseError, PokerlabError
from pokerlab.games.postflop import BetSize, format_bet_sizes, parse_bet_sizes, resolve_bet
from pokerlab.games.postflop.spot import StreetSizes

INF = math.inf

VALID = [
    ("", False, ()),
    ("   ", False, ()),
    ("33%", False, (BetSize("pot", 0.33),)),
    ("0%", False, (BetSize("pot", 0.0),)),
    ("112.5%", False, (BetSize("pot", 1.125),)),
    (".5%", False, (BetSize("pot", 0.005),)),
    ("50.%", False, (BetSize("pot", 0.5),)),
    (
        " 33% , 75%,150% , a ",
        False,
        tuple(BetSize("pot", v) for v in (0.33, 0.75, 1.5)) + (BetSize("allin"),),
    ),
    ("2.5x", True, (BetSize("prev", 2.5),)),
    ("3.5X", True, (BetSize("prev", 3.5),)),
    ("1.001x", True, (BetSize("prev", 1.001),)),
    ("100c", False, (BetSize("chips", 100.0),)),
    ("0c", False, (BetSize("chips", 0.0),)),
    ("12.5C", True, (BetSize("chips", 12.5),)),
    ("e", False, (BetSize("geometric", INF, 0),)),
    ("E", False, (BetSize("geometric", INF, 0),)),
    ("2e", False, (BetSize("geometric", INF, 2),)),
    ("3e200%", True, (BetSize("geometric", 2.0, 3),)),
    ("e37.5%", False, (BetSize("geometric", 0.375, 0),)),
    ("100e.5%", False, (BetSize("geometric", 0.005, 100),)),
    ("a", False, (BetSize("allin"),)),
    ("A, allin, ALL-IN", False, (BetSize("allin"),) * 3),
    (
        "60%, 2.5x, 100c, e, a",
        True,
        (
            BetSize("pot", 0.6),
            BetSize("prev", 2.5),
            BetSize("chips", 100.0),
            BetSize("geometric", INF, 0),
            BetSize("allin"),
        ),
    ),
]


@pytest.mark.parametrize(("text", "raises", "expected"), VALID)
def test_valid_specs_parse_to_their_sizes(text: str, raises: bool, expected: tuple) -> None:
    assert parse_bet_sizes(text, raise_sizes=raises) == expected


# (spec, raise list?, offending token, its position)
INVALID = [
    ("33%%", False, "33%%", 0),
    ("50%, 33%%", False, "33%%", 5),
    ("33%,,a", False, ",", 4),
    ("33%,", False, ",", 3),
    (",33%", False, ",", 0),
    (" , ", False, ",", 1),
    ("-50%", False, "-50%", 0),
    ("a, -2.5x", True, "-2.5x", 3),
    ("+42%", False, "+42%", 0),
    ("2.5x", False, "2.5x", 0),
    ("a,  3x", False, "3x", 4),
    ("1x", True, "1x", 0),
    ("0x", True, "0x", 0),
    ("x", True, "x", 0),
    ("0e", False, "0e", 0),
    ("101e", False, "101e", 0),
    ("2.7e", False, "2.7e", 0),
    ("3e7", False, "3e7", 0),
    ("E%", False, "E%", 0),
    ("1e2e3", False, "1e2e3", 0),
    ("%", False, "%", 0),
    ("50", False, "50", 0),
    ("c", False, "c", 0),
    ("1a", False, "1a", 0),
    ("a1", False, "a1", 0),
    ("bet", False, "bet", 0),
    ("3 3%", False, "3 3%", 0),
    ("nan%", False, "nan%", 0),
    ("inf%", False, "inf%", 0),
    ("1_000c", False, "1_000c", 0),
    ("9" * 400 + "c", False, "9" * 400 + "c", 0),
    ("9" * 400 + "%", False, "9" * 400 + "%", 0),
]


@pytest.mark.parametrize(("text", "raises", "token", "position"), INVALID)
def test_invalid_specs_name_token_and_position(
    text: str, raises: bool, token: str, position: int
) -> None:
    with pytest.raises(ParseError) as info:
        parse_bet_sizes(text, raise_sizes=raises)
    assert info.value.token == token
    assert info.value.position == position
    assert repr(token) in str(info.value)


def test_geometric_with_cap_after_one_street_is_not_an_exponent() -> None:
    assert parse_bet_sizes("1e5%") == (BetSize("geometric", 0.05, 1),)


def test_x_in_a_bet_list_says_why() -> None:
    with pytest.raises(ParseError, match="only allowed for raises"):
        parse_bet_sizes("50%, 2.5x")


def test_non_string_spec_is_a_pokerlab_error() -> None:
    with pytest.raises(PokerlabError, match="string"):
        parse_bet_sizes(50)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("sizes", "text"),
    [
        ((), ""),
        ((BetSize("pot", 0.33), BetSize("pot", 0.75), BetSize("allin")), "33%, 75%, a"),
        ((BetSize("pot", 1.125), BetSize("prev", 2.5)), "112.5%, 2.5x"),
        ((BetSize("chips", 100.0), BetSize("chips", 12.25)), "100c, 12.25c"),
        ((BetSize("geometric", INF, 0), BetSize("geometric", 2.0, 3)), "e, 3e200%"),
        ((BetSize("geometric", 0.005, 100),), "100e0.5%"),
        ((BetSize("pot", 1 / 3),), "33.33333333333333%"),
    ],
)
def test_format_writes_canonical_tokens(sizes: tuple, text: str) -> None:
    assert format_bet_sizes(sizes) == text
    assert parse_bet_sizes(text, raise_sizes=True) == sizes


def test_bet_size_rejects_inconsistent_values() -> None:
    with pytest.raises(PokerlabError):
        BetSize("pot", -0.5)
    with pytest.raises(PokerlabError):
        BetSize("prev", 1.0)
    with pytest.raises(PokerlabError):
        BetSize("pot", 0.5, streets=2)
    with pytest.raises(PokerlabError):
        BetSize("chips", math.nan)
    with pytest.raises(PokerlabError):
        BetSize("bogus", 1.0)  # type: ignore[arg-type]
    with pytest.raises(PokerlabError):
        BetSize("pot", "50%")  # type: ignore[arg-type]
    with pytest.raises(PokerlabError):
        BetSize("geometric", 1.0, 2.5)  # type: ignore[arg-type]
    assert BetSize("chips", 100) == BetSize("chips", 100.0)


# --- resolve_bet: the amounts of the B6 river tree and the formulas in the docstring ---


def _resolve(
    size: BetSize,
    pot: float,
    prev_bet: float = 0.0,
    to_call: float = 0.0,
    stack: float = 900.0,
    streets_left: int = 1,
) -> float:
    return resolve_bet(
        size, pot=pot, prev_bet=prev_bet, to_call=to_call, stack=stack, streets_left=streets_left
    )


def test_pot_bets_are_a_fraction_of_the_pot() -> None:
    assert _resolve(BetSize("pot", 0.33), 200.0) == pytest.approx(66.0)
    assert _resolve(BetSize("pot", 0.75), 200.0) == pytest.approx(150.0)
    assert _resolve(BetSize("pot", 1.5), 200.0) == pytest.approx(300.0)


def test_pot_raise_is_a_call_then_a_fraction_of_the_new_pot() -> None:
    # B6 river: facing a bet of 66 into 200 (pot now 266), a 60% raise goes to 265.2.
    add = _resolve(BetSize("pot", 0.6), 266.0, prev_bet=66.0, to_call=66.0, stack=900.0)
    assert add == pytest.approx(0.6 * 332.0)
    assert 66.0 + add == pytest.approx(265.2)
    # facing 150 (pot 350): raise to exactly 450
    add = _resolve(BetSize("pot", 0.6), 350.0, prev_bet=150.0, to_call=150.0)
    assert 150.0 + add == pytest.approx(450.0)
    # a pot-sized raise facing a pot-sized bet of 100 into 100: call (pot 300), 300 more: to 400
    assert _resolve(BetSize("pot", 1.0), 200.0, 100.0, 100.0, 1000.0) == pytest.approx(300.0)


def test_prev_multiple_raises_to_n_times_the_bet() -> None:
    # facing 100 after having put in 0: raise to 250 adds 150 on top of the call
    assert _resolve(BetSize("prev", 2.5), 300.0, 100.0, 100.0) == pytest.approx(150.0)
    # facing a raise to 300 after betting 100 (to call 200): raise to 900 = 600 more, capped
    assert _resolve(BetSize("prev", 3.0), 600.0, 300.0, 200.0, 1000.0) == pytest.approx(600.0)
    assert _resolve(BetSize("prev", 3.0), 600.0, 300.0, 200.0, 500.0) == pytest.approx(300.0)
    with pytest.raises(PokerlabError, match="2.5x"):
        _resolve(BetSize("prev", 2.5), 200.0)


def test_chips_add_n_on_top_of_calling() -> None:
    assert _resolve(BetSize("chips", 66.0), 200.0) == 66.0
    assert _resolve(BetSize("chips", 199.0), 266.0, 66.0, 66.0) == 199.0  # raise to 265
    assert _resolve(BetSize("chips", 5000.0), 200.0) == 900.0  # capped at all-in


def test_geometric_gets_all_in_by_the_last_street() -> None:
    # pot 200, stack 900, 2 streets: f solves 200 (1 + 2f)^2 = 2000
    f = (math.sqrt(10.0) - 1.0) / 2.0
    bet = _resolve(BetSize("geometric", INF, 0), 200.0, streets_left=2)
    assert bet == pytest.approx(f * 200.0)
    # bet f of the pot and get called; next street the same fraction is all-in exactly
    pot, stack = 200.0 + 2 * bet, 900.0 - bet
    last = _resolve(BetSize("geometric", INF, 0), pot, stack=stack, streets_left=1)
    assert last == pytest.approx(stack)
    assert last / pot == pytest.approx(f)
    # an explicit street count overrides the streets left
    assert _resolve(BetSize("geometric", INF, 2), 200.0, streets_left=3) == pytest.approx(f * 200)
    # one street: the geometric size is all-in
    assert _resolve(BetSize("geometric", INF, 0), 200.0, streets_left=1) == pytest.approx(900.0)
    # capped at 150% of the pot
    assert _resolve(BetSize("geometric", 1.5, 1), 200.0) == pytest.approx(300.0)
    # as a raise: pot and stack after calling
    add = _resolve(BetSize("geometric", INF, 1), 300.0, 100.0, 100.0, 900.0)
    assert add == pytest.approx(800.0)


def test_allin_is_the_stack_after_calling() -> None:
    assert _resolve(BetSize("allin"), 200.0) == 900.0
    assert _resolve(BetSize("allin"), 266.0, 66.0, 66.0) == 834.0
    assert _resolve(BetSize("allin"), 266.0, 66.0, 66.0, stack=50.0) == 0.0


def test_resolve_refuses_negative_inputs() -> None:
    with pytest.raises(PokerlabError, match="stack"):
        _resolve(BetSize("allin"), 200.0, stack=-1.0)
    with pytest.raises(PokerlabError, match="pot"):
        _resolve(BetSize("allin"), math.nan)
    with pytest.raises(PokerlabError, match="street"):
        _resolve(BetSize("geometric", INF, 0), 200.0, streets_left=0)


# --- properties ---

_number = st.one_of(
    st.integers(0, 100_000).map(str),
    st.tuples(st.integers(0, 9999), st.integers(0, 9999)).map(lambda t: f"{t[0]}.{t[1]}"),
    st.integers(0, 999).map(lambda n: f".{n}"),
)
_raise_number = st.tuples(st.integers(1, 99), st.integers(1, 999)).map(lambda t: f"{t[0]}.{t[1]}")
_token = st.one_of(
    _number.map(lambda n: f"{n}%"),
    _number.map(lambda n: f"{n}c"),
    _raise_number.map(lambda n: f"{n}x"),
    st.tuples(
        st.sampled_from(["", "1", "2", "3", "100"]),
        st.one_of(st.just(""), _number.map(lambda n: f"{n}%")),
    ).map(lambda t: f"{t[0]}e{t[1]}"),
    st.sampled_from(["a", "A", "allin", "All-In"]),
)
_spec = st.lists(st.tuples(st.sampled_from(["", " ", "  "]), _token), max_size=6).map(
    lambda items: ",".join(f"{pad}{tok}{pad}" for pad, tok in items)
)


@settings(max_examples=300, deadline=None)
@given(_spec)
def test_valid_specs_round_trip_through_format(text: str) -> None:
    sizes = parse_bet_sizes(text, raise_sizes=True)
    assert len(sizes) == (text.count(",") + 1 if text.strip() else 0)
    again = parse_bet_sizes(format_bet_sizes(sizes), raise_sizes=True)
    assert again == sizes
    assert format_bet_sizes(again) == format_bet_sizes(sizes)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40), st.booleans())
def test_arbitrary_text_raises_only_pokerlab_errors(text: str, raises: bool) -> None:
    try:
        sizes = parse_bet_sizes(text, raise_sizes=raises)
    except PokerlabError:
        return
    assert parse_bet_sizes(format_bet_sizes(sizes), raise_sizes=raises) == sizes


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789.%xXcCeEaA ,-+", max_size=20), st.booleans())
def test_grammar_alphabet_text_raises_only_pokerlab_errors(text: str, raises: bool) -> None:
    try:
        parse_bet_sizes(text, raise_sizes=raises)
    except PokerlabError:
        pass


def test_module_docstring_examples_run() -> None:
    import doctest

    from pokerlab.games.postflop import bet_amounts, betsizes, spot

    for module in (bet_amounts, betsizes, spot):
        result = doctest.testmod(module)
        assert result.attempted >= 1
        assert result.failed == 0


# --- postflop-solver's raise rules (issue 28) ---


def test_chips_with_a_raise_cap_parse_and_format() -> None:
    (size,) = parse_bet_sizes("20c3R", raise_sizes=True)
    assert size == BetSize("chips", 20.0, raise_cap=3)
    assert format_bet_sizes((size,)) == "20c3r"
    assert parse_bet_sizes("20c, 20c1r", raise_sizes=True)[1].raise_cap == 1
    for text, needle in (
        ("20c3r", "only allowed for raises"),  # in a bet list
        ("20c0r", "from 1 to 100"),
        ("20c101r", "from 1 to 100"),
        ("20c3", "bad bet size"),
        ("20cr", "bad bet size"),
        ("20c3.5r", "bad bet size"),
    ):
        with pytest.raises(ParseError, match=needle):
            parse_bet_sizes(text, raise_sizes=text != "20c3r")
    with pytest.raises(PokerlabError, match="only chip sizes"):
        BetSize("pot", 0.5, raise_cap=2)


def test_geometric_raise_spreads_over_the_streets_left_after_the_bets_made() -> None:
    # postflop-solver: a raise of Ke spreads over max(K - bets so far + 1, 1) streets
    pot, behind = 300.0, 800.0  # after calling a bet of 100 into 100 with 900 behind
    two = ((1 + 2 * behind / pot) ** 0.5 - 1) / 2 * pot
    size = BetSize("geometric", INF, 2)
    assert resolve_bet(size, pot=200.0, prev_bet=100.0, to_call=100.0, stack=900.0,
                       streets_left=1, bets=1) == pytest.approx(two)  # fmt: skip
    # the default for a raise is one bet made: the same
    assert _resolve(size, 200.0, 100.0, 100.0, 900.0) == pytest.approx(two)
    # facing a raise (two bets made), 2e spreads over one street: all-in
    assert resolve_bet(size, pot=200.0, prev_bet=100.0, to_call=100.0, stack=900.0,
                       streets_left=1, bets=2) == pytest.approx(behind)  # fmt: skip
    # "e" on the flop facing a raise: 3 - 2 + 1 = 2 streets
    e = BetSize("geometric", INF, 0)
    assert resolve_bet(e, pot=200.0, prev_bet=100.0, to_call=100.0, stack=900.0,
                       streets_left=3, bets=2) == pytest.approx(two)  # fmt: skip
    with pytest.raises(PokerlabError, match="bets must be a non-negative integer"):
        _ = resolve_bet(e, pot=1.0, prev_bet=0.0, to_call=0.0, stack=1.0, streets_left=1, bets=-1)


def _river_tree(raise_sizes: str, *, stack: int, raise_limit: int | None) -> Any:
    from pokerlab.games.postflop.actions import ActionTreeOptions, build_action_tree

    sizes = StreetSizes(
        parse_bet_sizes("50%"), parse_bet_sizes(raise_sizes, raise_sizes=True), None
    )
    opts = ActionTreeOptions(
        pot=100, stack=stack, first_street=2, sizes={(2, 0): sizes, (2, 1): sizes},
        raise_limit=raise_limit,
    )  # fmt: skip
    return build_action_tree(opts)


def _raise_amounts(node: Any) -> list[list[tuple[int, int]]]:
    """The bet/raise actions along the line that always takes the smallest one."""
    out = []
    while node.kind == "decision":
        aggressive = [(i, a) for i, a in enumerate(node.actions) if a[0] >= 3]
        if not aggressive:
            break
        out.append([a for _, a in aggressive])
        node = node.children[aggressive[0][0]]
    return out


def test_chip_raises_stop_at_their_cap_in_the_tree() -> None:
    root = _river_tree("10c2r", stack=10_000, raise_limit=None)
    line = _raise_amounts(root)
    # 10c2r: offered while at most 2 bets are made; each raise is clamped to the minimum raise.
    # Bet 50; facing it (1 bet made) raise to 100; facing that (2) raise to 150; facing the
    # re-raise (3 bets) no raise is left (the stack is 100 pots, so no all-in is added)
    assert line == [[(3, 50)], [(4, 100)], [(4, 150)]]


def test_raise_limit_none_reproduces_postflop_solver_trees() -> None:
    from pokerlab.games.postflop.action_walk import count_action_nodes

    # a river with 2x raises and a stack of 20 pots: postflop-solver builds 14 decision nodes
    # (its README); pokerlab's default limit of 3 raises cuts the tree to 10
    assert (
        sum(count_action_nodes(_river_tree("2x", stack=2000, raise_limit=None))["decision"]) == 14
    )
    assert sum(count_action_nodes(_river_tree("2x", stack=2000, raise_limit=3))["decision"]) == 10


def test_raise_cap_refusals_name_the_token() -> None:
    with pytest.raises(ParseError, match="from 1 to 100: '20c9999"):
        parse_bet_sizes("20c" + "9" * 5000 + "r", raise_sizes=True)
    assert parse_bet_sizes("20c003r", raise_sizes=True)[0].raise_cap == 3
    with pytest.raises(PokerlabError, match="bet sizes cannot have a raise cap"):
        StreetSizes((BetSize("chips", 20.0, raise_cap=2),), ())


# --- Nc@M: a raise size at one depth (issue 25: the search inserts an actual size at its node) ---


def test_chips_at_one_raise_depth_parse_and_format() -> None:
    (size,) = parse_bet_sizes("20C@2", raise_sizes=True)
    assert size == BetSize("chips", 20.0, at_raise=2)
    assert format_bet_sizes((size,)) == "20c@2"
    assert parse_bet_sizes("a, 20c@002", raise_sizes=True)[1].at_raise == 2
    for text, needle in (
        ("20c@2", "raise depth ('Nc@M') is only allowed for raises"),  # in a bet list
        ("20c@0", "raise depth ('Nc@M') is a whole number from 1 to 100: '20c@0'"),
        ("20c@101", "from 1 to 100"),
        ("20c@" + "9" * 5000, "from 1 to 100"),
        ("20c@", "bad bet size"),
        ("20c3r@1", "bad bet size"),
        ("20%@1", "bad bet size"),
    ):
        with pytest.raises(ParseError, match=re.escape(needle[:60])):
            parse_bet_sizes(text, raise_sizes=text != "20c@2")
    with pytest.raises(PokerlabError, match="only chip sizes have a raise depth"):
        BetSize("pot", 0.5, at_raise=2)
    with pytest.raises(PokerlabError, match="not both"):
        BetSize("chips", 5.0, raise_cap=2, at_raise=2)
    with pytest.raises(PokerlabError, match="bet sizes cannot have a raise depth"):
        StreetSizes((BetSize("chips", 20.0, at_raise=2),), ())


def test_chip_raises_at_one_depth_appear_only_there_in_the_tree() -> None:
    # 10c@2: only facing the first raise (2 bets made). Bet 50; facing it, only the 2x raise to
    # 100; facing that, 10c -> to 150 (the minimum raise) beside 2x's 200; facing either, 2x
    root = _river_tree("2x, 10c@2", stack=10_000, raise_limit=3)
    assert _raise_amounts(root) == [[(3, 50)], [(4, 100)], [(4, 150), (4, 200)], [(4, 300)]]
    # at every depth (10c): facing 150 too, clamped to the minimum raise, to 200
    with_all = _river_tree("2x, 10c", stack=10_000, raise_limit=3)
    assert _raise_amounts(with_all) == [
        [(3, 50)],
        [(4, 100)],
        [(4, 150), (4, 200)],
        [(4, 200), (4, 300)],
    ]


def test_nolimit_menus_count_the_raises_as_postflop_spots_do() -> None:
    """The blueprint's menus (games/nolimit) read NcMr and Nc@M with a spot's count: bets and
    raises made on the street, the one faced included (the blinds before the flop)."""
    from pokerlab.games.nolimit.actions import ActionAbstraction, abstract_actions
    from pokerlab.games.nolimit.rules import ALLIN, BET, CALL, CHECK, RAISE, NoLimitRules

    rules = NoLimitRules(2, (10_000, 10_000), 50, 100)
    abstraction = ActionAbstraction.from_dict(
        {
            "preflop": ["2.5bb", "300c@2, 400c1r"],
            "flop": ["100%", "600c@1, 800c1r, 1200c@2"],
            "merging_threshold": 0.0,
        }
    )

    def sizes(state: Any) -> list[int]:
        acts = abstract_actions(rules, abstraction, state)
        return [a for k, a in acts if k in (BET, RAISE, ALLIN)]

    state = rules.initial_state()
    assert sizes(state) == [250]  # the open: the blinds made, depth 0's list
    state = state.apply(rules, RAISE, 250)
    assert sizes(state) == [550]  # 2 made: 300c@2 (to 250 + 300); 400c1r is past its cap
    state = state.apply(rules, CALL, 0)
    assert sizes(state) == [500]  # the flop's first bet: the pot
    state = state.apply(rules, BET, 500)
    assert sizes(state) == [1100, 1300]  # facing it, 1 made: 600c@1, 800c1r; not 1200c@2
    state = state.apply(rules, RAISE, 1100)
    assert sizes(state) == [2300]  # 2 made: 1200c@2 alone
    assert CHECK not in [k for k, _ in abstract_actions(rules, abstraction, state)]
