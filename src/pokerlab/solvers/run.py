"""Training runs: stopping rules, checkpoints, the JSON-lines log, Ctrl-C and resume, in one place.

A :class:`TrainingRun` drives any object with the solver verb set (``step``, ``state_dict``,
``load_state_dict``, ``average_strategy`` and the counters ``iterations``, ``nodes_touched``,
``seconds``; see :class:`Trainable`): the CFR family, Monte Carlo CFR, and solvers to come. It owns
what a command line, a notebook or a distributed runner would otherwise each rewrite:

* **stopping rules**: a total iteration count, a target exploitability, a budget of solving
  seconds, a budget of nodes touched, a callback, or an interruption, whichever comes first;
* **reports** every ``check_every`` iterations (or at given node budgets): exploitability where it
  is defined (zero-sum games), a JSON line appended to the log, a callback;
* **checkpoints** every N iterations and/or every S seconds of wall time, at the end and on
  interruption, each written atomically (:mod:`pokerlab.io.files`);
* **Ctrl-C**: the first SIGINT asks the run to stop at the next safe point (the end of the current
  chunk of iterations, when the solver's arrays are consistent); the run then saves and reports
  ``"interrupted"``; it prints :data:`STOP_NOTICE` on stderr as soon as Python sees it. A
  second SIGINT interrupts at once (``KeyboardInterrupt``), except while a file is written
  (:func:`shield_sigint`: the write completes). Signals are
  handled only in the main thread; elsewhere (a Ray actor, a worker thread) pass a shared
  :class:`StopFlag` and set it yourself;
* **resume checks** (:func:`resume_solver`): a checkpoint is refused when the game, its
  parameters, the algorithm or the seed asked for differ from the ones it was made with;
* **outcomes**: :class:`RunResult` says whether the run completed, stopped short of its target
  (``"target not reached"``) or was interrupted, with the process exit code of each
  (:data:`EXIT_TARGET_NOT_REACHED`, :data:`EXIT_INTERRUPTED`).

Output paths are checked before any work starts (:func:`check_output_file`,
:func:`check_output_folder`), and temporary files left by a killed atomic write are removed then.
:func:`check_history_tree_size` refuses at once a game whose history tree would take minutes to
build in Python (push/fold for the sampling solvers), instead of a silent wait.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from pokerlab.errors import PokerlabError

# The pieces a run uses live by job: Ctrl-C in pokerlab.io.interrupts, output paths in
# pokerlab.io.paths, the history-tree guard in pokerlab.solvers.guards, resume checks in
# pokerlab.solvers.resume. Their names stay importable from here (the public API of a run).
from pokerlab.io.interrupts import STOP_NOTICE, StopFlag, shield_sigint, stop_on_sigint
from pokerlab.io.paths import check_output_file, check_output_folder, remove_stale_temporaries
from pokerlab.solvers.guards import (
    HISTORY_TREE_LIMIT,
    check_history_tree_size,
    estimate_history_count,
)
from pokerlab.solvers.loop import Progress, run_loop
from pokerlab.solvers.resume import canonical_algorithm, resume_solver
from pokerlab.solvers.run_files import RunFiles
from pokerlab.solvers.stopping import (
    EXIT_INTERRUPTED,
    EXIT_TARGET_NOT_REACHED,
    RunResult,
    RunStatus,
    _measurable,
    check_limits,
    default_limits,
)

__all__ = [
    "EXIT_INTERRUPTED",
    "EXIT_TARGET_NOT_REACHED",
    "HISTORY_TREE_LIMIT",
    "RunResult",
    "RunStatus",
    "StopFlag",
    "Trainable",
    "TrainingRun",
    "check_history_tree_size",
    "check_output_file",
    "check_output_folder",
    "canonical_algorithm",
    "default_limits",
    "estimate_history_count",
    "remove_stale_temporaries",
    "resume_solver",
    "shield_sigint",
    "stop_on_sigint",
    "STOP_NOTICE",
]


class Trainable(Protocol):
    """What :class:`TrainingRun` needs of a solver: the verb set of
    :class:`~pokerlab.solvers.base.Solver` and its counters. ``seconds`` and ``nodes_touched``
    may be missing (the limit hold'em solvers): the run then times ``step`` itself and counts
    no nodes."""

    algorithm: str
    iterations: int
    nodes_touched: int
    seconds: float

    def step(self, iterations: int = 1) -> None: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...

    def average_strategy(self) -> Any: ...


class TrainingRun(RunFiles):
    """One training run of ``solver`` under stopping rules, with reports, a JSON-lines log,
    checkpoints and Ctrl-C handling (see the module docstring).

    Parameters
    ----------
    solver:
        Any :class:`Trainable` (a :class:`~pokerlab.solvers.base.Solver`).
    iterations:
        Stop when the solver has done this many iterations **in total** (a resumed solver counts
        the iterations of its checkpoint): the same limit before and after a resume gives the same
        run.
    target_exploitability:
        Stop once the measured exploitability (game units) is at or below this; only where it is
        defined (zero-sum games; with more than two players only beside another limit). Measured
        at every report.
    seconds:
        Stop after this much solving time (iterations only, seconds) in this run.
    nodes:
        Stop once the solver has touched this many nodes in total.
    check_every:
        Iterations between reports (default: the solver's ``default_check_every()``, else 10).
    report_nodes:
        Instead of every ``check_every`` iterations, report when the nodes touched first reach
        each of these budgets (ascending; used for exploitability-vs-cost curves). The solver
        still steps at most ``check_every`` iterations at a time, so a stop request is seen
        within one such piece (and reported there).
    checkpoint:
        Checkpoint file. Written every ``checkpoint_every`` iterations, every
        ``checkpoint_seconds`` of wall time (checked at reports), on interruption, and at the end
        when ``checkpoint_at_end``.
    out:
        Strategy file: the average strategy is written here at the end, interrupted or not, with
        ``status`` and ``partial`` in its metadata plus ``out_metadata``.
    log:
        JSON-lines file (:class:`~pokerlab.solvers.metrics.JsonLinesLog`): one line per report,
        appended (a resumed run continues its log); ``log_fields`` are added to every line, and
        ``log_extra(solver)`` (a dict, or None) to the line of each report.
    on_report:
        Called with every :class:`~pokerlab.solvers.base.Progress`; returning True stops the run
        (status ``"completed"``, reason ``"stopped by callback"``).
    on_write:
        Called with ``(path, kind)`` after each file is written (``"checkpoint"``, ``"strategy"``).
    stop:
        A shared :class:`StopFlag`; when None the run installs :func:`stop_on_sigint` itself
        (``handle_sigint``).
    measure:
        ``measure(solver) -> float``: the exploitability (default the solving loop's check,
        ``solver.check_exploitability()`` where the solver has one, else
        ``solver.exploitability()`` where defined, NaN elsewhere), in the units of the target;
        NaN skips a measurement (a measure may measure only some reports).
    checkpoint_metadata:
        Extra metadata for checkpoint files (for example the seed).
    """

    def __init__(
        self,
        solver: Trainable,
        *,
        iterations: int | None = None,
        target_exploitability: float | None = None,
        seconds: float | None = None,
        nodes: int | None = None,
        check_every: int | None = None,
        report_nodes: Sequence[float] | None = None,
        checkpoint: str | os.PathLike[str] | None = None,
        checkpoint_every: int | None = None,
        checkpoint_seconds: float | None = None,
        checkpoint_at_end: bool = True,
        checkpoint_metadata: dict[str, Any] | None = None,
        out: str | os.PathLike[str] | None = None,
        out_metadata: dict[str, Any] | None = None,
        log: str | os.PathLike[str] | None = None,
        log_fields: dict[str, Any] | None = None,
        log_extra: Callable[[Any], dict[str, Any] | None] | None = None,
        on_report: Callable[[Progress], bool | None] | None = None,
        on_write: Callable[[Path, str], None] | None = None,
        stop: StopFlag | None = None,
        handle_sigint: bool = True,
        measure: Callable[[Any], float] | None = None,
    ) -> None:
        check_limits(solver, iterations, target_exploitability, seconds, nodes, measure)
        for name, value in (("check_every", check_every), ("checkpoint_every", checkpoint_every)):
            if value is not None and value < 1:
                raise PokerlabError(f"{name} must be >= 1, got {value}")
        if checkpoint_seconds is not None and not checkpoint_seconds > 0:
            raise PokerlabError(f"checkpoint_seconds must be > 0, got {checkpoint_seconds}")
        if checkpoint is None and (checkpoint_every is not None or checkpoint_seconds is not None):
            raise PokerlabError("checkpoint_every/checkpoint_seconds need a checkpoint path")
        self.solver = solver
        self.iterations = iterations
        self.target_exploitability = target_exploitability
        self.seconds = seconds
        self.nodes = nodes
        default_every = getattr(solver, "default_check_every", None)  # a method or a number
        if callable(default_every):
            default_every = default_every()
        self.check_every = int(check_every or default_every or 10)
        self.report_nodes = sorted(report_nodes) if report_nodes is not None else None
        self.checkpoint = None if checkpoint is None else Path(checkpoint)
        self.checkpoint_every = checkpoint_every
        self.checkpoint_seconds = checkpoint_seconds
        self.checkpoint_at_end = checkpoint_at_end
        self.checkpoint_metadata = dict(checkpoint_metadata or {})
        self.out = None if out is None else Path(out)
        self.out_metadata = dict(out_metadata or {})
        self.log = None if log is None else Path(log)
        self.log_fields = dict(log_fields or {})
        self.log_extra = log_extra
        self.on_report = on_report
        self.on_write = on_write
        self.stop = stop
        self.handle_sigint = handle_sigint
        self._measure = measure
        #: wall seconds spent in :meth:`measure` (the exploitability checks), apart from the
        #: solver's ``seconds``
        self.check_seconds = 0.0
        self._files: list[Path] = []
        self._last_saved = (solver.iterations, time.perf_counter())
        self._stop: StopFlag | None = stop  # the run's flag, once running
        #: solving seconds of this run, timed here for a solver without its own ``seconds``
        self._stepped_seconds = 0.0

    # --- the solver's counters (a solver may lack some: then the run keeps them) ----------------
    @property
    def solve_seconds(self) -> float:
        """The solver's cumulative solving seconds (iterations only), or this run's when the
        solver keeps none."""
        return self._seconds()

    def _seconds(self) -> float:
        seconds = getattr(self.solver, "seconds", None)
        return float(seconds) if seconds is not None else self._stepped_seconds

    def _nodes(self) -> int:
        """Nodes touched by the solver in all (0 when it does not count them)."""
        return int(getattr(self.solver, "nodes_touched", 0))

    def _step(self, iterations: int) -> None:
        start = time.perf_counter()
        self.solver.step(iterations)
        self._stepped_seconds += time.perf_counter() - start

    # --- pieces -------------------------------------------------------------------------------

    def measure(self) -> float:
        """The solver's exploitability now (NaN where undefined or before any iteration); the
        time it takes accrues in :attr:`check_seconds`."""
        if self.solver.iterations == 0:
            return math.nan
        start = time.perf_counter()
        try:
            return self._measure_now()
        finally:
            self.check_seconds += time.perf_counter() - start

    def _measure_now(self) -> float:
        if self._measure is not None:
            return float(self._measure(self.solver))
        if not _measurable(self.solver):
            return math.nan
        solver: Any = self.solver
        return float(getattr(solver, "check_exploitability", solver.exploitability)())

    def _check_finite(self) -> None:
        """The solver's own check of its arrays (``check_finite()``, where it has one): a NaN or
        infinity stops the run with :class:`~pokerlab.errors.NonFiniteError` before any report
        or file."""
        check = getattr(self.solver, "check_finite", None)
        if check is not None:
            check()

    def _next_chunk(self) -> int:
        solver = self.solver
        chunk: float = self.check_every
        if self.report_nodes is not None:
            touched = self._nodes()
            mark = next((m for m in self.report_nodes if m > touched), None)
            goal = mark if mark is not None else self.nodes
            if solver.iterations == 0 or goal is None:
                chunk = 1
            else:
                per_iteration = max(touched / solver.iterations, 1e-12)
                chunk = max(1, math.ceil((goal - touched) / per_iteration))
        if self.checkpoint_every:
            chunk = min(chunk, self.checkpoint_every)
        if self.iterations is not None:
            chunk = min(chunk, self.iterations - solver.iterations)
        return max(1, int(chunk))

    # --- the run ------------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Run to a stopping rule; write the checkpoint and strategy files; return the result.

        Output paths are checked first (nothing is solved when one cannot be written, and a
        solver that has not iterated never writes over an existing checkpoint).
        """
        self.check_outputs(fresh=int(getattr(self.solver, "iterations", 0)) == 0)
        if self.stop is not None or not self.handle_sigint:
            return self._run(self.stop if self.stop is not None else StopFlag())
        with stop_on_sigint() as flag:
            return self._run(flag)

    def _run(self, stop: StopFlag) -> RunResult:
        from pokerlab.solvers.metrics import JsonLinesLog

        self._stop = stop

        solver = self.solver
        metrics = None
        if self.log is not None:
            metrics = JsonLinesLog(self.log, append=True, **self.log_fields)
        self._last_saved = (solver.iterations, time.perf_counter())

        def measure() -> float:
            self._check_finite()  # a NaN or infinity stops the run before any report or file
            return self.measure()

        def report(progress: Progress) -> bool:
            if metrics is not None:
                extra = self.log_extra(solver) if self.log_extra is not None else None
                metrics(progress, **(extra or {}))
            if self.checkpoint is not None and self._checkpoint_due():
                self.save_checkpoint()
            return bool(self.on_report is not None and self.on_report(progress))

        more = None if self.iterations is None else max(0, self.iterations - solver.iterations)
        try:
            end = run_loop(
                self._step,
                lambda: (solver.iterations, self._seconds(), self._nodes()),
                check_every=self.check_every,
                iterations=more,
                target=self.target_exploitability,
                seconds=self.seconds,
                nodes=self.nodes,
                measure=measure,
                measure_at_reports=True,
                on_report=report,
                stop=lambda: stop.requested,
                next_chunk=lambda default: self._next_chunk(),
            )
        finally:
            if metrics is not None:
                metrics.close()
        self._check_finite()  # nothing non-finite is saved
        expl = end.progress.exploitability
        status: RunStatus = "interrupted" if end.reason == "stop" else "completed"
        reason = {
            "callback": lambda: "stopped by callback",
            "stop": lambda: "interrupted",
            "target": lambda: f"target exploitability {self.target_exploitability:g} reached",
            "iterations": lambda: f"{self.iterations} iterations",
            "seconds": lambda: f"{self.seconds:g} seconds",
            "nodes": lambda: f"{self.nodes} nodes touched",
        }[end.reason]()
        target = self.target_exploitability
        if status == "completed" and target is not None and not expl <= target:
            if reason != "stopped by callback":
                status = "target not reached"
        if self.checkpoint is not None and (status == "interrupted" or self.checkpoint_at_end):
            if self._last_saved[0] != solver.iterations or self.checkpoint not in self._files:
                self.save_checkpoint()
        if self.out is not None:
            self.save_strategy(status, expl)
        return RunResult(
            status=status,
            stop_reason=reason,
            iterations=solver.iterations,
            seconds=self._seconds(),
            nodes_touched=self._nodes(),
            exploitability=expl,
            target_exploitability=target,
            check_seconds=self.check_seconds,
            files=list(self._files),
        )
