"""numba kernels of the hand-isomorphism index (see :mod:`pokerlab.abstraction.isomorphism`).

A hand is split into groups of cards (hole cards, board): per suit, the ranks it holds in each
group form a sequence of disjoint rank sets, and the suit's *shape* is the tuple of their sizes
(3 bits per group in ``suit_key``). Suits are sorted by (shape, rank-set index), both descending;
the sorted tuple of shapes is the hand's *configuration*. The index is the configuration's offset
plus a mixed-radix number whose digits are, per run of suits of equal shape, the colex rank of the
multiset of their rank-set indices (Waugh 2013, "A Fast and Optimal Hand Isomorphism Algorithm").

Tables: ``binom[n, k]`` for small n (rank sets), ``shape_bits``, the sorted configuration keys and
per configuration its offset, the size of each sorted suit's rank-set space and the length of the
run of equal shapes starting at each position (0 inside a run).
"""

from __future__ import annotations

import numpy as np
from numba import njit

SHAPE_BITS = 3


@njit(cache=True)
def big_binom(n: np.int64, k: np.int64) -> np.int64:
    """C(n, k) for large n and small k (exact in int64 while the result fits)."""
    if k < 0 or n < k:
        return np.int64(0)
    r = np.int64(1)
    for i in range(k):
        r = r * (n - i) // (i + 1)
    return r


@njit(cache=True)
def _popcount(x: np.int64) -> np.int64:
    c = np.int64(0)
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def index_hands(
    cards: np.ndarray,
    group_sizes: np.ndarray,
    rank_base: np.int64,
    num_ranks: np.int64,
    binom: np.ndarray,
    config_keys: np.ndarray,
    config_offset: np.ndarray,
    config_space: np.ndarray,
    config_run: np.ndarray,
    out: np.ndarray,
) -> None:
    """Canonical index of each row of ``cards`` (n, total) (card ids ``4 * rank + suit``, groups
    in order) into ``out`` (n,) int64; -1 for a row whose configuration is unknown."""
    n = cards.shape[0]
    num_groups = group_sizes.size
    keys = np.zeros(4, np.int64)
    idxs = np.zeros(4, np.int64)
    masks = np.zeros((4, 8), np.int64)
    for row in range(n):
        for s in range(4):
            for g in range(num_groups):
                masks[s, g] = 0
        pos = 0
        for g in range(num_groups):
            for _ in range(group_sizes[g]):
                c = cards[row, pos]
                masks[c & 3, g] |= np.int64(1) << ((c >> 2) - rank_base)
                pos += 1
        for s in range(4):
            used = np.int64(0)
            key = np.int64(0)
            idx = np.int64(0)
            mult = np.int64(1)
            for g in range(num_groups):
                mask = masks[s, g]
                m = _popcount(mask)
                key |= m << (SHAPE_BITS * (num_groups - 1 - g))
                # colex rank of the set among the ranks this suit has not used yet
                colex = np.int64(0)
                j = 0
                rest = mask
                while rest:
                    low = rest & -rest
                    r = _popcount(low - 1)
                    p = r - _popcount(used & (low - 1))
                    j += 1
                    colex += binom[p, j]
                    rest ^= low
                idx += mult * colex
                mult *= binom[num_ranks - _popcount(used), m]
                used |= mask
            keys[s] = key
            idxs[s] = idx
        # sort the four suits by (key, idx) descending (insertion sort)
        for a in range(1, 4):
            k0 = keys[a]
            i0 = idxs[a]
            b = a - 1
            while b >= 0 and (keys[b] < k0 or (keys[b] == k0 and idxs[b] < i0)):
                keys[b + 1] = keys[b]
                idxs[b + 1] = idxs[b]
                b -= 1
            keys[b + 1] = k0
            idxs[b + 1] = i0
        shift = SHAPE_BITS * num_groups
        ckey = np.int64(0)
        for s in range(4):
            ckey = (ckey << shift) | keys[s]
        c = np.searchsorted(config_keys, ckey)
        if c >= config_keys.size or config_keys[c] != ckey:
            out[row] = -1
            continue
        total = np.int64(0)
        radix = np.int64(1)
        s = 0
        while s < 4:
            k = config_run[c, s]
            space = config_space[c, s]
            digit = np.int64(0)
            for j in range(k):
                digit += big_binom(idxs[s + j] + k - 1 - j, k - j)
            total += digit * radix
            radix *= big_binom(space + k - 1, k)
            s += k
        out[row] = config_offset[c] + total


@njit(cache=True)
def _unrank_multiset(rank: np.int64, k: np.int64, space: np.int64, out: np.ndarray) -> None:
    """The k values (descending, each < space) of the multiset with colex rank ``rank``."""
    for j in range(k):
        t = k - j
        # largest x with C(x, t) <= rank, x = v + t - 1
        lo = np.int64(t - 1)
        hi = np.int64(space + t - 1)  # C(hi, t) > rank for every valid rank
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if big_binom(mid, t) <= rank:
                lo = mid
            else:
                hi = mid
        out[j] = lo - (t - 1)
        rank -= big_binom(lo, t)


@njit(cache=True)
def unindex_hands(
    indices: np.ndarray,
    group_sizes: np.ndarray,
    rank_base: np.int64,
    num_ranks: np.int64,
    binom: np.ndarray,
    config_keys: np.ndarray,
    config_offset: np.ndarray,
    config_space: np.ndarray,
    config_run: np.ndarray,
    out: np.ndarray,
    weights: np.ndarray,
) -> None:
    """A canonical hand of each index into ``out`` (n, total) (sorted ascending within each
    group), and the number of hands of its class into ``weights`` (n,)."""
    n = indices.size
    num_groups = group_sizes.size
    vals = np.zeros(4, np.int64)
    idxs = np.zeros(4, np.int64)
    group_start = np.zeros(num_groups + 1, np.int64)
    for g in range(num_groups):
        group_start[g + 1] = group_start[g] + group_sizes[g]
    fill = np.zeros(num_groups, np.int64)
    shift = SHAPE_BITS * num_groups
    shape_mask = (np.int64(1) << shift) - 1
    for row in range(n):
        index = indices[row]
        c = np.searchsorted(config_offset, index, side="right") - 1
        rest = index - config_offset[c]
        s = 0
        while s < 4:
            k = config_run[c, s]
            space = config_space[c, s]
            count = big_binom(space + k - 1, k)
            digit = rest % count
            rest //= count
            _unrank_multiset(digit, k, space, vals)
            for j in range(k):
                idxs[s + j] = vals[j]
            s += k
        for g in range(num_groups):
            fill[g] = 0
        for s in range(4):
            key = (config_keys[c] >> (shift * (3 - s))) & shape_mask
            idx = idxs[s]
            used = np.int64(0)
            for g in range(num_groups):
                m = (key >> (SHAPE_BITS * (num_groups - 1 - g))) & 7
                free = num_ranks - _popcount(used)
                space = binom[free, m]
                colex = idx % space
                idx //= space
                # unrank colex among the free ranks: positions p_m > ... > p_1
                for j in range(m, 0, -1):
                    p = j - 1
                    while binom[p + 1, j] <= colex:
                        p += 1
                    colex -= binom[p, j]
                    # the p-th free rank (0-based)
                    r = 0
                    seen = -1
                    while True:
                        if not (used >> r) & 1:
                            seen += 1
                            if seen == p:
                                break
                        r += 1
                    out[row, group_start[g] + fill[g]] = 4 * (r + rank_base) + s
                    fill[g] += 1
                for j in range(fill[g] - m, fill[g]):
                    used |= np.int64(1) << ((out[row, group_start[g] + j] >> 2) - rank_base)
        # sort each group ascending
        for g in range(num_groups):
            a0 = group_start[g]
            for a in range(a0 + 1, group_start[g + 1]):
                v = out[row, a]
                b = a - 1
                while b >= a0 and out[row, b] > v:
                    out[row, b + 1] = out[row, b]
                    b -= 1
                out[row, b + 1] = v
        # weight: 24 / prod(factorial of runs of identical suits)
        denom = np.int64(1)
        s = 0
        while s < 4:
            key_s = (config_keys[c] >> (shift * (3 - s))) & shape_mask
            t = s + 1
            while t < 4:
                key_t = (config_keys[c] >> (shift * (3 - t))) & shape_mask
                if key_t != key_s or idxs[t] != idxs[s]:
                    break
                t += 1
            for f in range(2, t - s + 1):
                denom *= f
            s = t
        weights[row] = 24 // denom


@njit(cache=True)
def class_weights_range(
    start: np.int64,
    stop: np.int64,
    config_keys: np.ndarray,
    config_offset: np.ndarray,
    config_space: np.ndarray,
    config_run: np.ndarray,
    num_groups: np.int64,
    out: np.ndarray,
) -> None:
    """Hands per class of the indices ``start .. stop-1`` into ``out``: 24 over the product of
    the factorials of the runs of identical suits (equal shape and equal rank-set index), read
    from the multiset digits alone (no cards rebuilt, unlike :func:`unindex_hands`)."""
    vals = np.zeros(4, np.int64)
    idxs = np.zeros(4, np.int64)
    shift = SHAPE_BITS * num_groups
    shape_mask = (np.int64(1) << shift) - 1
    c = np.searchsorted(config_offset, start, side="right") - 1
    for index in range(start, stop):
        while c + 1 < config_offset.size and config_offset[c + 1] <= index:
            c += 1
        rest = index - config_offset[c]
        s = 0
        while s < 4:
            k = config_run[c, s]
            space = config_space[c, s]
            count = big_binom(space + k - 1, k)
            digit = rest % count
            rest //= count
            _unrank_multiset(digit, k, space, vals)
            for j in range(k):
                idxs[s + j] = vals[j]
            s += k
        denom = np.int64(1)
        s = 0
        while s < 4:
            key_s = (config_keys[c] >> (shift * (3 - s))) & shape_mask
            t = s + 1
            while t < 4:
                key_t = (config_keys[c] >> (shift * (3 - t))) & shape_mask
                if key_t != key_s or idxs[t] != idxs[s]:
                    break
                t += 1
            for f in range(2, t - s + 1):
                denom *= f
            s = t
        out[index - start] = 24 // denom
