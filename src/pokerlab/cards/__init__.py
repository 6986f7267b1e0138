"""Cards, ranges, hand evaluation, equity and preflop tables."""

from __future__ import annotations

import numpy as np

from pokerlab.cards.evaluator import eval_tables

__all__ = ["warmup"]


def warmup() -> None:
    """Build the evaluator tables and compile every numba kernel of this package (once)."""
    from pokerlab.cards import _eval_kernels as K

    t = eval_tables()
    tabs = (t.card_key, t.card_bit, t.flush, t.disp, t.values)
    hands = K.random_hands(4, 7, np.array([1], np.uint64))
    out = np.empty(4, np.int32)
    K.evaluate7_batch(hands, *tabs, out)
    K.evaluate_batch(hands[:, :6], *tabs, out)
