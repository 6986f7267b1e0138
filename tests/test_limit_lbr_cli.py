"""``pokerlab lbr limit-holdem``: local best response from the command line."""

from __future__ import annotations

import json
import re

import pytest

from pokerlab.cli.main import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture
def checkpoint(tiny_limit_checkpoint):
    return tiny_limit_checkpoint


def test_lbr_checkpoint_json_and_text(capsys, checkpoint) -> None:
    args = ["lbr", "limit-holdem", "--checkpoint", str(checkpoint), "--pairs", "2000"]
    code, out, err = run(capsys, *args, "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["variant"] == "tiny" and result["iterations"] == 30
    assert result["buckets"] == [4, 4, 4, 4] and result["games"] == 4000
    # the 30-iteration strategy loses clearly to LBR
    assert result["ci95_low"] > 0 and result["sampled_rounds"] == 0
    assert result["ci95_low"] == pytest.approx(result["mbb_per_game"] - result["ci95_mbb"])
    code, out, _ = run(capsys, *args)
    assert code == 0
    match = re.search(r"LBR ([+-][\d.]+) \+- ([\d.]+) mbb/g", out)
    assert match, out
    assert float(match.group(1)) == pytest.approx(result["mbb_per_game"], abs=0.05)


def test_lbr_bot_and_errors(capsys) -> None:
    base = ["lbr", "limit-holdem", "--variant", "tiny", "--pairs", "1000", "--json"]
    code, out, _ = run(capsys, *base, "--bot", "call")
    assert code == 0
    result = json.loads(out)
    assert result["bot"] == "always-call" and result["ci95_low"] > 1000.0
    assert result["actions"]["fold"] == 0
    code, _, err = run(capsys, *base, "--bot", "caller")
    assert code == 2 and "'caller'" in err
    code, _, err = run(capsys, "lbr", "kuhn", "--bot", "call")
    assert code == 2 and "'kuhn'" in err
    code, _, err = run(capsys, "lbr", "limit-holdem")
    assert code == 2 and "--checkpoint" in err
    code, _, err = run(capsys, *base, "--bot", "call", "--pairs", "1")
    assert code == 2 and "--pairs" in err
