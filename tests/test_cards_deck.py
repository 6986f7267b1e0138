"""Cards, combos and the 169 starting-hand classes."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.deck import (
    CLASS_COMBOS,
    CLASS_SIZE,
    COMBO_CARDS,
    COMBO_CLASS,
    COMBO_INDEX,
    class_grid_position,
    class_id,
    class_name,
    combo_id,
    combos_blocked_by,
    combos_conflict,
    format_card,
    format_cards,
    format_combo,
    parse_card,
    parse_cards,
    parse_class,
)
from pokerlab.errors import ParseError


def test_card_encoding_matches_eval7_convention() -> None:
    assert parse_card("2c") == 0
    assert parse_card("2s") == 3
    assert parse_card("As") == 51
    assert parse_card("td") == parse_card("Td") == 4 * 8 + 1
    assert [format_card(c) for c in range(52)][:5] == ["2c", "2d", "2h", "2s", "3c"]
    assert all(parse_card(format_card(c)) == c for c in range(52))


def test_parse_cards_runs() -> None:
    assert format_cards(parse_cards("Td9d6h")) == "Td9d6h"
    assert parse_cards("Td 9d, 6h") == parse_cards("Td9d6h")
    assert parse_cards("") == []


@pytest.mark.parametrize(
    ("text", "token", "position"),
    [("Td9x6h", "9x", 2), ("AsKs1c", "1c", 4), ("AsAs", "As", 2), ("Td9", "9", 2)],
)
def test_parse_cards_errors_name_token(text: str, token: str, position: int) -> None:
    with pytest.raises(ParseError) as err:
        parse_cards(text)
    assert err.value.token == token
    assert err.value.position == position


def test_combo_index_is_a_bijection() -> None:
    assert COMBO_CARDS.shape == (1326, 2)
    assert np.all(COMBO_CARDS[:, 0] > COMBO_CARDS[:, 1])
    hi, lo = COMBO_CARDS[:, 0], COMBO_CARDS[:, 1]
    assert np.array_equal(COMBO_INDEX[hi, lo], np.arange(1326))
    assert np.array_equal(COMBO_INDEX[lo, hi], np.arange(1326))
    assert np.all(np.diag(COMBO_INDEX) == -1)
    assert (COMBO_INDEX >= 0).sum() == 2 * 1326
    assert combo_id(parse_card("Kd"), parse_card("As")) == combo_id(51, 4 * 11 + 1)
    assert format_combo(combo_id(parse_card("Kd"), parse_card("As"))) == "AsKd"


def test_classes_partition_the_combos() -> None:
    assert sorted(np.concatenate(CLASS_COMBOS).tolist()) == list(range(1326))
    assert CLASS_SIZE.sum() == 1326
    assert (CLASS_SIZE == 6).sum() == 13
    assert (CLASS_SIZE == 4).sum() == 78
    assert (CLASS_SIZE == 12).sum() == 78
    for c in range(169):
        assert np.all(COMBO_CLASS[CLASS_COMBOS[c]] == c)


@pytest.mark.parametrize(
    ("name", "row", "col", "size"),
    [
        ("AA", 0, 0, 6),
        ("AKs", 0, 1, 4),
        ("AKo", 1, 0, 12),
        ("22", 12, 12, 6),
        ("32s", 11, 12, 4),
        ("32o", 12, 11, 12),
        ("T9o", 5, 4, 12),
        ("T9s", 4, 5, 4),
    ],
)
def test_class_names_and_grid(name: str, row: int, col: int, size: int) -> None:
    c = parse_class(name)
    assert class_name(c) == name
    assert class_grid_position(c) == (row, col)
    assert CLASS_SIZE[c] == size


def test_class_names_round_trip_and_suitedness() -> None:
    for c in range(169):
        assert parse_class(class_name(c)) == c
        row, col = class_grid_position(c)
        for k in CLASS_COMBOS[c]:
            a, b = COMBO_CARDS[k]
            suited = (a & 3) == (b & 3)
            assert suited == (row < col)
    assert class_id(12, 11, True) == parse_class("AKs")


@pytest.mark.parametrize("bad", ["AKx", "AAs", "AK", "A", "XYs", "AKso"])
def test_parse_class_errors(bad: str) -> None:
    with pytest.raises(ParseError):
        parse_class(bad)


def test_conflicts_and_blockers() -> None:
    conflict = combos_conflict()
    assert conflict.shape == (1326, 1326)
    assert np.all(np.diag(conflict))
    # each combo overlaps itself and 2 * 50 others
    assert np.all(conflict.sum(axis=1) == 101)
    blocked = combos_blocked_by(parse_cards("AsKd"))
    assert blocked.sum() == 51 + 50
