"""The one stopping loop of every solver: iterate in chunks, report, stop at the first limit.

:meth:`Solver.solve <pokerlab.solvers.base.Solver.solve>`, the postflop solvers' ``solve`` and
:class:`~pokerlab.solvers.run.TrainingRun` all run :func:`run_loop`; they differ only in what
they measure and what they do at a report. One report is made before the first chunk and after
every chunk; at each, in this order:

1. the exploitability is measured (``measure``; only when ``measure_at_reports`` or a target is
   set, and never before the first iteration);
2. ``on_report(progress)`` runs (True ends the loop: ``"callback"``);
3. a stop request (``stop()``: Ctrl-C through a :class:`~pokerlab.io.interrupts.StopFlag`)
   ends it (``"stop"``);
4. the limits, in order: ``target`` (exploitability at or below it), ``iterations`` (this many
   more), ``seconds`` (of solving, this loop's), ``nodes`` (touched in all).

A chunk is ``check_every`` iterations (fewer to land on the iteration limit, or what
``next_chunk()`` asks for), stepped in pieces of at most ``check_every`` so that a stop request
is seen within one piece. At the end the exploitability is measured once more when the last
report did not measure it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pokerlab.errors import PokerlabError

__all__ = ["LoopEnd", "Progress", "StopReason", "iteration_count", "run_loop"]

#: Why :func:`run_loop` ended.
StopReason = Literal["callback", "stop", "target", "iterations", "seconds", "nodes"]


@dataclass(frozen=True)
class Progress:
    """What a solver reports to its callback after each chunk of iterations.

    ``seconds`` is the time spent in solver iterations (not in exploitability checks, not in JIT
    compilation); ``exploitability`` is NaN when it was not computed at this point.
    """

    iterations: int
    seconds: float
    nodes_touched: int
    exploitability: float

    def to_dict(self) -> dict[str, float | int]:
        return {
            "iterations": self.iterations,
            "seconds": self.seconds,
            "nodes_touched": self.nodes_touched,
            "exploitability": self.exploitability,
        }


@dataclass(frozen=True)
class LoopEnd:
    """The last report of :func:`run_loop` (``progress``, its exploitability measured at the end
    where a measure exists) and why the loop ended (``reason``)."""

    progress: Progress
    reason: StopReason


def iteration_count(value: Any, name: str = "iterations") -> int:
    """``value`` as an iteration count: a whole number >= 0 (an ``int`` or numpy integer, not a
    bool, a float or a string), else :class:`~pokerlab.errors.PokerlabError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise PokerlabError(f"{name} must be a whole number, got {value!r}")
    if value < 0:
        raise PokerlabError(f"{name} must be >= 0, got {value}")
    return int(value)


def run_loop(
    step: Callable[[int], None],
    counters: Callable[[], tuple[int, float, int]],
    *,
    check_every: int,
    iterations: int | None = None,
    target: float | None = None,
    seconds: float | None = None,
    nodes: int | None = None,
    measure: Callable[[], float] | None = None,
    measure_at_reports: bool = False,
    on_report: Callable[[Progress], bool | None] | None = None,
    stop: Callable[[], bool] | None = None,
    next_chunk: Callable[[int], int] | None = None,
) -> LoopEnd:
    """Run ``step(n)`` until a limit (see the module docstring for the order of a report).

    ``counters()`` gives the solver's (iterations in all, solving seconds, nodes touched);
    ``iterations`` counts iterations *more* than at the start; ``measure()`` gives the
    exploitability (None: not defined, NaN throughout); ``next_chunk(default)`` may change the
    size of the next chunk (at least 1). At least one of ``iterations``, ``target``,
    ``seconds``, ``nodes``, ``on_report`` or ``stop`` should end the loop; the caller checks the
    limits' values.
    """
    limit = math.inf if iterations is None else iterations
    start_iterations, start_seconds, _ = counters()
    expl = math.nan
    measured_at = -1
    wants_measure = measure is not None and (measure_at_reports or target is not None)
    reason: StopReason
    while True:
        done_all, secs, touched = counters()
        if wants_measure and done_all > 0:
            assert measure is not None
            expl = measure()
            measured_at = done_all
        else:
            expl = math.nan
        progress = Progress(done_all, secs, touched, expl)
        if on_report is not None and on_report(progress):
            reason = "callback"
            break
        if stop is not None and stop():
            reason = "stop"
            break
        if target is not None and expl <= target:
            reason = "target"
            break
        done = done_all - start_iterations
        if done >= limit:
            reason = "iterations"
            break
        if seconds is not None and secs - start_seconds >= seconds:
            reason = "seconds"
            break
        if nodes is not None and touched >= nodes:
            reason = "nodes"
            break
        chunk = int(min(check_every, limit - done))
        if next_chunk is not None:
            chunk = int(min(max(1, next_chunk(chunk)), limit - done))
        while chunk > 0:  # long chunks in pieces: a stop request is seen within one piece
            piece = min(chunk, check_every)
            step(piece)
            chunk -= piece
            if stop is not None and stop():
                break
    done_all, secs, touched = counters()
    if measure is not None and (math.isnan(expl) or measured_at != done_all):
        expl = measure()
    return LoopEnd(Progress(done_all, secs, touched, expl), reason)
