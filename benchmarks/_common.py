"""Shared helpers of the benchmark scripts: machine facts, git revision, JSON and table output.

Where results go: a run writes ``benchmarks/results/local/<name>.json`` (untracked: the folder
holds its own ``.gitignore``), so running a benchmark never rewrites a tracked file. The tracked
``benchmarks/results/<name>.json`` files are the figures quoted in the docs; a script run with
``--save`` (see :func:`add_save_option`) replaces them, on purpose, for a commit.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: The tracked results quoted in the docs (written only with ``--save``).
RESULTS = Path(__file__).resolve().parent / "results"
#: Where every other run writes (untracked).
LOCAL_RESULTS = RESULTS / "local"


def machine() -> dict[str, Any]:
    """CPU model, core count, Python and library versions, load averages now."""
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import numba
    import numpy

    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "platform": platform.platform(),
        "load_average": load_average(),
    }


def load_average() -> list[float] | None:
    """The machine's load averages over 1, 5 and 15 minutes (``os.getloadavg``), None where the
    platform has none: printed beside timings so a reader can judge how busy the machine was."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def git_revision() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def median_time(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """Median wall seconds of ``repeats`` calls of ``fn`` and the last call's result."""
    times = []
    result = None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def median_seconds(fn: Callable[[], Any], repeats: int) -> float:
    """Median wall seconds of ``repeats`` calls of ``fn``."""
    return median_time(fn, repeats)[0]


def add_save_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--save``: write the tracked ``benchmarks/results/<name>.json`` instead of the
    untracked ``benchmarks/results/local/<name>.json``."""
    parser.add_argument(
        "--save",
        action="store_true",
        help="replace the tracked results/<name>.json (default: results/local/, untracked)",
    )


def results_dir(save: bool = False) -> Path:
    """The folder results go to: :data:`RESULTS` with ``save``, else :data:`LOCAL_RESULTS`
    (created with a ``.gitignore`` that keeps its files out of git)."""
    if save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        return RESULTS
    LOCAL_RESULTS.mkdir(parents=True, exist_ok=True)
    ignore = LOCAL_RESULTS / ".gitignore"
    if not ignore.exists():
        from pokerlab.io.files import atomic_write_bytes

        atomic_write_bytes(ignore, b"# benchmark runs without --save: never committed\n*\n")
    return LOCAL_RESULTS


def write_results(name: str, payload: dict[str, Any], save: bool = False) -> Path:
    """Write ``<name>.json`` with machine facts and git revision added, atomically, into
    :func:`results_dir` (the tracked ``benchmarks/results/`` only when ``save``)."""
    from pokerlab.io.files import atomic_write_bytes

    payload = {
        "benchmark": name,
        "git_revision": git_revision(),
        "machine": machine(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        **payload,
    }
    path = results_dir(save) / f"{name}.json"
    atomic_write_bytes(path, (json.dumps(payload, indent=2) + "\n").encode())
    return path


def finish_run(
    name: str, args: argparse.Namespace, rows: list[dict[str, Any]], load_before: Any
) -> Path:
    """The end of a benchmark run: print the load averages, write ``<name>.json`` with the
    arguments, the rows and both loads (:func:`write_results`, ``args.save``), print its path."""
    load_after = load_average()
    print(f"\nload average before {load_before}, after {load_after}")
    payload = {"args": vars(args), "rows": rows, "load_average": [load_before, load_after]}
    path = write_results(name, payload, save=args.save)
    print(f"results: {path}")
    return path


def print_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A plain fixed-width table on stdout."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    print(f"\n{title}")
    for k, row in enumerate(cells):
        print("  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
        if k == 0:
            print("  ".join("-" * w for w in widths))


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value != value:
            return "-"
        if value == 0 or 1e-3 <= abs(value) < 1e5:
            return f"{value:.4g}"
        return f"{value:.3e}"
    return "-" if value is None else str(value)


def parallel_capacity(workers: int = 2, seconds: float = 0.3) -> float:
    """How many times faster ``workers`` threads finish ``workers`` equal pieces of pure
    arithmetic (a numba loop without the GIL, no memory traffic) than one thread finishes one:
    the parallel speed-up this machine gives at the moment (``workers`` at best). On a shared
    virtual machine it swings from round to round (1.5-1.9 of 2 seen on the 2-core machine);
    a scaling benchmark that measures it beside each timed round can report its speed-ups
    against what the machine allowed then."""
    import threading

    from numba import njit

    @njit(nogil=True, cache=True)
    def spin(n: int) -> float:
        x = 0.0
        for i in range(n):
            x += (i % 7) * 1e-9
        return x

    spin(10)
    n = 1_000_000
    t0 = time.perf_counter()
    spin(n)
    n = max(n, int(n * seconds / max(time.perf_counter() - t0, 1e-6)))

    def run(k: int) -> float:
        threads = [threading.Thread(target=spin, args=(n,)) for _ in range(k)]
        start = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - start

    one = run(1)
    return workers * one / run(workers)


def keep_tables(
    payload: dict[str, Any], previous: Path, tables: dict[str, tuple[str, ...]]
) -> None:
    """Keep the tables a run skipped from ``previous`` (the results file it replaces): for each
    table name, its keys (the first one says whether this run measured it). A table measured
    now is stamped ``<table>_git_revision`` / ``<table>_date``; a skipped one is copied with
    the stamps it was measured at, so a kept table is never taken for one of this run."""
    now = {"git_revision": git_revision(), "date": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    old: dict[str, Any] = {}
    if previous.exists():
        try:
            old = json.loads(previous.read_text())
        except ValueError:
            old = {}
    for table, keys in tables.items():
        if payload.get(keys[0]):
            payload[f"{table}_git_revision"] = now["git_revision"]
            payload[f"{table}_date"] = now["date"]
        elif old.get(keys[0]):
            for key in keys:
                payload[key] = old.get(key)
            for field in ("git_revision", "date"):
                payload[f"{table}_{field}"] = old.get(f"{table}_{field}", old.get(field))
            print(f"{table}: not run now; kept from {payload[f'{table}_git_revision']}")


#: A Python process that imports numpy and numba and calls one trivial kernel loaded from
#: numba's cache; its peak RSS is the floor under any numba program on this machine.
_FLOOR_SCRIPT = """
import numba, numpy
@numba.njit(cache=True, nogil=True)
def total(a):
    s = 0.0
    for x in a:
        s += x
    return s
total(numpy.ones(3))
for line in open("/proc/self/status"):
    if line.startswith("VmHWM:"):
        print(int(line.split()[1]) / 1024.0)
"""


def numba_floor_mib() -> float | None:
    """Peak RSS (MiB) of a fresh Python process whose only work is one trivial numba kernel,
    loaded from numba's cache (the script runs twice in a scratch cache folder; the second
    run's figure is returned): what numpy, numba and LLVM cost before any program of ours.
    None off Linux or where the probe fails."""
    import sys
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "floor.py"
        script.write_text(_FLOOR_SCRIPT)
        env = dict(os.environ, NUMBA_CACHE_DIR=str(Path(tmp) / "cache"))
        out = ""
        for _ in range(2):  # the first run compiles and writes the cache, the second loads it
            try:
                done = subprocess.run(
                    [sys.executable, str(script)], env=env, capture_output=True, text=True,
                    timeout=300, check=True,
                )  # fmt: skip
            except (OSError, subprocess.SubprocessError):
                return None
            out = done.stdout.strip()
    try:
        return float(out)
    except ValueError:
        return None
