"""Ctrl-C and kill -9: solve, compare and evolve stop at a safe point, write what is done (marked
partial, with ``wrote PATH`` lines) and exit 130; a killed run resumes bit-identically.

Interruptions are real SIGINTs sent to this process (or to a child process) at a chosen point of
the work, so the handlers installed by :func:`pokerlab.io.interrupts.stop_on_sigint` are exercised.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import pokerlab
from pokerlab.cli.main import main
from pokerlab.io.files import read_metadata


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def _interrupt_after_steps(monkeypatch, module, steps: int, solver_number: int = 1) -> None:
    """Make ``module.make_solver`` return solvers whose ``step`` sends this process a SIGINT on
    its ``steps``-th call, for the ``solver_number``-th solver made (1-based)."""
    original = module.make_solver
    made = [0]

    def make(*args, **kwargs):
        solver = original(*args, **kwargs)
        made[0] += 1
        if made[0] != solver_number:
            return solver
        calls = [0]
        step = solver.step

        def step_then_interrupt(n: int = 1) -> None:
            step(n)
            calls[0] += 1
            if calls[0] == steps:
                os.kill(os.getpid(), signal.SIGINT)

        solver.step = step_then_interrupt
        return solver

    monkeypatch.setattr(module, "make_solver", make)


def test_solve_ctrl_c_writes_checkpoint_and_partial_strategy(monkeypatch, capsys, tmp_path):
    import pokerlab.cli.solve as solve_cli

    _interrupt_after_steps(monkeypatch, solve_cli, steps=3)
    out = tmp_path / "k.npz"
    code, stdout, err = run(
        capsys, "solve", "leduc", "-a", "cfr", "-n", "100000", "--out", str(out), "--json"
    )
    assert code == 130
    summary = json.loads(stdout)
    assert summary["status"] == "interrupted" and summary["partial"] is True
    assert summary["iterations"] == 30  # 3 chunks of 10 (the default check_every), then stop
    meta = read_metadata(out)
    assert meta["partial"] is True and meta["status"] == "interrupted"
    assert meta["iterations"] == 30
    ckpt = tmp_path / "k.ckpt.npz"
    assert pokerlab.load_checkpoint(ckpt)["iterations"] == 30
    assert f"wrote {ckpt}" in err and f"wrote {out}" in err
    assert "Traceback" not in err


def test_compare_ctrl_c_keeps_finished_and_partial_curves(monkeypatch, capsys, tmp_path):
    import pokerlab.solvers.compare as compare_module

    _interrupt_after_steps(monkeypatch, compare_module, steps=3, solver_number=2)
    png = tmp_path / "cmp.png"
    code, stdout, err = run(
        capsys,
        "compare",
        "kuhn",
        "--algorithms",
        "cfr,es-mccfr,os-mccfr",
        "--budget-nodes",
        "200000",
        "--points",
        "6",
        "--png",
        str(png),
        "--json",
    )
    assert code == 130
    data = json.loads(stdout)
    assert data["status"] == "interrupted" and data["partial"] is True
    curves = data["curves"]
    assert [c["algorithm"] for c in curves] == ["cfr", "es-mccfr"]  # os-mccfr never started
    assert curves[0]["complete"] is True and curves[0]["nodes_touched"][-1] >= 200_000
    assert curves[1]["complete"] is False and curves[1]["nodes_touched"][-1] < 200_000
    assert len(curves[1]["iterations"]) == 3  # one point per step before the stop
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"wrote {png}" in err and "interrupted" in err


def test_evolve_ctrl_c_judges_and_writes_partial_results(monkeypatch, capsys, tmp_path):
    import pokerlab.evolve.search as search

    original = search._next_generation
    calls = [0]

    def next_generation_then_interrupt(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 4:
            os.kill(os.getpid(), signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(search, "_next_generation", next_generation_then_interrupt)
    folder = tmp_path / "run"
    code, stdout, err = run(
        capsys,
        "evolve",
        "--generations",
        "5000",
        "--patience",
        "5000",
        "--population",
        "8",
        "--out",
        str(folder),
        "--no-gif",
        "--json",
    )
    assert code == 130
    data = json.loads(stdout)
    # SIGINT during the 4th breeding step: generation index 4 is evaluated, then the loop stops
    assert data["generations"] == 5
    assert data["stop_reason"] == "interrupted" and data["partial"] is True
    assert 0 <= data["best_exploitability_bb"] < 1  # the best player so far, judged exactly
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["partial"] is True and summary["generations"] == 5
    for name in ("summary.json", "best_strategy.npz", "fitness.png", "match.png"):
        assert (folder / name).is_file()
        assert f"wrote {folder / name}" in err


def test_evolve_stop_flag_in_the_library():
    from pokerlab.evolve.search import EvolutionConfig, evolve
    from pokerlab.io.interrupts import StopFlag

    stop = StopFlag()
    seen = []

    def callback(record):
        seen.append(record.generation)
        if record.generation == 2:
            stop.request()

    result = evolve(
        EvolutionConfig(population=6, max_generations=100, patience=100), callback, stop=stop
    )
    assert seen == [0, 1, 2] and result.generations == 3
    assert result.interrupted and result.to_dict()["partial"] is True


def test_sigkill_then_resume_is_bit_identical(tmp_path):
    """kill -9 a running ``pokerlab solve`` that writes checkpoints; resume it with the same -n;
    the strategy equals an uninterrupted run's bit for bit, and no temporary file is left."""
    total = 400_000
    ckpt = tmp_path / "run.ckpt.npz"
    cmd = [sys.executable, "-m", "pokerlab.cli.main", "solve", "leduc", "-a", "es-mccfr"]
    cmd += ["--seed", "3", "-n", str(total), "--check-every", "20000"]
    cmd += ["--checkpoint-every", "20000", "--checkpoint", str(ckpt), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not ckpt.exists() and proc.poll() is None:
            time.sleep(0.01)
        time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be killed"
        proc.kill()  # SIGKILL: no handler runs
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    killed_at = pokerlab.load_checkpoint(ckpt)["iterations"]
    assert 0 < killed_at < total and killed_at % 20_000 == 0

    out = tmp_path / "resumed.npz"
    resumed = subprocess.run(
        [sys.executable, "-m", "pokerlab.cli.main", "solve", "leduc", "--resume", str(ckpt)]
        + ["-a", "es-mccfr", "--seed", "3", "-n", str(total), "--out", str(out), "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    summary = json.loads(resumed.stdout)
    assert summary["iterations"] == total
    assert pokerlab.load_checkpoint(ckpt)["iterations"] == total  # saved back to the same file

    straight = pokerlab.make_solver(pokerlab.load_game("leduc"), "es-mccfr", seed=3)
    straight.step(total)
    assert summary["nodes_touched"] == straight.nodes_touched
    probs = pokerlab.load_strategy(out).probs
    assert np.array_equal(probs, straight.average_strategy().probs)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_stale_temporaries_of_a_killed_write_are_removed_at_the_next_start(capsys, tmp_path):
    out = tmp_path / "k.npz"
    stale = tmp_path / ".k.npz.ab12cd_3.tmp"  # what atomic_write_bytes leaves when killed
    stale.write_bytes(b"half a file")
    other = tmp_path / ".notes.txt.ab12cd_3.tmp"  # someone else's: left alone
    other.write_bytes(b"x")
    code, _, err = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "5", "--out", str(out))
    assert code == 0, err
    assert not stale.exists() and other.exists()
    assert read_metadata(out)["partial"] is False


def test_sigint_handler_is_restored():
    from pokerlab.io.interrupts import stop_on_sigint

    before = signal.getsignal(signal.SIGINT)
    with stop_on_sigint() as flag:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)
        assert flag.requested
        with pytest.raises(KeyboardInterrupt):  # the second Ctrl-C interrupts at once
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.5)
    assert signal.getsignal(signal.SIGINT) is before
