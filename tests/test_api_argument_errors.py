"""Plausible wrong arguments to the library are refused by name (a review found them failing
with AttributeError or TypeError deep inside, or silently accepted): a game name where a game
goes, a solver where a strategy goes, a non-string name, non-boolean flags, a regret floor above
0, and DCFR exponents that are not finite numbers (NaN is the schedule array's own "no
discount" mark, so alpha=nan quietly switched the discount off)."""

from __future__ import annotations

from pathlib import Path

import pytest

import pokerlab
from pokerlab.errors import PokerlabError


@pytest.fixture(scope="module")
def leduc():
    return pokerlab.load_game("leduc")


def test_names_and_objects_in_the_wrong_place(leduc, tmp_path: Path) -> None:
    solver = pokerlab.make_solver(leduc, "cfr")
    cases = [
        (lambda: pokerlab.make_solver("leduc", "cfr"), "make_solver(load_game('leduc'), ...)"),
        (lambda: pokerlab.make_solver(leduc, None), "algorithm must be a name"),
        (lambda: pokerlab.load_game(None), "load_game takes a game name"),
        (lambda: pokerlab.exploitability(leduc, solver), "pass solver.average_strategy()"),
        (lambda: pokerlab.save_strategy(tmp_path / "s.npz", solver), "got CFRSolver"),
    ]
    for call, message in cases:
        with pytest.raises(PokerlabError, match=message.replace("(", r"\(").replace(")", r"\)")):
            call()
    assert not (tmp_path / "s.npz").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"alpha": float("nan")}, "alpha must be finite, got nan"),
        ({"beta": float("inf")}, "beta must be finite, got inf"),
        ({"alpha": -1.0}, "alpha must be >= 0, got -1.0"),
        ({"gamma": -5.0}, "gamma must be >= 0, got -5.0"),
        ({"alpha": "1"}, "alpha must be a number, got '1'"),
        ({"linear_until": 2.5}, "linear_until must be a whole number, got 2.5"),
        ({"alternating": "no"}, "alternating must be True or False, got 'no'"),
    ],
)
def test_bad_dcfr_options(leduc, options: dict, message: str) -> None:
    with pytest.raises(PokerlabError, match=message):
        pokerlab.make_solver(leduc, "dcfr", **options)


def test_regret_floor_and_negative_beta(leduc) -> None:
    with pytest.raises(PokerlabError, match="min_regret is a floor for regrets"):
        pokerlab.make_solver(leduc, "es-mccfr", min_regret=5)
    pokerlab.make_solver(leduc, "es-mccfr", min_regret=-310_000_000)
    solver = pokerlab.make_solver(leduc, "dcfr", beta=-1.0)  # HS-DCFR's betas are negative
    solver.step(5)
    assert solver.iterations == 5
