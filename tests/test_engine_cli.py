"""The command line: solve, show, resume, errors (run through the real entry point)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pokerlab.cli.main import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_solve_json_has_the_documented_fields(capsys, tmp_path) -> None:
    out_file = tmp_path / "leduc.npz"
    code, out, _ = run(
        capsys,
        "solve",
        "leduc",
        "--algorithm",
        "cfr+",
        "--target-exploitability",
        "1e-3",
        "--out",
        str(out_file),
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    for field in ("game", "algorithm", "iterations", "seconds", "exploitability", "game_value"):
        assert field in data
    assert data["exploitability"] <= 1e-3
    assert data["game_value"] == pytest.approx(-0.0856, abs=5e-3)
    code, out, _ = run(capsys, "show", str(out_file), "--contains", "Ks:", "--max-rows", "3")
    assert code == 0 and "Ks:" in out


def test_checkpoint_and_resume_continue_the_run(capsys, tmp_path) -> None:
    out_file = tmp_path / "k.npz"
    code, out, _ = run(
        capsys,
        "solve",
        "kuhn",
        "-a",
        "cfr",
        "-n",
        "40",
        "--checkpoint-every",
        "20",
        "--out",
        str(out_file),
        "--json",
    )
    assert code == 0
    ckpt = json.loads(out)["checkpoint"]
    code, out, _ = run(capsys, "solve", "kuhn", "--resume", ckpt, "-n", "100", "--json")
    assert code == 0
    resumed = json.loads(out)
    code, out, _ = run(capsys, "solve", "kuhn", "-a", "cfr", "-n", "100", "--json")
    straight = json.loads(out)
    assert resumed["iterations"] == straight["iterations"] == 100
    assert resumed["exploitability"] == straight["exploitability"]


@pytest.mark.parametrize(
    "args,needle",
    [
        (["solve", "holdem"], "unknown game 'holdem'"),
        (["solve", "leduc", "-a", "magic"], "unknown algorithm 'magic'"),
        (["solve", "leduc", "--players", "3"], "players"),
        (["solve", "kuhn", "-n", "-5"], "iterations"),
        (["show", "/nonexistent/file.npz"], "no such file"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args, needle) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert needle in err
    assert "Traceback" not in err


def test_console_script_is_installed() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pokerlab.cli.main", "solve", "kuhn", "-n", "10", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["iterations"] == 10
