"""Reference programs run beside pokerlab in the same benchmark invocation.

postflop-solver (b-inary, Rust) through the ``pfs_bench`` program described in
``../shared/reference/postflop-solver/README.md``: it solves the B6 spots with DCFR, measures
exploitability every 10 iterations and prints one JSON object a line. Nothing here is needed to
install or test pokerlab: where the program is not found, :func:`find_pfs` says why and the
benchmarks print no ratio.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

#: Environment variable naming the folder that holds ``pfs_bench`` (and ``pfs_spot``).
PFS_ENV = "POKERLAB_PFS_DIR"
#: Where the folder sits relative to a checkout's parent folders.
PFS_RELATIVE = Path("shared") / "reference" / "postflop-solver"
#: pokerlab's built-in B6 spot names -> pfs_bench's spot letters.
PFS_SPOTS = {"river": "R", "turn": "T", "flop": "F"}


def find_pfs() -> tuple[Path | None, str]:
    """The folder holding an executable ``pfs_bench`` and where it came from, or ``None`` and
    why not. Looked up in ``$POKERLAB_PFS_DIR`` when set (and only there), else in
    ``shared/reference/postflop-solver`` beside this checkout or beside any folder above it (a
    worktree at ``/work/wt/x`` finds ``/work/shared/...``)."""
    env = os.environ.get(PFS_ENV)
    if env:
        folder = Path(env).expanduser()
        if _runnable(folder / "pfs_bench"):
            return folder, f"${PFS_ENV}={env}"
        return None, f"${PFS_ENV}={env} has no executable pfs_bench"
    repo = Path(__file__).resolve().parent.parent
    for parent in repo.parents:
        folder = parent / PFS_RELATIVE
        if _runnable(folder / "pfs_bench"):
            return folder, str(folder)
    return None, f"no pfs_bench in ../{PFS_RELATIVE} above {repo} and ${PFS_ENV} is not set"


def _runnable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


@cache
def _gnu_time() -> bool:
    """Whether ``/usr/bin/time`` is GNU time (it takes ``-f FORMAT -o FILE``)."""
    try:
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "true"], capture_output=True, text=True, check=False
        )
    except OSError:
        return False
    return done.returncode == 0 and done.stderr.strip().isdigit()


def run_pfs(
    folder: Path,
    spot: str,
    threads: int,
    targets_pct: tuple[float, ...],
    max_iterations: int = 1000,
    compressed: bool = False,
) -> dict[str, Any]:
    """Run ``pfs_bench`` on B6 spot ``spot`` (river, turn, flop) down to the smallest of
    ``targets_pct`` (percent of the starting pot) and read its output.

    Returns, per target, the first check at or below it (``iterations``, ``wall_seconds``:
    wall time from the first ``solve_step`` including the checks every 10 iterations,
    ``step_seconds`` and ``check_seconds`` up to then), the whole run's iterations, step and
    check seconds, ``ms_per_iteration`` (step time alone), the solver's own memory figure for
    the mode (``memory_bytes``), the process's peak RSS (MiB, through GNU time where present,
    else None) and OOP's EV.
    Raises RuntimeError with the program's message when it fails."""
    args = [str(folder / "pfs_bench"), PFS_SPOTS[spot], str(threads), f"{min(targets_pct):g}"]
    args.append(str(max_iterations))
    if compressed:
        args.append("--compressed")
    with tempfile.TemporaryDirectory() as tmp:
        rss_file = Path(tmp) / "maxrss"
        # GNU time's own child starts from its small image; a child forked from this Python
        # process inherits the parent's peak RSS in ru_maxrss (Linux keeps it across exec)
        timer = ["/usr/bin/time", "-f", "%M", "-o", str(rss_file)] if _gnu_time() else []
        proc = subprocess.run([*timer, *args], capture_output=True, text=True, check=False)
        try:
            peak_rss_mib: float | None = int(rss_file.read_text().split()[-1]) / 1024.0
        except (OSError, ValueError, IndexError):
            peak_rss_mib = None
    out, err = proc.stdout, proc.stderr
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited {proc.returncode}: {err.strip()[:300]}")
    checks: list[dict[str, Any]] = []
    result: dict[str, Any] = {}
    for line in out.splitlines():
        row = json.loads(line)
        if row.get("type") == "check":
            checks.append(row)
        elif row.get("type") == "result":
            result = row
    if not result:
        raise RuntimeError(f"{' '.join(args)} printed no result line")
    marks: dict[str, dict[str, Any] | None] = {}
    for target in targets_pct:
        hit = next((c for c in checks if c["exploitability_pct_pot"] <= target), None)
        marks[f"{target:g}"] = (
            None
            if hit is None
            else {
                "iterations": hit["iterations"],
                "wall_seconds": hit["seconds"],
                "step_seconds": hit["step_seconds"],
                "check_seconds": hit["exploitability_seconds"],
            }
        )
    iterations = int(result["iterations"])
    return {
        "command": " ".join([Path(args[0]).name, *args[1:]]),
        "targets": marks,
        "iterations": iterations,
        "wall_seconds": result["seconds"],
        "step_seconds": result["step_seconds"],
        "check_seconds": result["exploitability_seconds"],
        "ms_per_iteration": 1000.0 * result["step_seconds"] / max(iterations, 1),
        "exploitability_pct": result["exploitability_pct_pot"],
        "memory_bytes": result["memory_usage_bytes"],
        "peak_rss_mib": peak_rss_mib,
        "oop_ev": result["oop_ev"],
    }
