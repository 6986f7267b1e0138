"""What a genetic search produced (one record per generation, the result) and the exact
judgement of a player in the 1326-combo game: exploitability and EV against the CFR equilibrium
(see :mod:`pokerlab.evolve.search`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from pokerlab.evolve.config import EvolutionConfig
from pokerlab.evolve.players import PlayerKind

__all__ = [
    "INTERRUPTED",
    "EvolutionResult",
    "GenerationRecord",
    "Judgement",
    "judge_player",
    "player_strategy",
]

INTERRUPTED = "interrupted"
"""``EvolutionResult.stop_reason`` of a search ended by a stop request (Ctrl-C)."""


@dataclass
class GenerationRecord:
    """What one generation looked like (performance before selection)."""

    generation: int
    genes: np.ndarray = field(repr=False)  # the population evaluated in this generation
    performance: np.ndarray = field(repr=False)  # (n,) bb/hand
    best_index: int
    best_performance_bb: float
    mean_performance_bb: float
    best_exploitability_bb: float  # exact, in the player's game
    best_fractions: tuple[float, float]  # combo-weighted shove, call (mean over stacks)
    seconds: float  # since the start of the run

    @property
    def best_genes(self) -> np.ndarray:
        return self.genes[self.best_index]

    def to_dict(self, kind: PlayerKind) -> dict[str, Any]:
        out: dict[str, Any] = {
            "generation": self.generation,
            "best_performance_bb": self.best_performance_bb,
            "mean_performance_bb": self.mean_performance_bb,
            "best_exploitability_bb": self.best_exploitability_bb,
            "best_shove_fraction": self.best_fractions[0],
            "best_call_fraction": self.best_fractions[1],
            "seconds": self.seconds,
        }
        if kind.name == "simple":
            out["best"] = kind.describe(self.best_genes)
        return out


@dataclass
class Judgement:
    """Exact measures of one player in the combo game."""

    exploitability_bb: float
    ev_vs_equilibrium_bb: float
    shove_fraction: float
    call_fraction: float

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


@dataclass
class EvolutionResult:
    """A finished search: its history, best player and the exact judgement of that player."""

    config: EvolutionConfig
    history: list[GenerationRecord] = field(repr=False)
    seconds: float
    stop_reason: str
    best_genes: np.ndarray = field(repr=False)
    best_performance_bb: float  # by the fitness used (simulated: noisy)
    best_exact_performance_bb: float  # the same tournament, exact values
    judgement: Judgement
    equilibrium_shove_fraction: float
    equilibrium_call_fraction: float
    best_response_value_bb: float | None  # adaptive: the most any strategy wins against opponent
    judge_seconds: float

    @property
    def generations(self) -> int:
        return len(self.history)

    @property
    def interrupted(self) -> bool:
        """True when a stop request ended the run before its own stopping rule (the result is
        partial: the best player of the last finished generation, judged exactly)."""
        return self.stop_reason == INTERRUPTED

    @property
    def best(self) -> dict[str, object]:
        return self.config.kind.describe(self.best_genes)

    def best_strategy(self) -> Any:
        """The best player as a :class:`pokerlab.Strategy` of the combo game."""
        return player_strategy(self.config, self.best_genes)

    def to_dict(self, history: bool = True) -> dict[str, Any]:
        """A JSON-ready summary (``history``: one row per generation)."""
        kind = self.config.kind
        out: dict[str, Any] = {
            "players": self.config.players,
            "mode": self.config.mode,
            "fitness": self.config.fitness,
            "opponent": self.config.opponent,
            "generations": self.generations,
            "seconds": self.seconds,
            "stop_reason": self.stop_reason,
            "partial": self.interrupted,
            "best": kind.describe(self.best_genes),
            "best_performance_bb": self.best_performance_bb,
            "best_exact_performance_bb": self.best_exact_performance_bb,
            "best_exploitability_bb": self.judgement.exploitability_bb,
            "best_ev_vs_equilibrium_bb": self.judgement.ev_vs_equilibrium_bb,
            "best_shove_fraction": self.judgement.shove_fraction,
            "best_call_fraction": self.judgement.call_fraction,
            "equilibrium_shove_fraction": self.equilibrium_shove_fraction,
            "equilibrium_call_fraction": self.equilibrium_call_fraction,
            "best_response_value_bb": self.best_response_value_bb,
            "judge_seconds": self.judge_seconds,
            "config": self.config.to_dict(),
        }
        if history:
            out["history"] = [r.to_dict(kind) for r in self.history]
        return out


def player_strategy(config: EvolutionConfig, genes: np.ndarray) -> Any:
    """One player's genes as a :class:`pokerlab.Strategy` of ``config.game()`` (combos)."""
    from pokerlab.analysis.pushfold import pushfold_strategy

    kind = config.kind
    shove, call = kind.hand_arrays(np.asarray(genes)[None], config.game_stacks)
    return pushfold_strategy(config.game(), shove[0], call[0])


def _equilibrium(config: EvolutionConfig) -> Any:
    from pokerlab.solvers.pushfold import solve_pushfold

    if config.kind.variable:
        return solve_pushfold(None, config.ante_bb, stacks=list(config.stacks))
    return solve_pushfold(config.stack_bb, config.ante_bb)


def judge_player(
    config: EvolutionConfig, genes: np.ndarray, equilibrium: Any | None = None
) -> Judgement:
    """Exploitability and EV against the CFR equilibrium of one player (exact, combo game).

    EV against the equilibrium is seat-averaged: ``(EV as small blind + EV as big blind) / 2``
    in big blinds per hand; it is at most 0, and the exploitability bounds its magnitude.
    """
    from pokerlab.analysis.pushfold import pushfold_strategy, shove_call_arrays
    from pokerlab.evaluate.exploitability import expected_values, exploitability

    game = config.game()
    eq = equilibrium if equilibrium is not None else _equilibrium(config)
    strategy = player_strategy(config, genes)
    sb, bb = shove_call_arrays(strategy)
    eq_sb, eq_bb = shove_call_arrays(eq.strategy)
    as_sb = expected_values(game, pushfold_strategy(game, sb, eq_bb))[0]
    as_bb = expected_values(game, pushfold_strategy(game, eq_sb, bb))[1]
    probs = np.asarray(game.stack_probs)
    return Judgement(
        exploitability_bb=float(exploitability(game, strategy)),
        ev_vs_equilibrium_bb=float(0.5 * (as_sb + as_bb)),
        shove_fraction=_mean_fraction(probs, sb),
        call_fraction=_mean_fraction(probs, bb),
    )


def _mean_fraction(probs: np.ndarray, per_stack: np.ndarray) -> float:
    """Combo-weighted share of hands played, averaged over the stacks with their probabilities."""
    from pokerlab.analysis.pushfold import combo_fraction

    return float(sum(p * combo_fraction(row) for p, row in zip(probs, per_stack, strict=True)))
