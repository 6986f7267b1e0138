"""``pokerlab duplicate limit-holdem`` and ``pokerlab play limit-holdem``."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from pokerlab.cli.main import app, main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def checkpoint(tiny_limit_checkpoint):
    return tiny_limit_checkpoint


def test_match_checkpoint_against_bots_json(capsys, checkpoint) -> None:
    code, out, _ = run(
        capsys,
        "duplicate",
        "limit-holdem",
        "--checkpoint",
        str(checkpoint),
        "--pairs",
        "3000",
        "--json",
    )
    assert code == 0
    result = json.loads(out)
    assert result["variant"] == "tiny" and result["iterations"] == 30
    assert result["buckets"] == [4, 4, 4, 4] and result["pairs"] == 3000
    rows = {r["opponent"]: r for r in result["results"]}
    assert set(rows) == {"always-call", "always-raise", "ehs-rule(0.65,0.45)"}
    call = rows["always-call"]
    assert call["games"] == 6000 and call["ci95_low"] > 0  # the agent beats always-call
    assert call["ci95_low"] == pytest.approx(call["mbb_per_game"] - call["ci95_mbb"])


def test_match_text_and_against_itself(capsys, checkpoint) -> None:
    args = ["duplicate", "limit-holdem", "--checkpoint", str(checkpoint), "--pairs", "500"]
    code, out, _ = run(capsys, *args, "--opponents", "", "--against", str(checkpoint))
    assert code == 0
    # the same strategy in both seats of every pair: exactly 0
    assert re.search(r"vs \S+tiny\.ckpt\.npz\s+\+0\.0 \+-\s+0\.0", out), out
    code, out, _ = run(capsys, *args, "--opponents", "call")
    assert code == 0 and "vs always-call" in out and "500 pairs (1,000 games)" in out


def test_match_trains_when_no_checkpoint(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    args = ["duplicate", "limit-holdem", "--variant", "tiny", "--buckets", "3,3,3,3", "-n", "5"]
    code, out, _ = run(capsys, *args, "--opponents", "raise", "--pairs", "200", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["iterations"] == 5 and result["checkpoint"] is None
    assert [r["opponent"] for r in result["results"]] == ["always-raise"]


def test_play_against_always_call_by_piped_input() -> None:
    # the person checks or calls everything and the bot too: each hand is a showdown for 1 bb
    lines = ["x"] + ["c"] * 30
    result = CliRunner().invoke(
        app,
        [
            "play",
            "limit-holdem",
            "--bot",
            "call",
            "--variant",
            "tiny",
            "--seed",
            "1",
            "--hands",
            "2",
        ],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 0, result.output
    out = result.output
    assert "'x' is not an action: type one of f, c, r" in out
    assert "hand 1: you are the small blind" in out and "hand 2: you are the big blind" in out
    assert out.count("showdown on") == 2
    each = [1.0 if w == "win" else -1.0 for w in re.findall(r"you (win|lose) 1\n", out)]
    each += [0.0] * out.count("split pot")
    assert len(each) == 2
    assert f"played 2 hands: you {sum(each):+g} bb" in out


def test_play_quits_cleanly_and_refuses_an_illegal_fold(checkpoint) -> None:
    runner = CliRunner()
    args = ["play", "limit-holdem", "--checkpoint", str(checkpoint), "--seed", "2"]
    result = runner.invoke(app, args, input="q\n")
    assert result.exit_code == 0
    assert "your cards" in result.output and "played 0 hands: you +0 bb" in result.output
    result = runner.invoke(app, args, input="")
    assert result.exit_code == 0 and "end of input" in result.output
    # the small blind limps, the always-call bot checks behind and checks the flop: no bet to
    # fold to there
    args = ["play", "limit-holdem", "--bot", "call", "--variant", "tiny", "--seed", "1"]
    result = runner.invoke(app, [*args, "--hands", "1"], input="c\nf\nc\nc\nc\nc\n")
    assert "'f' is not allowed here: there is no bet to fold to" in result.output


@pytest.mark.parametrize(
    "args,needle",
    [
        (["duplicate", "kuhn"], "limit-holdem"),
        (["duplicate", "limit-holdem", "--opponents", "call,bob"], "'bob'"),
        (["duplicate", "limit-holdem", "--opponents", ""], "no opponents"),
        (["duplicate", "limit-holdem", "--checkpoint", "missing.npz"], "missing.npz"),
        (["play", "limit-holdem"], "exactly one"),
        (["play", "limit-holdem", "--bot", "fish"], "'fish'"),
        (["play", "poker"], "limit-holdem"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args, needle) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2 and needle in err and "Traceback" not in err
