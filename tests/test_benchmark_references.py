"""Benchmarks that run their reference in the same invocation (issue 27): finding postflop-solver's
``pfs_bench``, reading its output, and the like-for-like ratios of ``benchmarks/postflop.py``.
A stand-in ``pfs_bench`` (a shell script printing fixed JSON lines) replaces the real program,
so none of this needs the reference to be installed."""

from __future__ import annotations

import importlib
import json
import os
import stat
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CHECKS = [  # (iterations, seconds, % of the pot, step seconds, check seconds)
    (10, 0.02, 3.0, 0.015, 0.004),
    (20, 0.04, 0.45, 0.030, 0.008),
    (30, 0.06, 0.2, 0.045, 0.012),
    (40, 0.08, 0.09, 0.060, 0.016),
]


def _fake_pfs(folder: Path, exit_code: int = 0) -> Path:
    lines = [{"type": "setup", "spot": "R"}]
    for it, sec, pct, step, chk in CHECKS:
        lines.append(
            {"type": "check", "iterations": it, "seconds": sec, "exploitability": 2 * pct,
             "exploitability_pct_pot": pct, "step_seconds": step, "exploitability_seconds": chk}
        )  # fmt: skip
    lines.append(
        {"type": "result", "iterations": 40, "seconds": 0.081, "step_seconds": 0.06,
         "exploitability_seconds": 0.016, "exploitability_pct_pot": 0.09, "oop_ev": 107.0,
         "memory_usage_bytes": 269856}
    )  # fmt: skip
    body = "\n".join(json.dumps(x) for x in lines)
    script = folder / "pfs_bench"
    script.write_text(
        f"#!/bin/sh\necho \"$@\" > {folder / 'args'}\ncat <<'EOF'\n{body}\nEOF\n"
        f"echo 'bad spot' >&2\nexit {exit_code}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


@pytest.fixture
def reference(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    return importlib.import_module("_reference")


def test_the_folder_named_by_the_environment_variable_is_used_or_refused(
    reference, monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("POKERLAB_PFS_DIR", str(tmp_path))
    folder, why = reference.find_pfs()
    assert folder is None and "has no executable pfs_bench" in why and str(tmp_path) in why
    _fake_pfs(tmp_path)
    folder, why = reference.find_pfs()
    assert folder == tmp_path and why.startswith("$POKERLAB_PFS_DIR=")


def test_without_the_variable_the_folders_above_the_checkout_are_searched(
    reference, monkeypatch
) -> None:
    monkeypatch.delenv("POKERLAB_PFS_DIR", raising=False)
    folder, why = reference.find_pfs()
    expected = [
        p / "shared" / "reference" / "postflop-solver"
        for p in ROOT.parents
        if os.access(p / "shared" / "reference" / "postflop-solver" / "pfs_bench", os.X_OK)
    ]
    if expected:
        assert folder == expected[0]
    else:
        assert folder is None and "is not set" in why


def test_pfs_output_is_read_at_the_first_check_below_each_target(reference, tmp_path) -> None:
    _fake_pfs(tmp_path)
    run = reference.run_pfs(tmp_path, "turn", 2, (0.5, 0.1), 1000, compressed=True)
    assert (tmp_path / "args").read_text().split() == ["T", "2", "0.1", "1000", "--compressed"]
    assert run["targets"]["0.5"] == {
        "iterations": 20, "wall_seconds": 0.04, "step_seconds": 0.03, "check_seconds": 0.008
    }  # fmt: skip
    assert run["targets"]["0.1"]["iterations"] == 40
    assert run["iterations"] == 40 and run["wall_seconds"] == 0.081
    assert run["ms_per_iteration"] == pytest.approx(1.5)  # 0.06 s of steps / 40
    assert run["memory_bytes"] == 269856 and run["oop_ev"] == 107.0
    missed = reference.run_pfs(tmp_path, "river", 1, (0.05,))
    assert missed["targets"]["0.05"] is None


def test_a_failing_pfs_is_reported_with_its_message(reference, tmp_path) -> None:
    _fake_pfs(tmp_path, exit_code=2)
    with pytest.raises(RuntimeError, match="exited 2: bad spot"):
        reference.run_pfs(tmp_path, "river", 1, (0.5,))


def test_postflop_benchmark_ratios_are_ours_over_theirs_like_for_like(reference, tmp_path) -> None:
    bench = importlib.import_module("postflop")
    _fake_pfs(tmp_path)
    theirs = reference.run_pfs(tmp_path, "river", 1, (0.5, 0.1))
    ours = {
        "targets": {
            "0.5": {"iterations": 30, "wall_seconds": 0.02, "step_seconds": 0.015,
                    "check_seconds": 0.004},
            "0.1": None,  # not reached: no ratio
        },
        "ms_per_iteration": 0.75,
        "memory_bytes": 134928,
        "peak_rss_mib": 200.0,
    }  # fmt: skip
    ratios = bench.compare(ours, theirs)
    theirs_rss = theirs["peak_rss_mib"]  # the fake's own, where GNU time measured it
    with_floor = bench.compare(ours, {**theirs, "peak_rss_mib": 8.0}, floor_mib=150.0)
    assert with_floor["rss"] == pytest.approx(25.0)  # 200 MiB against 8
    assert with_floor["rss_above_floor"] == pytest.approx(6.25)  # (200 - 150) against 8
    assert ratios["rss_above_floor"] is None  # no floor measured: no ratio
    assert ratios["rss"] == (None if theirs_rss is None else pytest.approx(200.0 / theirs_rss))
    assert ratios["wall_0.5"] == pytest.approx(0.5)  # 0.02 s against 0.04 s
    assert ratios["wall_0.1"] is None
    assert ratios["ms_per_iteration"] == pytest.approx(0.5)
    assert ratios["memory"] == pytest.approx(0.5)
    assert bench.compare(ours, None) == {}
    runs = [
        {**ours, "wall_seconds": w, "step_seconds": w, "check_seconds": 0.0}
        for w in (0.3, 0.1, 0.2)
    ]
    runs[2] = {**runs[2], "targets": {**ours["targets"], "0.5": {
        **ours["targets"]["0.5"], "wall_seconds": 0.05}}}  # fmt: skip
    median = bench._median_run(runs)
    assert median["wall_seconds"] == 0.2 and median["repeats"] == 3
    assert median["targets"]["0.5"]["wall_seconds"] == 0.02  # median of 0.02, 0.02, 0.05
    assert median["targets"]["0.1"] is None


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_numba_floor_is_a_fresh_numba_process_peak() -> None:
    """The floor ``benchmarks/postflop.py`` subtracts: a process that only imports numpy and
    numba and runs one cached kernel: well above a bare interpreter's 10-15 MiB (numba and LLVM
    load; about 157 MiB on the development machine), far below a gigabyte."""
    common = importlib.import_module("_common")
    floor = common.numba_floor_mib()
    assert floor is not None and 60.0 < floor < 1024.0
