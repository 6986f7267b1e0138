"""``pokerlab lbr nolimit-holdem`` and ``pokerlab duplicate nolimit-holdem`` (issue 24): the
same numbers as ``pokerlab blueprint lbr | match`` (a second path to each), the limit commands'
bot names, and bad input in one line with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerlab.cli.main import main


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    """The 8-card two-round fcpa blueprint (lossless buckets, 2,000 iterations)."""
    folder = tmp_path_factory.mktemp("judge")
    config = folder / "tiny.toml"
    config.write_text('base = "fcpa"\nranks = 2\nrounds = 2\nstack = 300\n')
    ckpt = folder / "bp.npz"
    args = ["blueprint", "train", str(config), "--bucketing", "lossless", "-n", "2000"]
    assert main([*args, "--checkpoint", str(ckpt), "--json"]) == 0
    return ckpt


def _json(capsys, *args: str) -> dict:
    code = main([*args, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_duplicate_equals_blueprint_match(checkpoint, capsys) -> None:
    ckpt = str(checkpoint)
    got = _json(
        capsys, "duplicate", "nolimit-holdem", "--checkpoint", ckpt, "--opponents", "call,raise",
        "--against", ckpt, "--pairs", "200", "--match-seed", "4",
    )  # fmt: skip
    names = [r["opponent"] for r in got["results"]]
    assert names == ["always-call", "pot-raise", "bp.npz"]
    for r, other in zip(got["results"], ("always-call", "pot-raise", ckpt), strict=True):
        direct = _json(capsys, "blueprint", "match", ckpt, other, "--pairs", "200", "--seed", "4")
        assert r["mbb_per_game"] == direct["mbb_per_game"] and r["games"] == 400
    assert got["results"][2]["mbb_per_game"] == 0.0  # itself, duplicate seating


def test_lbr_against_a_bot_equals_blueprint_lbr(capsys) -> None:
    got = _json(capsys, "lbr", "nolimit-holdem", "--bot", "call", "--pairs", "2", "--seed", "1")
    direct = _json(capsys, "blueprint", "lbr", "always-call", "--pairs", "2", "--seed", "1")
    assert got == {**direct, "seconds": got["seconds"]}
    assert got["lbr_actions"] == "fcpa" and got["agent"] == "always-call"


def test_bad_input_is_one_line_and_exit_2(checkpoint, capsys) -> None:
    ckpt = str(checkpoint)
    cases = [
        (["lbr", "nolimit-holdem", "--bot", "fold"], "unknown bot 'fold'"),
        (["lbr", "nolimit-holdem"], "exactly one of --checkpoint"),
        (["lbr", "nolimit-holdem", "--checkpoint", ckpt], "needs four rounds, got 2"),
        (["duplicate", "nolimit-holdem", "--opponents", "call"], "needs --checkpoint"),
        (["duplicate", "nolimit-holdem", "--checkpoint", ckpt, "--opponents", "x"], "'x'"),
        (["lbr", "leduc", "--bot", "call"], "only limit-holdem"),
    ]
    for args, message in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, (args, err)
