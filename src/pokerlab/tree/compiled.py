"""A game compiled for the kernels: the game and its tree backend.

:func:`compile_game` picks the representation: the game's own vector tree (the public tree, or
any other :class:`~pokerlab.tree.backend.TreeBackend` its ``public_tree()`` returns) when the game
offers one, otherwise the history tree (any game of the history interface). All backends give the
same kind of information-set keys, so strategies and results read the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.tree.backend import InfosetIndexLike, TreeBackend
from pokerlab.tree.history.tree import compile_history_tree
from pokerlab.tree.history_interface import HistoryGame
from pokerlab.tree.index import InfosetIndex

__all__ = ["InfosetIndex", "CompiledGame", "compile_game"]

#: Representations built in: ``"public"`` (the game's vector tree) and ``"history"``. A game's
#: ``public_tree()`` may return a backend of another kind (``"postflop"``...); that kind's name is
#: accepted as a representation too.
TreeKind = Literal["public", "history"]


@dataclass(eq=False)
class CompiledGame:
    """A game with its tree backend (``tree``); the layout facts delegate to the backend."""

    game: HistoryGame
    tree: TreeBackend

    @property
    def kind(self) -> str:
        """The backend's kind: ``"public"``, ``"history"``, ..."""
        return self.tree.kind

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

    @property
    def index(self) -> InfosetIndexLike:
        """The backend's information-set index."""
        return self.tree.index

    def uniform(self) -> np.ndarray:
        """Flat array of the uniform strategy (1 / actions at every information set)."""
        return self.tree.uniform()

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        """Per-information-set normalisation of non-negative sums (uniform where they are 0)."""
        return self.tree.normalise(sums)


def compile_game(game: HistoryGame, representation: str | None = None) -> CompiledGame:
    """Compile ``game`` (cached on the game object per representation).

    ``representation`` forces ``"history"``, or ``"public"`` (the game's own vector tree, whatever
    its kind), or that tree's kind by name (``"postflop"``); by default the game's vector tree is
    used whenever the game provides one.
    """
    cache = game.__dict__.setdefault("_compiled_cache", {})
    if representation is not None and representation in cache:
        return cache[representation]
    vector = game.public_tree() if representation != "history" else None
    if vector is None:
        if representation not in (None, "history"):
            raise PokerlabError(f"game {game.name!r} has no {representation!r} tree form")
        key = "history"
        if key not in cache:
            cache[key] = CompiledGame(game=game, tree=compile_history_tree(game))
        return cache[key]
    if representation not in (None, "public", vector.kind):
        raise PokerlabError(
            f"game {game.name!r} has no {representation!r} tree form (its vector tree is "
            f"{vector.kind!r})"
        )
    if vector.kind not in cache:
        cache[vector.kind] = CompiledGame(game=game, tree=vector)
    compiled = cache[vector.kind]
    cache.setdefault("public", compiled)
    return compiled
