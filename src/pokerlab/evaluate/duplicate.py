"""The estimate of a duplicate experiment (a match or local best response played in pairs of
games with the cards dealt twice and the seats swapped): the mean in milli-big-blinds per game
and its 95% confidence interval from the normal approximation over the pair sums
(``1.96 * sd / sqrt(pairs)``; each pair's sum has the card luck of both seats cancelled, which
is why the pairs, not the games, are the independent samples)."""

from __future__ import annotations

from math import sqrt
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError

__all__ = ["DuplicateEstimate", "duplicate_estimate"]


def duplicate_estimate(pair_values: np.ndarray) -> tuple[float, float]:
    """(mean, 95% half-width), both in mbb per game, from each pair's sum over its two games
    in big blinds (``pair_values``, at least two pairs)."""
    values = np.asarray(pair_values, dtype=np.float64)
    if values.ndim != 1 or values.size < 2:
        raise PokerlabError(f"a duplicate estimate needs at least 2 pairs, got {values.size}")
    mean = 1000.0 * float(values.mean()) / 2.0
    half = 1000.0 * 1.96 * float(values.std(ddof=1)) / sqrt(values.size) / 2.0
    return mean, half


class DuplicateEstimate:
    """What a duplicate result shows (mixed into the result dataclasses, which hold
    ``mbb_per_game``, ``ci95_mbb`` and ``pairs``): its interval and the estimate's JSON keys."""

    mbb_per_game: float
    ci95_mbb: float
    pairs: int

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% confidence interval (mbb/g)."""
        return (self.mbb_per_game - self.ci95_mbb, self.mbb_per_game + self.ci95_mbb)

    def estimate_dict(self) -> dict[str, Any]:
        """``pairs``, ``games``, ``mbb_per_game``, ``ci95_mbb``, ``ci95_low``, ``ci95_high``."""
        low, high = self.interval
        return {
            "pairs": self.pairs,
            "games": 2 * self.pairs,
            "mbb_per_game": self.mbb_per_game,
            "ci95_mbb": self.ci95_mbb,
            "ci95_low": low,
            "ci95_high": high,
        }
