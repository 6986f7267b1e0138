"""Card helpers refuse out-of-range ids, bad boards, unwritable weights and fractional sample
counts by name (a PokerlabError), instead of wrapping around, raising a raw numpy IndexError or
returning a silently wrong answer."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.deck import (
    class_combos,
    class_grid_position,
    class_name,
    class_ranks,
    combo_cards,
    combo_id,
    combos_blocked_by,
    make_card,
    parse_cards,
)
from pokerlab.cards.equity import equity
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.cards.ranges import format_range, parse_range, remove_blocked
from pokerlab.errors import ParseError, PokerlabError


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: combo_cards(-1), "combo id -1 is out of range 0..1325"),
        (lambda: combo_cards(1326), "combo id 1326 is out of range 0..1325"),
        (lambda: combo_cards(2.0), "combo id 2.0 is not an integer"),
        (lambda: combo_id(0, 52), "card id 52 is out of range 0..51"),
        (lambda: combo_id(-1, 3), "card id -1 is out of range 0..51"),
        (lambda: combo_id(7, 7), "a combo needs two distinct cards, got 7 twice"),
        (lambda: class_name(169), "class id 169 is out of range 0..168"),
        (lambda: class_name(-1), "class id -1 is out of range 0..168"),
        (lambda: class_ranks(200), "class id 200 is out of range 0..168"),
        (lambda: class_combos(169), "class id 169 is out of range 0..168"),
        (lambda: class_grid_position(169), "class id 169 is out of range 0..168"),
        (lambda: make_card(13, 0), "rank 13 is out of range 0..12"),
        (lambda: make_card(0, 4), "suit 4 is out of range 0..3"),
        (lambda: make_card(-1, 0), "rank -1 is out of range 0..12"),
    ],
)
def test_ids_out_of_range_are_refused_by_name(call, message: str) -> None:
    with pytest.raises(PokerlabError) as info:
        call()
    assert str(info.value) == message


def test_valid_ids_still_work_with_numpy_integers() -> None:
    assert combo_cards(0) == (1, 0) and combo_cards(np.int16(1325)) == (51, 50)
    assert combo_id(np.int64(51), 50) == 1325
    assert class_name(0) == "AA" and class_name(168) == "22" and class_name(1) == "AKs"
    assert make_card(12, 3) == 51 and make_card(np.int64(0), 0) == 0


def test_remove_blocked_takes_a_board_string_or_card_ids() -> None:
    w = parse_range("22+, AKs")
    by_text = remove_blocked(w, "Td9d6h")
    by_ids = remove_blocked(w, parse_cards("Td9d6h"))
    np.testing.assert_array_equal(by_text, by_ids)
    assert by_text.sum() == w.sum() - 9  # three of each of TT, 99 and 66 are gone
    np.testing.assert_array_equal(combos_blocked_by("Td9d6h"), combos_blocked_by([33, 29, 18]))


def test_remove_blocked_refuses_bad_cards() -> None:
    w = parse_range("22+")
    with pytest.raises(PokerlabError, match=r"^card id 60 is out of range 0\.\.51$"):
        remove_blocked(w, [60])
    with pytest.raises(PokerlabError, match=r"^card id -1 is out of range 0\.\.51$"):
        remove_blocked(w, [-1])
    with pytest.raises(ParseError, match="bad card: 'Tx'"):
        remove_blocked(w, "Tx9d6h")


@pytest.mark.parametrize(
    ("scale", "shown"), [(2.0, "2.0"), (-1.0, "-1.0"), (np.nan, "nan"), (np.inf, "inf")]
)
def test_format_range_refuses_weights_outside_0_1(scale: float, shown: str) -> None:
    w = np.where(parse_range("22+") > 0, scale, 0.0)
    with pytest.raises(PokerlabError) as info:
        format_range(w)
    assert str(info.value) == f"weight {shown} of 2d2c is not in [0, 1]"


def test_format_range_round_trips_valid_weights() -> None:
    w = parse_range("QQ+, AKs:0.5, AhKd:0.25")
    np.testing.assert_array_equal(parse_range(format_range(w)), w)
    assert format_range(np.zeros(1326)) == ""


def test_evaluate_batch_documents_unchecked_duplicates() -> None:
    doc = evaluate_batch.__doc__ or ""
    assert "not\n        checked" in doc and "[[0, 0, 0, 0, 0]]" in doc
    assert evaluate_batch(np.array([[0, 0, 0, 0, 0]]))[0] == 0  # as the docstring says


@pytest.mark.parametrize(
    ("samples", "message"),
    [
        (1.5, "samples must be a whole number of deals, got 1.5"),
        (True, "samples must be a whole number of deals, got True"),
        (float("nan"), "samples must be a whole number of deals, got nan"),
        ("100", "samples must be a whole number of deals, got '100'"),
        (0, "samples must be positive, got 0"),
        (-5.0, "samples must be positive, got -5.0"),
    ],
)
def test_equity_refuses_fractional_samples(samples: object, message: str) -> None:
    with pytest.raises(PokerlabError) as info:
        equity("AsKs", "QQ", samples=samples, seed=1)  # type: ignore[arg-type]
    assert str(info.value) == message


def test_equity_takes_whole_samples_even_as_a_float() -> None:
    a = equity("AsKs", "QQ", samples=2000, seed=1)
    b = equity("AsKs", "QQ", samples=2000.0, seed=1)
    assert a.samples == b.samples == 2000 and a.equity == b.equity


def test_equity_refuses_a_board_card_out_of_range() -> None:
    with pytest.raises(PokerlabError, match="card id 60 is out of range"):
        equity("AsKs", "QQ", board=[0, 1, 60], samples=100, seed=1)
