"""The genetic search of push/fold strategies (SPEC 5.3, 5.4, 5.6); its parameters are in
:mod:`pokerlab.evolve.config`, its records and exact judgement in :mod:`pokerlab.evolve.judgement`,
one-vs-one experiments in :mod:`pokerlab.evolve.one_vs_one` (names importable from here too).

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
(:func:`pokerlab.solvers.pushfold.solve_pushfold`), which is at most 0 (the symmetric game's
value) and is 0 only for an equilibrium strategy. Variable-stack players are measured in the
variable-stack game with the stack drawn uniformly from 1..10 big blinds each hand.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pokerlab._rng import generator
from pokerlab.errors import PokerlabError
from pokerlab.evolve.config import DEFAULT_MUTATION, VARIABLE_STACKS, EvolutionConfig
from pokerlab.evolve.exact import PushFoldPayoffs, SimplePrefixPayoffs
from pokerlab.evolve.judgement import (
    INTERRUPTED,
    EvolutionResult,
    GenerationRecord,
    Judgement,
    _equilibrium,
    _mean_fraction,
    judge_player,
    player_strategy,
)
from pokerlab.evolve.one_vs_one import OneVsOneResult, one_vs_one
from pokerlab.evolve.players import expand_to_combos
from pokerlab.evolve.tournaments import (
    SimulationSettings,
    all_against_one_simulated,
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

def _opponent_arrays(config: EvolutionConfig) -> tuple[np.ndarray, np.ndarray]:
    """The adaptive opponent's (shove, call), each (stacks, 1326)."""
    from pokerlab.analysis.pushfold import shove_call_arrays, strategy_from_spec

    assert config.opponent is not None
    sb, bb = shove_call_arrays(strategy_from_spec(config.opponent, config.game()))
    return sb, bb


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
    ``equilibrium`` is an optional precomputed :func:`~pokerlab.solvers.pushfold.solve_pushfold`
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
        from pokerlab.analysis.pushfold import strategy_from_spec
        from pokerlab.evaluate.exploitability import exploitability

        assert config.opponent is not None
        game = config.game()
        br_value = float(exploitability(game, strategy_from_spec(config.opponent, game)))
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
