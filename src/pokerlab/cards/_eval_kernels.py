"""Numba kernels of the hand evaluator (the equity enumerators that use it:
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

# Categories (index into CATEGORY_NAMES in evaluator.py).
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


# --- building the tables --------------------------------------------------------------------------
@njit(cache=True)
def _straight_top(mask: int) -> int:
    """Rank of the top card of the best straight in a 13-bit rank mask, or -1 (wheel = 3)."""
    for top in range(12, 3, -1):
        want = 0x1F << (top - 4)
        if (mask & want) == want:
            return top
    if (mask & 0x100F) == 0x100F:  # A-2-3-4-5
        return 3
    return -1


@njit(cache=True)
def _pack(cat: int, d0: int, d1: int, d2: int, d3: int, d4: int) -> int:
    return (cat << 20) | (d0 << 16) | (d1 << 12) | (d2 << 8) | (d3 << 4) | d4


@njit(cache=True)
def _score_flush(mask: int) -> int:
    """Comparable score of the best 5-card hand within one suit's 13-bit rank mask (>= 5 bits)."""
    top = _straight_top(mask)
    if top >= 0:
        return _pack(STRAIGHT_FLUSH, top, 0, 0, 0, 0)
    d = np.zeros(5, np.int64)
    k = 0
    for r in range(12, -1, -1):
        if mask & (1 << r) and k < 5:
            d[k] = r
            k += 1
    return _pack(FLUSH, d[0], d[1], d[2], d[3], d[4])


@njit(cache=True)
def _score_counts(counts: np.ndarray) -> int:
    """Comparable score of the best 5-card non-flush hand from rank counts (5 to 7 cards)."""
    mask = 0
    quad = -1
    trips = -1
    trips2 = -1
    pairs = np.full(3, -1, np.int64)
    npairs = 0
    for r in range(12, -1, -1):
        c = counts[r]
        if c > 0:
            mask |= 1 << r
        if c == 4:
            quad = r
        elif c == 3:
            if trips < 0:
                trips = r
            elif trips2 < 0:
                trips2 = r
        elif c == 2:
            pairs[npairs] = r
            npairs += 1
    if quad >= 0:
        for r in range(12, -1, -1):
            if r != quad and counts[r] > 0:
                return _pack(QUADS, quad, r, 0, 0, 0)
    if trips >= 0 and (trips2 >= 0 or npairs > 0):
        p = max(trips2, pairs[0])
        return _pack(FULL_HOUSE, trips, p, 0, 0, 0)
    top = _straight_top(mask)
    if top >= 0:
        return _pack(STRAIGHT, top, 0, 0, 0, 0)
    kick = np.zeros(5, np.int64)
    if trips >= 0:
        k = 0
        for r in range(12, -1, -1):
            if r != trips and counts[r] > 0 and k < 2:
                kick[k] = r
                k += 1
        return _pack(TRIPS, trips, kick[0], kick[1], 0, 0)
    if npairs >= 2:
        p1, p2 = pairs[0], pairs[1]
        for r in range(12, -1, -1):
            if r != p1 and r != p2 and counts[r] > 0:
                return _pack(TWO_PAIR, p1, p2, r, 0, 0)
    if npairs == 1:
        p = pairs[0]
        k = 0
        for r in range(12, -1, -1):
            if r != p and counts[r] > 0 and k < 3:
                kick[k] = r
                k += 1
        return _pack(PAIR, p, kick[0], kick[1], kick[2], 0)
    k = 0
    for r in range(12, -1, -1):
        if counts[r] > 0 and k < 5:
            kick[k] = r
            k += 1
    return _pack(HIGH_CARD, kick[0], kick[1], kick[2], kick[3], kick[4])


@njit(cache=True)
def _rank_multisets(min_cards: int, max_cards: int) -> tuple[np.ndarray, np.ndarray]:
    """All rank-count vectors (each count <= 4) with min..max cards: (base-5 keys, counts)."""
    keys = []
    rows = []
    counts = np.zeros(13, np.int64)
    total = 0
    while True:
        if min_cards <= total <= max_cards:
            key = 0
            for r in range(13):
                key += counts[r] * 5**r
            keys.append(key)
            rows.append(counts.copy())
        # odometer step: increment the lowest digit, carry when a digit or the total overflows
        i = 0
        while i < 13:
            counts[i] += 1
            total += 1
            if counts[i] <= 4 and total <= max_cards:
                break
            total -= counts[i]
            counts[i] = 0
            i += 1
        if i == 13:
            break
    out_keys = np.empty(len(keys), np.uint64)
    out_counts = np.empty((len(keys), 13), np.int64)
    for j in range(len(keys)):
        out_keys[j] = keys[j]
        out_counts[j] = rows[j]
    return out_keys, out_counts


@njit(cache=True)
def _build_perfect_hash(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Hash-and-displace: per-bucket displacements so each key gets its own slot.

    Returns (disp uint32[buckets], slot_of_key int64[len(keys)], ok).
    """
    n_buckets = 1 << BUCKET_BITS
    n_slots = 1 << HASH_TABLE_BITS
    h = keys * HASH_MULT
    bucket = (h >> BUCKET_SHIFT).astype(np.int64)
    base = ((h >> SLOT_SHIFT) & SLOT_MASK).astype(np.int64)
    sizes = np.bincount(bucket, minlength=n_buckets)
    order = np.argsort(-sizes, kind="mergesort")
    start = np.zeros(n_buckets + 1, np.int64)
    start[1:] = np.cumsum(sizes)
    members = np.argsort(bucket, kind="mergesort")
    used = np.zeros(n_slots, np.bool_)
    disp = np.zeros(n_buckets, np.uint32)
    slot_of = np.full(len(keys), -1, np.int64)
    trial = np.empty(64, np.int64)
    for b in order:
        m = sizes[b]
        if m == 0:
            break
        found = False
        for d in range(n_slots):
            ok = True
            for t in range(m):
                s = base[members[start[b] + t]] ^ d
                if used[s]:
                    ok = False
                    break
                for u in range(t):
                    if trial[u] == s:
                        ok = False
                        break
                if not ok:
                    break
                trial[t] = s
            if ok:
                for t in range(m):
                    used[trial[t]] = True
                    slot_of[members[start[b] + t]] = trial[t]
                disp[b] = d
                found = True
                break
        if not found or m > 64:
            return disp, slot_of, False
    return disp, slot_of, True


@njit(cache=True)
def score_all_counts(counts: np.ndarray) -> np.ndarray:
    """:func:`_score_counts` of every row of an (m, 13) rank-count array."""
    out = np.empty(counts.shape[0], np.int64)
    for i in range(counts.shape[0]):
        out[i] = _score_counts(counts[i])
    return out


@njit(cache=True)
def score_all_flush_masks() -> np.ndarray:
    """:func:`_score_flush` of every 13-bit mask with at least 5 bits, else -1 (length 8192)."""
    out = np.full(8192, -1, np.int64)
    for m in range(8192):
        bits = 0
        for r in range(13):
            bits += (m >> r) & 1
        if bits >= 5:
            out[m] = _score_flush(m)
    return out


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
