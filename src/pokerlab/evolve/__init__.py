"""Genetic search of push/fold strategies, judged against the exact equilibrium (SPEC 5).

Three player types (:mod:`pokerlab.evolve.players`), tournaments by exact expected value or
simulated hands (:mod:`pokerlab.evolve.tournaments`, :mod:`pokerlab.evolve.exact`), the genetic
loop and its experiments (:mod:`pokerlab.evolve.search`) and pictures
(:mod:`pokerlab.evolve.pictures`)::

    from pokerlab.evolve import EvolutionConfig, evolve
    result = evolve(EvolutionConfig(players="simple", mode="equilibrium", seed=1))
    result.best, result.judgement.exploitability_bb
"""

from pokerlab.evolve.exact import PushFoldPayoffs, SimplePrefixPayoffs
from pokerlab.evolve.players import (
    ComplexPlayers,
    PlayerKind,
    SimplePlayers,
    VariablePlayers,
    player_kind,
)
from pokerlab.evolve.search import (
    DEFAULT_MUTATION,
    VARIABLE_STACKS,
    EvolutionConfig,
    EvolutionResult,
    GenerationRecord,
    Judgement,
    OneVsOneResult,
    evolve,
    judge_player,
    one_vs_one,
    player_strategy,
)
from pokerlab.evolve.tournaments import (
    SimulationSettings,
    all_against_one_simulated,
    berger_rounds,
    round_robin_simulated,
)

__all__ = [
    "ComplexPlayers",
    "DEFAULT_MUTATION",
    "EvolutionConfig",
    "EvolutionResult",
    "GenerationRecord",
    "Judgement",
    "OneVsOneResult",
    "PlayerKind",
    "PushFoldPayoffs",
    "SimplePlayers",
    "SimplePrefixPayoffs",
    "SimulationSettings",
    "VARIABLE_STACKS",
    "VariablePlayers",
    "all_against_one_simulated",
    "berger_rounds",
    "evolve",
    "judge_player",
    "one_vs_one",
    "player_kind",
    "player_strategy",
    "round_robin_simulated",
]
