"""Hand evaluator: exhaustive category counts and agreement with phevaluator / eval7."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab._rng import seed_state
from pokerlab.cards import _eval_kernels as K
from pokerlab.cards import warmup
from pokerlab.cards.deck import parse_cards
from pokerlab.cards.evaluator import (
    CATEGORY_NAMES,
    N_VALUES,
    categories,
    category_name,
    eval_tables,
    evaluate,
    evaluate_batch,
)

# Known counts of poker hands by category (e.g. Wikipedia, "Poker probability"):
# high card, pair, two pair, trips, straight, flush, full house, quads, straight flush.
KNOWN = {
    5: ([1302540, 1098240, 123552, 54912, 10200, 5108, 3744, 624, 40], 7462),
    6: ([6612900, 9730740, 2532816, 732160, 361620, 205792, 165984, 14664, 1844], 6075),
    7: ([23294460, 58627800, 31433400, 6461620, 6180020, 4047644, 3473184, 224848, 41584], 4824),
}


@pytest.fixture(scope="session", autouse=True)
def _compiled() -> None:
    warmup()


def _random_hands(n: int, k: int, seed: int) -> np.ndarray:
    return K.random_hands(n, k, seed_state(seed))


@pytest.mark.parametrize("k", [5, 6, 7])
def test_exhaustive_category_counts(k: int) -> None:
    """Every hand of k cards from 52 (133,784,560 for k = 7), counted by category."""
    t = eval_tables()
    hist = K.value_histogram(k, t.card_key, t.card_bit, t.flush, t.disp, t.values)
    counts = np.bincount(t.category[: len(hist)], weights=hist, minlength=9).astype(np.int64)
    expected, distinct = KNOWN[k]
    assert counts.tolist() == expected
    assert int((hist > 0).sum()) == distinct


def test_exhaustive_five_card_batch_api() -> None:
    """All 2,598,960 five-card hands through the batch API: 7,462 distinct values."""
    from itertools import combinations

    hands = np.array(list(combinations(range(52), 5)), dtype=np.uint8)
    values = evaluate_batch(hands)
    assert values.min() == 1 and values.max() == N_VALUES
    assert len(np.unique(values)) == N_VALUES
    assert np.bincount(categories(values), minlength=9).tolist() == KNOWN[5][0]


@pytest.mark.parametrize(
    ("cards", "name"),
    [
        ("AsKsQsJsTs", "straight flush"),
        ("5d4d3d2dAd", "straight flush"),
        ("AsAdAhAc2c", "four of a kind"),
        ("AsAdAhKcKd", "full house"),
        ("2s4s6s8sTs", "flush"),
        ("5c4d3h2sAd", "straight"),
        ("7c7d7h2s3d", "three of a kind"),
        ("7c7d2h2s3d", "two pair"),
        ("7c7d2h4s3d", "pair"),
        ("7c5d4h3s2d", "high card"),
        ("AsKsQsJsTs9s8s", "straight flush"),
        ("AsAdAhKcKdKh2s", "full house"),
        ("2s3s4s5s7sAdAc", "flush"),
        ("7c7d7h2s2d2h", "full house"),
    ],
)
def test_categories(cards: str, name: str) -> None:
    assert category_name(evaluate(cards)) == name


def test_extremes_and_ordering() -> None:
    assert evaluate("AsKsQsJsTs") == N_VALUES
    assert evaluate("7c5d4h3s2d") == 1
    assert evaluate("6c5d4h3s2d") > evaluate("5c4d3h2sAd")  # wheel is the lowest straight
    assert evaluate("AsAdKcKd2h") > evaluate("AsAdQcQd2h")
    assert evaluate("AsAdKcKdQh") > evaluate("AsAdKcKdJh")  # kicker
    assert evaluate("AsAdKcKdQh2c3c") == evaluate("AsAdKcKdQh")  # best five of seven
    assert evaluate(parse_cards("Td9d6h5c2s")) == evaluate("Td9d6h5c2s")
    assert len(CATEGORY_NAMES) == 9


def test_batch_shapes_and_errors() -> None:
    hands = _random_hands(1000, 7, 3)
    v7 = evaluate_batch(hands)
    assert v7.dtype == np.int32 and v7.shape == (1000,)
    # 6- and 5-card batches agree with the best five of the same cards
    v6 = evaluate_batch(hands[:, :6])
    assert np.all(v6 <= v7)
    with pytest.raises(ValueError):
        evaluate_batch(np.zeros((3, 4), np.uint8))
    with pytest.raises(ValueError):
        evaluate_batch(np.full((3, 7), 60, np.uint8))
    with pytest.raises(ValueError):
        evaluate("AsAsKdQhJc")


@pytest.mark.parametrize("k", [5, 6, 7])
def test_matches_phevaluator_exactly(k: int) -> None:
    """phevaluator ranks 1 (royal) .. 7462; ours is the same order reversed, value for value."""
    phevaluator = pytest.importorskip("phevaluator")
    n = 1_000_000 if k == 7 else 200_000
    hands = _random_hands(n, k, 11 + k)
    ours = evaluate_batch(hands)
    theirs = np.fromiter(
        (phevaluator.evaluate_cards(*map(int, h)) for h in hands), dtype=np.int32, count=n
    )
    assert np.array_equal(ours, N_VALUES + 1 - theirs)


def test_ordering_matches_eval7() -> None:
    """eval7's values order hands like ours on random 7-card hands (same ties, same order)."""
    eval7 = pytest.importorskip("eval7")
    cards = [eval7.Card(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    n = 100_000
    hands = _random_hands(n, 7, 99)
    ours = evaluate_batch(hands)
    theirs = np.array([eval7.evaluate([cards[c] for c in h]) for h in hands], dtype=np.int64)
    # same order: sorting by ours leaves theirs sorted, and equal values coincide
    order = np.lexsort((theirs, ours))
    assert np.all(np.diff(theirs[order]) >= 0)
    a, b = ours[order], theirs[order]
    assert np.array_equal(np.diff(a) == 0, np.diff(b) == 0)
