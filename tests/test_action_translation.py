"""Pseudo-harmonic action translation (Ganzfried and Sandholm, IJCAI 2013): the published table,
the paper's axioms, the randomised draw and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pokerlab.abstraction.actions import (
    pseudo_harmonic,
    pseudo_harmonic_median,
    translate,
    translate_bet,
    translation_probs,
)
from pokerlab.errors import PokerlabError


@pytest.mark.parametrize(
    ("a", "expected"), [(0.001, 0.601), (0.01, 0.612), (0.05, 0.663), (0.1, 0.733)]
)
def test_table_1_of_the_paper(a: float, expected: float) -> None:
    """Rand-psHar with B = 1 and x = 0.25 (the paper's table 1, three decimals)."""
    assert round(pseudo_harmonic(a, 1.0, 0.25), 3) == expected


def test_further_values_worked_by_hand() -> None:
    assert pseudo_harmonic(0.2, 0.5, 1 / 3) == pytest.approx(0.5, abs=1e-15)
    # pot 200, a bet of 375 between the menu's 300 and 400: A = 1.5, x = 1.875, B = 2
    assert pseudo_harmonic(1.5, 2.0, 1.875) == pytest.approx(0.3125 / 1.4375, abs=1e-15)
    assert translation_probs([1.5, 2.0], 1.875)[0][1] == pytest.approx(0.2174, abs=1e-4)


@pytest.mark.parametrize(("a", "b"), [(0.0, 0.5), (0.25, 1.0), (0.5, 2.0), (1.0, 10.0)])
def test_the_axioms(a: float, b: float) -> None:
    assert pseudo_harmonic(a, b, a) == 1.0  # boundary
    assert pseudo_harmonic(a, b, b) == 0.0
    xs = np.linspace(a, b, 201)
    f = np.array([pseudo_harmonic(a, b, x) for x in xs])
    assert np.all(np.diff(f) < 0.0)  # strictly decreasing
    # robustness: f is Lipschitz in x; its steepest slope, at x = a, is (1 + b) / ((b - a)(1 + a))
    slope = np.max(-np.diff(f) / np.diff(xs))
    assert slope <= (1 + b) / ((b - a) * (1 + a)) * (1 + 1e-9)
    median = pseudo_harmonic_median(a, b)
    assert pseudo_harmonic(a, b, median) == pytest.approx(0.5, abs=1e-12)


def test_scale_invariance_in_chips() -> None:
    """Scaling the pot and every bet by k leaves the reading unchanged (sizes are pot ratios)."""
    for k in (0.5, 3.0, 100.0):
        for seed in range(5):
            base = translate_bet(130.0, 200.0, [100.0, 200.0, 400.0], np.random.default_rng(seed))
            scaled = translate_bet(
                130.0 * k, 200.0 * k, [100.0 * k, 200.0 * k, 400.0 * k], np.random.default_rng(seed)
            )
            assert base == scaled


def test_menu_sizes_and_bets_outside_the_menu_map_surely() -> None:
    menu = [0.33, 0.75, 1.5]
    assert translation_probs(menu, 0.75) == [(1, 1.0)]
    assert translation_probs(menu, 0.1) == [(0, 1.0)]
    assert translation_probs(menu, 5.0) == [(2, 1.0)]
    (lo, p), (hi, q) = translation_probs(menu, 1.0)
    assert (lo, hi) == (1, 2) and p + q == 1.0
    assert p == pytest.approx((1.5 - 1.0) * 1.75 / (0.75 * 2.0))


def test_the_draw_follows_the_probability_and_repeats_with_the_seed() -> None:
    menu = [0.5, 1.0]
    rng = np.random.default_rng(7)
    draws = np.array([translate(menu, 0.7, rng) for _ in range(40_000)])
    p = pseudo_harmonic(0.5, 1.0, 0.7)
    share = float(np.mean(draws == 0))
    assert abs(share - p) < 4 * math.sqrt(p * (1 - p) / draws.size)
    again = np.array([translate(menu, 0.7, np.random.default_rng(7)) for _ in range(1)])
    assert again[0] == draws[0]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: pseudo_harmonic(1.0, 0.5, 0.7), "a < b"),
        (lambda: pseudo_harmonic(0.5, 1.0, 1.2), "not between"),
        (lambda: pseudo_harmonic(-0.1, 1.0, 0.5), "got -0.1"),
        (lambda: translation_probs([], 0.5), "at least one size"),
        (lambda: translation_probs([0.5, 0.5], 0.5), "increase strictly"),
        (lambda: translation_probs([0.5, 1.0], float("nan")), "the bet"),
        (lambda: translate_bet(50.0, 0.0, [100.0], np.random.default_rng(0)), "the pot"),
    ],
)
def test_bad_input_is_named(call, message: str) -> None:
    with pytest.raises(PokerlabError, match=message):
        call()
