"""Property tests of every text parser: cards, ranges, push/fold strategy specs.

On arbitrary text a parser returns or raises :class:`PokerlabError` (nothing else), and a
:class:`ParseError` with a position points at its token in the input. Valid inputs round-trip:
``parse_card(format_card(c)) == c``, ``parse_range(format_range(w)) == w``, and a push/fold spec
gives exactly the ranges or top fractions it names.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pokerlab.analysis.pushfold import shove_call_arrays, strategy_from_spec, top_fraction
from pokerlab.cards.deck import (
    CLASS_COMBOS,
    N_CLASSES,
    N_COMBOS,
    RANKS,
    SUITS,
    class_name,
    format_card,
    parse_card,
    parse_cards,
)
from pokerlab.cards.ranges import format_range, parse_range
from pokerlab.errors import ParseError, PokerlabError
from pokerlab.games.pushfold import PushFoldGame

FAST = settings(max_examples=200, deadline=None)

#: Characters of the card, range and spec grammars, so random text often gets deep into a parser.
GRAMMAR = "AKQJT98765432akqjtcdhsCDHSoO+-,:./% \t0123456789eE_" + "xyz\u00e9\u2660\x00"
texts = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=GRAMMAR, max_size=40),
    st.lists(
        st.sampled_from(
            ["AA", "AKs", "T9o", "22+", "A2s+", "KTo-K7o", "T9s-65s", "AhKh", ":0.5", ":1", ","]
            + ["/", "%", " ", "random", "any", "QQ-55", "70", "0.3", "1e3", "nan", "-", "+"]
        ),
        max_size=8,
    ).map("".join),
)


def _check_error(exc: PokerlabError, text: str) -> None:
    """A parse error that gives a position names the token found there in ``text``."""
    if isinstance(exc, ParseError) and exc.position >= 0 and exc.token:
        assert text[exc.position : exc.position + len(exc.token)] == exc.token, (
            text,
            str(exc),
        )


# ----------------------------------------------------------------------------------------------
# cards


@FAST
@given(text=texts)
def test_parse_card_and_cards_raise_only_pokerlab_errors(text: str) -> None:
    for parse in (parse_card, parse_cards, lambda t: parse_cards(t, allow_duplicates=True)):
        try:
            out = parse(text)
        except PokerlabError as exc:
            _check_error(exc, text)
            continue
        cards = [out] if isinstance(out, int) else out
        assert all(0 <= c < 52 for c in cards)


@FAST
@given(card=st.integers(0, 51), upper_rank=st.booleans(), upper_suit=st.booleans())
def test_every_card_round_trips_in_any_case(card: int, upper_rank: bool, upper_suit: bool) -> None:
    name = format_card(card)
    assert name[0] in RANKS and name[1] in SUITS
    rank = name[0].upper() if upper_rank else name[0].lower()
    suit = name[1].upper() if upper_suit else name[1]
    assert parse_card(rank + suit) == card


@FAST
@given(
    cards=st.lists(st.integers(0, 51), unique=True, max_size=12),
    separators=st.lists(
        st.sampled_from(["", " ", ",", ", ", "\t", "  "]), min_size=13, max_size=13
    ),
)
def test_card_runs_round_trip(cards: list[int], separators: list[str]) -> None:
    text = separators[0] + "".join(
        format_card(c) + s for c, s in zip(cards, separators[1:], strict=False)
    )
    assert parse_cards(text) == cards


@FAST
@given(cards=st.lists(st.integers(0, 51), unique=True, min_size=1, max_size=6), data=st.data())
def test_a_repeated_card_is_named_at_its_second_place(cards: list[int], data) -> None:
    repeat = data.draw(st.sampled_from(cards))
    text = "".join(format_card(c) for c in cards) + format_card(repeat)
    with pytest.raises(ParseError, match="twice") as info:
        parse_cards(text)
    assert info.value.position == 2 * len(cards)
    assert parse_cards(text, allow_duplicates=True) == cards + [repeat]


# ----------------------------------------------------------------------------------------------
# ranges

weights = st.one_of(
    st.sampled_from([1.0, 0.5, 0.25, 0.75, 0.1, 1e-9]),
    st.floats(min_value=0.0, max_value=1.0, exclude_min=True, allow_subnormal=False),
)


@st.composite
def range_vectors(draw: st.DrawFn) -> np.ndarray:
    """A weight vector: some whole classes at some weights, then some single combos."""
    w = np.zeros(N_COMBOS)
    if draw(st.integers(0, 9)) == 0:
        w[:] = 1.0
    for cls, weight in draw(
        st.lists(st.tuples(st.integers(0, N_CLASSES - 1), weights), max_size=30)
    ):
        w[CLASS_COMBOS[cls]] = weight
    for combo, weight in draw(
        st.lists(
            st.tuples(st.integers(0, N_COMBOS - 1), st.one_of(weights, st.just(0.0))), max_size=8
        )
    ):
        w[combo] = weight
    return w


@FAST
@given(text=texts)
def test_parse_range_raises_only_pokerlab_errors(text: str) -> None:
    try:
        w = parse_range(text)
    except PokerlabError as exc:
        _check_error(exc, text)
        return
    assert w.shape == (N_COMBOS,) and np.all((w >= 0.0) & (w <= 1.0))


@settings(max_examples=100, deadline=None)
@given(w=range_vectors())
def test_format_then_parse_gives_the_same_weights(w: np.ndarray) -> None:
    text = format_range(w)
    np.testing.assert_array_equal(parse_range(text), w)
    assert format_range(parse_range(text)) == text  # formatting is a fixed point


@st.composite
def range_items(draw: st.DrawFn) -> str:
    """One item of the range grammar, written the ways people write it."""
    kind = draw(st.sampled_from(["class", "plus", "span", "combo", "any"]))
    if kind == "combo":
        a, b = draw(st.lists(st.integers(0, 51), unique=True, min_size=2, max_size=2))
        item = format_card(a) + format_card(b)
    elif kind == "any":
        item = draw(st.sampled_from(["random", "any", "Random"]))
    else:
        cls = draw(st.integers(0, N_CLASSES - 1))
        name = class_name(cls)
        if kind == "class":
            item = name
        elif kind == "plus":
            item = name + "+"
        else:  # span: a pair span, or a same-high-card span
            other = class_name(draw(st.integers(0, N_CLASSES - 1)))
            pair = len(name) == 2
            assume(pair == (len(other) == 2))
            if pair:
                item = f"{name}-{other}"
            else:
                assume(name[0] == other[0] and name[2:] == other[2:] and name[1] != other[1])
                item = f"{name}-{other}"
    if draw(st.booleans()):
        item = item.lower()
    if draw(st.integers(0, 3)) == 0:
        item += ":" + repr(draw(weights))
    return item


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(items=st.lists(range_items(), min_size=1, max_size=6), spaces=st.booleans())
def test_written_ranges_parse_and_survive_a_format_round_trip(
    items: list[str], spaces: bool
) -> None:
    text = (", " if spaces else ",").join(items)
    w = parse_range(text)
    assert np.all((w >= 0.0) & (w <= 1.0)) and w.any()
    np.testing.assert_array_equal(parse_range(format_range(w)), w)


# ----------------------------------------------------------------------------------------------
# push/fold strategy specs


@pytest.fixture(scope="module")
def game() -> PushFoldGame:
    return PushFoldGame(10.0)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=texts)
def test_strategy_specs_raise_only_pokerlab_errors(game, text: str) -> None:
    try:
        strategy = strategy_from_spec(text, game)
    except PokerlabError as exc:
        _check_error(exc, text)
        return
    sb, bb = shove_call_arrays(strategy)
    assert sb.shape == bb.shape == (1, N_COMBOS)
    assert np.all((sb >= 0) & (sb <= 1)) and np.all((bb >= 0) & (bb <= 1))


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(shove=st.integers(0, 100), call=st.integers(0, 100), form=st.integers(0, 2))
def test_percentage_specs_give_the_top_fractions(game, shove: int, call: int, form: int) -> None:
    if form == 0:
        spec = f"{shove}%/{call}%"
    elif form == 1:
        assume(max(shove, call) > 1)  # whole numbers <= 1 on both sides are ambiguous
        spec = f"{shove} / {call}"
    else:
        spec = f"{shove / 100:.2f}/{call / 100:.2f}"
        assume("." in spec)
    sb, bb = shove_call_arrays(strategy_from_spec(spec, game))
    np.testing.assert_array_equal(sb[0], top_fraction(shove / 100))
    np.testing.assert_array_equal(bb[0], top_fraction(call / 100))


@settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(shove=range_vectors(), call=range_vectors())
def test_range_specs_give_the_ranges(game, shove: np.ndarray, call: np.ndarray) -> None:
    left, right = format_range(shove), format_range(call)
    sb, bb = shove_call_arrays(strategy_from_spec(f"{left} / {right}", game))
    np.testing.assert_array_equal(sb[0], shove)
    np.testing.assert_array_equal(bb[0], call)


def test_known_error_positions_in_specs(game) -> None:
    # the bad item is named where it is in the whole spec, not in one side of it
    spec = "22+, A2s+ / 55+, QZs"
    with pytest.raises(ParseError) as info:
        strategy_from_spec(spec, game)
    assert info.value.token == "QZs" and spec[info.value.position :].startswith("QZs")


def test_a_range_spec_longer_than_a_file_name_is_read_as_ranges(game) -> None:
    # found by test_range_specs_give_the_ranges: a side over 255 bytes was refused as a file name
    call = ", ".join(format_card(c) + format_card(c + 1) + ":0.25" for c in range(0, 52, 2))
    assert len(call) > 255
    sb, bb = shove_call_arrays(strategy_from_spec(f"AA / {call}", game))
    np.testing.assert_array_equal(bb[0], parse_range(call))
    assert bb[0].sum() == 26 * 0.25 and sb[0].sum() == 6
    with pytest.raises(PokerlabError, match="too long"):
        strategy_from_spec("x" * 300 + ".npz", game)


# ----------------------------------------------------------------------------------------------
# bet sizes, spot files and the limit options: huge, non-finite and Unicode numbers (issue 29)

HUGE_DIGITS = st.integers(1, 6000).map(lambda n: "9" * n)
UNICODE_DIGITS = st.sampled_from(["\u0663", "\u0665", "\uff15", "\u0967", "\u00b2", "\u2155"])
NUMBERS = st.one_of(
    st.sampled_from(["0", "1", "33", "2.5", ".5", "1e3", "nan", "inf", "-1", "100", "0001"]),
    HUGE_DIGITS,
    UNICODE_DIGITS,
    st.lists(UNICODE_DIGITS, min_size=1, max_size=3).map("".join),
)
SIZE_TEXT = st.lists(
    st.tuples(NUMBERS, st.sampled_from(["%", "x", "c", "e", "e50%", "", "%%"]))
    .map("".join)
    .filter(lambda t: t),
    min_size=1,
    max_size=4,
).map(", ".join)


@FAST
@given(
    text=st.one_of(SIZE_TEXT, st.text(alphabet="0123456789.%xXcCeEaA, \u0663\uff15", max_size=30))
)
def test_bet_sizes_raise_only_pokerlab_errors_and_stay_bounded(text: str) -> None:
    from pokerlab.games.postflop.betsizes import (
        MAX_SIZE_VALUE,
        MAX_STREETS,
        format_bet_sizes,
        parse_bet_sizes,
    )

    try:
        sizes = parse_bet_sizes(text, raise_sizes=True)
    except PokerlabError as exc:
        _check_error(exc, text)
        return
    assert not any(ch.isdigit() and not ch.isascii() for ch in text), text  # ASCII grammar
    for size in sizes:
        assert size.value <= MAX_SIZE_VALUE or (size.kind == "geometric" and size.value > 1e300)
        assert 0 <= size.streets <= MAX_STREETS
    assert parse_bet_sizes(format_bet_sizes(sizes), raise_sizes=True) == sizes


SPOT_VALUES = st.one_of(
    st.integers(-(10**5), 10**5),
    st.integers(10**15, 10**400),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, 3.4e38, 1e39, 1e9, 1e9 + 1, 5e-324, True]),
    st.text(alphabet="0123456789\u0663", max_size=6),
)


@FAST
@given(
    pot=SPOT_VALUES,
    stack=SPOT_VALUES,
    rake=SPOT_VALUES,
    threshold=SPOT_VALUES,
    raise_limit=SPOT_VALUES,
    bet=st.one_of(SIZE_TEXT, st.just("50%")),
    override=st.booleans(),
)
def test_spot_tables_raise_only_pokerlab_errors(
    pot, stack, rake, threshold, raise_limit, bet, override
) -> None:
    from pokerlab.games.postflop.betsizes import parse_bet_sizes
    from pokerlab.games.postflop.game import PostflopGame
    from pokerlab.games.postflop.spot import MAX_CHIPS, SpotConfig

    river: dict = {"bet": bet}
    if override:  # both players override the street's spec: it is still checked
        river.update(oop={"bet": "50%"}, ip={"bet": "50%"})
    data = {
        "board": "Td9d6hQc2s", "oop_range": "AA", "ip_range": "KK", "pot": pot,
        "stack": stack, "rake_rate": 0.05, "rake_cap": rake, "river": river,
        "tree": {"add_allin_threshold": threshold, "raise_limit": raise_limit},
    }  # fmt: skip
    try:
        config = SpotConfig.from_dict(data)
    except PokerlabError:
        return
    parse_bet_sizes(bet)  # accepted only when the street's own spec parses
    assert 0 < config.pot <= MAX_CHIPS and 0 <= config.stack <= MAX_CHIPS
    assert config.rake_cap <= MAX_CHIPS
    try:
        summary = PostflopGame(config).tree_summary()
    except PokerlabError:
        return
    assert summary["memory_upper_bound_bytes"] >= 0


@FAST
@given(number=NUMBERS, key=st.sampled_from(["pot", "stack", "rake_cap"]))
def test_spot_files_with_any_number_literal_raise_only_pokerlab_errors(
    tmp_path_factory, number: str, key: str
) -> None:
    from pokerlab.games.postflop.spot import load_spot

    values = {"pot": "100", "stack": "100", "rake_cap": "0"}
    values[key] = number
    folder = tmp_path_factory.mktemp("spots")
    for suffix, text in (
        (".json", '{"board": "Td9d6hQc2s", "oop_range": "AA", "ip_range": "KK", '
         + ", ".join(f'"{k}": {v}' for k, v in values.items()) + "}"),
        (".toml", 'board = "Td9d6hQc2s"\noop_range = "AA"\nip_range = "KK"\n'
         + "".join(f"{k} = {v}\n" for k, v in values.items())),
    ):  # fmt: skip
        path = folder / f"spot{suffix}"
        path.write_text(text, encoding="utf-8")
        try:
            load_spot(path)
        except PokerlabError:
            continue


@FAST
@given(
    text=st.one_of(
        st.lists(NUMBERS, min_size=1, max_size=5).map(",".join),
        st.text(alphabet="0123456789,-x \u0663", max_size=30),
    )
)
def test_limit_bucket_counts_raise_only_pokerlab_errors(text: str) -> None:
    from pokerlab.abstraction.buckets import MAX_BUCKETS
    from pokerlab.cli.train import _parse_buckets

    try:
        counts = _parse_buckets(text)
    except PokerlabError:
        return
    assert len(counts) == 4 and all(1 <= c <= MAX_BUCKETS for c in counts)
    assert text.isascii()


@FAST
@given(text=st.one_of(NUMBERS, NUMBERS.map(lambda n: n + "%"), st.text(max_size=12)))
def test_postflop_target_raises_only_pokerlab_errors(text: str) -> None:
    import math

    from pokerlab.cli.postflop import parse_target

    try:
        value = parse_target(text)
    except PokerlabError:
        return
    assert math.isfinite(value) and value > 0
    assert text.isascii()
