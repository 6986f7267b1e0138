"""Action translation: an opponent's bet that is not in the abstraction's menu, mapped to the
menu's sizes by the randomised pseudo-harmonic mapping (Ganzfried and Sandholm, "Action
Translation in Extensive-Form Games with Large Action Spaces: Axioms, Paradoxes, and the
Pseudo-Harmonic Mapping", IJCAI 2013).

Sizes are fractions of the pot (a bet of 150 into 200 is 0.75). A bet ``x`` between the two
adjacent menu sizes ``A < x < B`` is read as ``A`` with probability

    f(x) = (B - x)(1 + A) / ((B - A)(1 + x))

and as ``B`` otherwise (the paper's equation for Rand-psHar). ``f(A) = 1``, ``f(B) = 0``, ``f``
falls strictly between them, and it depends on chips only through the ratios to the pot, so
scaling the pot and every bet alike leaves it unchanged (the paper's boundary, monotonicity and
scale-invariance axioms; its robustness axioms hold as ``f`` is smooth in ``x``, ``A`` and
``B``). Half of the mass goes each way at ``x* = (A + B + 2AB) / (A + B + 2)``. A bet below the
smallest size reads as the smallest, above the largest as the largest.

Used when a person or another program bets off the blueprint's tree and search is off (issues 24
and 25); the randomisation makes the mapping hard to exploit by betting just past a threshold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pokerlab.errors import PokerlabError

__all__ = [
    "pseudo_harmonic",
    "pseudo_harmonic_median",
    "translation_probs",
    "translate",
    "translate_bet",
]


def _fraction(value: float, what: str) -> float:
    x = float(value)
    if not math.isfinite(x) or x < 0.0:
        raise PokerlabError(
            f"{what} must be a finite size >= 0 (a fraction of the pot), got {value!r}"
        )
    return x


def pseudo_harmonic(a: float, b: float, x: float) -> float:
    """The probability that a bet of ``x`` (a fraction of the pot) reads as the smaller size
    ``a`` rather than the larger ``b``, for ``a <= x <= b`` and ``a < b`` (Ganzfried and
    Sandholm 2013: ``(b - x)(1 + a) / ((b - a)(1 + x))``)."""
    a, b, x = _fraction(a, "a"), _fraction(b, "b"), _fraction(x, "the bet")
    if not a < b:
        raise PokerlabError(f"pseudo-harmonic translation needs a < b, got a={a:g}, b={b:g}")
    if not a <= x <= b:
        raise PokerlabError(f"the bet {x:g} is not between a={a:g} and b={b:g}")
    return (b - x) * (1.0 + a) / ((b - a) * (1.0 + x))


def pseudo_harmonic_median(a: float, b: float) -> float:
    """The bet (a fraction of the pot) that reads as ``a`` and ``b`` equally often:
    ``(a + b + 2ab) / (a + b + 2)``."""
    a, b = _fraction(a, "a"), _fraction(b, "b")
    return (a + b + 2.0 * a * b) / (a + b + 2.0)


def _menu(sizes: Sequence[float]) -> np.ndarray:
    menu = np.array([_fraction(s, "a menu size") for s in sizes], dtype=np.float64)
    if menu.size == 0:
        raise PokerlabError("action translation needs at least one size in the menu")
    if np.any(np.diff(menu) <= 0.0):
        raise PokerlabError(
            "the menu's sizes must increase strictly, got " + ", ".join(f"{s:g}" for s in menu)
        )
    return menu


def translation_probs(sizes: Sequence[float], x: float) -> list[tuple[int, float]]:
    """How a bet of ``x`` (a fraction of the pot) reads on a menu of ``sizes`` (strictly
    increasing fractions of the pot): ``[(index, probability), ...]``, one entry when ``x`` is a
    menu size or outside the menu, else the two neighbours with the pseudo-harmonic split."""
    menu = _menu(sizes)
    x = _fraction(x, "the bet")
    above = int(np.searchsorted(menu, x, side="left"))
    if above < menu.size and menu[above] == x:
        return [(above, 1.0)]
    if above == 0:
        return [(0, 1.0)]
    if above == menu.size:
        return [(menu.size - 1, 1.0)]
    below = above - 1
    p = pseudo_harmonic(float(menu[below]), float(menu[above]), x)
    return [(below, p), (above, 1.0 - p)]


def translate(sizes: Sequence[float], x: float, rng: np.random.Generator) -> int:
    """The menu index a bet of ``x`` (a fraction of the pot) reads as, drawn with
    :func:`translation_probs` from ``rng`` (one uniform draw, so a seeded generator repeats)."""
    options = translation_probs(sizes, x)
    if len(options) == 1:
        return options[0][0]
    (below, p), (above, _) = options
    return below if rng.random() < p else above


def translate_bet(
    bet: float, pot: float, menu_bets: Sequence[float], rng: np.random.Generator
) -> int:
    """:func:`translate` in chips: the index into ``menu_bets`` (the abstraction's bets at this
    node, in chips, increasing) that a bet of ``bet`` chips into a pot of ``pot`` chips reads
    as."""
    pot = float(pot)
    if not math.isfinite(pot) or pot <= 0.0:
        raise PokerlabError(f"the pot must be a positive number of chips, got {pot!r}")
    return translate([float(b) / pot for b in menu_bets], float(bet) / pot, rng)
