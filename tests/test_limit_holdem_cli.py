"""``pokerlab train limit-holdem``: JSON fields and refused input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokerlab.cli.main import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_train_small_variant_json(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    args = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "4,4,4,4"]
    code, out, _ = run(capsys, *args, "--recall", "imperfect", "--iterations", "3", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["iterations"] == 3 and result["workers"] == 1
    assert result["bytes_per_infoset_action"] == 8
    assert result["seconds"] > 0 and result["infoset_actions"] > 0
    assert result["exploitability_abstract_mbb"] > 0  # exact, 256 river sequences
    assert result["exploitability_real_mbb"] is None
    assert (tmp_path / "abstraction" / "strength-r4.npz").is_file()  # cached for the next run
    more = ["--seconds", "0.5", "--no-exploitability", "--workers", "2", "--json"]
    code, out, _ = run(capsys, *args, "--bucketing", "ehs2", *more)
    assert code == 0 and json.loads(out)["workers"] == 2
    assert json.loads(out)["bucketing"] == "ehs2"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["train", "kuhn"], "limit-holdem"),
        (["train", "limit-holdem", "--buckets", "8,8,8"], "four"),
        (["train", "limit-holdem", "--buckets", "8,x,8,8"], "'x'"),
        (["train", "limit-holdem", "--bucketing", "kmeans", "--no-cache"], "bucketing"),
        (["train", "limit-holdem", "--recall", "total", "--no-cache"], "recall"),
        (["train", "limit-holdem", "--workers", "0"], "workers"),
        (["train", "limit-holdem", "--boards", "0"], "--boards"),
        (["train", "limit-holdem", "--sampling", "es", "--boards", "2"], "--boards"),
        (["train", "limit-holdem", "--sampling", "full", "--boards", "2"], "--boards"),
        (["train", "limit-holdem", "--sampling", "fulll"], "'fulll'"),
        (["train", "limit-holdem", "--board-chunk", "10"], "--sampling full"),
        (["train", "limit-holdem", "--sampling", "full", "--board-chunk", "10", "--ray"], "Ray"),
        # 41,460 canonical boards of 171 hands at once: refused by name, before training
        (["train", "limit-holdem", "--sampling", "full", "--buckets", "12,12,12,12",
          "--recall", "perfect", "--no-exploitability"], "--board-chunk"),
        (["train", "limit-holdem", "--algorithm", "pcfr++"], "'pcfr++'"),
        (["train", "limit-holdem", "--variant", "huge"], "variant"),
        (["train", "limit-holdem", "--checkpoint", "/nonexistent/x.npz"], "does not exist"),
        (["train", "limit-holdem", "--log", "/nonexistent/x.jsonl"], "does not exist"),
        (["train", "limit-holdem", "--variant", "full", "--real-exploitability"], "full deck"),
        # 810,000 river sequences: even the by-board abstract best response is refused by name
        (["train", "limit-holdem", "--buckets", "30,30,30,30"], "--no-exploitability"),
    ],
)
def test_bad_train_input_is_one_line_and_exit_2(capsys, args, needle) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2 and needle in err and "Traceback" not in err


def test_checkpoint_resume_and_log(capsys, tmp_path, monkeypatch) -> None:
    from pokerlab.io.files import load_checkpoint

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    base = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "3,3,3,3"]
    base += ["--no-exploitability", "--seed", "4", "--json"]
    straight, half = tmp_path / "straight.npz", tmp_path / "half.npz"
    assert run(capsys, *base, "-n", "8", "--checkpoint", str(straight))[0] == 0
    log = tmp_path / "run.jsonl"
    assert run(capsys, *base, "-n", "4", "--checkpoint", str(half), "--log", str(log))[0] == 0
    code, out, _ = run(capsys, *base, "-n", "8", "--resume", str(half), "--checkpoint", str(half))
    resumed = json.loads(out)
    assert code == 0 and resumed["iterations"] == 8 and resumed["iterations_this_run"] == 4
    assert resumed["iterations_per_second"] == pytest.approx(4 / resumed["seconds"])
    a, b = load_checkpoint(straight), load_checkpoint(half)
    np.testing.assert_array_equal(a["arrays"]["regrets"], b["arrays"]["regrets"])
    np.testing.assert_array_equal(a["arrays"]["sums"], b["arrays"]["sums"])
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    # the one JSON-lines log of every run: a line per report, the first at the start
    assert [x["iteration"] for x in lines] == [0, 4] and lines[-1]["game"] == "limit-holdem"
    assert lines[-1]["boards_per_iteration"] == 1
    # a board batch resumes only as a batch of the same size, refused by name otherwise
    code, _, err = run(capsys, *base, "-n", "9", "--resume", str(half), "--boards", "2")
    assert code == 2 and "boards_per_iteration 1, this run 2" in err
    # another abstraction is refused by name
    code, _, err = run(capsys, *base[:5], "4,4,4,4", *base[6:], "-n", "9", "--resume", str(half))
    assert code == 2 and "buckets" in err


def test_predictive_schedule_resumes_through_the_cli(capsys, tmp_path, monkeypatch) -> None:
    """pcfr+ (issue 13): 12 bytes per information-set action, the prediction in the checkpoint,
    and 3 + 3 resumed iterations equal 6 straight ones."""
    from pokerlab.io.files import load_checkpoint

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    base = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "3,3,3,3"]
    base += ["--algorithm", "pcfr+", "--no-exploitability", "--seed", "2", "--json"]
    straight, half = tmp_path / "straight.npz", tmp_path / "half.npz"
    code, out, _ = run(capsys, *base, "-n", "6", "--checkpoint", str(straight))
    assert code == 0 and json.loads(out)["bytes_per_infoset_action"] == 12
    assert run(capsys, *base, "-n", "3", "--checkpoint", str(half))[0] == 0
    assert run(capsys, *base, "-n", "6", "--resume", str(half), "--checkpoint", str(half))[0] == 0
    a, b = load_checkpoint(straight), load_checkpoint(half)
    for name in ("regrets", "sums", "prediction"):
        np.testing.assert_array_equal(a["arrays"][name], b["arrays"][name])
    assert np.abs(a["arrays"]["prediction"]).max() > 0


def test_train_every_board_json(capsys, tmp_path, monkeypatch) -> None:
    """--sampling full: CFR+ over every canonical board of the 12-card deck, on two threads."""
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    args = ["train", "limit-holdem", "--variant", "micro", "--buckets", "3,3,3,3"]
    more = ["--recall", "perfect", "--sampling", "full", "--workers", "2", "--split-round", "1"]
    code, out, _ = run(capsys, *args, *more, "--iterations", "2", "--json")
    assert code == 0
    result = json.loads(out)
    code, chunked, _ = run(capsys, *args, *more, "--iterations", "2", "--board-chunk", "300",
                           "--json")  # fmt: skip
    assert code == 0  # boards in chunks: the same numbers, so the same exploitability
    assert json.loads(chunked)["exploitability_abstract_mbb"] == result[
        "exploitability_abstract_mbb"
    ]
    assert result["sampling"] == "full" and result["canonical_boards"] == 786
    assert result["boards_per_iteration"] is None and result["iterations"] == 2
    assert 0 < result["exploitability_abstract_mbb"] < 5000
    ckpt = tmp_path / "full.ckpt.npz"
    code, out, _ = run(capsys, *args, *more, "--iterations", "1", "--checkpoint", str(ckpt))
    assert code == 0 and "every board (786 canonical)" in out
    # the checkpoint plays: the agent loader rebuilds the solver with chance="full"
    code, out, err = run(capsys, "duplicate", "limit-holdem", "--checkpoint", str(ckpt),
                         "--pairs", "200", "--opponents", "call", "--json")  # fmt: skip
    assert code == 0, err
    match = json.loads(out)
    assert match["iterations"] == 1 and match["ranks"] == 3 and match["recall"] == "perfect"
    assert match["buckets"] == [3, 3, 3, 3]
    (row,) = match["results"]
    assert row["opponent"] == "always-call" and row["pairs"] == 200
    assert np.isfinite(row["mbb_per_game"]) and row["ci95_mbb"] > 0


def test_log_measures_the_first_and_last_block_and_bounds_the_rest(
    capsys, tmp_path, monkeypatch
) -> None:
    """train --log: exact abstract exploitability on the first and the last line, on the lines
    between only while measuring stays within half the training time."""
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    log = tmp_path / "run.jsonl"
    args = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "4,4,4,4", "-n", "80"]
    code, out, _ = run(capsys, *args, "--log", str(log), "--json")
    assert code == 0
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["iteration"] for x in lines] == list(range(0, 90, 10))
    assert lines[0]["exploitability"] is None  # nothing to measure before an iteration
    lines = lines[1:]
    measured = [x["exploitability_abstract_mbb"] is not None for x in lines]
    assert measured[0] and measured[-1]
    assert all(x["exploitability"] == x["exploitability_abstract_mbb"] for x in lines)
    final = json.loads(out)["exploitability_abstract_mbb"]
    assert lines[-1]["exploitability_abstract_mbb"] == final
    assert not all(measured)  # a measurement takes longer than ten iterations of this deck
    assert all(x["algorithm"] == "cfr+" and x["seconds"] > 0 for x in lines)
