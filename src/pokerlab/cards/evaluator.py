"""5-, 6- and 7-card hand evaluation: one hand, or millions at once.

A hand's value is an integer in 1..7462 (the number of distinct 5-card poker hands); higher is
better and equal values tie. The method is described in :mod:`pokerlab.cards._eval_kernels`; the
tables (about 0.4 MB) are built from the rules of poker at first use, in well under a second once
the kernels are compiled.

>>> from pokerlab.cards.evaluator import evaluate, category_name
>>> category_name(evaluate("AsKsQsJsTs2c3d"))
'straight flush'
>>> evaluate("AsAdKcKd2h") > evaluate("AsAdQcQd2h")
True
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from pokerlab.cards import _eval_kernels as K
from pokerlab.cards import _eval_table_kernels as T
from pokerlab.cards.deck import parse_cards

__all__ = [
    "CATEGORY_NAMES",
    "N_VALUES",
    "EvalTables",
    "eval_tables",
    "evaluate",
    "evaluate_batch",
    "category",
    "category_name",
    "categories",
]

CATEGORY_NAMES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)
"""Category names, index = category (0 = high card .. 8 = straight flush, royal included)."""
N_VALUES = 7462
"""Number of distinct hand values (distinct 5-card hands up to suits)."""


class EvalTables(NamedTuple):
    """Lookup tables of the evaluator (all read-only numpy arrays)."""

    card_key: np.ndarray  # uint64[52]: 5**rank + 1 << (48 + 4 * suit)
    card_bit: np.ndarray  # uint64[52]: 1 << (16 * suit + rank)
    flush: np.ndarray  # uint16[8192]: value of the best hand in one suit's rank mask
    disp: np.ndarray  # uint32[2**15]: perfect-hash displacement per bucket
    values: np.ndarray  # uint16[2**17]: value of each non-flush rank multiset, by slot
    category: np.ndarray  # uint8[7463]: category of each value (index 0 unused)


@lru_cache(maxsize=1)
def eval_tables() -> EvalTables:
    """Build (once per process) and return the evaluator's tables."""
    ranks = np.arange(52, dtype=np.uint64) >> np.uint64(2)
    suits = np.arange(52, dtype=np.uint64) & np.uint64(3)
    card_key = np.uint64(5) ** ranks + (np.uint64(1) << (np.uint64(48) + np.uint64(4) * suits))
    card_bit = np.uint64(1) << (np.uint64(16) * suits + ranks)

    # Scores (category and kickers packed in an int) of every distinct 5-card hand, densely ranked.
    _, counts5 = T._rank_multisets(5, 5)
    flush_scores = T.score_all_flush_masks()
    five_bit = np.array([bin(m).count("1") == 5 for m in range(8192)])
    distinct = np.unique(np.concatenate([T.score_all_counts(counts5), flush_scores[five_bit]]))
    if len(distinct) != N_VALUES:
        raise AssertionError(f"expected {N_VALUES} distinct 5-card hands, got {len(distinct)}")

    def dense(scores: np.ndarray) -> np.ndarray:
        return (np.searchsorted(distinct, scores) + 1).astype(np.uint16)

    flush = np.zeros(8192, np.uint16)
    has = flush_scores >= 0
    flush[has] = dense(flush_scores[has])

    keys, counts = T._rank_multisets(5, 7)
    disp, slot_of, ok = T._build_perfect_hash(keys)
    if not ok:
        raise AssertionError("perfect hash construction failed")
    values = np.zeros(1 << K.HASH_TABLE_BITS, np.uint16)
    values[slot_of] = dense(T.score_all_counts(counts))

    category = np.zeros(N_VALUES + 1, np.uint8)
    category[1:] = (distinct >> 20).astype(np.uint8)
    tables = EvalTables(card_key, card_bit, flush, disp, values, category)
    for a in tables:
        a.setflags(write=False)
    return tables


def _as_hands(hands: np.ndarray) -> np.ndarray:
    arr = np.ascontiguousarray(hands, dtype=np.uint8)
    if arr.ndim != 2 or not 5 <= arr.shape[1] <= 7:
        raise ValueError(f"hands must be an (n, 5..7) array of card ids, got shape {arr.shape}")
    if arr.size and arr.max() > 51:
        raise ValueError("card ids must be in 0..51")
    return arr


def evaluate_batch(hands: np.ndarray) -> np.ndarray:
    """Values of many hands at once.

    Parameters
    ----------
    hands:
        (n, k) array of card ids (0..51), k = 5, 6 or 7; each row must hold distinct cards.
        Card ids outside 0..51 raise ValueError, but duplicates within a row are **not
        checked** (a check costs several times the evaluation itself, measured at 3-4 ms per
        million rows against 17-26 ms for the cheapest vectorised check): a row with a repeated
        card gets a meaningless value, which may lie outside 1..7462 (``[[0, 0, 0, 0, 0]]``
        gives 0). Use :func:`evaluate`, which refuses duplicates, for single hands.

    Returns
    -------
    (n,) int32 array of values, higher is better: in 1..7462 for rows of distinct cards.
    """
    arr = _as_hands(hands)
    t = eval_tables()
    out = np.empty(arr.shape[0], np.int32)
    kernel = K.evaluate7_batch if arr.shape[1] == 7 else K.evaluate_batch
    kernel(arr, t.card_key, t.card_bit, t.flush, t.disp, t.values, out)
    return out


def evaluate(cards: Sequence[int] | str) -> int:
    """Value (1..7462, higher is better) of one hand of 5, 6 or 7 distinct cards.

    Parameters
    ----------
    cards:
        Card ids, or a string such as ``"AsKsQsJsTs"``.
    """
    ids = parse_cards(cards) if isinstance(cards, str) else [int(c) for c in cards]
    if len(set(ids)) != len(ids):
        raise ValueError("a hand cannot hold the same card twice")
    return int(evaluate_batch(np.array([ids], dtype=np.uint8))[0])


def category(value: int) -> int:
    """Category index (0 = high card .. 8 = straight flush) of a hand value."""
    return int(eval_tables().category[value])


def category_name(value: int) -> str:
    """Category name of a hand value, e.g. ``"full house"``."""
    return CATEGORY_NAMES[category(value)]


def categories(values: np.ndarray) -> np.ndarray:
    """Category index (uint8) of each value in an array of hand values."""
    return eval_tables().category[np.asarray(values)]
