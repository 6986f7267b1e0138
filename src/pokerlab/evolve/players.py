"""The three genetic push/fold players of SPEC 5.1, with their initialiser, crossover and mutation.

A population of ``n`` players is one numpy array of genes, and every operator works on the whole
population (or on all mating pairs) at once:

* **simple** ``(n, 2)`` float64, the genes ``r, c`` in [0, 1]: the small blind shoves the best
  ``r`` fraction of the 1326 combos by hand strength (equity against a random hand), the big
  blind calls with the best ``c`` fraction; exactly :func:`pokerlab.analysis.pushfold.top_fraction`,
  so the simple player ``(0.7, 0.6)`` is the strategy spec ``"70/60"``.
  Initialiser ``r, c ~ U(0, 1)``; crossover of ``(rf, cf)`` and ``(rm, cm)`` gives the children
  ``(rf, cm)`` and ``(rm, cf)``; mutation swaps ``r`` and ``c``.
* **complex** ``(n, 2, 169)`` uint8 0/1: a shove table and a call table over the 169 classes
  (class id ``13 * row + col`` of the 13x13 grid, pairs on the diagonal, suited above, offsuit
  below). Initialiser: draw ``r, c ~ U(0, 1)`` and mark the best ``r`` / ``c`` fraction of hands
  (a class is marked when the middle of its combos lies inside the top ``r * 1326`` combos of the
  hand-strength order). Crossover: for each cell of both tables, with probability ``p_cell``
  swap the parents' cells. Mutation: each cell, with probability ``p_mut``, is swapped with a
  uniformly drawn cell of the same table (cells visited in index order).
* **variable** ``(n, 2, 169)`` int8 in 0..10: the largest stack (big blinds) at which the hand
  shoves / calls; at stack ``s`` the hand plays when ``s <= value``. Initialiser: the best ``r`` /
  ``c`` fraction set to 10, the rest 0. Crossover as for complex players. Mutation: each cell,
  with probability ``p_mut``, moves by a uniform integer in [-2, 2], clipped to 0..10.

Every operator takes an explicit :class:`numpy.random.Generator`; the draws are made in a fixed
order, so one seed gives one run.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import numpy as np

from pokerlab.cards.deck import CLASS_SIZE, COMBO_CLASS, N_CLASSES, N_COMBOS, class_name
from pokerlab.errors import PokerlabError

__all__ = [
    "PlayerType",
    "PlayerKind",
    "SimplePlayers",
    "ComplexPlayers",
    "VariablePlayers",
    "player_kind",
    "combo_rank",
    "class_top_mask",
    "MAX_STACK_CELL",
]

PlayerType = Literal["simple", "complex", "variable"]
MAX_STACK_CELL = 10
"""Largest value of a variable-stack table cell (big blinds)."""


@lru_cache(maxsize=1)
def combo_rank() -> np.ndarray:
    """(1326,) position of each combo in the hand-strength order (0 = best), as int64."""
    from pokerlab.cards.orderings import combo_strength_order

    rank = np.empty(N_COMBOS, dtype=np.int64)
    rank[combo_strength_order()] = np.arange(N_COMBOS)
    rank.setflags(write=False)
    return rank


@lru_cache(maxsize=1)
def _class_middle() -> np.ndarray:
    """(169,) combo position of the middle of each class in the hand-strength order."""
    from pokerlab.cards.orderings import hand_strength_order

    order = hand_strength_order()
    sizes = np.asarray(CLASS_SIZE, dtype=np.float64)[order]
    start = np.concatenate([[0.0], np.cumsum(sizes)[:-1]])
    middle = np.empty(N_CLASSES)
    middle[order] = start + sizes / 2.0
    middle.setflags(write=False)
    return middle


def class_top_mask(fractions: np.ndarray) -> np.ndarray:
    """(n, 169) bool: the best ``fraction`` of hands by hand strength, in whole classes.

    A class is in when the middle of its combos lies within the top ``fraction * 1326`` combos,
    so the marked combo share is the closest whole-class share to ``fraction``.
    """
    fractions = np.asarray(fractions, dtype=np.float64)
    return _class_middle()[None, :] <= fractions[:, None] * N_COMBOS


def _pair_masks(rng: np.random.Generator, pairs: int, p_cross: float) -> np.ndarray:
    return rng.random(pairs) < p_cross


class PlayerKind:
    """Operators and views of one player type (all methods work on whole populations).

    Subclasses set ``name``, ``hand_basis`` (``"combos"`` or ``"classes"``: the length of the
    per-hand arrays they produce) and ``variable`` (tables by stack).
    """

    name: PlayerType
    hand_basis: Literal["combos", "classes"]
    variable: bool = False

    def initialise(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """A random population of ``n`` players (genes array)."""
        raise NotImplementedError

    def crossover(
        self, rng: np.random.Generator, first: np.ndarray, second: np.ndarray, p_cell: float
    ) -> tuple[np.ndarray, np.ndarray]:
        """Children of the mating pairs ``(first[k], second[k])`` (new arrays, same shapes)."""
        raise NotImplementedError

    def mutate(self, rng: np.random.Generator, genes: np.ndarray, p_mut: float) -> np.ndarray:
        """The population after mutation (a new array)."""
        raise NotImplementedError

    def hand_arrays(self, genes: np.ndarray, stacks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(shove, call) probabilities, shape (n, len(stacks), hands) over the ``hand_basis``."""
        raise NotImplementedError

    def describe(self, one: np.ndarray) -> dict[str, object]:
        """A JSON-ready description of one player's genes."""
        raise NotImplementedError

    def fractions(self, genes: np.ndarray, stacks: np.ndarray) -> np.ndarray:
        """(n, 2) combo-weighted shove and call shares (mean over the stacks), 0..1."""
        shove, call = self.hand_arrays(genes, stacks)
        if self.hand_basis == "classes":
            weights = np.asarray(CLASS_SIZE, dtype=np.float64) / N_COMBOS
        else:
            weights = np.full(N_COMBOS, 1.0 / N_COMBOS)
        return np.stack([(shove @ weights).mean(axis=1), (call @ weights).mean(axis=1)], axis=1)

    def check(self, genes: np.ndarray) -> np.ndarray:
        """Validate a genes array of this type (raises PokerlabError); returns it as an array."""
        raise NotImplementedError


class SimplePlayers(PlayerKind):
    """Simple players: genes ``(r, c)``; shove / call the best r / c fraction of combos."""

    name: PlayerType = "simple"
    hand_basis: Literal["combos", "classes"] = "combos"

    def initialise(self, rng: np.random.Generator, n: int) -> np.ndarray:
        return rng.random((n, 2))

    def crossover(
        self, rng: np.random.Generator, first: np.ndarray, second: np.ndarray, p_cell: float
    ) -> tuple[np.ndarray, np.ndarray]:
        # (rf, cf) x (rm, cm) -> (rf, cm), (rm, cf): the call genes change places.
        a, b = first.copy(), second.copy()
        a[:, 1], b[:, 1] = second[:, 1], first[:, 1]
        return a, b

    def mutate(self, rng: np.random.Generator, genes: np.ndarray, p_mut: float) -> np.ndarray:
        out = genes.copy()
        swap = rng.random(len(genes)) < p_mut
        out[swap] = genes[swap][:, ::-1]
        return out

    def cutoffs(self, genes: np.ndarray) -> np.ndarray:
        """(n, 2) int64 numbers of combos shoved / called: ``round(fraction * 1326)``."""
        return np.rint(np.asarray(genes, dtype=np.float64) * N_COMBOS).astype(np.int64)

    def hand_arrays(self, genes: np.ndarray, stacks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        k = self.cutoffs(genes)
        rank = combo_rank()
        shove = (rank[None, :] < k[:, 0:1]).astype(np.float64)
        call = (rank[None, :] < k[:, 1:2]).astype(np.float64)
        rows = len(stacks)
        return (
            np.repeat(shove[:, None, :], rows, axis=1),
            np.repeat(call[:, None, :], rows, axis=1),
        )

    def describe(self, one: np.ndarray) -> dict[str, object]:
        return {"r": float(one[0]), "c": float(one[1])}

    def check(self, genes: np.ndarray) -> np.ndarray:
        arr = np.atleast_2d(np.asarray(genes, dtype=np.float64))
        if arr.ndim != 2 or arr.shape[1] != 2 or np.any(~((arr >= 0) & (arr <= 1))):
            raise PokerlabError("simple players need genes (r, c) in [0, 1]")
        return arr


class _TablePlayers(PlayerKind):
    """Shared operators of the two 13x13-table player types."""

    hand_basis: Literal["combos", "classes"] = "classes"
    dtype: type = np.uint8
    top_value: int = 1

    def initialise(self, rng: np.random.Generator, n: int) -> np.ndarray:
        fractions = rng.random((n, 2))
        genes = np.zeros((n, 2, N_CLASSES), dtype=self.dtype)
        for table in (0, 1):
            genes[:, table][class_top_mask(fractions[:, table])] = self.top_value
        return genes

    def crossover(
        self, rng: np.random.Generator, first: np.ndarray, second: np.ndarray, p_cell: float
    ) -> tuple[np.ndarray, np.ndarray]:
        swap = rng.random(first.shape) < p_cell
        return np.where(swap, second, first), np.where(swap, first, second)

    def describe(self, one: np.ndarray) -> dict[str, object]:
        return {
            "sb_shove": {class_name(c): int(one[0, c]) for c in range(N_CLASSES)},
            "bb_call": {class_name(c): int(one[1, c]) for c in range(N_CLASSES)},
        }

    def check(self, genes: np.ndarray) -> np.ndarray:
        arr = np.asarray(genes)
        if arr.ndim == 2:
            arr = arr[None]
        if arr.ndim != 3 or arr.shape[1:] != (2, N_CLASSES):
            raise PokerlabError(f"{self.name} players need two 169-cell tables per player")
        if np.any((arr < 0) | (arr > self.top_value) | (arr != np.rint(arr))):
            raise PokerlabError(f"{self.name} table cells must be integers in 0..{self.top_value}")
        return arr.astype(self.dtype)


class ComplexPlayers(_TablePlayers):
    """Complex players: 0/1 shove and call tables over the 169 classes (fixed stack)."""

    name: PlayerType = "complex"
    dtype = np.uint8
    top_value = 1

    def mutate(self, rng: np.random.Generator, genes: np.ndarray, p_mut: float) -> np.ndarray:
        out = genes.copy()
        hit = rng.random(genes.shape) < p_mut
        where = np.flatnonzero(hit)
        partners = rng.integers(0, N_CLASSES, size=len(where))
        flat = out.reshape(-1, N_CLASSES)  # (n * 2 tables, 169), a view of out
        for idx, j in zip(where.tolist(), partners.tolist(), strict=True):
            row, i = divmod(idx, N_CLASSES)
            flat[row, i], flat[row, j] = flat[row, j], flat[row, i]
        return out

    def hand_arrays(self, genes: np.ndarray, stacks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g = genes.astype(np.float64)
        rows = len(stacks)
        return (
            np.repeat(g[:, None, 0, :], rows, axis=1),
            np.repeat(g[:, None, 1, :], rows, axis=1),
        )


class VariablePlayers(_TablePlayers):
    """Variable-stack players: per class the largest stack (0..10 bb) that shoves / calls."""

    name: PlayerType = "variable"
    dtype = np.int8
    top_value = MAX_STACK_CELL
    variable = True

    def mutate(self, rng: np.random.Generator, genes: np.ndarray, p_mut: float) -> np.ndarray:
        hit = rng.random(genes.shape) < p_mut
        step = rng.integers(-2, 3, size=genes.shape)
        moved = genes.astype(np.int64) + np.where(hit, step, 0)
        return np.clip(moved, 0, MAX_STACK_CELL).astype(self.dtype)

    def hand_arrays(self, genes: np.ndarray, stacks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        s = np.asarray(stacks, dtype=np.float64)[None, :, None]
        shove = (s <= genes[:, None, 0, :] + 1e-9).astype(np.float64)
        call = (s <= genes[:, None, 1, :] + 1e-9).astype(np.float64)
        return shove, call


_KINDS: dict[str, PlayerKind] = {
    "simple": SimplePlayers(),
    "complex": ComplexPlayers(),
    "variable": VariablePlayers(),
}


def player_kind(name: str) -> PlayerKind:
    """The operators of player type ``name`` ("simple", "complex" or "variable")."""
    try:
        return _KINDS[name]
    except KeyError:
        raise PokerlabError(
            f"unknown player type {name!r}: use 'simple', 'complex' or 'variable'"
        ) from None


def expand_to_combos(per_hand: np.ndarray) -> np.ndarray:
    """Per-class arrays (..., 169) as per-combo arrays (..., 1326); combos pass through."""
    if per_hand.shape[-1] == N_COMBOS:
        return per_hand
    return per_hand[..., COMBO_CLASS]
