"""The showdown tables of a vector tree's hand lists
(:class:`~pokerlab.tree.vector.tree.SweepArrays`), built in one compiled call.

Every spot a search builds at the table needs them (a turn spot holds 48 river boards); the
numpy version took about 5 ms a turn spot in Python loops over boards and players. Each board's
rows come from two merges of sorted lists: the opponent's hands by strength against the
traverser's (``SD_LO`` / ``SD_HI``), and the last opponent position before each bound that holds
a card (the snapshot slots), kept per card while the bound moves up.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree._showdown import (
    SD_HAND,
    SD_HI,
    SD_LO,
    SD_PREV0,
    SD_PREV1,
    SD_SALL0,
    SD_SALL1,
    SD_SAME,
    SD_SHI0,
    SD_SHI1,
    SD_SLO0,
    SD_SLO1,
)


@njit(cache=True)
def fill_sweep_rows(
    cards: np.ndarray,
    order: np.ndarray,
    num_valid: np.ndarray,
    strength: np.ndarray,
    same1: np.ndarray,
    sd: np.ndarray,
    last: np.ndarray,
) -> None:
    """Write ``sd[p, b, :num_valid[p, b]]`` (uint16, fields of ``_showdown``) and ``last[p,
    b]`` (each card's last snapshot slot in p's sorted list) for both players and every final
    board; rows past ``num_valid`` are left as they are (the caller's zeros, with the snapshot
    fields at the empty slot ``2 H``). ``same1[p, h]``: the identical combo's index in the other
    list, ``H`` when absent."""
    nb = order.shape[1]
    h = cards.shape[1]
    empty = 2 * h
    last_lo = np.empty(52, dtype=np.int64)
    last_hi = np.empty(52, dtype=np.int64)
    for b in range(nb):
        for p in range(2):
            # the hand's own fields, and the sweep's chain of slots per card in p's list
            last[p, b, :] = empty
            for k in range(num_valid[p, b]):
                hand = order[p, b, k]
                c0 = cards[p, hand, 0]
                c1 = cards[p, hand, 1]
                sd[p, b, k, SD_HAND] = hand
                sd[p, b, k, SD_SAME] = same1[p, hand]
                sd[p, b, k, SD_PREV0] = last[p, b, c0]
                sd[p, b, k, SD_PREV1] = last[p, b, c1]
                last[p, b, c0] = 2 * k
                last[p, b, c1] = 2 * k + 1
        for p in range(2):
            q = 1 - p
            nv = num_valid[p, b]
            nq = num_valid[q, b]
            # both lists rise in strength: the bounds only move up
            last_lo[:] = empty
            last_hi[:] = empty
            lo = 0
            hi = 0
            for k in range(nv):
                hand = order[p, b, k]
                mine = strength[p, b, hand]
                while lo < nq and strength[q, b, order[q, b, lo]] < mine:
                    o = order[q, b, lo]
                    last_lo[cards[q, o, 0]] = 2 * lo
                    last_lo[cards[q, o, 1]] = 2 * lo + 1
                    lo += 1
                while hi < nq and strength[q, b, order[q, b, hi]] <= mine:
                    o = order[q, b, hi]
                    last_hi[cards[q, o, 0]] = 2 * hi
                    last_hi[cards[q, o, 1]] = 2 * hi + 1
                    hi += 1
                c0 = cards[p, hand, 0]
                c1 = cards[p, hand, 1]
                sd[p, b, k, SD_LO] = lo
                sd[p, b, k, SD_HI] = hi
                sd[p, b, k, SD_SLO0] = last_lo[c0]
                sd[p, b, k, SD_SLO1] = last_lo[c1]
                sd[p, b, k, SD_SHI0] = last_hi[c0]
                sd[p, b, k, SD_SHI1] = last_hi[c1]
                sd[p, b, k, SD_SALL0] = last[q, b, c0]
                sd[p, b, k, SD_SALL1] = last[q, b, c1]
