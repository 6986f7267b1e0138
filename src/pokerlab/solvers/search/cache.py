"""The search agent's solved subgames, kept for the later decisions of the hand: least recently
used out first, bounded in number and in memory (issue 25).

A river subgame holds a few megabytes, a turn subgame with both full ranges some tens; a flop
subgame of the full deck holds the whole rest of the game (at the default menu 16.6 GiB of
float32 regrets and sums allocated, about 11 GB of them resident), so a cache bounded by count
alone kept two of them and ran out of memory at the second flop (18.6 GB resident on a 24 GB
machine). Before a subgame is built its bytes are estimated by its spot's bound on float32
regrets and strategy sums (:meth:`~pokerlab.games.postflop.game.PostflopGame.tree_summary`),
and the least recently used subgames are dropped until that estimate fits in the memory
available then (or, with a fixed ``max_bytes``, beside the bytes the others hold, each charged
the arrays its solver holds once solved). So a flop subgame stays beside the hand's turn and
river subgames (whose ranges read it again) and goes before the next flop's is built.
"""

from __future__ import annotations

import gc
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError, PokerlabWarning
from pokerlab.games.postflop.sizing import available_memory_bytes

__all__ = [
    "Refusals",
    "SearchRecord",
    "SubgameCache",
    "SubgameTooLarge",
    "Solved",
    "estimated_bytes",
    "held_bytes",
]

#: the cache's bound in bytes where the memory available cannot be read
FALLBACK_BYTES = 2 * 2**30
#: a dropped subgame holding this many bytes is collected before the next check
COLLECT_BYTES = 64 * 2**20


class SubgameTooLarge(PokerlabError):
    """A subgame that the memory available cannot hold (:meth:`SubgameCache.check_fits`)."""


class Refusals(list):  # type: ignore[type-arg]
    """Where a subgame did not fit in memory: ``(line, street)`` pairs, the hand's actions up
    to the decision and its street; the blueprint plays the rest of that round (a match goes
    on, and the strategy stays one strategy: the ranges of later rounds read the blueprint
    there too)."""

    def covers(self, view: Any) -> bool:
        """Whether a subgame of ``view``'s round was refused at its line or before it."""
        history, street = view.history, view.state.street
        return any(s == street and history[: len(line)] == line for line, s in self)

    def add(self, view: Any, exc: SubgameTooLarge) -> None:
        """Record the refusal at ``view`` and warn (:class:`~pokerlab.errors.PokerlabWarning`)."""
        self.append((view.history, view.state.street))
        warnings.warn(
            f"{exc}; the blueprint plays the rest of this round", PokerlabWarning, stacklevel=4
        )


@dataclass
class SearchRecord:
    """One subgame solved: its key, street, the board, iterations, wall seconds (spot built,
    ranges and solve), the sizes inserted (chips, street totals) and the agent's own earlier
    decisions of the round frozen for its hand (``"line: action"``; empty when none)."""

    street: int
    board: tuple[int, ...]
    iterations: int
    seconds: float
    inserted: tuple[int, ...]
    nodes: int
    frozen: tuple[str, ...] = ()


@dataclass
class Solved:
    """One solved subgame: the solver, its spot, the seat first to act, the bytes it holds
    (:func:`held_bytes`), and the strategies read at its nodes (node -> probabilities by combo,
    combos present, actions)."""

    solver: Any
    spot: Any
    oop_seat: int
    nbytes: int = 0
    strategies: dict[int, tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]] = field(
        default_factory=dict
    )


def estimated_bytes(game: Any) -> int:
    """Bytes a subgame of the postflop game ``game`` is expected to hold before it is built:
    the spot's bound on its float32 regrets and strategy sums."""
    return int(game.tree_summary()["memory_upper_bound_bytes"])


def held_bytes(obj: Any, depth: int = 4) -> int:
    """Bytes of the numpy arrays reachable from ``obj`` (a solver) through attributes, dicts
    and tuples, ``depth`` levels down, each buffer once. Lists are not walked: a spot's lists
    of nodes hold no arrays and can be long. Written here: ``sys.getsizeof`` does not follow
    references, and the arrays are what a subgame's memory is."""
    seen: set[int] = set()

    def walk(x: Any, left: int) -> int:
        if isinstance(x, np.ndarray):
            base = x
            while isinstance(base.base, np.ndarray):
                base = base.base
            if id(base) in seen:
                return 0
            seen.add(id(base))
            return int(base.nbytes)
        if left == 0 or id(x) in seen:
            return 0
        seen.add(id(x))
        if isinstance(x, dict):
            return sum(walk(v, left - 1) for v in x.values())
        if isinstance(x, tuple):
            return sum(walk(v, left - 1) for v in x)
        attrs = getattr(x, "__dict__", None)
        return 0 if attrs is None else sum(walk(v, left - 1) for v in attrs.values())

    return walk(obj, depth)


class SubgameCache:
    """Solved subgames by key, at most ``size`` of them; a new one is made room for by
    :meth:`make_room` (the memory available then, or the fixed bound ``max_bytes`` on the bytes
    held, each :attr:`Solved.nbytes`)."""

    def __init__(self, size: int, max_bytes: int | None = None) -> None:
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise PokerlabError(f"cache must be a positive number of subgames, got {size!r}")
        if max_bytes is not None and (isinstance(max_bytes, bool) or not max_bytes > 0):
            raise PokerlabError(f"cache_bytes must be > 0, got {max_bytes!r}")
        self.size = size
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple[Any, ...], Solved] = OrderedDict()
        #: subgames dropped to make room for a new one by memory
        self.evicted_for_bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    def values(self) -> Iterator[Solved]:
        """The cached subgames, least recently used first."""
        return iter(list(self._entries.values()))

    @property
    def nbytes(self) -> int:
        """The bytes of the subgames held."""
        return sum(s.nbytes for s in self._entries.values())

    def get(self, key: tuple[Any, ...]) -> Solved | None:
        """The subgame at ``key`` (now the most recently used), or None."""
        solved = self._entries.get(key)
        if solved is not None:
            self._entries.move_to_end(key)
        return solved

    def _fits(self, nbytes: int) -> bool:
        bound = self.max_bytes
        if bound is None:
            available = available_memory_bytes()
            if available is not None:
                return nbytes <= available
            bound = FALLBACK_BYTES
        return self.nbytes + nbytes <= bound

    def make_room(self, nbytes: int) -> bool:
        """Before a subgame of ``nbytes`` (:func:`estimated_bytes`) is built: drop the least
        recently used until it fits (module docstring; all of them if it never does); True when
        something was dropped, its memory then given back before the build."""
        dropped = False
        while self._entries and not self._fits(nbytes):
            _, solved = self._entries.popitem(last=False)
            self.evicted_for_bytes += 1
            dropped = True
            # a solver's thread pool and passes refer to each other: a large one's memory comes
            # back only after a collection, which the next check must see; small ones are
            # collected once at the end (one collection per drop made an exact best response
            # with thousands of river subgames cached spend minutes here)
            if solved.nbytes >= COLLECT_BYTES:
                gc.collect()
        if dropped:
            gc.collect()
        return dropped

    def check_fits(self, nbytes: int, what: str) -> None:
        """After :meth:`make_room`: refuse, by name, a subgame of ``nbytes`` that the memory
        available still cannot hold (built, it would be killed for memory; nothing is refused
        when the memory available is unknown, or under a fixed ``max_bytes``, which bounds
        only what is kept)."""
        available = available_memory_bytes() if self.max_bytes is None else None
        if available is not None and nbytes > available:
            raise SubgameTooLarge(
                f"{what} needs about {nbytes / 2**30:.1f} GiB and {available / 2**30:.1f} GiB "
                "is available: sample fewer cards below its leaves (deal_sample), use fewer "
                "continuations or bet sizes, or search later streets"
            )

    def put(self, key: tuple[Any, ...], solved: Solved) -> None:
        """Keep ``solved`` at ``key`` as the most recently used; the least recently used go
        past :attr:`size`."""
        self._entries[key] = solved
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)
