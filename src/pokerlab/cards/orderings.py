"""Orderings of the 169 starting-hand classes, computed from the exact preflop table.

- **Hand strength**: equity against a uniformly random opponent hand, with card removal (the
  opponent holds any of the 1225 combos that share no card with ours, each equally likely). This
  is the ordering the genetic push/fold players use ("shove the best r fraction").
- **Sklansky-Chubukov (SC)**: for each hand, the largest stack S (big blinds, effective, counted
  before the blinds are posted; blinds 0.5/1, no ante) at which the small blind's shove, shown face
  up, does at least as well as folding, against a big blind who sees the hand and calls exactly
  when calling is strictly better than folding. Hands that beat every opponent hand (aces) have
  SC = infinity. The numbers are due to Sklansky and Chubukov (Sklansky and Miller, *No Limit
  Hold'em: Theory and Practice*, 2006). Tables differ in conventions (stack counted before or
  after posting, in small or big blinds): compare with care. Ours are total big blinds before
  posting, the same stack convention as the push/fold game.

Derivation used by :func:`sklansky_chubukov`: with our combo fixed and opponent combo j dealt with
probability 1/1225, let e_j be our equity and g_j = 2 e_j - 1. At stack S a call gives us
S * g_j and a fold +1 (we win the big blind); folding our hand gives -0.5. The big blind calls iff
S * g_j < 1 (its call, S * (1 - 2 e_j), beats losing its blind). The shove's gain over folding,
D(S) = mean_j [call_j(S) * S * g_j + (1 - call_j(S))] + 0.5, is piecewise linear in S with breaks
at S = 1 / g_j; SC is the largest S with D(S) >= 0.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pokerlab.cards.deck import CLASS_COMBOS, COMBO_CLASS, N_CLASSES
from pokerlab.cards.preflop import compatible_mask, equity_matrix

__all__ = [
    "combo_equity_vs_random",
    "class_equity_vs_random",
    "hand_strength_order",
    "combo_strength_order",
    "combo_strength_rank",
    "sklansky_chubukov",
    "sklansky_chubukov_order",
]


@lru_cache(maxsize=1)
def combo_equity_vs_random() -> np.ndarray:
    """(1326,) preflop all-in equity of each combo against a random hand (card removal exact)."""
    eq = np.where(compatible_mask(), equity_matrix(), 0.0)
    out = eq.sum(axis=1) / compatible_mask().sum(axis=1)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1)
def class_equity_vs_random() -> np.ndarray:
    """(169,) equity of each class against a random hand (the same for each of its combos)."""
    out = np.bincount(COMBO_CLASS, weights=combo_equity_vs_random(), minlength=N_CLASSES)
    out = out / np.bincount(COMBO_CLASS, minlength=N_CLASSES)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1)
def hand_strength_order() -> np.ndarray:
    """(169,) class ids sorted by equity against a random hand, best first (AA first)."""
    # stable sort on the negated equity: exact ties keep class-id order
    out = np.argsort(-class_equity_vs_random(), kind="stable").astype(np.int64)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1)
def combo_strength_order() -> np.ndarray:
    """(1326,) combo ids, best first: classes in hand-strength order, combos by id within one."""
    out = np.concatenate([CLASS_COMBOS[c] for c in hand_strength_order()]).astype(np.int64)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1)
def combo_strength_rank() -> np.ndarray:
    """(1326,) position of each combo's class in the hand-strength order (0 = best class)."""
    pos = np.empty(N_CLASSES, np.int64)
    pos[hand_strength_order()] = np.arange(N_CLASSES)
    out = pos[COMBO_CLASS]
    out.setflags(write=False)
    return out


def _sc_for_combo(equities: np.ndarray) -> float:
    """Largest S with D(S) >= 0 for one combo, given its equities against each live opponent."""
    n = len(equities)
    g = 2.0 * equities - 1.0
    always = g <= 0.0
    g_always = float(g[always].sum())
    g_sorted = np.sort(g[~always])[::-1]  # largest g = smallest threshold 1/g first
    t = 1.0 / g_sorted  # ascending thresholds: opponent k calls iff S < t[k]
    m = len(t)
    # In interval k (S in [t[k-1], t[k])), opponents 0..k-1 fold and k..m-1 call.
    tail = np.concatenate([np.cumsum(g_sorted[::-1])[::-1], [0.0]])  # tail[k] = sum g_sorted[k:]
    best = -np.inf
    for k in range(m + 1):
        lo = 0.0 if k == 0 else t[k - 1]
        hi = np.inf if k == m else t[k]
        a = (g_always + tail[k]) / n
        b = k / n + 0.5
        if a >= 0.0:  # D rises (or is flat) on the interval: its supremum counts
            if (a > 0.0 or b >= 0.0) if hi == np.inf else a * hi + b >= 0.0:
                best = max(best, hi)
        else:
            root = -b / a
            if root >= lo:
                best = max(best, min(root, hi))
    return float(best) if best > -np.inf else 0.0


@lru_cache(maxsize=1)
def sklansky_chubukov() -> np.ndarray:
    """(169,) Sklansky-Chubukov number of each class in big blinds (``inf`` for aces).

    See the module docstring for the definition and derivation. Every combo of a class has the
    same value by suit symmetry; the first combo of each class is used.
    """
    eq = equity_matrix()
    ok = compatible_mask()
    out = np.empty(N_CLASSES)
    for c in range(N_CLASSES):
        i = int(CLASS_COMBOS[c][0])
        out[c] = _sc_for_combo(eq[i, ok[i]])
    out.setflags(write=False)
    return out


@lru_cache(maxsize=1)
def sklansky_chubukov_order() -> np.ndarray:
    """(169,) class ids sorted by Sklansky-Chubukov number, largest first (AA first)."""
    out = np.argsort(-sklansky_chubukov(), kind="stable").astype(np.int64)
    out.setflags(write=False)
    return out
