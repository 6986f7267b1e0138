"""Numba kernels of hand equities for local best response (:mod:`pokerlab.evaluate.limit_lbr`):
the preflop equity table and a hand's equity against a weighted range, exact or sampled.

Hand values use the evaluator's additive keys (:mod:`pokerlab.cards._eval_kernels`): a board's
key and rank/suit mask are summed once per board completion, then each opponent hand costs two
additions and one table read. Card sets are 64-bit masks (bit ``c`` for card id ``c``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab._rng import below
from pokerlab.cards._eval_kernels import (
    BUCKET_SHIFT,
    FLUSH_BITS,
    HASH_MULT,
    RANK_MASK,
    SLOT_MASK,
    SLOT_SHIFT,
    SUIT_INIT,
    U13,
    U16,
    U51,
)

__all__ = ["EvalArrays", "RangeHands", "hand_equities", "preflop_equity_table"]


class EvalArrays(NamedTuple):
    """The hand evaluator's tables (:func:`pokerlab.cards.evaluator.eval_tables`) as the kernels
    read them: per-card keys and bits, the flush table and the perfect hash."""

    card_key: np.ndarray
    card_bit: np.ndarray
    flush: np.ndarray
    disp: np.ndarray
    values: np.ndarray


class RangeHands(NamedTuple):
    """The hole-card pairs of the opponent's range (H, 2), their card masks, the deck, and the
    preflop equity table between them."""

    hands: np.ndarray
    hand_mask: np.ndarray
    deck: np.ndarray
    preflop: np.ndarray


@njit(cache=True, inline="always")
def _value(key, mask, flush, disp, values) -> int:
    """Hand value (1..7462) from a summed key and rank/suit mask (the evaluator's method)."""
    f = key & FLUSH_BITS
    if f:
        x = f >> U51
        s = np.uint64(0)
        if x & np.uint64(0x10):
            s = np.uint64(1)
        elif x & np.uint64(0x100):
            s = np.uint64(2)
        elif x & np.uint64(0x1000):
            s = np.uint64(3)
        return flush[(mask >> (U16 * s)) & U13]
    h = (key & RANK_MASK) * HASH_MULT
    return values[((h >> SLOT_SHIFT) & SLOT_MASK) ^ np.uint64(disp[h >> BUCKET_SHIFT])]


@njit(cache=True)
def preflop_equity_table(hands, deck, card_key, card_bit, flush, disp, values, out) -> None:
    """Exact preflop equity (win + tie / 2) of hand ``i`` against hand ``j`` over every board of
    five cards of ``deck`` that meets neither: ``out`` (H, H) float64 (0 where they share a card).
    One evaluation per (board, hand); O(boards x hands^2) comparisons (seconds on 24 cards)."""
    n = deck.size
    h_count = hands.shape[0]
    wins = np.zeros((h_count, h_count))
    count = np.zeros((h_count, h_count))
    hmask = np.empty(h_count, np.uint64)
    for h in range(h_count):
        hmask[h] = (np.uint64(1) << np.uint64(hands[h, 0])) | (
            np.uint64(1) << np.uint64(hands[h, 1])
        )
    live = np.empty(h_count, np.int64)
    val = np.empty(h_count, np.int64)
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                for d in range(c + 1, n):
                    for e in range(d + 1, n):
                        cards = (deck[a], deck[b], deck[c], deck[d], deck[e])
                        key = SUIT_INIT
                        bmask = np.uint64(0)
                        bits = np.uint64(0)
                        for x in cards:
                            key += card_key[x]
                            bmask |= card_bit[x]
                            bits |= np.uint64(1) << np.uint64(x)
                        m = 0
                        for h in range(h_count):
                            if hmask[h] & bits:
                                continue
                            c0, c1 = hands[h, 0], hands[h, 1]
                            live[m] = h
                            val[m] = _value(
                                key + card_key[c0] + card_key[c1],
                                bmask | card_bit[c0] | card_bit[c1],
                                flush, disp, values,
                            )  # fmt: skip
                            m += 1
                        for p in range(m):
                            hp = live[p]
                            vp = val[p]
                            for q in range(p + 1, m):
                                hq = live[q]
                                if hmask[hp] & hmask[hq]:
                                    continue
                                vq = val[q]
                                count[hp, hq] += 1.0
                                if vp > vq:
                                    wins[hp, hq] += 1.0
                                elif vp == vq:
                                    wins[hp, hq] += 0.5
    for p in range(h_count):
        for q in range(p + 1, h_count):
            if count[p, q] > 0:
                out[p, q] = wins[p, q] / count[p, q]
                out[q, p] = (count[p, q] - wins[p, q]) / count[p, q]


@njit(cache=True)
def hand_equities(
    c0, c1, board, shown, weights, rh, ev, exact_limit, rollouts, state, eq, cnt, live
):
    """LBR's equity against each range hand: for hole cards (c0, c1) on ``board[:shown]`` and
    every hand ``h`` of positive weight, ``eq[h] = E[win + tie / 2 | h]`` at a showdown, the
    expectation over the completions of the board that meet neither hand (-1 where no drawn
    completion misses ``h``; other entries untouched). The range's WP is then ``sum_h w_h eq_h /
    sum_h w_h``; ``eq`` does not depend on the weights, so one call serves every decision of a
    round (weights only fall to 0 within a round). Exact enumeration when (completions x live
    hands) is at most ``exact_limit`` or ``rollouts`` is 0; else ``rollouts`` completions drawn
    uniformly (without replacement within one completion) from the cards LBR does not see, with
    the xoshiro ``state``. ``cnt`` (H,) float64 and ``live`` (H,) int64 are scratch. Returns
    whether it sampled."""
    hands, hand_mask, deck = rh.hands, rh.hand_mask, rh.deck
    card_key, card_bit, flush, disp, values = ev.card_key, ev.card_bit, ev.flush, ev.disp, ev.values

    known = (np.uint64(1) << np.uint64(c0)) | (np.uint64(1) << np.uint64(c1))
    pkey = SUIT_INIT + card_key[c0] + card_key[c1]
    pmask = card_bit[c0] | card_bit[c1]
    bkey0 = SUIT_INIT
    bmask0 = np.uint64(0)
    for j in range(shown):
        x = board[j]
        known |= np.uint64(1) << np.uint64(x)
        bkey0 += card_key[x]
        bmask0 |= card_bit[x]
    pkey += bkey0 - SUIT_INIT
    pmask |= bmask0
    rem = np.empty(deck.size, np.int64)
    r_count = 0
    for x in deck:
        if not (known >> np.uint64(x)) & np.uint64(1):
            rem[r_count] = x
            r_count += 1
    m_live = 0
    for h in range(hands.shape[0]):
        if weights[h] > 0.0:
            live[m_live] = h
            m_live += 1
            eq[h] = 0.0
            cnt[h] = 0.0
    if m_live == 0:
        return False
    need = 5 - shown
    combos = 1.0
    for j in range(need):
        combos = combos * (r_count - j) / (j + 1)
    idx = np.zeros(5, np.int64)
    exact = rollouts <= 0 or combos * m_live <= exact_limit
    total = int(combos + 0.5) if exact else rollouts
    for j in range(need):
        idx[j] = j
    pick = rem.copy()
    for _ in range(total):
        ckey = bkey0
        cmask = bmask0
        cbits = np.uint64(0)
        if exact:
            for j in range(need):
                x = rem[idx[j]]
                ckey += card_key[x]
                cmask |= card_bit[x]
                cbits |= np.uint64(1) << np.uint64(x)
            # next combination of ``need`` indices out of r_count (lexicographic)
            j = need - 1
            while j >= 0 and idx[j] == r_count - need + j:
                j -= 1
            if j >= 0:
                idx[j] += 1
                for q in range(j + 1, need):
                    idx[q] = idx[q - 1] + 1
        else:
            for j in range(need):  # partial Fisher-Yates on ``pick``
                q = j + below(state, r_count - j)
                x = pick[q]
                pick[q] = pick[j]
                pick[j] = x
                ckey += card_key[x]
                cmask |= card_bit[x]
                cbits |= np.uint64(1) << np.uint64(x)
        mine = _value(pkey + ckey - bkey0, pmask | cmask, flush, disp, values)
        for p in range(m_live):
            h = live[p]
            if hand_mask[h] & cbits:
                continue
            a0 = hands[h, 0]
            a1 = hands[h, 1]
            theirs = _value(
                ckey + card_key[a0] + card_key[a1],
                cmask | card_bit[a0] | card_bit[a1],
                flush, disp, values,
            )  # fmt: skip
            cnt[h] += 1.0
            if mine > theirs:
                eq[h] += 1.0
            elif mine == theirs:
                eq[h] += 0.5
    for p in range(m_live):
        h = live[p]
        eq[h] = eq[h] / cnt[h] if cnt[h] > 0.0 else -1.0
    return not exact
