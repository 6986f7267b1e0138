"""Numba kernels that build the hand evaluator's tables
(:func:`pokerlab.cards.evaluator.eval_tables`): the score of every rank multiset and every flush
mask (category and kickers packed in an int), the rank multisets of 5 to 7 cards, and the perfect
hash over them. The method and the tables' layout are described in
:mod:`pokerlab.cards._eval_kernels`, whose kernels read the tables.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.cards._eval_kernels import (
    BUCKET_BITS,
    BUCKET_SHIFT,
    HASH_MULT,
    HASH_TABLE_BITS,
    SLOT_MASK,
    SLOT_SHIFT,
)

# Categories (index into CATEGORY_NAMES in evaluator.py).
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)


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
