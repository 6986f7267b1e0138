"""Suit-isomorphic canonical indices of (hole cards, board): a bijection per round.

Two hands are isomorphic when a permutation of the suits maps one onto the other (the cards of
each group, here hole cards and board, are sets: order inside a group does not matter). A
:class:`HandIndexer` numbers the classes ``0 .. size - 1`` without any table of hands, following
Waugh (2013), "A Fast and Optimal Hand Isomorphism Algorithm": per suit, the ranks it holds in
each group; suits sorted; the index combines each suit's rank sets (colex ranks) and, for suits
of the same shape, the multiset of their indices. :meth:`HandIndexer.unindex` gives a canonical
hand of each class and its number of hands.

Published class counts of full hold'em (hole cards, board as one group): 169 preflop, 1,286,792
flop, 13,960,050 turn, 123,156,254 river; the tests check them, and check the bijection against
a brute-force enumeration on small decks.

>>> from pokerlab.abstraction.isomorphism import round_indexer
>>> round_indexer(0).size, round_indexer(1).size
(169, 1286792)
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from pokerlab.abstraction import _iso_kernels as K
from pokerlab.errors import PokerlabError

__all__ = ["HandIndexer", "round_indexer", "ROUND_GROUPS"]

#: Card groups per betting round for bucketing: hole cards, then the board as one set.
ROUND_GROUPS: tuple[tuple[int, ...], ...] = ((2,), (2, 3), (2, 4), (2, 5))


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Ordered ways to write ``total`` as ``parts`` non-negative integers."""
    if parts == 1:
        return [(total,)]
    return [
        (first,) + rest
        for first in range(total + 1)
        for rest in _compositions(total - first, parts - 1)
    ]


class HandIndexer:
    """Canonical indices of hands made of card groups (e.g. ``(2, 3)``: two hole cards and a
    three-card flop) from a deck of the top ``ranks`` ranks in four suits.

    Parameters
    ----------
    groups:
        Cards per group, in order; each group is a set (order inside it is ignored).
    ranks:
        Ranks in the deck, the top ones (13 for the full deck, 6 for the 24-card 9..A deck).
    """

    def __init__(self, groups: Sequence[int], ranks: int = 13) -> None:
        self.groups = tuple(int(g) for g in groups)
        self.ranks = int(ranks)
        if not self.groups or any(g < 0 or g > 7 for g in self.groups) or len(self.groups) > 4:
            raise PokerlabError(f"hand indexer: groups must be 1 to 4 sizes in 0..7, got {groups}")
        if not 1 <= self.ranks <= 13 or sum(self.groups) > 4 * self.ranks:
            raise PokerlabError(f"hand indexer: {sum(self.groups)} cards from {self.ranks} ranks")
        self.rank_base = 13 - self.ranks
        n = self.ranks
        self._binom = np.zeros((max(n, 8) + 2, 9), dtype=np.int64)
        for a in range(self._binom.shape[0]):
            for b in range(9):
                self._binom[a, b] = _comb(a, b)
        bits = K.SHAPE_BITS
        num_groups = len(self.groups)
        # Every configuration: a shape per suit (cards of each group), suits sorted descending.
        per_group = [_compositions(g, 4) for g in self.groups]
        configs: set[tuple[int, ...]] = set()
        for split in itertools.product(*per_group):
            shapes = []
            ok = True
            for s in range(4):
                sizes = tuple(split[g][s] for g in range(num_groups))
                if sum(sizes) > n:
                    ok = False
                    break
                key = 0
                for m in sizes:
                    key = (key << bits) | m
                shapes.append(key)
            if ok:
                configs.add(tuple(sorted(shapes, reverse=True)))
        ordered = sorted(configs, key=lambda c: _config_key(c, bits * num_groups))
        self._keys = np.array([_config_key(c, bits * num_groups) for c in ordered], np.int64)
        self._space = np.zeros((len(ordered), 4), np.int64)
        self._run = np.zeros((len(ordered), 4), np.int64)
        self._offset = np.zeros(len(ordered), np.int64)
        total = 0
        for i, shapes in enumerate(ordered):
            size = 1
            for s, key in enumerate(shapes):
                sizes = [(key >> (bits * (num_groups - 1 - g))) & 7 for g in range(num_groups)]
                space, used = 1, 0
                for m in sizes:
                    space *= _comb(n - used, m)
                    used += m
                self._space[i, s] = space
            s = 0
            while s < 4:
                t = s
                while t < 4 and shapes[t] == shapes[s]:
                    t += 1
                self._run[i, s] = t - s
                size *= _comb(int(self._space[i, s]) + t - s - 1, t - s)
                s = t
            self._offset[i] = total
            total += size
        self.size = total
        self._sizes = np.array(self.groups, np.int64)

    @property
    def num_cards(self) -> int:
        return sum(self.groups)

    def _tables(self) -> tuple:
        return (
            self._sizes,
            np.int64(self.rank_base),
            np.int64(self.ranks),
            self._binom,
            self._keys,
            self._offset,
            self._space,
            self._run,
        )

    def index(self, cards: np.ndarray) -> np.ndarray:
        """Class index (int64) of each row of ``cards`` (n, sum(groups)) of card ids."""
        arr = np.ascontiguousarray(cards, dtype=np.int64)
        if arr.ndim == 1:
            arr = arr[None, :]
        if arr.shape[1] != self.num_cards:
            raise PokerlabError(f"hand indexer: rows of {self.num_cards} cards expected")
        if arr.size and (arr.min() < 4 * self.rank_base or arr.max() > 51):
            raise PokerlabError("hand indexer: a card is outside the deck")
        out = np.empty(arr.shape[0], np.int64)
        K.index_hands(arr, *self._tables(), out)
        return out

    def unindex(self, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A canonical hand (n, sum(groups); ascending within each group) of each index, and
        the number of hands in its class (int64; they sum to the number of hands)."""
        idx = np.ascontiguousarray(np.atleast_1d(indices), dtype=np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= self.size):
            raise PokerlabError(f"hand indexer: indices must be in 0..{self.size - 1}")
        out = np.empty((idx.size, self.num_cards), np.int64)
        weights = np.empty(idx.size, np.int64)
        K.unindex_hands(idx, *self._tables(), out, weights)
        return out, weights

    def weights(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Hands in each class ``start .. stop-1`` (int32), without rebuilding the cards."""
        stop = self.size if stop is None else int(stop)
        out = np.empty(stop - start, np.int32)
        K.class_weights_range(
            np.int64(start),
            np.int64(stop),
            self._keys,
            self._offset,
            self._space,
            self._run,
            np.int64(len(self.groups)),
            out,
        )
        return out

    def kernel_tables(self) -> tuple:
        """The arrays :func:`pokerlab.abstraction._iso_kernels.index_hands` takes after the
        cards (for other kernels that index hands in their own loops)."""
        return self._tables()


def _comb(n: int, k: int) -> int:
    if k < 0 or n < k or n < 0:
        return 0
    from math import comb

    return comb(n, k)


def _config_key(shapes: Sequence[int], shift: int) -> int:
    key = 0
    for s in shapes:
        key = (key << shift) | s
    return key


@lru_cache(maxsize=32)
def round_indexer(rnd: int, ranks: int = 13) -> HandIndexer:
    """The indexer of betting round ``rnd`` (0 preflop .. 3 river): hole cards and board."""
    if not 0 <= rnd <= 3:
        raise PokerlabError(f"round must be in 0..3, got {rnd}")
    return HandIndexer(ROUND_GROUPS[rnd], ranks)
