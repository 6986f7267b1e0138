"""The parameters of a genetic push/fold search (SPEC 5.3, 5.4, 5.6): :class:`EvolutionConfig`."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.evolve.players import MAX_STACK_CELL, PlayerKind, PlayerType, player_kind
from pokerlab.evolve.tournaments import SimulationSettings

__all__ = ["DEFAULT_MUTATION", "EvolutionConfig", "Fitness", "Mode", "VARIABLE_STACKS"]

Mode = Literal["equilibrium", "adaptive"]
Fitness = Literal["exact", "simulated"]

VARIABLE_STACKS: tuple[float, ...] = tuple(float(s) for s in range(1, MAX_STACK_CELL + 1))
"""Stacks of the variable-stack game (big blinds), each drawn with probability 1/10."""

DEFAULT_MUTATION: dict[str, float] = {"simple": 0.01, "complex": 0.005, "variable": 0.01}
"""Mutation probability by player type when the configuration gives none (our choice: the study's
values are not published). Simple: per player (swap r and c); tables: per cell."""


@dataclass(frozen=True, kw_only=True)
class EvolutionConfig:
    """Every parameter of a genetic push/fold search, with its default.

    Where the study's value is unknown the default is ours, chosen so that the B5 runs converge
    (see ``docs/genetic.md``).

    Attributes
    ----------
    players:
        ``"simple"``, ``"complex"`` or ``"variable"`` (SPEC 5.1).
    mode:
        ``"equilibrium"`` (round robin, default no elitism) or ``"adaptive"`` (all against
        ``opponent``, default elitism 1).
    opponent:
        Adaptive mode: the fixed strategy, a spec as in
        :func:`pokerlab.analysis.pushfold.strategy_from_spec` (``"70/60"``, ranges, a file).
    population:
        Number of players (study: 20 for simple and variable players, 30 for complex ones).
    stack_bb:
        Effective stack (big blinds) of simple and complex players' fixed-stack game.
    stacks:
        Variable-stack players: the stacks (big blinds), drawn uniformly each hand.
    ante_bb:
        Ante per player (big blinds); the study had none.
    fitness:
        ``"exact"`` (seat-averaged expected value, no variance) or ``"simulated"`` (hands).
    p_cross:
        Probability that a selected pair mates (ours: 0.7).
    p_cell:
        Table players: probability that a cell swaps between mating parents. ``None`` = SPEC 5.1's
        "with probability pCross", i.e. ``p_cross``.
    p_mut:
        Mutation probability (``None``: :data:`DEFAULT_MUTATION` of the player type).
    elite:
        Players kept unchanged each generation (``None``: 0 in equilibrium search, 1 in
        adaptive mode).
    patience:
        G: stop when the best performance has not improved for this many generations (ours: 100).
    max_generations:
        Generation cap (ours: 2000).
    hands, matches, until_broke:
        Simulated fitness: hands per match, matches per pairing, and whether a match ends when a
        player is broke (ours: 1000 hands, 2 matches, a fixed number of hands).
    workers:
        Processes for simulated matches (0 = one per core, 1 = in-process); with ``ray``, the
        matches of a round are split into this many Ray tasks (0 = the CPUs Ray offers).
    ray, ray_address:
        Simulated fitness on Ray tasks instead of the process pool
        (:class:`~pokerlab.distributed.ray_executor.RayExecutor`): a local Ray instance, or the
        cluster at ``ray_address`` (``host:port``). The results equal the pool's: every match's
        seed is fixed before it is sent.
    seed:
        Seed (an integer >= 0) of the run's ``numpy.random.Generator``
        (:func:`pokerlab._rng.generator`): the same seed gives the same run.
    """

    players: PlayerType = "simple"
    mode: Mode = "equilibrium"
    opponent: str | None = None
    population: int = 20
    stack_bb: float = 10.0
    stacks: tuple[float, ...] = VARIABLE_STACKS
    ante_bb: float = 0.0
    fitness: Fitness = "exact"
    p_cross: float = 0.7
    p_cell: float | None = None
    p_mut: float | None = None
    elite: int | None = None
    patience: int = 100
    max_generations: int = 2000
    hands: int = 1000
    matches: int = 2
    until_broke: bool = False
    workers: int = 0
    seed: int = 0
    ray: bool = False
    ray_address: str | None = None

    def __post_init__(self) -> None:
        if self.ray_address is not None and not self.ray:
            raise PokerlabError("an address is for Ray: give ray=True (--ray) with it")
        if self.ray and self.fitness != "simulated":
            raise PokerlabError(
                "Ray runs simulated matches (fitness 'simulated'); exact fitness is one matrix "
                "product in this process"
            )
        player_kind(self.players)  # raises on an unknown type
        if self.mode not in ("equilibrium", "adaptive"):
            raise PokerlabError(f"mode must be 'equilibrium' or 'adaptive', got {self.mode!r}")
        if self.mode == "adaptive" and not self.opponent:
            raise PokerlabError("adaptive mode needs an opponent strategy (e.g. '70/60')")
        if self.fitness not in ("exact", "simulated"):
            raise PokerlabError(f"fitness must be 'exact' or 'simulated', got {self.fitness!r}")
        if self.population < 2:
            raise PokerlabError(f"population must be at least 2, got {self.population}")
        for name in ("p_cross", "p_cell", "p_mut"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise PokerlabError(f"{name} must be a probability in [0, 1], got {value}")
        if not self.stack_bb > 0.5 or not math.isfinite(self.stack_bb):
            raise PokerlabError(f"stack must be a number > 0.5 big blinds, got {self.stack_bb}")
        if not self.ante_bb >= 0:
            raise PokerlabError(f"ante must be >= 0 big blinds, got {self.ante_bb}")
        if self.elite is not None and not 0 <= self.elite < self.population:
            raise PokerlabError(f"elite must be in 0..population-1, got {self.elite}")
        if self.patience < 1 or self.max_generations < 1:
            raise PokerlabError("patience and max_generations must be >= 1")
        SimulationSettings(self.hands, self.matches, self.until_broke, self.ante_bb)

    @property
    def kind(self) -> PlayerKind:
        """The player type's operators."""
        return player_kind(self.players)

    @property
    def game_stacks(self) -> np.ndarray:
        """Stacks of the game the players play (one for fixed-stack players)."""
        if self.kind.variable:
            return np.array(self.stacks, dtype=np.float64)
        return np.array([self.stack_bb])

    @property
    def elite_count(self) -> int:
        """The number of elite players actually kept."""
        if self.elite is not None:
            return self.elite
        return 1 if self.mode == "adaptive" else 0

    @property
    def cell_swap_probability(self) -> float:
        """Per-cell swap probability of table crossover."""
        return self.p_cross if self.p_cell is None else self.p_cell

    @property
    def mutation_probability(self) -> float:
        """The mutation probability actually used."""
        return DEFAULT_MUTATION[self.players] if self.p_mut is None else self.p_mut

    def game(self) -> Any:
        """The 1326-combo push/fold game in which the players are measured."""
        from pokerlab.games.pushfold import PushFoldGame

        if self.kind.variable:
            return PushFoldGame(None, self.ante_bb, stacks=list(self.stacks))
        return PushFoldGame(self.stack_bb, self.ante_bb)

    def to_dict(self) -> dict[str, Any]:
        """All parameters (resolved defaults included), JSON-ready."""
        out = asdict(self)
        out["stacks"] = list(self.stacks) if self.kind.variable else None
        out.update(
            elite=self.elite_count,
            p_cell=self.cell_swap_probability,
            p_mut=self.mutation_probability,
        )
        return out
