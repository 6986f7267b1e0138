"""Training metrics as JSON lines: one object per progress report, for plotting long runs.

Each line is ``{"iteration", "nodes_touched", "seconds", "wall_seconds", "exploitability", ...}``
plus the fixed fields given at construction (algorithm, game, seed). ``seconds`` is solving time
(iterations only), ``wall_seconds`` time since the log was opened, ``exploitability`` is ``null``
where it was not measured (or cannot be: general-sum games). Lines are flushed as written, so a
crash loses nothing already reported.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import Any

from pokerlab.solvers.base import Progress

__all__ = ["JsonLinesLog"]


class JsonLinesLog:
    """A progress callback that appends one JSON object per report to ``path``.

    ``append=True`` continues an existing file (resumed runs); otherwise it is truncated.
    ``fields`` are added to every line, the keyword arguments of a call to that line only. Use
    as ``solver.solve(..., callback=log)``; close it (or use it as a context manager) when done.
    The callback never stops the solve.
    """

    def __init__(self, path: str | os.PathLike[str], append: bool = False, **fields: Any) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a" if append else "w", encoding="utf-8")  # noqa: SIM115
        self._fields = fields
        self._start = time.perf_counter()

    def __call__(self, progress: Progress, **extra: Any) -> bool:
        """Append the line of ``progress``, with the fixed fields and this line's ``extra``."""
        expl = progress.exploitability
        line = {
            "iteration": progress.iterations,
            "nodes_touched": progress.nodes_touched,
            "seconds": progress.seconds,
            "wall_seconds": time.perf_counter() - self._start,
            "exploitability": None if math.isnan(expl) else expl,
            **self._fields,
            **extra,
        }
        self._fh.write(json.dumps(line) + "\n")
        self._fh.flush()
        return False

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> JsonLinesLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
