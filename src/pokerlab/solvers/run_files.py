"""The files of a training run: output paths checked before the work, the checkpoint (on its
cadence, at the end, on interruption) and the strategy file, each written atomically with Ctrl-C
held while it is written (:class:`RunFiles`, mixed into
:class:`~pokerlab.solvers.run.TrainingRun`)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.io.interrupts import StopFlag, shield_sigint
from pokerlab.io.paths import check_output_file
from pokerlab.solvers.stopping import RunStatus

__all__ = ["RunFiles"]


class RunFiles:
    """Checkpoint and strategy files of a run (the run sets these attributes)."""

    solver: Any
    checkpoint: Path | None
    checkpoint_every: int | None
    checkpoint_seconds: float | None
    checkpoint_metadata: dict[str, Any]
    out: Path | None
    out_metadata: dict[str, Any]
    log: Path | None
    on_write: Callable[[Path, str], None] | None
    _files: list[Path]
    _last_saved: tuple[int, float]
    _stop: StopFlag | None

    def check_outputs(self, fresh: bool = False) -> None:
        """Check every output path before the run (see :func:`check_output_file`); with
        ``fresh`` (a solver that has not iterated: nothing was resumed), refuse an existing
        checkpoint file, which the run would write over."""
        for path, option in ((self.checkpoint, "checkpoint"), (self.out, "out"), (self.log, "log")):
            if path is not None:
                check_output_file(path, option)
        if fresh and self.checkpoint is not None and self.checkpoint.exists():
            raise PokerlabError(
                f"checkpoint {str(self.checkpoint)!r} already exists and this solver is fresh: "
                "load it to continue (pokerlab.solvers.run.resume_solver, or load_state_dict), "
                "or choose another path"
            )

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
                    "algorithm": getattr(self.solver, "algorithm", None),
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
