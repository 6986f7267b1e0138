"""A run that is not resuming a checkpoint never writes over one (a checkpoint can hold hours
of training): each command that takes ``--checkpoint`` refuses an existing file in one line with
exit code 2 and leaves its bytes as they were; resuming it, or writing it back to the file it
resumed, still works. Default names (an interrupted run's) step aside instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from pokerlab.cli.main import main
from pokerlab.io.paths import same_file, unused_path

TINY = 'base = "fcpa"\nranks = 2\nrounds = 2\nstack = 300\n'


def _refused(args: list[str], ckpt: Path, capsys: pytest.CaptureFixture[str], how: str) -> None:
    before = ckpt.read_bytes()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [
        f"error: --checkpoint {str(ckpt)!r} already exists: continue it with {how}, or choose "
        "another file (delete it first to start over)"
    ]
    assert ckpt.read_bytes() == before


@pytest.mark.parametrize(
    "command",
    [
        ["solve", "kuhn", "-n", "10"],
        ["postflop", "river", "-n", "5"],
        ["train", "limit-holdem", "--variant", "small", "-n", "1"],
    ],
    ids=["solve", "postflop", "train"],
)
def test_an_existing_checkpoint_is_refused(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ckpt = tmp_path / "run.npz"
    ckpt.write_bytes(b"another run's hours")
    _refused([*command, "--checkpoint", str(ckpt)], ckpt, capsys, f"--resume {ckpt}")


def test_solve_resumes_and_writes_back_but_not_over_another(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ckpt, other = tmp_path / "a.npz", tmp_path / "b.npz"
    assert main(["solve", "kuhn", "-n", "10", "--checkpoint", str(ckpt)]) == 0
    back = ["solve", "kuhn", "-n", "20", "--resume", str(ckpt), "--checkpoint", str(ckpt)]
    assert main(back) == 0
    capsys.readouterr()
    other.write_bytes(b"kept")
    _refused(
        ["solve", "kuhn", "-n", "30", "--resume", str(ckpt), "--checkpoint", str(other)],
        other,
        capsys,
        f"--resume {other}",
    )
    assert main(["solve", "kuhn", "-n", "30", "--resume", str(ckpt), "--json"]) == 0
    assert '"iterations": 30' in capsys.readouterr().out


def test_blueprint_train_refuses_without_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tiny.toml"
    config.write_text(TINY)
    ckpt = tmp_path / "bp.npz"
    base = ["blueprint", "train", str(config), "--bucketing", "lossless", "--checkpoint", str(ckpt)]
    assert main([*base, "-n", "50", "--json"]) == 0
    capsys.readouterr()
    _refused([*base, "-n", "100"], ckpt, capsys, "--resume")
    assert main([*base, "-n", "100", "--resume", "--json"]) == 0
    assert '"iterations": 100' in capsys.readouterr().out


def test_default_names_step_aside(tmp_path: Path) -> None:
    first = tmp_path / "postflop-dcfr.ckpt.npz"
    assert unused_path(first) == first
    first.write_bytes(b"1")
    assert unused_path(first) == tmp_path / "postflop-dcfr-2.ckpt.npz"
    (tmp_path / "postflop-dcfr-2.ckpt.npz").write_bytes(b"2")
    assert unused_path(first) == tmp_path / "postflop-dcfr-3.ckpt.npz"
    plain = tmp_path / "run"
    plain.write_bytes(b"x")
    assert unused_path(plain) == tmp_path / "run-2"
    assert same_file(tmp_path / "x" / ".." / "run", plain) and not same_file(plain, None)
