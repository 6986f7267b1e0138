"""When no pair of hands can be dealt, ``equity`` names the simplest cause it finds: the card two
single hands share, the board cards that block every hand of a range, an empty range; the CLI
prints that one line and exits 2."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.deck import combo_cards, format_cards
from pokerlab.cards.equity import equity
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError

PREFIX = "no pair of hands can be dealt: "


@pytest.mark.parametrize(
    ("first", "second", "board", "why"),
    [
        ("AsKs", "AsQs", "", "As is in both hands"),
        ("AsKs", "KsAs", "", "As and Ks are in both hands"),
        (
            "AsKs",
            "QQ",
            "Td9d6hAs",
            "every hand of range 1 (AsKs) shares a card with the board Td9d6hAs (As)",
        ),
        (
            "AKs",
            "QQ",
            "AsAhKdKc",
            "every hand of range 1 (AKs) shares a card with the board AsAhKdKc (AsAhKdKc)",
        ),
        (
            "QQ",
            "JJ,KsQs",
            "QdQcQh",
            "every hand of range 1 (QQ) shares a card with the board QdQcQh (QdQcQh)",
        ),
        (
            "AsKs",
            "AsQs,KsQs",
            "",
            "every hand of range 2 (AsQs,KsQs) shares a card with range 1's only hand AsKs",
        ),
        (  # the board leaves range 2 one hand (KsTs is blocked), which range 1 collides with
            "AsQs,AsJs",
            "AsKs,KsTs",
            "Ts9s8c",
            "every hand of range 1 (AsQs,AsJs) shares a card with range 2's only hand AsKs",
        ),
        ("AKs:0", "QQ", "", "range 1 (AKs:0) is empty"),
        ("AsKs,AsQs", "KsQs,AsJs", "", "the ranges are empty or collide"),
    ],
)
def test_the_cause_is_named(first: str, second: str, board: str, why: str) -> None:
    with pytest.raises(PokerlabError) as raised:
        equity(first, second, board)
    assert str(raised.value) == PREFIX + why


def test_a_weight_vector_is_named_by_its_position() -> None:
    hand = np.zeros(1326)
    hand[0] = 1.0  # combo 0; the board below holds both its cards

    board = format_cards([*combo_cards(0), 51])
    with pytest.raises(PokerlabError) as raised:
        equity(hand, "QQ", board)
    blockers = format_cards(combo_cards(0))
    assert str(raised.value) == (
        f"{PREFIX}every hand of range 1 shares a card with the board {board} ({blockers})"
    )


@pytest.mark.parametrize(
    ("args", "why"),
    [
        (["equity", "AsKs", "AsQs"], "As is in both hands"),
        (
            ["equity", "AsKs", "QQ", "--board", "Td9d6hAs"],
            "every hand of range 1 (AsKs) shares a card with the board Td9d6hAs (As)",
        ),
    ],
)
def test_the_cli_prints_the_cause_and_exits_2(
    args: list[str], why: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"error: {PREFIX}{why}\n"
