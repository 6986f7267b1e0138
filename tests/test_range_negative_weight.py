"""A range's weight outside [0, 1] is told its interval, a negative one too (it was once "not a
number"); "-0" is a weight of 0."""

from __future__ import annotations

import pytest

from pokerlab.cards.ranges import parse_range
from pokerlab.cli.main import main
from pokerlab.errors import ParseError


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("AKs:-0.5", "weight must be between 0 and 1: '-0.5' at position 4"),
        ("QQ, AKs : -1e-3", "weight must be between 0 and 1: '-1e-3' at position 10"),
        ("AKs:1.5", "weight must be between 0 and 1: '1.5' at position 4"),
        ("AKs:-abc", "weight is not a number: '-abc' at position 4"),
        ("AKs:--1", "weight is not a number: '--1' at position 4"),
        ("AKs:-", "weight is not a number: '-' at position 4"),
    ],
)
def test_a_weight_outside_its_interval_is_told_so(text: str, message: str) -> None:
    with pytest.raises(ParseError) as raised:
        parse_range(text)
    assert str(raised.value) == message


def test_minus_zero_is_a_weight_of_zero() -> None:
    weights = parse_range("AKs:-0, QQ")
    assert weights.sum() == 6 and not (weights < 0).any()
    assert str(weights.min()) == "0.0"  # not -0.0


def test_the_cli_names_a_negative_weight(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range", "AKs:-0.5"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "error: weight must be between 0 and 1: '-0.5' at position 4\n"
