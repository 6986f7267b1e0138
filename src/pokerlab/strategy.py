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

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame
from pokerlab.tree.compiled import CompiledGame, compile_game

__all__ = ["Strategy", "uniform_strategy"]


@dataclass(eq=False)
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
