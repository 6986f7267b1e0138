"""The command line for sampling solvers: solve options, JSON-lines log, resume, Ctrl-C, compare."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

import pokerlab
from pokerlab.cli.main import main


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_solve_mccfr_json_log_and_exact_resume(capsys, tmp_path) -> None:
    log = tmp_path / "run.jsonl"
    common = ["-a", "es-mccfr", "--seed", "5", "--prune", "--linear-until", "3000", "--json"]
    code, out, _ = run(
        capsys,
        "solve",
        "leduc",
        *common,
        "-n",
        "4000",
        "--check-every",
        "1000",
        "--checkpoint-every",
        "2000",
        "--checkpoint",
        str(tmp_path / "a.ckpt.npz"),
        "--log",
        str(log),
    )
    assert code == 0
    first = json.loads(out)
    assert first["seed"] == 5 and first["algorithm"] == "es-mccfr"
    assert first["nodes_touched"] > 4000 and first["iterations"] == 4000
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [0, 1000, 2000, 3000, 4000]
    assert lines[0]["exploitability"] is None and lines[-1]["exploitability"] > 0
    assert lines[-1]["nodes_touched"] == first["nodes_touched"] and lines[-1]["seed"] == 5
    assert lines[-1]["exploitability"] == pytest.approx(first["exploitability"])

    code, out, _ = run(
        capsys, "solve", "leduc", "--resume", first["checkpoint"], "-n", "7000", "--json"
    )  # -n is a total: 7000 resumed from 4000 is the run of 7000
    resumed = json.loads(out)
    code, out, _ = run(capsys, "solve", "leduc", *common, "-n", "7000")
    straight = json.loads(out)
    assert resumed["iterations"] == straight["iterations"] == 7000
    assert resumed["exploitability"] == straight["exploitability"]
    assert resumed["nodes_touched"] == straight["nodes_touched"]


def test_three_player_kuhn_logs_and_checkpoints(capsys, tmp_path) -> None:
    log = tmp_path / "k3.jsonl"
    ckpt = tmp_path / "k3.ckpt.npz"
    code, out, _ = run(
        capsys,
        "solve",
        "kuhn",
        "--players",
        "3",
        "-a",
        "cs-mccfr",
        "-n",
        "3000",
        "--check-every",
        "1000",
        "--checkpoint-every",
        "1000",
        "--checkpoint",
        str(ckpt),
        "--log",
        str(log),
        "--json",
    )
    assert code == 0
    assert json.loads(out)["iterations"] == 3000
    assert len(log.read_text().splitlines()) == 4
    assert pokerlab.load_checkpoint(ckpt)["iterations"] == 3000


def test_ctrl_c_saves_a_checkpoint_and_exits_cleanly(tmp_path) -> None:
    log = tmp_path / "live.jsonl"
    ckpt = tmp_path / "live.ckpt.npz"
    cmd = [sys.executable, "-m", "pokerlab.cli.main", "solve", "leduc", "-a", "os-mccfr"]
    cmd += ["-n", "1000000000", "--check-every", "20000", "--checkpoint", str(ckpt)]
    cmd += ["--log", str(log), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            if log.exists() and len(log.read_text().splitlines()) >= 3:
                break
            time.sleep(0.05)
        else:
            pytest.fail("the solver never reported progress")
        os.kill(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    state = pokerlab.load_checkpoint(ckpt)
    assert state["iterations"] > 0 and state["iterations"] % 20_000 == 0
    assert state["algorithm"] == "os-mccfr"


def test_compare_writes_png_and_json(capsys, tmp_path) -> None:
    png = tmp_path / "cmp.png"
    code, out, _ = run(
        capsys,
        "compare",
        "kuhn",
        "--algorithms",
        "cfr,cs-mccfr,es-mccfr,os-mccfr",
        "--budget-nodes",
        "200000",
        "--points",
        "5",
        "--png",
        str(png),
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert [c["algorithm"] for c in data["curves"]] == ["cfr", "cs-mccfr", "es-mccfr", "os-mccfr"]
    for curve in data["curves"]:
        assert curve["nodes_touched"][-1] >= 200_000
        assert curve["exploitability"][-1] < curve["exploitability"][0]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["solve", "kuhn", "-a", "os-mccfr", "--epsilon", "0", "-n", "5"], "epsilon"),
        (["compare", "kuhn", "--algorithms", "cfr,zz", "--budget-nodes", "5000"], "'zz'"),
        (["compare", "kuhn", "--budget-nodes", "10"], "budget_nodes"),
    ],
)
def test_bad_mccfr_input_is_one_line_and_exit_2(capsys, args, needle) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2 and needle in err and "Traceback" not in err


def test_mccfr_doc_examples_run(tmp_path, monkeypatch) -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "mccfr.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "docs/mccfr.md", "exec"), {})
