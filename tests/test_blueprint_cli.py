"""``pokerlab blueprint train``: the JSON summary, exact resume through the checkpoint, Ctrl-C,
and bad input refused in one line with exit code 2."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from pokerlab.cli.main import main
from pokerlab.io.files import load_checkpoint

TINY = 'base = "fcpa"\nranks = 2\nrounds = 2\nstack = 300\n'


def _config(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    return path


def _train(capsys, *args: str) -> tuple[int, dict]:
    code = main(["blueprint", "train", *args, "--json"])
    out = capsys.readouterr().out.strip()
    return code, (json.loads(out.splitlines()[-1]) if code == 0 else {})


def test_train_and_resume_equal_one_run(tmp_path, capsys) -> None:
    """30,000 iterations, then --resume to 50,000, give the checkpoint of one run of 50,000
    (regrets, sums and generator bit for bit); the JSON has the issue's keys."""
    config = str(_config(tmp_path))
    common = ["--bucketing", "lossless", "--prune", "--linear-until", "20000"]
    a_file = str(tmp_path / "a")
    code, first = _train(capsys, config, *common, "-n", "30000", "--checkpoint", a_file)
    assert code == 0
    assert first["iterations"] == 30_000 and first["infoset_actions"] == 308
    assert first["bytes"] == 8 * 308 and first["workers"] == 1
    assert first["iterations_per_second"] > 0 and first["status"] == "completed"
    code, resumed = _train(
        capsys, config, *common, "-n", "50000", "--checkpoint", a_file, "--resume"
    )
    assert code == 0 and resumed["iterations"] == 50_000
    assert resumed["iterations_this_run"] == 20_000
    code, _ = _train(capsys, config, *common, "-n", "50000", "--checkpoint", str(tmp_path / "b"))
    assert code == 0
    a, b = load_checkpoint(tmp_path / "a"), load_checkpoint(tmp_path / "b")
    assert a["iterations"] == b["iterations"] == 50_000
    for name in ("regrets", "sums", "rng"):
        np.testing.assert_array_equal(a["arrays"][name], b["arrays"][name])


def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    config = str(_config(tmp_path))
    ckpt = str(tmp_path / "c")
    assert main(["blueprint", "train", "nope", "--checkpoint", ckpt]) == 2
    assert "unknown configuration 'nope'" in capsys.readouterr().err
    assert main(["blueprint", "train", config, "--checkpoint", ckpt, "--bucketing", "x"]) == 2
    assert "--bucketing: unknown 'x'" in capsys.readouterr().err
    assert main(["blueprint", "train", config, "--checkpoint", ckpt, "--buckets", "1,2"]) == 2
    assert "--buckets needs 4 counts separated by commas" in capsys.readouterr().err
    assert main(["blueprint", "train", config, "--checkpoint", ckpt, "--resume"]) == 2
    assert "--checkpoint" in capsys.readouterr().err  # nothing to resume
    args = ["blueprint", "train", config, "--bucketing", "lossless", "--checkpoint", ckpt]
    assert main([*args, "-n", "100"]) == 0
    capsys.readouterr()
    err_args = ["blueprint", "train", "fcpa", "--bucketing", "lossless", "--checkpoint", ckpt]
    assert main(err_args) == 2
    assert "at most 16 cards" in capsys.readouterr().err
    assert main([*args, "--averages", "preflop", "--resume", "-n", "200"]) == 2
    err = capsys.readouterr().err
    assert "averages" in err and len(err.strip().splitlines()) == 1


def test_ctrl_c_saves_the_checkpoint_and_exits_130(tmp_path) -> None:
    """SIGINT once the first block is logged: the run stops at the next block, writes the
    checkpoint and exits 130; the checkpoint resumes."""
    config = _config(tmp_path)
    ckpt, log = tmp_path / "run.npz", tmp_path / "run.jsonl"
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "pokerlab.cli.main"]
    args = ["blueprint", "train", str(config), "--bucketing", "lossless", "--seconds", "120"]
    proc = subprocess.Popen(
        [*cmd, *args, "--checkpoint", str(ckpt), "--log", str(log)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline and not (log.exists() and log.read_text().count("\n") >= 2):
        time.sleep(0.2)  # the line of iteration 0, then the first block's
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted at iteration" in err
    state = load_checkpoint(ckpt)
    assert state["iterations"] > 0
    assert json.loads(log.read_text().splitlines()[-1])["iteration"] == state["iterations"]
