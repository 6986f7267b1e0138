"""How a training run stops and how it ended: the default stopping rule, the run's result and
the process exit codes (used by :class:`~pokerlab.solvers.run.TrainingRun`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pokerlab.errors import PokerlabError
from pokerlab.solvers.loop import iteration_count

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_TARGET_NOT_REACHED",
    "RunResult",
    "RunStatus",
    "check_limits",
    "default_limits",
]

#: Exit code of a run stopped by Ctrl-C (128 + SIGINT, the shell's convention).
EXIT_INTERRUPTED = 130
#: Exit code of a run that ended on another limit before reaching its target exploitability.
EXIT_TARGET_NOT_REACHED = 3

RunStatus = Literal["completed", "target not reached", "interrupted"]


def _measurable(solver: Any) -> bool:
    """Exploitability (NashConv / players, OpenSpiel's convention) is defined for zero-sum games
    of any number of players; with two it is the distance to an equilibrium's value."""
    game = getattr(solver, "game", None)
    return getattr(game, "num_players", 0) >= 2 and bool(getattr(game, "zero_sum", False))


def _two_player(solver: Any) -> bool:
    """CFR's average strategy converges to an equilibrium in two-player zero-sum games; with more
    players there is no such guarantee (exploitability need not reach a target)."""
    return _measurable(solver) and getattr(solver.game, "num_players", 0) == 2


def _is_sampling(solver: Any) -> bool:
    return str(getattr(solver, "algorithm", "")).endswith("mccfr")


def check_limits(
    solver: Any,
    iterations: int | None,
    target_exploitability: float | None,
    seconds: float | None,
    nodes: int | None,
    measure: Callable[[Any], float] | None,
) -> None:
    """Refuse, with :class:`~pokerlab.errors.PokerlabError`, stopping limits a run of
    ``solver`` cannot keep: none at all, a count or budget out of range, a target where
    exploitability is undefined (and no ``measure`` given), or a target alone with more than
    two players (nothing would end a run that never gets there)."""
    if iterations is None and target_exploitability is None and seconds is None:
        if nodes is None:
            raise PokerlabError(
                "a training run needs a limit: iterations, target_exploitability, seconds or "
                "nodes (pokerlab.solvers.run.default_limits(solver) gives the usual one)"
            )
    if iterations is not None:
        iteration_count(iterations)
    if target_exploitability is not None:
        if not target_exploitability > 0 or not math.isfinite(target_exploitability):
            raise PokerlabError(
                f"target_exploitability must be a number > 0, got {target_exploitability}"
            )
        if measure is None and not _measurable(solver):
            raise PokerlabError(
                "exploitability is defined for zero-sum games only; "
                "give an iteration or time limit instead of a target"
            )
        uncapped = iterations is None and seconds is None and nodes is None
        if measure is None and not _two_player(solver) and uncapped:
            raise PokerlabError(
                "with more than two players CFR need not reach an exploitability target: "
                "give an iteration or time limit with it"
            )
    if seconds is not None and (not seconds > 0 or not math.isfinite(seconds)):
        raise PokerlabError(f"seconds must be a number > 0, got {seconds}")
    if nodes is not None and nodes < 1:
        raise PokerlabError(f"nodes must be >= 1, got {nodes}")


def default_limits(solver: Any) -> dict[str, float | int]:
    """The stopping rule used when a caller gives none: target exploitability 1e-3 (Monte Carlo
    CFR, which converges like 1/sqrt(T): 1e-2) in two-player zero-sum games; otherwise 10,000
    iterations (Monte Carlo CFR: 1,000,000), exploitability still reported where it is defined.
    Returned as keyword arguments of :class:`TrainingRun`."""
    if _two_player(solver):
        return {"target_exploitability": 1e-2 if _is_sampling(solver) else 1e-3}
    return {"iterations": 1_000_000 if _is_sampling(solver) else 10_000}


@dataclass
class RunResult:
    """How a :class:`TrainingRun` ended.

    ``status`` is ``"completed"`` (a limit was met, the target reached if one was set),
    ``"target not reached"`` (another limit ended the run first) or ``"interrupted"`` (a stop
    request). ``exploitability`` is in game units (NaN where undefined); ``seconds`` is the
    solver's cumulative solving time; ``check_seconds`` the wall seconds this run spent measuring
    exploitability (apart from ``seconds``); ``files`` every file written, in order, once each.
    """

    status: RunStatus
    stop_reason: str
    iterations: int
    seconds: float
    nodes_touched: int
    exploitability: float
    target_exploitability: float | None = None
    check_seconds: float = 0.0
    files: list[Path] = field(default_factory=list)

    @property
    def partial(self) -> bool:
        """True when the result is not what was asked for (interrupted or target not reached)."""
        return self.status != "completed"

    @property
    def exit_code(self) -> int:
        """0, :data:`EXIT_TARGET_NOT_REACHED` or :data:`EXIT_INTERRUPTED`."""
        if self.status == "interrupted":
            return EXIT_INTERRUPTED
        return EXIT_TARGET_NOT_REACHED if self.status == "target not reached" else 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN becomes None)."""
        expl = None if math.isnan(self.exploitability) else self.exploitability
        return {
            "status": self.status,
            "stop_reason": self.stop_reason,
            "partial": self.partial,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "check_seconds": self.check_seconds,
            "nodes_touched": self.nodes_touched,
            "exploitability": expl,
            "target_exploitability": self.target_exploitability,
            "files": [str(p) for p in self.files],
        }
