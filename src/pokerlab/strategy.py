"""The one strategy type: probabilities in a flat array plus the information-set index.

Every solver returns a :class:`Strategy`; every evaluator, viewer and file format consumes it.
Look up an information set by its readable key::

    >>> import pokerlab
    >>> game = pokerlab.load_game("kuhn")
    >>> s = pokerlab.uniform_strategy(game)
    >>> s["K:pb"]
    {'p': 0.5, 'b': 0.5}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame
from pokerlab.tree.betting.layout import BettingLayout
from pokerlab.tree.compiled import CompiledGame, compile_game

__all__ = ["BettingStrategy", "Strategy", "require_strategy", "uniform_strategy"]


@dataclass(eq=False, repr=False)
class Strategy:
    """A behaviour strategy profile for every player of a compiled game.

    ``probs`` has the solver-array layout of ``compiled``; ``probs[index.positions(k)]`` are the
    action probabilities of information set k, summing to 1.
    """

    compiled: CompiledGame
    probs: np.ndarray

    @property
    def game(self) -> HistoryGame:
        return self.compiled.game

    def __len__(self) -> int:
        return len(self.compiled.index)

    def __contains__(self, key: object) -> bool:
        """Whether ``strategy[key]`` finds an information set (False for a non-str key)."""
        if not isinstance(key, str):
            return False
        try:
            self.compiled.index.find(key)
        except KeyError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        """The information-set keys, in layout order (as :meth:`keys` and :meth:`items`)."""
        return iter(self.compiled.index.keys)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game.name!r}, infosets={len(self)})"

    def keys(self) -> list[str]:
        """Keys of all information sets, in layout order."""
        return list(self.compiled.index.keys)

    def action_probs(self, key: str) -> np.ndarray:
        """Probabilities of the actions at information set ``key``."""
        idx = self.compiled.index
        return self.probs[idx.positions(idx.find(key))].copy()

    def __getitem__(self, key: str) -> dict[str, float]:
        idx = self.compiled.index
        k = idx.find(key)
        values = self.probs[idx.positions(k)]
        return {label: float(p) for label, p in zip(idx.labels[k], values, strict=True)}

    def items(self) -> Iterator[tuple[str, dict[str, float]]]:
        """(key, {action: probability}) for every information set."""
        for key in self.compiled.index.keys:
            yield key, self[key]

    def to_dict(self) -> dict[str, dict[str, float]]:
        return dict(self.items())

    @classmethod
    def from_dict(
        cls, game: HistoryGame | CompiledGame, table: Mapping[str, Mapping[str, float]]
    ) -> Strategy:
        """A strategy from ``{key: {action label: probability}}``; missing keys are uniform.

        Probabilities are normalised per information set; unknown keys or labels raise an error.
        """
        compiled = game if isinstance(game, CompiledGame) else compile_game(game)
        probs = compiled.uniform()
        idx = compiled.index
        for key, row in table.items():
            try:
                k = idx.find(key)
            except KeyError as exc:
                raise PokerlabError(str(exc.args[0])) from None
            labels = idx.labels[k]
            values = np.zeros(len(labels))
            for label, p in row.items():
                if label not in labels:
                    raise PokerlabError(f"action {label!r} is not legal at {key!r}")
                if not (p >= 0.0):
                    raise PokerlabError(f"negative or NaN probability {p!r} at {key!r}")
                values[labels.index(label)] = p
            total = values.sum()
            probs[idx.positions(k)] = values / total if total > 0 else 1.0 / len(labels)
        return cls(compiled, probs)


def uniform_strategy(game: HistoryGame | CompiledGame) -> Strategy:
    """Every player picks uniformly among legal actions."""
    compiled = game if isinstance(game, CompiledGame) else compile_game(game)
    return Strategy(compiled, compiled.uniform())


@dataclass(eq=False, repr=False)
class BettingStrategy(Strategy):
    """An abstract limit hold'em strategy: the probability table over (decision node, bucket
    state) of a :class:`~pokerlab.tree.betting.layout.BettingLayout` (``compiled.tree``), with
    the card abstraction it plays by (``abstraction``, a
    :class:`~pokerlab.abstraction.buckets.CardAbstraction`; None when read from a file, where
    ``identity`` keeps what rebuilds it). Keys read ``"flop:rc/cr:3"`` (round, betting line,
    bucket state); ``probs`` (also :attr:`table`) is the flat table the kernels read."""

    abstraction: Any = None
    #: JSON fields naming the abstraction (``ranks``, ``bucketing``, ``seed``), for files
    identity: dict[str, Any] | None = None

    @classmethod
    def of(
        cls,
        game: HistoryGame,
        layout: BettingLayout,
        probs: np.ndarray,
        abstraction: Any = None,
        identity: dict[str, Any] | None = None,
    ) -> BettingStrategy:
        """The strategy ``probs`` (flat, ``layout.size``) of ``game`` in ``layout``."""
        probs = np.asarray(probs)
        if probs.shape != (layout.size,):
            raise PokerlabError(
                f"a table of {probs.shape} entries for a layout of {layout.size} entries"
            )
        if abstraction is not None and tuple(abstraction.buckets) != layout.buckets:
            raise PokerlabError(
                f"abstraction of buckets {tuple(abstraction.buckets)} for a layout of "
                f"{layout.buckets}"
            )
        return cls(CompiledGame(game, layout), probs, abstraction, identity)  # type: ignore[arg-type]

    @property
    def layout(self) -> BettingLayout:
        return self.compiled.tree  # type: ignore[return-value]

    @property
    def table(self) -> np.ndarray:
        """The flat probability table (``offset[n] + action * states + state``)."""
        return self.probs

    @property
    def recall(self) -> str:
        return self.layout.recall

    def file_identity(self) -> dict[str, Any]:
        """JSON fields a strategy file keeps: the layout's (buckets, states per round, recall)
        and the abstraction's identity (``ranks``, ``bucketing``, ``abstraction_seed``)."""
        return {**(self.identity or {}), **self.layout.identity()}

    def with_probs(self, probs: np.ndarray) -> BettingStrategy:
        """Another table in the same layout, with the same abstraction."""
        return BettingStrategy.of(
            self.game, self.layout, np.asarray(probs), self.abstraction, self.identity
        )


def require_strategy(value: Any, expected: str = "expected a Strategy") -> Strategy:
    """``value`` when it is a :class:`Strategy`, else :class:`~pokerlab.errors.PokerlabError`
    ``"{expected}, got TYPE"``, pointing a solver to its ``average_strategy()``."""
    if not isinstance(value, Strategy):
        hint = " (a solver: pass solver.average_strategy())" if hasattr(value, "step") else ""
        raise PokerlabError(f"{expected}, got {type(value).__name__}{hint}")
    return value
