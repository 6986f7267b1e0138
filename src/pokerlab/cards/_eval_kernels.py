"""Numba kernels of the hand evaluator (the kernels that build its tables:
:mod:`pokerlab.cards._eval_table_kernels`; the equity enumerators that use it:
:mod:`pokerlab.cards._equity_kernels`).

Why no library: eval7, phevaluator, treys and pokerkit evaluate one hand per Python call (a few
million hands per second at best), and none offers batch evaluation over numpy arrays or can be
called from inside our own compiled loops (equity enumeration, showdowns in solvers). The method
here is small enough to own.

Method (a rank-count perfect hash plus a flush table):

- each card c has a 64-bit additive key ``5**rank + (1 << (48 + 4 * suit))``. The sum over a hand
  holds, in its low 31 bits, the rank multiset written in base 5 (at most 4 cards per rank, so no
  digit carries), and in bits 48..63 four 4-bit suit counters. Starting each counter at 3, a suit
  with 5 or more cards sets the counter's top bit: one AND tells whether there is a flush and in
  which suit.
- without a flush the hand's value depends only on the rank multiset: there are 6,175 + 18,395 +
  49,205 multisets of 5, 6 and 7 cards. They are looked up in a minimal-size perfect hash
  ("hash and displace", Belazzougui, Botelho and Dietzfelbinger 2009): one multiply, a bucket's
  displacement, one table read.
- with a flush (at most one suit can have 5 of 7 cards, and then no full house or quads is
  possible) the value is ``FLUSH[13-bit rank mask of that suit]``.

Values are dense: 1 (7-5-4-3-2 offsuit) .. 7462 (royal flush); higher is better. The equity
enumerators reuse the same keys incrementally: a board's key is a running sum, so each extra board
card costs one addition and one lookup per player.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab._rng import below

# --- layout constants (numpy scalars so numba keeps uint64 arithmetic) ----------------------------
SUIT_INIT = np.uint64(0x3333 << 48)
FLUSH_BITS = np.uint64(0x8888 << 48)
RANK_MASK = np.uint64((1 << 32) - 1)
HASH_MULT = np.uint64(0x9E3779B97F4A7C15)
HASH_TABLE_BITS = 17  # 2**17 slots for 73,775 keys
BUCKET_BITS = 15  # 2**15 buckets, about 2.25 keys each
SLOT_MASK = np.uint64((1 << HASH_TABLE_BITS) - 1)
SLOT_SHIFT = np.uint64(20)
BUCKET_SHIFT = np.uint64(64 - BUCKET_BITS)
U13 = np.uint64(0x1FFF)
U16 = np.uint64(16)
U51 = np.uint64(51)
ONE = np.uint64(1)


# --- evaluation -----------------------------------------------------------------------------------
@njit(cache=True)
def _lookup(key: np.uint64, disp: np.ndarray, values: np.ndarray) -> int:
    """Value of a non-flush hand from the rank part of its key."""
    h = (key & RANK_MASK) * HASH_MULT
    return values[((h >> SLOT_SHIFT) & SLOT_MASK) ^ np.uint64(disp[h >> BUCKET_SHIFT])]


@njit(cache=True)
def _flush_suit(f: np.uint64) -> np.uint64:
    """Suit whose counter bit is set in ``f`` (exactly one is)."""
    x = f >> U51  # bits 0, 4, 8, 12
    return (
        np.uint64((x >> np.uint64(4)) & ONE)
        + np.uint64(2) * np.uint64((x >> np.uint64(8)) & ONE)
        + np.uint64(3) * np.uint64((x >> np.uint64(12)) & ONE)
    )


@njit(cache=True, inline="always")
def flush_suit(f: np.uint64) -> np.uint64:
    """Suit whose counter bit is set in ``f`` (the key's flush bits; exactly one is set), as the
    hot loops test it: inlined by numba into each caller, so the tables stay out of the call."""
    x = f >> U51
    s = np.uint64(0)
    if x & np.uint64(0x10):
        s = np.uint64(1)
    elif x & np.uint64(0x100):
        s = np.uint64(2)
    elif x & np.uint64(0x1000):
        s = np.uint64(3)
    return s


@njit(cache=True)
def _value_from_key_mask(
    key: np.uint64, mask: np.uint64, flush: np.ndarray, disp: np.ndarray, values: np.ndarray
) -> int:
    """Value of a hand from its summed key and its 64-bit suit/rank mask."""
    f = key & FLUSH_BITS
    if f:
        s = _flush_suit(f)
        return flush[(mask >> (U16 * s)) & U13]
    return _lookup(key, disp, values)


@njit(cache=True)
def evaluate_batch(
    hands: np.ndarray,
    card_key: np.ndarray,
    card_bit: np.ndarray,
    flush: np.ndarray,
    disp: np.ndarray,
    values: np.ndarray,
    out: np.ndarray,
) -> None:
    """Values of n hands of 5 to 7 cards: ``hands`` (n, k) uint8 card ids -> ``out`` (n,) int32.

    Hot loops here and below write the lookups out instead of calling a helper that takes the
    tables as arguments: such a call costs numba reference-count operations per hand.
    """
    n, k = hands.shape
    for i in range(n):
        key = SUIT_INIT
        for j in range(k):
            key += card_key[hands[i, j]]
        f = key & FLUSH_BITS
        if f:
            mask = np.uint64(0)
            for j in range(k):
                mask |= card_bit[hands[i, j]]
            # written out (B4 hot loop): with flush_suit() inlined it measured 66-68 M/s against
            # 111-170 M/s written out (benchmarks/cards.py, loaded machine)
            x = f >> U51
            s = np.uint64(0)
            if x & np.uint64(0x10):
                s = np.uint64(1)
            elif x & np.uint64(0x100):
                s = np.uint64(2)
            elif x & np.uint64(0x1000):
                s = np.uint64(3)
            out[i] = flush[(mask >> (U16 * s)) & U13]
        else:
            h = (key & RANK_MASK) * HASH_MULT
            out[i] = values[((h >> SLOT_SHIFT) & SLOT_MASK) ^ np.uint64(disp[h >> BUCKET_SHIFT])]


@njit(cache=True)
def evaluate7_batch(
    hands: np.ndarray,
    card_key: np.ndarray,
    card_bit: np.ndarray,
    flush: np.ndarray,
    disp: np.ndarray,
    values: np.ndarray,
    out: np.ndarray,
) -> None:
    """:func:`evaluate_batch` unrolled for (n, 7) hands, the hot case."""
    for i in range(hands.shape[0]):
        c0, c1, c2, c3 = hands[i, 0], hands[i, 1], hands[i, 2], hands[i, 3]
        c4, c5, c6 = hands[i, 4], hands[i, 5], hands[i, 6]
        key = (
            SUIT_INIT
            + card_key[c0]
            + card_key[c1]
            + card_key[c2]
            + card_key[c3]
            + card_key[c4]
            + card_key[c5]
            + card_key[c6]
        )
        f = key & FLUSH_BITS
        if f:
            mask = (
                card_bit[c0]
                | card_bit[c1]
                | card_bit[c2]
                | card_bit[c3]
                | card_bit[c4]
                | card_bit[c5]
                | card_bit[c6]
            )
            # written out (B4 hot loop): with flush_suit() inlined it measured 66-68 M/s against
            # 111-170 M/s written out (benchmarks/cards.py, loaded machine)
            x = f >> U51
            s = np.uint64(0)
            if x & np.uint64(0x10):
                s = np.uint64(1)
            elif x & np.uint64(0x100):
                s = np.uint64(2)
            elif x & np.uint64(0x1000):
                s = np.uint64(3)
            out[i] = flush[(mask >> (U16 * s)) & U13]
        else:
            h = (key & RANK_MASK) * HASH_MULT
            out[i] = values[((h >> SLOT_SHIFT) & SLOT_MASK) ^ np.uint64(disp[h >> BUCKET_SHIFT])]


# --- whole-deck enumeration and random hands (tests, benchmarks) ----------------------------------
@njit(cache=True)
def value_histogram(
    k: int,
    card_key: np.ndarray,
    card_bit: np.ndarray,
    flush: np.ndarray,
    disp: np.ndarray,
    values: np.ndarray,
) -> np.ndarray:
    """Number of k-card hands (k = 5..7, all C(52, k)) with each value: int64[7463]."""
    hist = np.zeros(values.max() + 1 if values.max() > flush.max() else flush.max() + 1, np.int64)
    idx = np.empty(k, np.int64)
    keys = np.empty(k + 1, np.uint64)
    masks = np.empty(k + 1, np.uint64)
    keys[0] = SUIT_INIT
    masks[0] = np.uint64(0)
    for d in range(k):
        idx[d] = d
        keys[d + 1] = keys[d] + card_key[d]
        masks[d + 1] = masks[d] | card_bit[d]
    last = k - 1
    while True:
        a, b = keys[last], masks[last]
        for c in range(idx[last - 1] + 1, 52):
            hist[_value_from_key_mask(a + card_key[c], b | card_bit[c], flush, disp, values)] += 1
        d = last - 1
        while d >= 0 and idx[d] == 52 - k + d:
            d -= 1
        if d < 0:
            break
        idx[d] += 1
        for e in range(d, last):
            if e > d:
                idx[e] = idx[e - 1] + 1
            keys[e + 1] = keys[e] + card_key[idx[e]]
            masks[e + 1] = masks[e] | card_bit[idx[e]]
    return hist


@njit(cache=True)
def random_hands(n: int, k: int, state: np.ndarray) -> np.ndarray:
    """(n, k) uint8 array of random hands of k distinct cards (``state``: :mod:`pokerlab._rng`)."""
    out = np.empty((n, k), np.uint8)
    deck = np.arange(52).astype(np.uint8)
    for i in range(n):
        for j in range(k):  # partial Fisher-Yates; the deck stays a permutation
            r = j + below(state, 52 - j)
            deck[j], deck[r] = deck[r], deck[j]
            out[i, j] = deck[j]
    return out
