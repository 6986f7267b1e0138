"""The part of ``pokerlab train limit-holdem`` after the solver exists: the run and its report.

The run is a :class:`~pokerlab.solvers.run.TrainingRun`, as for ``pokerlab solve`` and
``pokerlab postflop``: the same stopping loop, checkpoint cadence (``--checkpoint-every``), the
same JSON-lines log (:class:`~pokerlab.solvers.metrics.JsonLinesLog`), Ctrl-C at a safe point
(the checkpoint written, exit 130) and exit codes. What is limit hold'em's own is measured
here: the exact abstract-game exploitability in mbb/g (:mod:`pokerlab.evaluate.limit_abstract`)
for the log and the summary, and the real-game one (:mod:`pokerlab.evaluate.limit_real`).

Log lines carry the run's fields (``iteration``, ``seconds`` of solving, ``nodes_touched``,
``exploitability``) plus ``game``, ``variant``, ``seed``, ``sampling``, ``algorithm``,
``workers``, ``boards_per_iteration`` (public chance sampling) and
``exploitability_abstract_mbb`` (the same value as ``exploitability``; ``null`` where it was not
measured). The abstract exploitability is measured on the first and the last report, and on the
others while the measurements (the bucket tables' build aside) have taken at most half the
training time; only with ``--log`` (the summary measures the final strategy once).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pokerlab.errors import PokerlabError

__all__ = ["TrainSettings", "run_training"]


@dataclass
class TrainSettings:
    """What ``pokerlab train limit-holdem`` was asked for, as the run and its report need it."""

    variant: str
    buckets: str
    counts: tuple[int, ...]
    recall: str
    sampling: str
    seed: int
    workers: int
    use_ray: bool
    iterations: int | None
    seconds: float | None
    checkpoint: Path | None
    checkpoint_every: int | None
    resume: Path | None
    log: Path | None
    exploitability: bool
    real_exploitability: bool
    as_json: bool
    show: bool
    abstraction_seconds: float


class _AbstractMeasure:
    """The exact abstract exploitability (mbb/g) as the run's measure, with the log's rule of
    which reports to measure (see the module docstring); the bucket tables are built once."""

    def __init__(self, abstraction: Any, cache: Any, settings: TrainSettings, ranks: int) -> None:
        from pokerlab.evaluate.limit_abstract import MAX_SEQUENCES

        self.abstraction = abstraction
        self.cache = cache
        self.settings = settings
        self.defined = settings.exploitability and ranks < 13
        self.tables_fit = math.prod(settings.counts) <= MAX_SEQUENCES  # else minutes per check
        self.tables: Any = None
        self.building = 0.0  # seconds spent building the tables (once)
        self.spent = 0.0  # seconds of measurements, the build included
        self.measured = 0
        self.training: Any = None  # the TrainingRun (for its solving seconds)

    def exact(self, solver: Any) -> float:
        """The abstract exploitability of ``solver``'s average strategy now (mbb/g)."""
        from pokerlab.evaluate.limit_abstract import (
            abstract_exploitability_mbb,
            board_tables,
            cached_joint_bucket_tables,
        )

        if self.tables is None:
            start = time.perf_counter()
            if self.tables_fit:
                self.tables = cached_joint_bucket_tables(self.abstraction, self.cache)
            else:  # the by-board path (its memory was checked before training)
                self.tables = board_tables(self.abstraction)
            self.building = time.perf_counter() - start
        return float(abstract_exploitability_mbb(solver.average_strategy(), self.tables))

    def __call__(self, solver: Any) -> float:
        """The run's measure at a report: NaN where the log's rule skips it."""
        s = self.settings
        if s.log is None or not (self.defined and self.tables_fit):
            return math.nan
        last = s.iterations is not None and solver.iterations >= s.iterations
        training = self.training.solve_seconds if self.training is not None else 0.0
        if self.measured and not last and self.spent - self.building > training / 2:
            return math.nan
        start = time.perf_counter()
        value = self.exact(solver)
        self.spent += time.perf_counter() - start
        self.measured += 1
        return value


def run_training(
    solver: Any, abstraction: Any, ranks: int, cache: Any, err: Any, s: TrainSettings
) -> None:
    """Train ``solver`` under ``s``'s limits through a :class:`TrainingRun`, then print the
    summary (one JSON object with ``--json``); exits 130 when interrupted."""
    from pokerlab.io.files import load_checkpoint
    from pokerlab.io.paths import (
        check_input_file,
        check_new_checkpoint,
        check_output_file,
        same_file,
        unused_path,
    )
    from pokerlab.solvers.run import TrainingRun

    if s.resume is not None:
        solver.load_state_dict(load_checkpoint(check_input_file(s.resume, "--resume")))
    # where the run saves: --checkpoint, else the resumed file (saved back), else a default name
    # written only on Ctrl-C (and left out when it cannot be written)
    ckpt_path: Path | None = s.checkpoint or s.resume
    if s.checkpoint is not None and not same_file(s.checkpoint, s.resume):
        check_new_checkpoint(s.checkpoint)  # another run's checkpoint is never written over
    if ckpt_path is None:  # an earlier run's file under the default name is kept
        ckpt_path = unused_path(f"limit-holdem-{s.variant}.ckpt.npz")
    try:
        check_output_file(ckpt_path, "--checkpoint")
    except PokerlabError:
        if s.checkpoint is not None or s.resume is not None:
            raise
        ckpt_path = None

    def say(message: str) -> None:
        err.print(message, highlight=False, markup=False)

    algorithm = solver.schedule.name
    meta = {"game": "limit-holdem", "variant": s.variant, "seed": s.seed, "sampling": s.sampling}
    measure = _AbstractMeasure(abstraction, cache, s, ranks)
    last_value = [math.nan]  # the measure's value at the current report, for its log line

    def measured(solver: Any) -> float:
        last_value[0] = measure(solver)
        return last_value[0]

    def log_line(solver: Any) -> dict[str, Any]:
        expl = last_value[0]
        extra: dict[str, Any] = {"exploitability_abstract_mbb": None if math.isnan(expl) else expl}
        if hasattr(solver, "boards_per_iteration"):  # public chance sampling
            extra["boards_per_iteration"] = solver.boards_per_iteration
        return extra

    bar = Progress(
        TextColumn("[bold]training"),
        BarColumn(),
        TextColumn("iter {task.completed}"),
        TimeElapsedColumn(),
        console=err,
        disable=not s.show,
    )
    task = bar.add_task("training", total=s.iterations, completed=solver.iterations)
    start_iterations = solver.iterations

    def on_report(progress: Any) -> bool:
        bar.update(task, completed=progress.iterations)
        return False

    training = TrainingRun(
        solver,
        iterations=s.iterations,
        seconds=s.seconds,
        checkpoint=ckpt_path,
        checkpoint_every=s.checkpoint_every,
        checkpoint_at_end=s.checkpoint is not None or s.resume is not None,
        checkpoint_metadata=meta,
        log=s.log,
        log_fields={**meta, "algorithm": algorithm, "workers": s.workers},
        log_extra=log_line,
        measure=measured,
        on_report=on_report,
        on_write=lambda path, kind: say(f"wrote {path}"),
    )
    measure.training = training
    start_seconds = training.solve_seconds
    with bar:
        result = training.run()
    # this run's solving seconds (the log's measurements are not in them)
    train_seconds = training.solve_seconds - start_seconds
    done = solver.iterations - start_iterations
    if result.status == "interrupted":
        say(
            f"interrupted at iteration {solver.iterations}: "
            + (
                f"checkpoint {ckpt_path}; resume with --resume {ckpt_path}"
                if ckpt_path is not None
                else "nothing saved (no writable checkpoint path; give --checkpoint)"
            )
        )
        raise SystemExit(result.exit_code)  # typer.Exit would be returned, not raised, by main()
    abstract_mbb = None
    if measure.defined:
        if math.isnan(result.exploitability):  # not measured at the last report
            if s.show:
                err.print("exact abstract-game best response ...")
            abstract_mbb = measure.exact(solver)
        else:
            abstract_mbb = result.exploitability
    real_mbb = None
    if s.real_exploitability:
        from pokerlab.evaluate.limit_real import real_exploitability_mbb

        if s.show:
            err.print("exact real-game best response ...")
        real_mbb = real_exploitability_mbb(solver.average_strategy())
    _report(solver, abstraction, s, algorithm, done, train_seconds, abstract_mbb, real_mbb)
    _print_files(err if s.as_json else None, s.log, cache)  # stderr under --json


def _report(
    solver: Any,
    abstraction: Any,
    s: TrainSettings,
    algorithm: str,
    done: int,
    train_seconds: float,
    abstract_mbb: float | None,
    real_mbb: float | None,
) -> None:
    """The summary on stdout: one JSON object with ``--json``, else one line."""
    full = s.sampling == "full"
    out = {
        "game": "limit-holdem",
        "variant": s.variant,
        "buckets": list(s.counts),
        "bucketing": abstraction.method,
        "recall": s.recall,
        "algorithm": algorithm,
        "sampling": s.sampling,
        "seed": s.seed,
        "iterations": solver.iterations,
        "seconds": train_seconds,
        # this run's own iterations (a resumed run's total includes the checkpoint's)
        "iterations_this_run": done,
        "iterations_per_second": done / train_seconds if train_seconds else None,
        "workers": s.workers,
        "ray": s.use_ray,
        "worker_nodes": getattr(solver, "worker_nodes", None)
        if s.workers > 1 or s.use_ray
        else None,
        "boards_per_iteration": None if full else getattr(solver, "boards_per_iteration", None),
        "canonical_boards": solver.full_boards if full else None,
        "bytes_per_infoset_action": solver.bytes_per_infoset_action,
        "infoset_actions": solver.num_infoset_actions,
        "abstraction_seconds": s.abstraction_seconds,
        "exploitability_abstract_mbb": abstract_mbb,
        "exploitability_real_mbb": real_mbb,
    }
    if s.as_json:
        typer.echo(json.dumps(out))
        return
    batch = out["boards_per_iteration"] or 1
    rate = out["iterations_per_second"]
    typer.echo(
        f"limit-holdem {s.variant}: {solver.iterations} iterations"
        + (f" ({done} this run)" if done != solver.iterations else "")
        + (f" x {batch} boards" if batch > 1 else "")
        + (f" x every board ({solver.full_boards:,} canonical)" if full else "")
        + f" in {train_seconds:.1f} s"
        + ("" if rate is None else f" ({rate:.2f}/s)")
        + f", {abstraction.method} buckets {s.buckets} "
        f"{s.recall} recall, {solver.num_infoset_actions:,} information-set actions x "
        f"{solver.bytes_per_infoset_action} bytes; abstraction {s.abstraction_seconds:.1f} s"
        + ("" if abstract_mbb is None else f"; abstract exploitability {abstract_mbb:.1f} mbb/g")
        + ("" if real_mbb is None else f"; real exploitability {real_mbb:.1f} mbb/g")
    )


def _print_files(err: Any, log: Path | None, cache: Any) -> None:
    """The other files of a run (each checkpoint write says ``wrote PATH`` on stderr as it
    happens): the log, and where the abstraction tables are cached with their size (on ``err``,
    or stdout when it is None)."""
    from pokerlab.abstraction.store import cache_dir

    def say(text: str) -> None:
        if err is None:
            typer.echo(text)
        else:
            err.print(text, markup=False)

    if log is not None:
        say(f"appended to {log}")
    folder = cache_dir()
    if cache and folder.is_dir():
        size = sum(f.stat().st_size for f in folder.glob("*.npz") if f.is_file())
        say(
            f"abstraction tables cached in {folder} ({size / 2**20:.0f} MiB; "
            "POKERLAB_CACHE_DIR moves them, --no-cache skips them)"
        )
