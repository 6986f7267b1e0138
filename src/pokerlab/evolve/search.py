"""The genetic search of push/fold strategies (SPEC 5.3, 5.4, 5.6) and its exact judgement.

One generation:

1. **performance** ``c(p)`` of every player: big blinds won / hands played in a round robin
   (equilibrium search) or against one fixed opponent (adaptive mode), by exact expected value
   (default) or by simulated hands (:mod:`pokerlab.evolve.tournaments`);
2. **fitness** ``f = c - min(0, min c)`` (the worst player gets 0 when anyone loses);
3. **elitism**: the best ``elite`` players pass unchanged;
4. **selection**: roulette wheel, ``population - elite`` draws with probability proportional to
   fitness (uniform when every fitness is 0);
5. **crossover**: consecutive selected players mate with probability ``p_cross`` (table players:
   each cell of the pair then swaps with probability ``p_cell``);
6. **mutation** of every non-elite child with ``p_mut`` (per player for simple players, per cell
   for table players).

The run stops when the best player's performance has not exceeded its best value so far for
``patience`` generations (G), or after ``max_generations``. In a round robin the performance is
relative to the population: it peaks while the population is still poor and shrinks as it
converges, so a round-robin run lasts about ``patience`` generations after its early peak, and
``patience`` must leave the population time to converge. Every generation is recorded and passed
to an optional callback; the run's best player is the best of the last generation.

At the end the best player is measured exactly in the 1326-combo game: its exploitability
(:func:`pokerlab.exploitability`) and its seat-averaged EV against the CFR equilibrium
(:func:`pokerlab.analysis.pushfold.solve_pushfold`), which is at most 0 (the symmetric game's
value) and is 0 only for an equilibrium strategy. Variable-stack players are measured in the
variable-stack game with the stack drawn uniformly from 1..10 big blinds each hand.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np

from pokerlab._rng import generator
from pokerlab.errors import PokerlabError
from pokerlab.evolve.exact import PushFoldPayoffs, SimplePrefixPayoffs
from pokerlab.evolve.players import (
    MAX_STACK_CELL,
    PlayerKind,
    PlayerType,
    expand_to_combos,
    player_kind,
)
from pokerlab.evolve.tournaments import (
    SimulationSettings,
    all_against_one_simulated,
    match_blocks,
    round_robin_simulated,
)

__all__ = [
    "EvolutionConfig",
    "GenerationRecord",
    "EvolutionResult",
    "Judgement",
    "evolve",
    "judge_player",
    "player_strategy",
    "one_vs_one",
    "OneVsOneResult",
    "DEFAULT_MUTATION",
    "INTERRUPTED",
    "VARIABLE_STACKS",
]

Mode = Literal["equilibrium", "adaptive"]
Fitness = Literal["exact", "simulated"]

INTERRUPTED = "interrupted"
"""``EvolutionResult.stop_reason`` of a search ended by a stop request (Ctrl-C)."""

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
    from pokerlab.analysis.pushfold import solve_pushfold

    if config.kind.variable:
        return solve_pushfold(None, config.ante_bb, stacks=list(config.stacks))
    return solve_pushfold(config.stack_bb, config.ante_bb)


def _opponent_arrays(config: EvolutionConfig) -> tuple[np.ndarray, np.ndarray]:
    """The adaptive opponent's (shove, call), each (stacks, 1326)."""
    from pokerlab.analysis.pushfold import shove_call_arrays, strategy_from_spec

    assert config.opponent is not None
    sb, bb = shove_call_arrays(strategy_from_spec(config.opponent, config.game()))
    return sb, bb


def judge_player(
    config: EvolutionConfig, genes: np.ndarray, equilibrium: Any | None = None
) -> Judgement:
    """Exploitability and EV against the CFR equilibrium of one player (exact, combo game).

    EV against the equilibrium is seat-averaged: ``(EV as small blind + EV as big blind) / 2``
    in big blinds per hand; it is at most 0, and the exploitability bounds its magnitude.
    """
    import pokerlab
    from pokerlab.analysis.pushfold import pushfold_strategy, shove_call_arrays

    game = config.game()
    eq = equilibrium if equilibrium is not None else _equilibrium(config)
    strategy = player_strategy(config, genes)
    sb, bb = shove_call_arrays(strategy)
    eq_sb, eq_bb = shove_call_arrays(eq.strategy)
    as_sb = pokerlab.expected_values(game, pushfold_strategy(game, sb, eq_bb))[0]
    as_bb = pokerlab.expected_values(game, pushfold_strategy(game, eq_sb, bb))[1]
    probs = np.asarray(game.stack_probs)
    return Judgement(
        exploitability_bb=float(pokerlab.exploitability(game, strategy)),
        ev_vs_equilibrium_bb=float(0.5 * (as_sb + as_bb)),
        shove_fraction=_mean_fraction(probs, sb),
        call_fraction=_mean_fraction(probs, bb),
    )


def _mean_fraction(probs: np.ndarray, per_stack: np.ndarray) -> float:
    """Combo-weighted share of hands played, averaged over the stacks with their probabilities."""
    from pokerlab.analysis.pushfold import combo_fraction

    return float(sum(p * combo_fraction(row) for p, row in zip(probs, per_stack, strict=True)))


class _Evaluator:
    """Performance of a population under one configuration (exact or simulated)."""

    def __init__(self, config: EvolutionConfig, executor: Any, workers: int) -> None:
        self.config = config
        self.kind = config.kind
        self.stacks = config.game_stacks
        basis = self.kind.hand_basis
        self.payoffs = PushFoldPayoffs(self.stacks, None, config.ante_bb, hands=basis)
        self.prefix: SimplePrefixPayoffs | None = None
        if self.kind.name == "simple" and config.mode == "equilibrium":
            self.prefix = SimplePrefixPayoffs(self.payoffs)
        self.opponent: tuple[np.ndarray, np.ndarray] | None = None
        if config.mode == "adaptive":
            self.opponent = _opponent_arrays(config)
            combos = (
                self.payoffs
                if basis == "combos"
                else PushFoldPayoffs(self.stacks, None, config.ante_bb, hands="combos")
            )
            self._fixed = _FixedOpponent(combos, *self.opponent, basis)
        self.settings = SimulationSettings(
            config.hands, config.matches, config.until_broke, config.ante_bb
        )
        self.executor = executor
        self.workers = workers

    def exact(self, genes: np.ndarray) -> np.ndarray:
        """(n,) exact performance (bb/hand)."""
        n = len(genes)
        if self.opponent is not None:
            shove, call = self.kind.hand_arrays(genes, self.stacks)
            return self._fixed.values(shove, call)
        if self.prefix is not None:
            values = self.prefix.match_values(self.kind.cutoffs(genes))  # type: ignore[attr-defined]
        else:
            shove, call = self.kind.hand_arrays(genes, self.stacks)
            values = self.payoffs.match_values(shove, call)
        return values.sum(axis=1) / (n - 1)

    def __call__(self, genes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        if self.config.fitness == "exact":
            return self.exact(genes)
        shove, call = self.kind.hand_arrays(genes, self.stacks)
        shove, call = expand_to_combos(shove), expand_to_combos(call)
        if self.opponent is not None:
            return all_against_one_simulated(
                shove,
                call,
                self.opponent,
                self.stacks,
                self.settings,
                rng,
                self.executor,
                self.workers,
            )
        return round_robin_simulated(
            shove, call, self.stacks, self.settings, rng, self.executor, self.workers
        )

    def exploitability(self, genes_one: np.ndarray) -> float:
        shove, call = self.kind.hand_arrays(genes_one[None], self.stacks)
        return float(self.payoffs.exploitability(shove, call)[0])


class _FixedOpponent:
    """Exact seat-averaged values against one fixed opponent, with the opponent's side
    precomputed: value(a) = (s_a . u - c_a . v - const) / 2 (see :mod:`pokerlab.evolve.exact`)."""

    def __init__(
        self, combos: PushFoldPayoffs, opp_shove: np.ndarray, opp_call: np.ndarray, basis: str
    ) -> None:
        from pokerlab.cards.deck import COMBO_CLASS, N_CLASSES

        u, v, const = [], [], 0.0
        for k, row in enumerate(combos._rows):
            uk = row.alpha + row.matrix @ opp_call[k]
            vk = opp_shove[k] @ row.matrix
            const += row.prob * float(opp_shove[k] @ row.alpha)
            if basis == "classes":
                uk = np.bincount(COMBO_CLASS, weights=uk, minlength=N_CLASSES)
                vk = np.bincount(COMBO_CLASS, weights=vk, minlength=N_CLASSES)
            u.append(row.prob * uk)
            v.append(row.prob * vk)
        self.u = np.array(u)  # (stacks, H)
        self.v = np.array(v)
        self.const = const

    def values(self, shove: np.ndarray, call: np.ndarray) -> np.ndarray:
        as_sb = np.einsum("nkh,kh->n", shove, self.u)
        as_bb = np.einsum("nkh,kh->n", call, self.v)
        return 0.5 * (as_sb - as_bb - self.const)


def _next_generation(
    config: EvolutionConfig,
    genes: np.ndarray,
    performance: np.ndarray,
    rng: np.random.Generator,
) -> np.ndarray:
    """Fitness shift, elitism, roulette selection, crossover and mutation (SPEC 5.3)."""
    kind = config.kind
    n = len(genes)
    elite = config.elite_count
    fitness = performance - min(0.0, float(performance.min()))
    total = float(fitness.sum())
    draws = n - elite
    if total > 0 and math.isfinite(total):
        cumulative = np.cumsum(fitness / total)
        picks = np.searchsorted(cumulative, rng.random(draws) * cumulative[-1], side="right")
        picks = np.minimum(picks, n - 1)
    else:
        picks = rng.integers(0, n, size=draws)
    children = genes[picks].copy()
    pairs = draws // 2
    if pairs:
        mate = rng.random(pairs) < config.p_cross
        first, second = children[0 : 2 * pairs : 2], children[1 : 2 * pairs : 2]
        a, b = kind.crossover(rng, first, second, config.cell_swap_probability)
        first[mate], second[mate] = a[mate], b[mate]
    children = kind.mutate(rng, children, config.mutation_probability)
    if elite:
        best = np.argsort(-performance, kind="stable")[:elite]
        children = np.concatenate([genes[best], children])
    return children


def _ignore_sigint() -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _executor(workers: int) -> Any:
    """:func:`~pokerlab.evolve.tournaments.make_executor`'s pool, with workers that ignore SIGINT:
    Ctrl-C goes to the whole process group, and a worker killed mid-task would break the pool
    instead of letting the search stop at the end of its generation."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    if workers < 0:
        raise PokerlabError(f"workers must be >= 0, got {workers}")
    count = workers or (os.cpu_count() or 1)
    if count <= 1:
        return None
    return ProcessPoolExecutor(max_workers=count, initializer=_ignore_sigint)


def evolve(
    config: EvolutionConfig,
    callback: Callable[[GenerationRecord], None] | None = None,
    *,
    equilibrium: Any | None = None,
    stop: Any | None = None,
) -> EvolutionResult:
    """Run one genetic search to termination and judge its best player exactly.

    ``callback`` receives every :class:`GenerationRecord` as it is made (progress, logging).
    ``equilibrium`` is an optional precomputed :func:`~pokerlab.analysis.pushfold.solve_pushfold`
    solution of ``config.game()`` (solved here when omitted; not counted in ``seconds``).
    The run's ``seconds`` cover the set-up and the generations up to termination.

    ``stop`` is anything with a ``requested`` attribute (a
    :class:`~pokerlab.io.interrupts.StopFlag`, set by Ctrl-C under
    :func:`~pokerlab.io.interrupts.stop_on_sigint`): it is read after each generation, the safe
    point; once set the search ends with ``stop_reason`` :data:`INTERRUPTED` and the last finished
    generation's best player is judged as usual (``EvolutionResult.interrupted``). Worker
    processes of simulated fitness ignore SIGINT, so a Ctrl-C reaches only this loop.
    """
    start = time.perf_counter()
    kind = config.kind
    rng = generator(config.seed)
    workers = 1
    executor = None
    if config.fitness == "simulated" and config.ray:
        from pokerlab.distributed.ray_executor import RayExecutor

        executor = RayExecutor(config.ray_address)
        workers = config.workers or executor.workers
    elif config.fitness == "simulated":
        import os

        workers = config.workers or (os.cpu_count() or 1)
        executor = _executor(workers)
    history: list[GenerationRecord] = []
    try:
        evaluate = _Evaluator(config, executor, workers)
        genes = kind.initialise(rng, config.population)
        record_best = -math.inf
        stalled = 0
        stop_reason = "generation cap"
        for generation in range(config.max_generations):
            performance = evaluate(genes, rng)
            best = int(np.argmax(performance))
            fractions = kind.fractions(genes[best : best + 1], evaluate.stacks)[0]
            record = GenerationRecord(
                generation=generation,
                genes=genes.copy(),
                performance=performance,
                best_index=best,
                best_performance_bb=float(performance[best]),
                mean_performance_bb=float(performance.mean()),
                best_exploitability_bb=evaluate.exploitability(genes[best]),
                best_fractions=(float(fractions[0]), float(fractions[1])),
                seconds=time.perf_counter() - start,
            )
            history.append(record)
            if callback is not None:
                callback(record)
            if stop is not None and stop.requested:
                stop_reason = INTERRUPTED
                break
            if performance[best] > record_best + 1e-12:
                record_best = float(performance[best])
                stalled = 0
            else:
                stalled += 1
                if stalled >= config.patience:
                    stop_reason = f"no improvement for {config.patience} generations"
                    break
            if generation + 1 < config.max_generations:
                genes = _next_generation(config, genes, performance, rng)
        seconds = time.perf_counter() - start
        last = history[-1]
        best_genes = last.best_genes.copy()
        exact_perf = float(evaluate.exact(last.genes)[last.best_index])
    finally:
        if executor is not None:
            executor.shutdown()
    judge_start = time.perf_counter()
    eq = equilibrium if equilibrium is not None else _equilibrium(config)
    judgement = judge_player(config, best_genes, eq)
    br_value = None
    if config.mode == "adaptive":
        import pokerlab
        from pokerlab.analysis.pushfold import strategy_from_spec

        assert config.opponent is not None
        game = config.game()
        br_value = float(pokerlab.exploitability(game, strategy_from_spec(config.opponent, game)))
    probs = np.asarray(config.game().stack_probs)
    eq_shove = _mean_fraction(probs, eq.sb_shove)
    eq_call = _mean_fraction(probs, eq.bb_call)
    return EvolutionResult(
        config=config,
        history=history,
        seconds=seconds,
        stop_reason=stop_reason,
        best_genes=best_genes,
        best_performance_bb=last.best_performance_bb,
        best_exact_performance_bb=exact_perf,
        judgement=judgement,
        equilibrium_shove_fraction=eq_shove,
        equilibrium_call_fraction=eq_call,
        best_response_value_bb=br_value,
        judge_seconds=time.perf_counter() - judge_start,
    )


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
