"""The verb set every solver shares: step, solve, average_strategy, state_dict.

Subclasses implement :meth:`Solver._run` (advance the iterations) and the array access; the
stopping logic, timing, progress callbacks and checkpoint metadata live here once.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.evaluate.exploitability import exploitability
from pokerlab.solvers.loop import Progress, iteration_count, run_loop
from pokerlab.solvers.stopping import _measurable, check_limits
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import CompiledGame

__all__ = ["Progress", "Solver", "STATE_FORMAT"]

#: Version of the dictionaries returned by :meth:`Solver.state_dict`.
STATE_FORMAT = 1


#: A callback gets the progress; returning True stops the solve.
Callback = Callable[[Progress], bool | None]


def timed_step(solver: Any, iterations: int) -> None:
    """Advance ``solver`` by ``iterations`` (``solver._run``), adding to its ``iterations``,
    ``nodes_touched`` and ``seconds`` (wall time of the run): the ``step`` of every family."""
    iterations = iteration_count(iterations)
    if iterations == 0:
        return
    start = time.perf_counter()
    solver.nodes_touched += int(solver._run(iterations))
    solver.iterations += iterations
    solver.seconds += time.perf_counter() - start


def state_record(
    solver: Any,
    game: str,
    game_params: Mapping[str, Any],
    representation: str,
    state_format: Any = None,
) -> dict[str, Any]:
    """The engine's state schema of ``solver`` (any family): ``format`` (``state_format``,
    :data:`STATE_FORMAT` by default), ``algorithm``, ``game``, ``game_params``,
    ``representation``, ``config`` (``solver._config()``), the counters ``iterations``,
    ``nodes_touched`` and ``seconds``, ``arrays`` (copies of ``solver._arrays()``) and ``extra``
    (``solver._extra_state()``)."""
    return {
        "format": STATE_FORMAT if state_format is None else state_format,
        "algorithm": solver.algorithm,
        "game": game,
        "game_params": dict(game_params),
        "representation": representation,
        "config": solver._config(),
        "iterations": solver.iterations,
        "nodes_touched": solver.nodes_touched,
        "seconds": solver.seconds,
        "arrays": {k: v.copy() for k, v in solver._arrays().items()},
        "extra": solver._extra_state(),
    }


class Solver(ABC):
    """Base class: one verb set for every solver (full-width and sampled)."""

    algorithm: str = "solver"

    def __init__(self, compiled: CompiledGame) -> None:
        self.compiled = compiled
        self.iterations = 0
        self.nodes_touched = 0
        self.seconds = 0.0

    @property
    def game(self) -> Any:
        return self.compiled.game

    # --- to implement -------------------------------------------------------------------------
    @abstractmethod
    def _run(self, iterations: int) -> int:
        """Advance ``iterations`` iterations; return the nodes touched."""

    @abstractmethod
    def strategy_sum(self) -> np.ndarray:
        """The cumulative (discounted) strategy sums in the solver-array layout."""

    @abstractmethod
    def current_strategy(self) -> Strategy:
        """The strategy of the current iteration (regret matching on cumulative regrets)."""

    @abstractmethod
    def _arrays(self) -> dict[str, np.ndarray]:
        """The arrays that make up the solver's state (for checkpoints)."""

    @abstractmethod
    def _config(self) -> dict[str, Any]:
        """Constructor settings that must match when a state is loaded."""

    def _extra_state(self) -> dict[str, Any]:
        return {}

    def _load_extra_state(self, state: dict[str, Any]) -> None:
        return None

    # --- the verb set -------------------------------------------------------------------------
    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` more iterations."""
        timed_step(self, iterations)

    def average_strategy(self) -> Strategy:
        """The normalised average strategy: what converges to equilibrium."""
        return Strategy(self.compiled, self.compiled.normalise(self.strategy_sum()))

    def exploitability(self) -> float:
        """Exploitability of the current average strategy."""
        return exploitability(self.compiled, self.average_strategy())

    def solve(
        self,
        iterations: int | None = None,
        target_exploitability: float | None = None,
        seconds: float | None = None,
        callback: Callback | None = None,
        check_every: int | None = None,
    ) -> Progress:
        """Iterate until a limit is met: ``iterations`` more iterations, exploitability at or
        below ``target_exploitability`` (checked every ``check_every`` iterations), ``seconds`` of
        solving time, or the callback returning True. At least one limit is required.
        Returns the final progress (with the exploitability measured at the end).
        """
        if iterations is None and target_exploitability is None and seconds is None:
            raise PokerlabError("solve needs iterations, target_exploitability or seconds")
        check_limits(self, iterations, target_exploitability, seconds, None, None)
        iterations = None if iterations is None else iteration_count(iterations)
        every = check_every or self.default_check_every()
        if every < 1:
            raise PokerlabError(f"check_every must be >= 1, got {every}")
        end = run_loop(
            self.step,
            lambda: (self.iterations, self.seconds, self.nodes_touched),
            check_every=every,
            iterations=iterations,
            target=target_exploitability,
            seconds=seconds,
            measure=self.exploitability if _measurable(self) else None,
            measure_at_reports=callback is not None,
            on_report=callback,
        )
        return end.progress

    def default_check_every(self) -> int:
        return 10

    # --- checkpoints --------------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume exactly: arrays, counters, settings, game identity."""
        game = self.compiled.game
        return state_record(self, game.name, game.params, self.compiled.kind)

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a state produced by :meth:`state_dict` of a solver with the same settings."""
        if state.get("format") != STATE_FORMAT:
            raise PokerlabError(f"unsupported solver state format {state.get('format')!r}")
        mine = (self.algorithm, self.compiled.game.name, dict(self.compiled.game.params))
        theirs = (state.get("algorithm"), state.get("game"), state.get("game_params"))
        if mine != theirs:
            raise PokerlabError(f"state is for {theirs}, this solver is {mine}")
        if state.get("config") != self._config():
            raise PokerlabError(
                f"state settings {state.get('config')} differ from this solver's {self._config()}"
            )
        arrays = self._arrays()
        incoming = state["arrays"]
        for name, arr in arrays.items():
            if name not in incoming or incoming[name].shape != arr.shape:
                raise PokerlabError(f"state array {name!r} is missing or has the wrong shape")
        for name, arr in arrays.items():
            arr[...] = incoming[name]
        self.iterations = int(state["iterations"])
        self.nodes_touched = int(state["nodes_touched"])
        self.seconds = float(state["seconds"])
        self._load_extra_state(state.get("extra", {}))
