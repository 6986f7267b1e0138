"""Simulated heads-up push/fold matches (SPEC 2.3): variance shown, not hidden.

A match is N hands (or until one player is broke) with seats alternating every hand. Results are
player A's big blinds per hand with a 95% confidence interval (normal approximation over hands),
bb/100, and each player's shove and call frequencies. Several matches give the mean of the
per-match results and its spread. Everything is seeded.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from pokerlab._rng import SeedLike, child_seeds, seed_state
from pokerlab.cards.deck import COMBO_CARDS
from pokerlab.errors import PokerlabError
from pokerlab.evaluate._match_kernels import simulate_pushfold

__all__ = ["MatchResult", "MatchSeries", "play_match", "play_matches", "PushFoldPlayer"]


@lru_cache(maxsize=1)
def _showdown_probabilities() -> tuple[np.ndarray, np.ndarray]:
    from pokerlab.cards import preflop

    win, tie = preflop.win_tie_matrices()
    return win / preflop.BOARDS_PER_MATCHUP, tie / preflop.BOARDS_PER_MATCHUP


@dataclass
class PushFoldPlayer:
    """A push/fold player: shove and call probabilities per combo, by stack.

    ``shove`` and ``call`` have shape (K, 1326) for the stacks in ``stack_grid`` (ascending); a
    hand at effective stack s uses the row of the largest grid stack <= s.
    """

    shove: np.ndarray
    call: np.ndarray
    stack_grid: np.ndarray = field(default_factory=lambda: np.array([0.0]))
    name: str = "player"

    def __post_init__(self) -> None:
        self.shove = np.atleast_2d(np.asarray(self.shove, dtype=np.float64))
        self.call = np.atleast_2d(np.asarray(self.call, dtype=np.float64))
        self.stack_grid = np.asarray(self.stack_grid, dtype=np.float64)
        if self.shove.shape != self.call.shape or self.shove.shape[1] != 1326:
            raise PokerlabError("a push/fold player needs (stacks, 1326) shove and call tables")
        if self.shove.shape[0] != self.stack_grid.shape[0]:
            raise PokerlabError("one row of shove/call probabilities per grid stack is needed")


@dataclass
class MatchResult:
    """One match from player A's point of view."""

    hands: int
    total_bb: float
    bb_per_hand: float
    ci95_bb_per_hand: float  # half-width of the 95% confidence interval
    shove_frequency: tuple[float, float]  # A, B
    call_frequency: tuple[float, float]
    running_bb_per_hand: np.ndarray = field(repr=False)

    @property
    def bb_per_100(self) -> float:
        return 100.0 * self.bb_per_hand

    def to_dict(self) -> dict[str, object]:
        return {
            "hands": self.hands,
            "total_bb": self.total_bb,
            "bb_per_hand": self.bb_per_hand,
            "bb_per_100": self.bb_per_100,
            "ci95_bb_per_hand": self.ci95_bb_per_hand,
            "shove_frequency": list(self.shove_frequency),
            "call_frequency": list(self.call_frequency),
        }


def play_match(
    a: PushFoldPlayer,
    b: PushFoldPlayer,
    hands: int,
    stack_bb: float,
    *,
    ante_bb: float = 0.0,
    until_broke: bool = False,
    seed: SeedLike = 0,
) -> MatchResult:
    """Simulate one match of up to ``hands`` hands (A is the small blind in the first hand).

    ``seed`` (an integer >= 0 or a ``numpy.random.Generator``) seeds the kernel's xoshiro state
    by the project's convention (:func:`pokerlab._rng.seed_state`)."""
    if hands < 1:
        raise PokerlabError(f"hands must be >= 1, got {hands}")
    if not stack_bb > 0.5:
        raise PokerlabError(f"stack must be > 0.5 big blinds, got {stack_bb}")
    win, tie = _showdown_probabilities()
    grid = np.union1d(a.stack_grid, b.stack_grid)
    shove = np.stack([_on_grid(p.shove, p.stack_grid, grid) for p in (a, b)])
    call = np.stack([_on_grid(p.call, p.stack_grid, grid) for p in (a, b)])
    net = np.zeros(hands)
    counts = np.zeros((2, 4), dtype=np.int64)
    played = simulate_pushfold(
        shove,
        call,
        grid,
        COMBO_CARDS.astype(np.int64),
        win,
        tie,
        hands,
        float(stack_bb),
        float(ante_bb),
        until_broke,
        seed_state(seed),
        net,
        counts,
    )
    net = net[:played]
    mean = float(net.mean()) if played else 0.0
    ci = 1.96 * float(net.std(ddof=1)) / math.sqrt(played) if played > 1 else math.inf

    def ratio(x: int, y: int) -> float:
        return x / y if y else math.nan

    return MatchResult(
        hands=played,
        total_bb=float(net.sum()),
        bb_per_hand=mean,
        ci95_bb_per_hand=ci,
        shove_frequency=(ratio(counts[0, 1], counts[0, 0]), ratio(counts[1, 1], counts[1, 0])),
        call_frequency=(ratio(counts[0, 3], counts[0, 2]), ratio(counts[1, 3], counts[1, 2])),
        running_bb_per_hand=np.cumsum(net) / np.arange(1, played + 1),
    )


def _on_grid(table: np.ndarray, own: np.ndarray, grid: np.ndarray) -> np.ndarray:
    rows = [max(int(np.searchsorted(own, s + 1e-9, side="right")) - 1, 0) for s in grid]
    return table[rows]


@dataclass
class MatchSeries:
    """Several matches: per-match results, their mean and spread."""

    matches: list[MatchResult]

    @property
    def mean_bb_per_hand(self) -> float:
        return float(np.mean([m.bb_per_hand for m in self.matches]))

    @property
    def std_bb_per_hand(self) -> float:
        values = [m.bb_per_hand for m in self.matches]
        return float(np.std(values, ddof=1)) if len(values) > 1 else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "matches": [m.to_dict() for m in self.matches],
            "mean_bb_per_hand": self.mean_bb_per_hand,
            "std_bb_per_hand": self.std_bb_per_hand,
            "mean_bb_per_100": 100.0 * self.mean_bb_per_hand,
        }


def play_matches(
    a: PushFoldPlayer,
    b: PushFoldPlayer,
    hands: int,
    stack_bb: float,
    matches: int = 1,
    *,
    ante_bb: float = 0.0,
    until_broke: bool = False,
    seed: SeedLike = 0,
) -> MatchSeries:
    """``matches`` independent matches; match k uses child seed k of ``seed``
    (:func:`pokerlab._rng.child_seeds`)."""
    if matches < 1:
        raise PokerlabError(f"matches must be >= 1, got {matches}")
    seeds = child_seeds(seed, matches)
    return MatchSeries(
        [
            play_match(a, b, hands, stack_bb, ante_bb=ante_bb, until_broke=until_broke, seed=s)
            for s in seeds
        ]
    )
