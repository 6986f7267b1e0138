"""How a training run stops and how it ended: the default stopping rule, the run's result and
the process exit codes (used by :class:`~pokerlab.solvers.run.TrainingRun`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_TARGET_NOT_REACHED",
    "RunResult",
    "RunStatus",
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
