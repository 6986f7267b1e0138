"""Training runs: stopping rules, checkpoints, the JSON-lines log, Ctrl-C and resume, in one place.

A :class:`TrainingRun` drives any object with the solver verb set (``step``, ``state_dict``,
``load_state_dict``, ``average_strategy`` and the counters ``iterations``, ``nodes_touched``,
``seconds``; see :class:`Trainable`): the CFR family, Monte Carlo CFR, and solvers to come. It owns
what a command line, a notebook or a distributed runner would otherwise each rewrite:

* **stopping rules**: a total iteration count, a target exploitability, a budget of solving
  seconds, a budget of nodes touched, a callback, or an interruption, whichever comes first;
* **reports** every ``check_every`` iterations (or at given node budgets): exploitability where it
  is defined (two-player zero-sum games), a JSON line appended to the log, a callback;
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

import fnmatch
import math
import os
import random
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from pokerlab.errors import PokerlabError
from pokerlab.solvers.base import Progress

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

#: Exit code of a run stopped by Ctrl-C (128 + SIGINT, the shell's convention).
EXIT_INTERRUPTED = 130
#: Exit code of a run that ended on another limit before reaching its target exploitability.
EXIT_TARGET_NOT_REACHED = 3

RunStatus = Literal["completed", "target not reached", "interrupted"]

#: Histories above which :func:`check_history_tree_size` refuses to build a history tree: the
#: Python builder expands about 30,000 histories per second, so this is about half a minute.
HISTORY_TREE_LIMIT = 1_000_000

#: The longest file name most file systems accept (bytes).
_NAME_MAX = 255


class Trainable(Protocol):
    """What :class:`TrainingRun` needs of a solver: the verb set of
    :class:`~pokerlab.solvers.base.Solver` and its counters."""

    algorithm: str
    iterations: int
    nodes_touched: int
    seconds: float

    def step(self, iterations: int = 1) -> None: ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: dict[str, Any]) -> None: ...

    def average_strategy(self) -> Any: ...


# --- Ctrl-C ----------------------------------------------------------------------------------


class StopFlag:
    """A request to stop at the next safe point: set by SIGINT (:func:`stop_on_sigint`) or by
    :meth:`request` (another thread, a distributed driver)."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def request(self) -> None:
        """Ask every run watching this flag to stop at its next safe point."""
        self._event.set()

    @property
    def requested(self) -> bool:
        """True once a stop was asked for."""
        return self._event.is_set()


#: What the first Ctrl-C prints on stderr as soon as Python sees it (:func:`stop_on_sigint`).
STOP_NOTICE = "stopping after this iteration..."


def _notice(message: str) -> None:
    """``message`` on stderr now, in one write (safe inside a signal handler)."""
    try:
        os.write(2, (message + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


@contextmanager
def stop_on_sigint(
    flag: StopFlag | None = None, notice: str | None = STOP_NOTICE
) -> Iterator[StopFlag]:
    """While inside, the first SIGINT (Ctrl-C) sets the returned :class:`StopFlag` instead of
    raising and prints ``notice`` on stderr at once (None: nothing); a second one raises
    ``KeyboardInterrupt`` at once, except inside :func:`shield_sigint` (a file being written).
    The previous handler is restored on exit. Outside the main thread signals cannot be caught:
    the flag is returned unarmed."""
    flag = flag if flag is not None else StopFlag()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def on_sigint(signum: int, frame: object) -> None:
        if not flag.requested:
            flag.request()
            if notice:
                _notice(notice)
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def shield_sigint(what: str = "the files", flag: StopFlag | None = None) -> Iterator[None]:
    """While inside (a file being written), Ctrl-C does not interrupt: it asks ``flag`` to stop
    at the next safe point (printing :data:`STOP_NOTICE`) if it has not yet, else prints that
    ``what`` is being written and carries on, so the write completes. The previous handler is
    restored on exit. Outside the main thread it does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_sigint(signum: int, frame: object) -> None:
        if flag is not None and not flag.requested:
            flag.request()
            _notice(STOP_NOTICE)
        else:
            _notice(f"writing {what}: Ctrl-C is held until it is complete")

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# --- output paths ----------------------------------------------------------------------------

# pokerlab.io.files.atomic_write_bytes writes ".<name>.<8 random characters>.tmp" next to the
# target (tempfile.mkstemp) and renames it; a kill between the two leaves that file behind.
_TEMPORARY = re.compile(r"^\.(?P<target>.+)\.[A-Za-z0-9_]{8}\.tmp$")


def remove_stale_temporaries(
    folder: str | os.PathLike[str], targets: Iterable[str] | None = None
) -> list[Path]:
    """Delete the temporary files that an interrupted atomic write left in ``folder`` for the file
    names ``targets`` (shell patterns such as ``"best_strategy*"``; every target when None);
    return the paths removed. Call it before a run writes there: a running writer of the same
    target would lose its temporary file."""
    base = Path(folder)
    wanted = None if targets is None else list(targets)
    removed: list[Path] = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match is None:
            continue
        if wanted is not None and not any(fnmatch.fnmatchcase(match["target"], w) for w in wanted):
            continue
        try:
            if entry.is_file():
                entry.unlink()
                removed.append(entry)
        except OSError:
            pass
    return removed


def _check_folder_chain(folder: Path, option: str, target: Path) -> None:
    """The nearest existing ancestor of ``folder`` (itself included) must be a writable folder."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            if not candidate.is_dir():
                raise PokerlabError(
                    f"{option} {str(target)!r}: {str(candidate)!r} is a file, not a folder"
                )
            if not os.access(candidate, os.W_OK | os.X_OK):
                raise PokerlabError(
                    f"{option} {str(target)!r}: folder {str(candidate)!r} is not writable"
                )
            return
        if candidate.is_symlink():  # a dangling link: mkdir would fail
            raise PokerlabError(f"{option} {str(target)!r}: {str(candidate)!r} is a broken link")


def check_output_file(path: str | os.PathLike[str], option: str = "--out") -> Path:
    """Check, before any work, that a file can be written at ``path``; clean stale temporaries.

    Refused with :class:`~pokerlab.errors.PokerlabError` naming ``option`` and the path: an
    existing directory as the target, a file where a parent folder should be, a folder that is not
    writable, a file name longer than 255 bytes, a parent folder that does not exist (nothing
    creates folders behind the user's back: a typo in a path is an error). Returns the path.
    """
    target = Path(path)
    if not target.name or target.name in (".", ".."):
        raise PokerlabError(f"{option} {str(target)!r} names a folder, not a file")
    if len(os.fsencode(target.name)) > _NAME_MAX:
        raise PokerlabError(
            f"{option}: file name {target.name[:40]!r}... is longer than {_NAME_MAX} bytes"
        )
    if target.is_dir():
        raise PokerlabError(f"{option} {str(target)!r} is a directory; give a file name")
    folder = target.parent if str(target.parent) else Path(".")
    _check_folder_chain(folder, option, target)
    _check_exists(folder, option, target)
    remove_stale_temporaries(folder, [target.name])
    return target


def _check_exists(folder: Path, option: str, target: Path) -> None:
    """Refuse a missing ``folder`` (after :func:`_check_folder_chain` named worse problems)."""
    if not folder.is_dir():
        raise PokerlabError(
            f"{option} {str(target)!r}: folder {str(folder)!r} does not exist (create it first)"
        )


def check_output_folder(
    path: str | os.PathLike[str], option: str = "--out", targets: Iterable[str] | None = None
) -> Path:
    """Check, before any work, that ``path`` is or can become a writable folder (it may be
    created, its parent must exist); remove stale temporaries of the file names ``targets``
    (shell patterns) in it (all when None). Returns the path."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise PokerlabError(f"{option} {str(folder)!r} is a file, not a folder")
    for part in folder.parts:
        if len(os.fsencode(part)) > _NAME_MAX:
            raise PokerlabError(f"{option}: name {part[:40]!r}... is longer than {_NAME_MAX} bytes")
    _check_folder_chain(folder, option, folder)
    if folder.is_dir():
        remove_stale_temporaries(folder, targets)
    else:
        _check_exists(folder.parent if str(folder.parent) else Path("."), option, folder)
    return folder


# --- history-tree size guard -----------------------------------------------------------------


def estimate_history_count(game: Any, probes: int = 64, seed: int = 0) -> float:
    """Estimated number of histories of ``game`` (its history-tree size), without building it.

    Knuth's estimator (Knuth 1975, "Estimating the efficiency of backtrack programs"): walk
    ``probes`` random paths from the root, choosing each child uniformly; along a path the number
    of nodes at depth d is estimated by the product of the branching factors above it, and the sum
    over depths is an unbiased estimate of the tree size. Exact for trees whose branching depends
    only on depth (push/fold); cost: ``probes`` x depth calls of the history interface.
    """
    rng = random.Random(seed)
    total = 0.0
    for _ in range(probes):
        history = game.initial_history()
        weight = 1.0
        count = 1.0
        while not history.is_terminal():
            if history.is_chance():
                actions = [a for a, _p in history.chance_outcomes()]
            else:
                actions = list(history.legal_actions())
            if not actions:
                break
            weight *= len(actions)
            count += weight
            history = history.child(actions[rng.randrange(len(actions))])
        total += count
    return total / probes


def check_history_tree_size(
    game: Any, user: str, limit: float = HISTORY_TREE_LIMIT, advice: str = ""
) -> None:
    """Refuse at once, with :class:`~pokerlab.errors.PokerlabError`, a game whose history tree
    (needed by ``user``, e.g. "es-mccfr") has more than ``limit`` histories by
    :func:`estimate_history_count`: the pure-Python builder would run for minutes without a word.
    ``advice`` says what to use instead. A history tree already compiled passes."""
    cache = getattr(game, "__dict__", {}).get("_compiled_cache", {})
    if "history" in cache:
        return
    estimate = estimate_history_count(game)
    if estimate <= limit:
        return
    minutes = estimate / 30_000 / 60
    raise PokerlabError(
        f"game {game.name!r} has about {estimate / 1e6:.1f} million histories: building the "
        f"history tree that {user} needs would take about {minutes:.0f} minutes in Python"
        + (f"; {advice}" if advice else "")
    )


# --- stopping rules and results --------------------------------------------------------------


def _measurable(solver: Any) -> bool:
    """Exploitability is defined for two-player zero-sum games."""
    game = getattr(solver, "game", None)
    return getattr(game, "num_players", 0) == 2 and bool(getattr(game, "zero_sum", False))


def _is_sampling(solver: Any) -> bool:
    return str(getattr(solver, "algorithm", "")).endswith("mccfr")


def default_limits(solver: Any) -> dict[str, float | int]:
    """The stopping rule used when a caller gives none: target exploitability 1e-3 (Monte Carlo
    CFR, which converges like 1/sqrt(T): 1e-2) where exploitability is defined; otherwise 10,000
    iterations (Monte Carlo CFR: 1,000,000). Returned as keyword arguments of
    :class:`TrainingRun`."""
    if _measurable(solver):
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


class TrainingRun:
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
        defined (two-player zero-sum games). Measured at every report.
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
        appended (a resumed run continues its log); ``log_fields`` are added to every line.
    on_report:
        Called with every :class:`~pokerlab.solvers.base.Progress`; returning True stops the run
        (status ``"completed"``, reason ``"stopped by callback"``).
    on_write:
        Called with ``(path, kind)`` after each file is written (``"checkpoint"``, ``"strategy"``).
    stop:
        A shared :class:`StopFlag`; when None the run installs :func:`stop_on_sigint` itself
        (``handle_sigint``).
    measure:
        ``measure(solver) -> float``: the exploitability (default ``solver.exploitability()``
        where defined, NaN elsewhere).
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
        on_report: Callable[[Progress], bool | None] | None = None,
        on_write: Callable[[Path, str], None] | None = None,
        stop: StopFlag | None = None,
        handle_sigint: bool = True,
        measure: Callable[[Any], float] | None = None,
    ) -> None:
        if iterations is None and target_exploitability is None and seconds is None:
            if nodes is None:
                raise PokerlabError(
                    "a training run needs a limit: iterations, target_exploitability, seconds or "
                    "nodes (pokerlab.solvers.run.default_limits(solver) gives the usual one)"
                )
        if iterations is not None and iterations < 0:
            raise PokerlabError(f"iterations must be >= 0, got {iterations}")
        if target_exploitability is not None:
            if not target_exploitability > 0 or not math.isfinite(target_exploitability):
                raise PokerlabError(
                    f"target_exploitability must be a number > 0, got {target_exploitability}"
                )
            if measure is None and not _measurable(solver):
                raise PokerlabError(
                    "exploitability is defined for two-player zero-sum games only; "
                    "give an iteration or time limit instead of a target"
                )
        if seconds is not None and (not seconds > 0 or not math.isfinite(seconds)):
            raise PokerlabError(f"seconds must be a number > 0, got {seconds}")
        if nodes is not None and nodes < 1:
            raise PokerlabError(f"nodes must be >= 1, got {nodes}")
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
        default_every = getattr(solver, "default_check_every", None)
        self.check_every = check_every or (default_every() if default_every else 10)
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

    # --- pieces -------------------------------------------------------------------------------
    def check_outputs(self) -> None:
        """Check every output path before the run (see :func:`check_output_file`)."""
        for path, option in ((self.checkpoint, "checkpoint"), (self.out, "out"), (self.log, "log")):
            if path is not None:
                check_output_file(path, option)

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
        return float(self.solver.exploitability())  # type: ignore[attr-defined]

    def _check_finite(self) -> None:
        """The solver's own check of its arrays (``check_finite()``, where it has one): a NaN or
        infinity stops the run with :class:`~pokerlab.errors.NonFiniteError` before any report
        or file."""
        check = getattr(self.solver, "check_finite", None)
        if check is not None:
            check()

    def _wrote(self, path: Path, kind: str) -> None:
        if path not in self._files:
            self._files.append(path)
        if self.on_write is not None:
            self.on_write(path, kind)

    def save_checkpoint(self) -> Path:
        """Write the solver's state to the checkpoint file now (atomically)."""
        from pokerlab.io.files import save_checkpoint

        if self.checkpoint is None:
            raise PokerlabError("this run has no checkpoint path")
        with shield_sigint(str(self.checkpoint), self._stop):
            save_checkpoint(self.checkpoint, self.solver.state_dict(), **self.checkpoint_metadata)
        self._last_saved = (self.solver.iterations, time.perf_counter())
        self._wrote(self.checkpoint, "checkpoint")
        return self.checkpoint

    def save_strategy(self, status: RunStatus, exploitability: float) -> Path:
        """Write the average strategy to ``out`` with the run's status in its metadata."""
        from pokerlab.io.files import save_strategy

        if self.out is None:
            raise PokerlabError("this run has no strategy path")
        with shield_sigint(str(self.out), self._stop):
            save_strategy(
                self.out,
                self.solver.average_strategy(),
                **{
                    "algorithm": self.solver.algorithm,
                    "iterations": self.solver.iterations,
                    "exploitability": None if math.isnan(exploitability) else exploitability,
                    **self.out_metadata,
                    "status": status,
                    "partial": status != "completed",
                },
            )
        self._wrote(self.out, "strategy")
        return self.out

    def _checkpoint_due(self) -> bool:
        done, when = self._last_saved
        if self.checkpoint_every and self.solver.iterations - done >= self.checkpoint_every:
            return True
        return bool(
            self.checkpoint_seconds and time.perf_counter() - when >= self.checkpoint_seconds
        )

    def _next_chunk(self) -> int:
        solver = self.solver
        chunk: float = self.check_every
        if self.report_nodes is not None:
            mark = next((m for m in self.report_nodes if m > solver.nodes_touched), None)
            goal = mark if mark is not None else self.nodes
            if solver.iterations == 0 or goal is None:
                chunk = 1
            else:
                per_iteration = max(solver.nodes_touched / solver.iterations, 1e-12)
                chunk = max(1, math.ceil((goal - solver.nodes_touched) / per_iteration))
        if self.checkpoint_every:
            chunk = min(chunk, self.checkpoint_every)
        if self.iterations is not None:
            chunk = min(chunk, self.iterations - solver.iterations)
        return max(1, int(chunk))

    # --- the run ------------------------------------------------------------------------------
    def run(self) -> RunResult:
        """Run to a stopping rule; write the checkpoint and strategy files; return the result.

        Output paths are checked first (nothing is solved when one cannot be written).
        """
        self.check_outputs()
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
        start_seconds = solver.seconds
        self._last_saved = (solver.iterations, time.perf_counter())
        expl = math.nan
        measured_at = -1
        status: RunStatus = "completed"
        reason = ""
        try:
            while True:
                self._check_finite()
                expl = self.measure()
                measured_at = solver.iterations
                progress = Progress(solver.iterations, solver.seconds, solver.nodes_touched, expl)
                if metrics is not None:
                    metrics(progress)
                if self.checkpoint is not None and self._checkpoint_due():
                    self.save_checkpoint()
                if self.on_report is not None and self.on_report(progress):
                    reason = "stopped by callback"
                    break
                if stop.requested:
                    status, reason = "interrupted", "interrupted"
                    break
                target = self.target_exploitability
                if target is not None and expl <= target:
                    reason = f"target exploitability {target:g} reached"
                    break
                if self.iterations is not None and solver.iterations >= self.iterations:
                    reason = f"{self.iterations} iterations"
                    break
                if self.seconds is not None and solver.seconds - start_seconds >= self.seconds:
                    reason = f"{self.seconds:g} seconds"
                    break
                if self.nodes is not None and solver.nodes_touched >= self.nodes:
                    reason = f"{self.nodes} nodes touched"
                    break
                remaining = self._next_chunk()
                while remaining > 0:  # long chunks (node budgets) in pieces: Ctrl-C stays prompt
                    piece = min(remaining, self.check_every)
                    solver.step(piece)
                    remaining -= piece
                    if stop.requested:
                        break
        finally:
            if metrics is not None:
                metrics.close()
        self._check_finite()  # nothing non-finite is saved
        if measured_at != solver.iterations:
            expl = self.measure()
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
            seconds=solver.seconds,
            nodes_touched=solver.nodes_touched,
            exploitability=expl,
            target_exploitability=target,
            check_seconds=self.check_seconds,
            files=list(self._files),
        )


# --- resume ----------------------------------------------------------------------------------


def canonical_algorithm(name: str) -> str:
    """The algorithm name ``make_solver`` resolves ``name`` to (aliases such as "es" mapped)."""
    from pokerlab.solvers import factory

    key = name.lower().strip()
    return getattr(factory, "_ALIASES", {}).get(key, key)


def resume_solver(
    path: str | os.PathLike[str],
    *,
    game_name: str | None = None,
    game_params: dict[str, Any] | None = None,
    algorithm: str | None = None,
    seed: int | None = None,
    game: Any | None = None,
) -> Any:
    """The solver saved in checkpoint ``path``, after checking it is the run asked for.

    Each of ``game_name``, ``game_params``, ``algorithm`` (aliases allowed) and ``seed`` that is
    given must equal the checkpoint's; a conflict is refused with
    :class:`~pokerlab.errors.PokerlabError` naming both values (a resumed run cannot change them).
    ``game`` is needed only for games outside the registry.
    """
    from pokerlab.io.files import load_checkpoint
    from pokerlab.solvers.factory import restore_solver

    where = f"checkpoint {str(path)!r}"
    state = load_checkpoint(path)
    if game_name is not None and state["game"] != game_name.lower().strip():
        raise PokerlabError(f"{where} is for game {state['game']!r}, not {game_name!r}")
    if game_params and state.get("game_params") != game_params:
        raise PokerlabError(
            f"{where} is for game parameters {state.get('game_params')}, not {game_params}"
        )
    if algorithm is not None and canonical_algorithm(algorithm) != state["algorithm"]:
        raise PokerlabError(
            f"{where} was made by {state['algorithm']!r}; algorithm {algorithm!r} conflicts "
            "(leave it out to resume)"
        )
    saved_seed = state.get("config", {}).get("seed", state.get("seed"))
    if seed is not None and saved_seed != seed:
        had = "no seed (a deterministic solver)" if saved_seed is None else f"seed {saved_seed}"
        raise PokerlabError(f"{where} has {had}; seed {seed} conflicts (leave it out to resume)")
    return restore_solver(state, game)
