"""Range parsing, formatting and board removal."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pokerlab.cards.deck import (
    CLASS_COMBOS,
    COMBO_CLASS,
    class_name,
    combo_id,
    parse_card,
    parse_cards,
    parse_class,
)
from pokerlab.cards.ranges import (
    combo_count,
    format_range,
    parse_range,
    range_grid,
    remove_blocked,
)
from pokerlab.errors import ParseError, RangeOverlapWarning


def _class_names(weights: np.ndarray) -> set[str]:
    return {class_name(int(c)) for c in np.unique(COMBO_CLASS[weights > 0])}


@pytest.mark.parametrize(
    ("text", "combos", "classes"),
    [
        ("QQ+", 18, {"QQ", "KK", "AA"}),
        ("A2s+", 48, {f"A{r}s" for r in "23456789TJQK"}),
        ("KTo+", 36, {"KTo", "KJo", "KQo"}),
        ("76s", 4, {"76s"}),
        ("AhKh", 1, {"AKs"}),
        ("22-55", 24, {"22", "33", "44", "55"}),
        ("55-22", 24, {"22", "33", "44", "55"}),
        ("T9s-65s", 20, {"T9s", "98s", "87s", "76s", "65s"}),
        ("A5s-A2s", 16, {"A5s", "A4s", "A3s", "A2s"}),
        ("AK", 16, {"AKs", "AKo"}),
        ("AT+", 64, {"AKs", "AQs", "AJs", "ATs", "AKo", "AQo", "AJo", "ATo"}),
        ("random", 1326, None),
        ("any", 1326, None),
        ("", 0, set()),
        ("aks, kk", 10, {"AKs", "KK"}),
        ("  QQ+ ,AKs  ", 22, {"QQ", "KK", "AA", "AKs"}),
        ("AA+", 6, {"AA"}),
        ("AKs+", 4, {"AKs"}),
    ],
)
def test_valid_ranges(text: str, combos: int, classes: set[str] | None) -> None:
    w = parse_range(text)
    assert w.shape == (1326,)
    assert combo_count(w) == combos
    if classes is not None:
        assert _class_names(w) == classes


def test_overlapping_items_keep_the_first_weight_and_warn() -> None:
    # postflop-solver's rule: the first item naming a combo wins
    with pytest.warns(RangeOverlapWarning, match=r"1 combo twice .*AhKh \(kept from 'AKs:0.5'"):
        w = parse_range("AKs:0.5, AhKh")
    assert combo_count(w) == pytest.approx(2.0)
    with pytest.warns(RangeOverlapWarning) as record:
        w = parse_range("QQ+, KK:0.25")
    (warning,) = record
    message = str(warning.message)
    assert "6 combos" in message and "KsKh" in message and "not 'KK:0.25'" in message
    assert combo_count(w) == pytest.approx(18)
    # to weight part of a class, name the part first (it still warns: two weights are given)
    with pytest.warns(RangeOverlapWarning, match="AhAd"):
        w = parse_range("AhAd:0.25, AA")
    assert w[combo_id(parse_card("Ah"), parse_card("Ad"))] == 0.25
    assert combo_count(w) == pytest.approx(5.25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert combo_count(parse_range("QQ+, KK, AA:1")) == 18  # same weight: no warning


def test_overlap_warning_names_every_combo_once() -> None:
    with pytest.warns(RangeOverlapWarning) as record:
        parse_range("AA, AhAd:0.25, QQ+:0.5")
    (warning,) = record
    message = str(warning.message)
    assert message.startswith("range 'AA, AhAd:0.25, QQ+:0.5' gives 6 combos twice")
    assert "AhAd (kept from 'AA', not 'AhAd:0.25')" in message
    assert "(kept from 'AA', not 'QQ+:0.5')" in message


def test_connector_plus_runs_both_ranks() -> None:
    # postflop-solver's rule: T9s+ is T9s, JTs, QJs, KQs, AKs; a gap of 2 or more runs the kicker
    names = _class_names(parse_range("T9s+"))
    assert names == {"T9s", "JTs", "QJs", "KQs", "AKs"}
    assert _class_names(parse_range("KQo+")) == {"KQo", "AKo"}
    assert _class_names(parse_range("AK+")) == {"AKs", "AKo"}
    assert _class_names(parse_range("T8s+")) == {"T8s", "T9s"}


def test_spec_example() -> None:
    w = parse_range("QQ+, A2s-AQs, KTo+, 76s, AhKd, 22-55, T9s-65s, AKs:0.5")
    # QQ+ 18, A2s..AQs 44, AKs at 0.5: 2, KTo+ 36, AhKd 1, 22-55 24, T9s-65s 20 (76s inside)
    assert combo_count(w) == pytest.approx(18 + 44 + 2 + 36 + 1 + 24 + 20)


@pytest.mark.parametrize(
    ("text", "token", "position"),
    [
        ("QQ+, AKx", "AKx", 5),
        ("AA, KK, 1Ts", "1Ts", 8),
        ("AAs", "AAs", 0),
        ("AKs:1.5", "1.5", 4),
        ("AKs:half", "half", 4),
        ("AA,,KK", ",", 3),
        ("A2s-K3s", "A2s-K3s", 0),
        ("AKs-AQo", "AKs-AQo", 0),
        ("22-AKs", "22-AKs", 0),
        ("AsAs", "AsAs", 0),
        ("AsXd", "AsXd", 0),
        ("QQ+, AK, ", ",", 7),
        ("QQ++", "QQ++", 0),
    ],
)
def test_invalid_ranges_name_token_and_position(text: str, token: str, position: int) -> None:
    with pytest.raises(ParseError) as err:
        parse_range(text)
    assert err.value.token == token
    assert err.value.position == position
    assert repr(token) in str(err.value)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("random", "random"),
        ("AA, KK, QQ", "QQ+"),
        ("TT, JJ, QQ, KK, AA, A2s+, A2o+", "TT+, A2+"),
        ("T9s, 98s, 87s, 76s", "T9s-76s"),
        ("AKs, AKo", "AK"),
        ("55, 44, 33", "55-33"),
        ("AhKh", "AhKh"),
        ("AKs:0.5", "AKs:0.5"),
        ("KQs, KJs, KTs", "KTs+"),
        ("K8s, K7s", "K8s-K7s"),
    ],
)
def test_format_is_short(text: str, expected: str) -> None:
    assert format_range(parse_range(text)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "QQ+, A2s-AQs, KTo+, 76s, AhKd, 22-55, T9s-65s, AKs:0.5",
        "66+,A8s+,K9s+,Q9s+,J9s+,T8s+,97s+,86s+,75s+,64s+,A9o+,KTo+,QTo+,JTo",
        "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+",
        "AA:0.1, KK:0.2, AsKs:0.3, AdKd:0.3, 72o:0.75",
    ],
)
def test_round_trip(text: str) -> None:
    w = parse_range(text)
    assert np.array_equal(parse_range(format_range(w)), w)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 168), st.sampled_from([0.0, 0.25, 0.5, 1.0])), max_size=60),
    st.lists(st.tuples(st.integers(0, 1325), st.floats(0.0, 1.0)), max_size=20),
)
def test_round_trip_property(
    classes: list[tuple[int, float]], combos: list[tuple[int, float]]
) -> None:
    w = np.zeros(1326)
    for c, x in classes:
        w[CLASS_COMBOS[c]] = x
    for k, x in combos:
        w[k] = x
    assert np.array_equal(parse_range(format_range(w)), w)


def test_remove_blocked_and_grid() -> None:
    w = parse_range("AA, AKs")
    board = parse_cards("Ah7c2d")
    left = remove_blocked(w, board)
    assert combo_count(left) == 3 + 3  # AA loses the 3 combos with Ah; AKs loses AhKh
    assert combo_count(w) == 10  # input unchanged
    grid = range_grid(parse_range("AA, AKs, AhKd"))
    assert grid[0, 0] == 1.0 and grid[0, 1] == 1.0
    assert grid[1, 0] == pytest.approx(1 / 12)
    assert grid.sum() == pytest.approx(2 + 1 / 12)
    assert parse_class("AKo") == 13


@pytest.mark.parametrize("weight", ["٠.٥", "1_0", "nan", "inf", "0x1", "½"])
def test_weights_are_ascii_decimals(weight: str) -> None:
    """A weight is an ASCII decimal (issue 29): Python's float() also reads Unicode digits,
    underscores and nan, which the range grammar does not have."""
    with pytest.raises(ParseError, match="weight is not a number"):
        parse_range(f"AA:{weight}")


def test_weights_in_exponent_form_are_read() -> None:
    assert parse_range("AA:5e-1").sum() == pytest.approx(3.0)


def test_a_long_per_combo_range_reads_as_the_general_parser_does(monkeypatch) -> None:
    """The vectorised reading of one ``combo:weight`` item per combo (what search writes)
    equals the general parser's, and a text it cannot judge (a combo twice, a class) goes to
    the general parser with its warning or error."""
    import warnings

    import numpy as np

    import pokerlab.cards.ranges as R
    from pokerlab.cards.deck import COMBO_CARDS, format_card

    weights = np.random.default_rng(3).random(1326)
    weights[::7] = 0.0
    text = ",".join(
        f"{format_card(int(a))}{format_card(int(b))}:{w!r}"
        for (a, b), w in zip(COMBO_CARDS.tolist(), weights.tolist(), strict=True)
    )
    fast = R.parse_range(text)
    monkeypatch.setattr(R, "_combo_list", lambda text: None)
    assert np.array_equal(fast, R.parse_range(text))
    monkeypatch.undo()
    assert R._combo_list(text + ",AsKs:0.5") is None  # AsKs twice: the general rule decides
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        R.parse_range(text.replace("AsKs:", "AsKs:0.5,AsKs:", 1))
    assert caught and "AsKs" in str(caught[0].message)
    assert R._combo_list(text + ",AK") is None


def test_search_range_text_reads_back_as_the_weights_it_carries() -> None:
    """The search agent's ranges: the text, parsed as plain text, gives bit for bit the
    weights the RangeText carries (each written with repr), so a spot made from either is the
    same; the carried weights survive pickling (spots travel to Ray workers)."""
    import pickle

    from pokerlab.cards.deck import COMBO_CARDS
    from pokerlab.cards.ranges import RangeText
    from pokerlab.solvers.search.lines import range_text

    hands = np.sort(COMBO_CARDS.astype(np.int64), axis=1)  # every hole-card pair, lower first
    rng = np.random.default_rng(5)
    weights = rng.random(len(hands)) ** 4
    weights[rng.random(len(hands)) < 0.3] = 0.0
    weights[7] = 3e-300  # a subnormal-scale weight keeps its exact value too
    text = range_text(hands, weights)
    assert isinstance(text, RangeText)
    plain = parse_range(str(text))
    np.testing.assert_array_equal(plain, text.weights)
    np.testing.assert_array_equal(parse_range(text), plain)
    assert plain.max() == 1.0 and (plain > 0).sum() == (weights > 0).sum()
    back = pickle.loads(pickle.dumps(text))
    assert isinstance(back, RangeText) and back == text
    np.testing.assert_array_equal(back.weights, text.weights)
    with pytest.raises(ValueError, match="1326 weights"):
        RangeText("AsKs", np.ones(3))
