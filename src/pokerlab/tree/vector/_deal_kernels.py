"""Deals of Monte Carlo CFR on a vector tree (:mod:`pokerlab.tree.vector._mccfr_kernels`).

A traversal fixes a **deal**: one hand per player, drawn from the weighted ranges with card
removal (each hand from its range, a pair sharing a card rejected: the accepted pairs follow the
joint distribution ``w0(h0) w1(h1) / norm`` over compatible pairs exactly), and the cards of
the streets still to come, drawn uniformly from the cards left (``deal = [h0, h1, card of chance
level 0, card of chance level 1]``, -1 where a level does not exist). On that deal the public
tree is walked with scalars instead of vectors: the actor's hand selects one column of a block.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab._rng import below, uniform


@njit(cache=True, inline="always")
def _draw(rng: np.ndarray, cdf: np.ndarray, n: int) -> int:
    """Index i in [0, n) with probability (cdf[i] - cdf[i-1]) / cdf[n-1] (binary search)."""
    u = uniform(rng) * cdf[n - 1]
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def sample_deal(
    rng: np.ndarray,
    cdf: np.ndarray,
    num: np.ndarray,
    hand_cards: np.ndarray,
    board_mask: np.ndarray,
    levels: int,
    deal: np.ndarray,
) -> None:
    """Fill ``deal`` = [h0, h1, card, card] (-1 for missing levels) for one traversal.

    Each hand is drawn from its player's weights (``cdf[p, :num[p]]``, cumulative); a pair
    sharing a card is rejected and both are drawn again, so an accepted pair (h0, h1) has
    probability ``w0(h0) w1(h1) / sum over compatible pairs``. Then ``levels`` cards are drawn
    uniformly, without replacement, from the cards neither masked (``board_mask``: the board,
    and the cards a small deck leaves out) nor in a hand: the chance probabilities
    ``1 / cards left`` of the tree.
    """
    while True:
        h0 = _draw(rng, cdf[0], num[0])
        h1 = _draw(rng, cdf[1], num[1])
        a0 = hand_cards[0, h0, 0]
        b0 = hand_cards[0, h0, 1]
        a1 = hand_cards[1, h1, 0]
        b1 = hand_cards[1, h1, 1]
        if a0 != a1 and a0 != b1 and b0 != a1 and b0 != b1:
            break
    deal[0] = h0
    deal[1] = h1
    deal[2] = -1
    deal[3] = -1
    for k in range(levels):
        while True:
            c = below(rng, 52)
            if board_mask[c] or c == a0 or c == b0 or c == a1 or c == b1:
                continue
            if k == 1 and c == deal[2]:
                continue
            break
        deal[2 + k] = c


@njit(cache=True)
def sample_deals(
    rng: np.ndarray,
    cdf: np.ndarray,
    num: np.ndarray,
    hand_cards: np.ndarray,
    board_mask: np.ndarray,
    levels: int,
    count: int,
) -> np.ndarray:
    """``count`` deals from :func:`sample_deal` as a (count, 4) array (for tests)."""
    out = np.empty((count, 4), dtype=np.int64)
    deal = np.empty(4, dtype=np.int64)
    for i in range(count):
        sample_deal(rng, cdf, num, hand_cards, board_mask, levels, deal)
        for j in range(4):
            out[i, j] = deal[j]
    return out
