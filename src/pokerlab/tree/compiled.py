"""A game compiled for the kernels: its flat tree and the index of its information sets.

:func:`compile_game` picks the representation: the public tree (vectors over private states) when
the game offers one and has two players, otherwise the history tree (any game of the history
interface). Both give the same information-set keys, so strategies and results read the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from pokerlab.games.base import HistoryGame
from pokerlab.tree._layout_kernels import normalise_history, normalise_public
from pokerlab.tree.history_tree import HistoryTree, compile_history_tree
from pokerlab.tree.public_tree import DECISION, PublicTree

__all__ = ["InfosetIndex", "CompiledGame", "compile_game"]

TreeKind = Literal["public", "history"]


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


@dataclass(eq=False)
class CompiledGame:
    """A game with its flat tree (public or history) and information-set index."""

    game: HistoryGame
    kind: TreeKind
    tree: PublicTree | HistoryTree

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def size(self) -> int:
        """Length of the solver arrays (numbers per regret table)."""
        return self.tree.size

    @property
    def player_ranges(self) -> np.ndarray:
        return np.array(self.tree.player_ranges, dtype=np.int64)

    @cached_property
    def index(self) -> InfosetIndex:
        if self.kind == "history":
            t = self.tree
            assert isinstance(t, HistoryTree)
            off = t.arrays.info_offset
            return InfosetIndex(
                offset=off[:-1].copy(),
                stride=np.ones(t.num_infosets, dtype=np.int64),
                num_actions=np.diff(off),
                player=t.arrays.info_player.astype(np.int64),
                keys=list(t.info_keys),
                labels=list(t.action_labels),
            )
        t = self.tree
        assert isinstance(t, PublicTree)
        a = t.arrays
        num_h = t.num_private
        offsets, strides, counts, players, keys, labels = [], [], [], [], [], []
        for n in np.flatnonzero(a.kind == DECISION):
            na = t.num_actions(int(n))
            for h in np.flatnonzero(a.valid[a.board[n]]):
                offsets.append(int(a.offset[n]) + int(h))
                strides.append(num_h)
                counts.append(na)
                players.append(int(a.player[n]))
                keys.append(t.info_key(int(n), int(h)))
                labels.append(t.action_labels[n])
        return InfosetIndex(
            offset=np.array(offsets, dtype=np.int64),
            stride=np.array(strides, dtype=np.int64),
            num_actions=np.array(counts, dtype=np.int64),
            player=np.array(players, dtype=np.int64),
            keys=keys,
            labels=labels,
        )

    def uniform(self) -> np.ndarray:
        """Flat array of the uniform strategy (1 / actions at every information set)."""
        probs = np.zeros(self.size, dtype=np.float64)
        idx = self.index
        for k in range(len(idx)):
            probs[idx.positions(k)] = 1.0 / idx.num_actions[k]
        return probs

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        """Per-information-set normalisation of non-negative sums (uniform where they are 0)."""
        out = np.zeros(self.size, dtype=np.float64)
        sums = np.ascontiguousarray(sums, dtype=np.float64)
        if self.kind == "history":
            t = self.tree
            assert isinstance(t, HistoryTree)
            normalise_history(sums, out, t.arrays.info_offset)
            return out
        t = self.tree
        assert isinstance(t, PublicTree)
        a = t.arrays
        normalise_public(sums, out, a.decisions, a.offset, a.child_start, t.num_private)
        return out


def compile_game(game: HistoryGame, representation: TreeKind | None = None) -> CompiledGame:
    """Compile ``game`` (cached on the game object per representation).

    ``representation`` forces ``"public"`` or ``"history"``; by default the public tree is used
    whenever the game provides one.
    """
    cache = game.__dict__.setdefault("_compiled_cache", {})
    public = game.public_tree() if representation in (None, "public") else None
    if representation == "public" and public is None:
        from pokerlab.errors import PokerlabError

        raise PokerlabError(f"game {game.name!r} has no public-tree form")
    kind: TreeKind = "public" if public is not None else "history"
    if kind not in cache:
        tree = public if public is not None else compile_history_tree(game)
        cache[kind] = CompiledGame(game=game, kind=kind, tree=tree)
    return cache[kind]
