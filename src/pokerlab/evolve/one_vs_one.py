"""One-vs-one experiments between two evolved players (SPEC 5.4 a): simulated matches and the
exact value of the infinitely long match."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerlab.evolve.config import EvolutionConfig
from pokerlab.evolve.exact import PushFoldPayoffs
from pokerlab.evolve.players import expand_to_combos
from pokerlab.evolve.tournaments import SimulationSettings, match_blocks

__all__ = ["OneVsOneResult", "one_vs_one"]


@dataclass
class OneVsOneResult:
    """A one-vs-one experiment (SPEC 5.4 a): per-match and mean performance of player A."""

    per_match_bb_per_hand: list[float]
    per_match_hands: list[int]
    mean_bb_per_hand: float
    std_bb_per_hand: float
    exact_bb_per_hand: float
    running_bb_per_hand: list[np.ndarray] = field(repr=False)  # one curve per match

    def to_dict(self) -> dict[str, Any]:
        return {
            "per_match_bb_per_hand": self.per_match_bb_per_hand,
            "per_match_hands": self.per_match_hands,
            "mean_bb_per_hand": self.mean_bb_per_hand,
            "std_bb_per_hand": self.std_bb_per_hand,
            "exact_bb_per_hand": self.exact_bb_per_hand,
        }


def one_vs_one(
    config: EvolutionConfig,
    a: np.ndarray,
    b: np.ndarray,
    *,
    hands: int = 10_000,
    matches: int = 5,
    seed: int = 0,
) -> OneVsOneResult:
    """Simulated matches between two players of type ``config.players`` (genes ``a``, ``b``).

    Seats alternate every hand; a match is ``hands`` hands (or until a player is broke with
    ``config.until_broke``) in the players' game (variable-stack players: the hands split evenly
    over the stacks, or from the largest stack until broke). Each match's bb/hand for A, their
    mean and spread, and the exact seat-averaged value (the infinitely long match) are returned.
    """
    kind = config.kind
    genes = np.stack([kind.check(a)[0], kind.check(b)[0]])
    stacks = config.game_stacks
    shove, call = kind.hand_arrays(genes, stacks)
    exact = PushFoldPayoffs(stacks, None, config.ante_bb, kind.hand_basis).match_values(shove, call)
    shove, call = expand_to_combos(shove), expand_to_combos(call)
    settings = SimulationSettings(hands, matches, config.until_broke, config.ante_bb)
    per, counts, curves = [], [], []
    for blocks in match_blocks((shove[0], call[0]), (shove[1], call[1]), stacks, settings, seed):
        won = sum(r.total_bb for r in blocks)
        played = sum(r.hands for r in blocks)
        per.append(won / played if played else 0.0)
        counts.append(int(played))
        cumulative = np.concatenate(
            [r.running_bb_per_hand * np.arange(1, r.hands + 1) for r in blocks]
        )
        offsets = np.repeat(
            np.concatenate([[0.0], np.cumsum([r.total_bb for r in blocks])[:-1]]),
            [r.hands for r in blocks],
        )
        curves.append((cumulative + offsets) / np.arange(1, len(cumulative) + 1))
    return OneVsOneResult(
        per_match_bb_per_hand=per,
        per_match_hands=counts,
        mean_bb_per_hand=float(np.mean(per)),
        std_bb_per_hand=float(np.std(per, ddof=1)) if len(per) > 1 else 0.0,
        exact_bb_per_hand=float(exact[0, 1]),
        running_bb_per_hand=curves,
    )
