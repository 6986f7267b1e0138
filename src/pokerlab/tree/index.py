"""The eager information-set index of the public and history trees.

:class:`InfosetIndex` satisfies :class:`~pokerlab.tree.backend.InfosetIndexLike` with plain
arrays and lists: every key is materialised and looked up in a dictionary built on first use.
Backends with millions of information sets may provide a lazy index instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["InfosetIndex"]


@dataclass
class InfosetIndex:
    """Where each information set's numbers live in a flat solver array.

    The numbers of information set k are ``array[offset[k] + a * stride[k]]`` for
    ``a < num_actions[k]``.
    """

    offset: np.ndarray
    stride: np.ndarray
    num_actions: np.ndarray
    player: np.ndarray
    keys: list[str]
    labels: list[tuple[str, ...]]
    _lookup: dict[str, int] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.keys)

    def find(self, key: str) -> int:
        """Position of ``key``; raises KeyError naming it when absent."""
        if not self._lookup:
            self._lookup.update((k, i) for i, k in enumerate(self.keys))
        try:
            return self._lookup[key]
        except KeyError:
            raise KeyError(f"no information set {key!r}") from None

    def positions(self, k: int) -> np.ndarray:
        """Flat-array positions of the actions of information set ``k``."""
        return self.offset[k] + np.arange(self.num_actions[k]) * self.stride[k]

    def uniform(self, size: int) -> np.ndarray:
        """Flat float64 array of length ``size``: 1 / actions at every position of every
        information set, 0 at positions no information set owns."""
        probs = np.zeros(size, dtype=np.float64)
        counts = np.asarray(self.num_actions, dtype=np.int64)
        if counts.size == 0:
            return probs
        k = np.repeat(np.arange(counts.size), counts)
        first = np.repeat(np.cumsum(counts) - counts, counts)
        a = np.arange(k.size) - first
        probs[self.offset[k] + a * self.stride[k]] = 1.0 / counts[k]
        return probs
