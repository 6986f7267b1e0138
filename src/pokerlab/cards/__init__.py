"""Cards, ranges, hand evaluation, equity, the exact preflop table and hand orderings.

Modules: :mod:`~pokerlab.cards.deck` (cards, combos, classes), :mod:`~pokerlab.cards.ranges`,
:mod:`~pokerlab.cards.evaluator`, :mod:`~pokerlab.cards.equity`, :mod:`~pokerlab.cards.preflop`,
:mod:`~pokerlab.cards.orderings`. The names below are the stable public API; the modules
``pokerlab.cards.equity`` (``equity.equity(first, second, board)``) and ``pokerlab.cards.preflop``
(``preflop.equity_matrix()``, ``preflop.compatible_mask()``, ``preflop.class_equity_matrix()``)
are part of it.
"""

from __future__ import annotations

import numpy as np

from pokerlab.cards import equity, preflop
from pokerlab.cards.deck import (
    CLASS_COMBOS,
    COMBO_CARDS,
    COMBO_CLASS,
    COMBO_INDEX,
    class_name,
    format_cards,
    parse_card,
    parse_cards,
    parse_class,
)
from pokerlab.cards.equity import EquityResult
from pokerlab.cards.evaluator import category_name, eval_tables, evaluate, evaluate_batch
from pokerlab.cards.orderings import (
    combo_strength_order,
    combo_strength_rank,
    hand_strength_order,
    sklansky_chubukov,
    sklansky_chubukov_order,
)
from pokerlab.cards.ranges import format_range, parse_range, range_grid, remove_blocked

__all__ = [
    "CLASS_COMBOS",
    "COMBO_CARDS",
    "COMBO_CLASS",
    "COMBO_INDEX",
    "EquityResult",
    "category_name",
    "class_name",
    "combo_strength_order",
    "combo_strength_rank",
    "equity",
    "evaluate",
    "evaluate_batch",
    "format_cards",
    "format_range",
    "hand_strength_order",
    "parse_card",
    "parse_cards",
    "parse_class",
    "parse_range",
    "preflop",
    "range_grid",
    "remove_blocked",
    "sklansky_chubukov",
    "sklansky_chubukov_order",
    "warmup",
]


def warmup() -> float:
    """Build the evaluator tables and compile (or load from cache) every numba kernel; seconds."""
    import time

    from pokerlab._rng import seed_state
    from pokerlab.cards import _eval_kernels as K

    t0 = time.perf_counter()
    t = eval_tables()
    tabs = (t.card_key, t.card_bit, t.flush, t.disp, t.values)
    state = seed_state(1)
    hands = K.random_hands(4, 7, state)
    out = np.empty(4, np.int32)
    K.evaluate7_batch(hands, *tabs, out)
    K.evaluate_batch(hands[:, :6], *tabs, out)
    equity.equity("AsKs", "QdQc", "Td9d6h")  # count_showdowns
    equity.equity("AsKs", "QQ", "Td9d6h2c")  # range_vs_range_exact
    equity.equity("AsKs", "QQ", "Td9d6h", samples=10, seed=0)  # sample_showdowns
    return time.perf_counter() - t0
