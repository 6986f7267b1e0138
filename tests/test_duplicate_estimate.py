"""The duplicate estimate shared by matches and LBR: mean and 95% interval from the pair sums."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import PokerlabError
from pokerlab.evaluate.duplicate import duplicate_estimate


def test_mean_and_interval_by_hand() -> None:
    pairs = np.array([1.0, -0.5, 0.25, 2.0])  # big blinds over each pair's two games
    mean, half = duplicate_estimate(pairs)
    assert mean == pytest.approx(1000 * 2.75 / 4 / 2)  # 343.75 mbb per game
    sd = np.sqrt(((pairs - pairs.mean()) ** 2).sum() / 3)
    assert half == pytest.approx(1000 * 1.96 * sd / 2 / 2)


def test_one_pair_is_refused() -> None:
    with pytest.raises(PokerlabError, match="at least 2 pairs, got 1"):
        duplicate_estimate(np.array([1.0]))
