"""Numba kernels of exact and Monte Carlo equity: showdowns of two hands over every board (or
sampled boards), preflop matchups, and range against range on a board of three or more cards.
They build on the evaluator's incremental keys (:mod:`pokerlab.cards._eval_kernels`): a board's
key is a running sum, so each extra board card costs one addition and one lookup per player.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab._rng import below, uniform
from pokerlab.cards._eval_kernels import (
    BUCKET_SHIFT,
    FLUSH_BITS,
    HASH_MULT,
    ONE,
    RANK_MASK,
    SLOT_MASK,
    SLOT_SHIFT,
    SUIT_INIT,
    U13,
    U16,
    _value_from_key_mask,
    flush_suit,
)


# --- exact enumeration ----------------------------------------------------------------------------
@njit(cache=True)
def count_showdowns(
    key1: np.uint64,
    mask1: np.uint64,
    key2: np.uint64,
    mask2: np.uint64,
    deck: np.ndarray,
    need: int,
    card_key: np.ndarray,
    card_bit: np.ndarray,
    flush: np.ndarray,
    disp: np.ndarray,
    values: np.ndarray,
) -> tuple[int, int, int]:
    """(wins, ties, boards) of player 1 over every way to add ``need`` cards from ``deck``.

    ``key1``/``mask1`` are the summed keys and OR-ed masks of player 1's hole cards plus the known
    board (``SUIT_INIT`` included in the key); likewise for player 2. The last card is a tight
    inner loop; the outer cards are an odometer over combinations with running sums.
    """
    n = deck.shape[0]
    wins = 0
    ties = 0
    boards = 0
    if need == 0:
        r1 = _value_from_key_mask(key1, mask1, flush, disp, values)
        r2 = _value_from_key_mask(key2, mask2, flush, disp, values)
        return (1 if r1 > r2 else 0), (1 if r1 == r2 else 0), 1
    outer = need - 1
    idx = np.empty(max(outer, 1), np.int64)
    k1 = np.empty(outer + 1, np.uint64)
    k2 = np.empty(outer + 1, np.uint64)
    m1 = np.empty(outer + 1, np.uint64)
    m2 = np.empty(outer + 1, np.uint64)
    k1[0], k2[0], m1[0], m2[0] = key1, key2, mask1, mask2
    for d in range(outer):
        idx[d] = d
        c = deck[d]
        k1[d + 1] = k1[d] + card_key[c]
        k2[d + 1] = k2[d] + card_key[c]
        m1[d + 1] = m1[d] | card_bit[c]
        m2[d + 1] = m2[d] | card_bit[c]
    while True:
        a1, a2, b1, b2 = k1[outer], k2[outer], m1[outer], m2[outer]
        first = idx[outer - 1] + 1 if outer > 0 else 0
        for j in range(first, n):
            c = deck[j]
            ck = card_key[c]
            cb = card_bit[c]
            # The two lookups are written out: a helper taking the tables as arguments costs
            # numba reference-count calls per board (10x slower here).
            key = a1 + ck
            f = key & FLUSH_BITS
            if f:
                s = flush_suit(f)
                r1 = flush[((b1 | cb) >> (U16 * s)) & U13]
            else:
                h = (key & RANK_MASK) * HASH_MULT
                r1 = values[((h >> SLOT_SHIFT) & SLOT_MASK) ^ np.uint64(disp[h >> BUCKET_SHIFT])]
            key = a2 + ck
            f = key & FLUSH_BITS
            if f:
                s = flush_suit(f)
                r2 = flush[((b2 | cb) >> (U16 * s)) & U13]
            else:
                h = (key & RANK_MASK) * HASH_MULT
                r2 = values[((h >> SLOT_SHIFT) & SLOT_MASK) ^ np.uint64(disp[h >> BUCKET_SHIFT])]
            wins += r1 > r2
            ties += r1 == r2
        boards += n - first
        # advance the odometer of the outer cards
        d = outer - 1
        while d >= 0 and idx[d] == n - need + d:
            d -= 1
        if d < 0:
            break
        idx[d] += 1
        for e in range(d, outer):
            if e > d:
                idx[e] = idx[e - 1] + 1
            c = deck[idx[e]]
            k1[e + 1] = k1[e] + card_key[c]
            k2[e + 1] = k2[e] + card_key[c]
            m1[e + 1] = m1[e] | card_bit[c]
            m2[e + 1] = m2[e] | card_bit[c]
    return wins, ties, boards


@njit(cache=True)
def preflop_matchups(
    pairs: np.ndarray,
    card_key: np.ndarray,
    card_bit: np.ndarray,
    flush: np.ndarray,
    disp: np.ndarray,
    values: np.ndarray,
    out: np.ndarray,
) -> None:
    """Exact preflop (wins, ties) over all 1,712,304 boards for each row (a0, a1, b0, b1).

    ``pairs`` is (m, 4) hole cards of the two players; ``out`` (m, 2) int64 receives the counts.
    """
    deck = np.empty(48, np.int64)
    for i in range(pairs.shape[0]):
        a0, a1, b0, b1 = pairs[i, 0], pairs[i, 1], pairs[i, 2], pairs[i, 3]
        k = 0
        for c in range(52):
            if c != a0 and c != a1 and c != b0 and c != b1:
                deck[k] = c
                k += 1
        key1 = SUIT_INIT + card_key[a0] + card_key[a1]
        key2 = SUIT_INIT + card_key[b0] + card_key[b1]
        mask1 = card_bit[a0] | card_bit[a1]
        mask2 = card_bit[b0] | card_bit[b1]
        w, t, _ = count_showdowns(
            key1, mask1, key2, mask2, deck, 5, card_key, card_bit, flush, disp, values
        )
        out[i, 0] = w
        out[i, 1] = t


# --- Monte Carlo ----------------------------------------------------------------------------------
@njit(cache=True)
def sample_showdowns(
    combos1: np.ndarray,
    cum1: np.ndarray,
    combos2: np.ndarray,
    cum2: np.ndarray,
    combo_cards: np.ndarray,
    board: np.ndarray,
    samples: int,
    state: np.ndarray,
    card_key: np.ndarray,
    card_bit: np.ndarray,
    flush: np.ndarray,
    disp: np.ndarray,
    values: np.ndarray,
) -> tuple[int, int, int, np.ndarray]:
    """Monte Carlo showdowns of two weighted ranges on a partial board.

    Each sample draws a combo from each range (by cumulative weights ``cum1``/``cum2``, rejecting
    draws that share a card), then completes the board uniformly from the remaining cards.
    Returns (wins, ties, samples done, per-sample outcome in {0, 1, 2} as uint8: lose, tie, win).
    """
    outcome = np.empty(samples, np.uint8)
    nb = board.shape[0]
    need = 5 - nb
    base_key = SUIT_INIT
    base_mask = np.uint64(0)
    used = np.zeros(52, np.bool_)
    for j in range(nb):
        base_key += card_key[board[j]]
        base_mask |= card_bit[board[j]]
        used[board[j]] = True
    deck = np.empty(52, np.int64)
    wins = 0
    ties = 0
    total1 = cum1[-1]
    total2 = cum2[-1]
    for s in range(samples):
        while True:
            u1 = uniform(state) * total1
            u2 = uniform(state) * total2
            i1 = min(np.searchsorted(cum1, u1, side="right"), combos1.shape[0] - 1)
            i2 = min(np.searchsorted(cum2, u2, side="right"), combos2.shape[0] - 1)
            a0, a1 = combo_cards[combos1[i1], 0], combo_cards[combos1[i1], 1]
            b0, b1 = combo_cards[combos2[i2], 0], combo_cards[combos2[i2], 1]
            if a0 != b0 and a0 != b1 and a1 != b0 and a1 != b1:
                break
        n = 0
        for c in range(52):
            if not used[c] and c != a0 and c != a1 and c != b0 and c != b1:
                deck[n] = c
                n += 1
        key = base_key
        mask = base_mask
        for j in range(need):  # partial Fisher-Yates
            r = j + below(state, n - j)
            deck[j], deck[r] = deck[r], deck[j]
            key += card_key[deck[j]]
            mask |= card_bit[deck[j]]
        r1 = _value_from_key_mask(
            key + card_key[a0] + card_key[a1],
            mask | card_bit[a0] | card_bit[a1],
            flush,
            disp,
            values,
        )
        r2 = _value_from_key_mask(
            key + card_key[b0] + card_key[b1],
            mask | card_bit[b0] | card_bit[b1],
            flush,
            disp,
            values,
        )
        if r1 > r2:
            wins += 1
            outcome[s] = 2
        elif r1 == r2:
            ties += 1
            outcome[s] = 1
        else:
            outcome[s] = 0
    return wins, ties, samples, outcome


# --- exact range vs range on a board with at least 3 cards ----------------------------------------
@njit(cache=True)
def range_vs_range_exact(
    combos1: np.ndarray,
    w1: np.ndarray,
    combos2: np.ndarray,
    w2: np.ndarray,
    combo_cards: np.ndarray,
    board: np.ndarray,
    card_key: np.ndarray,
    card_bit: np.ndarray,
    flush: np.ndarray,
    disp: np.ndarray,
    values: np.ndarray,
) -> tuple[float, float, float]:
    """Weighted (win, tie, total) mass over every runout and every compatible combo pair.

    For each completion of the board, every live combo of both ranges is evaluated once and every
    pair of non-overlapping live combos adds ``w1 * w2`` to total (and to win or tie). Each
    compatible pair sees the same number of runouts, so win / total is the exact equity of
    drawing the two hands by their weights, conditioned on no shared card.
    """
    nb = board.shape[0]
    need = 5 - nb
    used = np.zeros(52, np.bool_)
    base_key = SUIT_INIT
    base_mask = np.uint64(0)
    for j in range(nb):
        used[board[j]] = True
        base_key += card_key[board[j]]
        base_mask |= card_bit[board[j]]
    deck = np.empty(52, np.int64)
    n = 0
    for c in range(52):
        if not used[c]:
            deck[n] = c
            n += 1
    n1, n2 = combos1.shape[0], combos2.shape[0]
    r1 = np.zeros(n1, np.int64)
    r2 = np.zeros(n2, np.int64)
    win = 0.0
    tie = 0.0
    total = 0.0
    # runouts: need is 0, 1 or 2
    n_runouts = 1
    if need == 1:
        n_runouts = n
    elif need == 2:
        n_runouts = n * (n - 1) // 2
    x, y = 0, 1
    for _ in range(n_runouts):
        key = base_key
        mask = base_mask
        dead = np.uint64(0)
        if need >= 1:
            key += card_key[deck[x]]
            mask |= card_bit[deck[x]]
            dead |= ONE << np.uint64(deck[x])
        if need == 2:
            key += card_key[deck[y]]
            mask |= card_bit[deck[y]]
            dead |= ONE << np.uint64(deck[y])
        for i in range(n1):
            a, b = combo_cards[combos1[i], 0], combo_cards[combos1[i], 1]
            if (dead >> np.uint64(a)) & ONE or (dead >> np.uint64(b)) & ONE:
                r1[i] = -1
            else:
                r1[i] = _value_from_key_mask(
                    key + card_key[a] + card_key[b],
                    mask | card_bit[a] | card_bit[b],
                    flush,
                    disp,
                    values,
                )
        for i in range(n2):
            a, b = combo_cards[combos2[i], 0], combo_cards[combos2[i], 1]
            if (dead >> np.uint64(a)) & ONE or (dead >> np.uint64(b)) & ONE:
                r2[i] = -1
            else:
                r2[i] = _value_from_key_mask(
                    key + card_key[a] + card_key[b],
                    mask | card_bit[a] | card_bit[b],
                    flush,
                    disp,
                    values,
                )
        for i in range(n1):
            if r1[i] < 0:
                continue
            a, b = combo_cards[combos1[i], 0], combo_cards[combos1[i], 1]
            for j in range(n2):
                if r2[j] < 0:
                    continue
                c, d = combo_cards[combos2[j], 0], combo_cards[combos2[j], 1]
                if a == c or a == d or b == c or b == d:
                    continue
                w = w1[i] * w2[j]
                total += w
                if r1[i] > r2[j]:
                    win += w
                elif r1[i] == r2[j]:
                    tie += w
        # next runout
        if need == 1:
            x += 1
        elif need == 2:
            y += 1
            if y == n:
                x += 1
                y = x + 1
    return win, tie, total
