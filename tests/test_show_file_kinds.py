"""``pokerlab show`` prints strategy files; for pokerlab's other files it names what the file
is and the command that shows it (one line, exit code 2), and ``solve -n 0`` is refused like
the other commands' iteration counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokerlab.cli.main import main


def _error(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(args) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_show_points_at_the_command_for_each_kind(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    solution, ckpt, strategy = tmp_path / "river.npz", tmp_path / "k.npz", tmp_path / "s.npz"
    assert main(["postflop", "river", "-n", "5", "--out", str(solution)]) == 0
    assert main(["solve", "kuhn", "-n", "10", "--checkpoint", str(ckpt)]) == 0
    capsys.readouterr()
    assert _error(["show", str(solution)], capsys) == (
        f"error: {str(solution)!r} is a postflop solution: show it with pokerlab postflop show "
        f"{solution}"
    )
    assert f"pokerlab solve GAME --resume {ckpt} --out FILE" in _error(["show", str(ckpt)], capsys)
    # the advice works: the resumed run at its own count writes the strategy file show prints
    assert main(["solve", "kuhn", "--resume", str(ckpt), "-n", "10", "--out", str(strategy)]) == 0
    capsys.readouterr()
    assert main(["show", str(strategy), "--key", "K:b"]) == 0
    assert "K:b" in capsys.readouterr().out


def test_show_names_a_blueprint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config, ckpt = tmp_path / "tiny.toml", tmp_path / "bp.npz"
    config.write_text('base = "fcpa"\nranks = 2\nrounds = 2\nstack = 300\n')
    args = ["blueprint", "train", str(config), "--bucketing", "lossless", "-n", "20"]
    assert main([*args, "--checkpoint", str(ckpt)]) == 0
    capsys.readouterr()
    assert _error(["show", str(ckpt)], capsys) == (
        f"error: {str(ckpt)!r} is a no-limit blueprint: show it with pokerlab blueprint show {ckpt}"
    )


def test_solve_refuses_zero_iterations(capsys: pytest.CaptureFixture[str]) -> None:
    assert "'--iterations' / '-n'" in _error(["solve", "leduc", "-n", "0"], capsys)
