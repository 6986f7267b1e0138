"""``pokerlab report``: a row equals ``pokerlab postflop`` on its flop, the overall row, the
files, resume after SIGKILL, Ctrl-C at a flop boundary, damaged files refused by name.

The template is tiny (all-in or check on every street, five hand classes a side) so that a flop
solves in about a second; the numbers are compared with the real postflop command's.
"""

from __future__ import annotations

import csv
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _report_data import TEMPLATE
from pokerlab.cli.main import main

FLOPS = "KsKh5d\nAsQh2d 30\nAhQs2c  # isomorphic to line 2: one row, weights summed\n9s8s7h\n"
TIMING = ("seconds", "wall_seconds")


def run(capsys, args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _numbers(row: dict) -> dict:
    return {k: v for k, v in row.items() if k not in TIMING}


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("report")
    (folder / "tiny.toml").write_text(TEMPLATE)
    (folder / "flops.txt").write_text(FLOPS)
    return {"template": folder / "tiny.toml", "flops": folder / "flops.txt", "dir": folder}


@pytest.fixture(scope="module")
def full(files) -> dict:
    """The uninterrupted report of the three flops (in this process)."""
    out = files["dir"] / "full"
    code = main(
        ["report", str(files["template"]), "--flops", str(files["flops"]), "--target", "1%"]
        + ["--out", str(out), "--json"]
    )
    assert code == 0
    return json.loads((out / "report.json").read_text())


def test_report_files_and_overall_row(full, files) -> None:
    assert full["complete"] is True and full["kind"] == "flops"
    rows = full["rows"]
    assert [r["board"] for r in rows] == ["KsKh5d", "AsQh2d", "9s8s7h"]
    # default weight: the class's count of the 22,100 flops; isomorphic lines summed
    assert [r["weight"] for r in rows] == [12.0, 30.0 + 24.0, 12.0]
    assert rows[2]["suits"] == "two-tone" and rows[2]["connectedness"] == "connected"
    for row in rows:
        assert row["target_reached"] and row["exploitability_pct"] <= 1.0
        assert row["ev"]["oop"] + row["ev"]["ip"] == pytest.approx(100.0, abs=0.01)
        assert sum(row["actions"]["root"].values()) == pytest.approx(1.0)
        assert set(row["actions"]["root"]) == {"check", "allin 50"}
        assert row["groups"]["root"]["allin"] == row["actions"]["root"]["allin 50"]
    total = sum(r["weight"] for r in rows)
    overall = full["overall"]
    assert overall["weight"] == total == 78.0
    for key in ("ev", "equity"):
        for p in ("oop", "ip"):
            want = sum(r["weight"] * r[key][p] for r in rows) / total
            assert overall[key][p] == pytest.approx(want, rel=1e-12)
    want = sum(r["weight"] * r["actions"]["ip_vs_check"]["check"] for r in rows) / total
    assert overall["actions"]["ip_vs_check"]["check"] == pytest.approx(want, rel=1e-12)
    with open(files["dir"] / "full" / "report.csv", newline="") as fh:
        table = list(csv.DictReader(fh))
    assert [t["board"] for t in table] == ["KsKh5d", "AsQh2d", "9s8s7h", "overall"]
    assert float(table[1]["ev oop"]) == rows[1]["ev"]["oop"]
    assert float(table[3]["oop: allin 50"]) == overall["actions"]["root"]["allin 50"]
    assert float(table[0]["ip vs check: [allin]"]) == rows[0]["groups"]["ip_vs_check"]["allin"]


def test_row_equals_pokerlab_postflop(full, files, capsys) -> None:
    row = full["rows"][1]
    spot = files["dir"] / "spot.toml"
    spot.write_text(f'board = "{row["board"]}"\n' + TEMPLATE)
    code, out, _ = run(capsys, ["postflop", str(spot), "--target", "1%", "--json"])
    assert code == 0
    solo = json.loads(out)
    assert solo["iterations"] == row["iterations"]
    assert solo["exploitability"] == row["exploitability"]
    assert solo["ev"] == row["ev"] and solo["equity"] == row["equity"]
    assert solo["eqr"] == row["eqr"]
    assert solo["root"]["actions"] == row["actions"]["root"]


def test_sigkill_then_resume_equals_uninterrupted(full, files, capsys) -> None:
    out = files["dir"] / "killed"
    cmd = [sys.executable, "-m", "pokerlab.cli.main", "report", str(files["template"])]
    cmd += ["--flops", str(files["flops"]), "--target", "1%", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 240
        rows = 0
        while time.time() < deadline and proc.poll() is None and rows == 0:
            time.sleep(0.02)
            try:
                rows = len(json.loads((out / "report.json").read_text())["rows"])
            except (OSError, ValueError):
                pass
        assert proc.poll() is None, "the report ended before it could be killed"
        proc.kill()
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    killed = json.loads((out / "report.json").read_text())
    assert 1 <= len(killed["rows"]) < 3 and killed["complete"] is False
    code, _, err = run(
        capsys,
        ["report", str(files["template"]), "--flops", str(files["flops"]), "--target", "1%"]
        + ["--out", str(out), "--resume"],
    )
    assert code == 0, err
    resumed = json.loads((out / "report.json").read_text())
    assert [_numbers(r) for r in resumed["rows"]] == [_numbers(r) for r in full["rows"]]
    assert _numbers(resumed["overall"]) == _numbers(full["overall"])
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_ctrl_c_stops_at_a_flop_boundary(files) -> None:
    out = files["dir"] / "interrupted"
    cmd = [sys.executable, "-m", "pokerlab.cli.main", "report", str(files["template"])]
    cmd += ["--flops", str(files["flops"]), "--target", "1%", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 240
        while time.time() < deadline and proc.poll() is None and not (out / "report.json").exists():
            time.sleep(0.02)
        time.sleep(0.3)  # inside the first flop's solve (or still building it)
        assert proc.poll() is None, "the report ended before Ctrl-C"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "continue with --resume" in err
    doc = json.loads((out / "report.json").read_text())
    assert doc["complete"] is False and len(doc["rows"]) < 3


def _resume(capsys, files, out: Path, *extra: str) -> tuple[int, str, str]:
    return run(
        capsys,
        ["report", str(files["template"]), "--flops", str(files["flops"]), "--target", "1%"]
        + ["--out", str(out), "--resume", *extra],
    )


def test_damaged_or_foreign_files_are_refused_by_name(full, files, capsys, tmp_path) -> None:
    import shutil

    src = files["dir"] / "full"
    for name, damage in (
        ("report.json", lambda t: t.replace('"iterations": ', '"iterations": 1', 1)),
        ("report.json", lambda t: t[: len(t) // 2]),
        ("report.csv", lambda t: t.replace("KsKh5d,12.0", "KsKh5d,13.0")),
    ):
        out = tmp_path / f"copy-{name}-{len(list(tmp_path.iterdir()))}"
        shutil.copytree(src, out)
        path = out / name
        path.write_text(damage(path.read_text()))
        code, _, err = _resume(capsys, files, out)
        assert code == 2
        assert f"{path} is damaged" in err, err
    # another target: refused, naming what differs
    code, _, err = run(
        capsys,
        ["report", str(files["template"]), "--flops", str(files["flops"]), "--target", "2%"]
        + ["--out", str(src), "--resume"],
    )
    assert code == 2
    assert "was made with other settings" in err and '"target_pct": 2.0' in err
    # without --resume an existing report is never overwritten
    code, _, err = run(
        capsys,
        ["report", str(files["template"]), "--flops", str(files["flops"]), "--out", str(src)],
    )
    assert code == 2 and "already holds a report" in err


def test_bad_input(files, capsys, tmp_path) -> None:
    with_board = tmp_path / "board.toml"
    with_board.write_text('board = "AsKd7c"\n' + TEMPLATE)
    code, _, err = run(capsys, ["report", str(with_board), "--out", str(tmp_path / "r")])
    assert code == 2 and "a report template has no board" in err
    code, _, err = run(
        capsys, ["report", str(files["template"]), "--flops", "30", "--out", str(tmp_path / "r")]
    )
    assert code == 2 and "--flops '30'" in err
    aces = tmp_path / "aces.toml"
    aces.write_text(TEMPLATE.replace('"AA,KK,QQ,AKs,AQs"', '"AA"'))
    flops = tmp_path / "f.txt"
    flops.write_text("KsKh5d\nAsAhAd\n")
    code, _, err = run(
        capsys, ["report", str(aces), "--flops", str(flops), "--out", str(tmp_path / "r")]
    )
    assert code == 2 and "oop_range is empty on the board AsAhAd" in err
    code, _, err = run(
        capsys,
        ["report", str(files["template"]), "--turns", "AsKd", "--out", str(tmp_path / "r")],
    )
    assert code == 2 and "--turns 'AsKd' has 2 cards, not 3" in err
    code, _, err = run(capsys, ["report", "small", "--workers", "3", "--out", str(tmp_path / "r")])
    assert code == 2 and "--workers needs --ray" in err
    assert not (tmp_path / "r").exists()


def test_builtin_templates(capsys, tmp_path) -> None:
    from pokerlab.reports.run import builtin_templates, load_template, spot_for

    assert builtin_templates() == ["flop-one-size", "small"]
    small = load_template("small")
    assert "board" not in small and small["pot"] == 100 and small["flop"]["bet"] == "50%"
    spot = spot_for(load_template("flop-one-size"), (51, 46, 21))
    assert spot.pot == 200 and spot.stack == 900 and spot.street == "flop"
    code, _, err = run(capsys, ["report", "smal", "--out", str(tmp_path / "r")])
    assert code == 2 and "unknown template 'smal'" in err and "flop-one-size, small" in err


def test_turn_report(files, capsys, tmp_path) -> None:
    out = tmp_path / "turns"
    code, _, err = run(
        capsys,
        ["report", str(files["template"]), "--turns", "8s8h8d", "--target", "1%"]
        + ["--out", str(out)],
    )
    assert code == 0, err
    doc = json.loads((out / "report.json").read_text())
    rows = doc["rows"]
    assert doc["kind"] == "turns" and doc["complete"]
    # the 8c alone, then every other rank in a suit of the flop (3 cards) or clubs (1)
    assert len(rows) == 25 and sum(r["weight"] for r in rows) == 49
    assert rows[0]["board"] == "8s8h8dAd" and rows[0]["weight"] == 3
    quads = next(r for r in rows if r["board"] == "8s8h8d8c")
    assert quads["weight"] == 1 and quads["pairing"] == "quads"
    spot = tmp_path / "turn.toml"
    spot.write_text(f'board = "{rows[1]["board"]}"\n' + TEMPLATE)
    code, printed, _ = run(capsys, ["postflop", str(spot), "--target", "1%", "--json"])
    solo = json.loads(printed)
    assert code == 0 and solo["iterations"] == rows[1]["iterations"]
    assert solo["ev"] == rows[1]["ev"] and solo["equity"] == rows[1]["equity"]
    assert solo["root"]["actions"] == rows[1]["actions"]["root"]


def test_save_solutions(files, capsys, tmp_path) -> None:
    from pokerlab.io.files import read_metadata
    from pokerlab.solvers.postflop import load_spot_solution

    flops = tmp_path / "one.txt"
    flops.write_text("KsKh5d\n")
    out = tmp_path / "saved"
    code, _, err = run(
        capsys,
        ["report", str(files["template"]), "--flops", str(flops), "--target", "1%"]
        + ["--out", str(out), "--save-solutions"],
    )
    assert code == 0, err
    row = json.loads((out / "report.json").read_text())["rows"][0]
    path = out / "solutions" / "KsKh5d.npz"
    solver = load_spot_solution(path)
    assert solver.iterations == row["iterations"]
    assert read_metadata(path)["exploitability"] == row["exploitability"]
    root = solver.average_strategy().node("")
    assert root.action_totals() == row["actions"]["root"]


def test_threads_solve_flops_at_once_with_the_same_rows(full, files, capsys, tmp_path) -> None:
    """--threads 2: two flops at once, each on one solver thread; rows (timings apart) and the
    overall row equal the one-thread report's, in plan order."""
    from pokerlab.reports.flops import read_flop_file
    from pokerlab.reports.run import flops_at_once, load_template

    template = load_template(files["template"])
    plan = read_flop_file(files["flops"])[0]
    assert flops_at_once(template, plan, 2) == (2, 1)
    assert flops_at_once(template, plan[:1], 2) == (1, 2)  # one flop: its solver gets both
    assert flops_at_once(template, plan, 1) == (1, 1)
    out = tmp_path / "two"
    code, _, err = run(
        capsys,
        ["report", str(files["template"]), "--flops", str(files["flops"]), "--target", "1%"]
        + ["--out", str(out), "--threads", "2", "--json"],
    )
    assert code == 0, err
    two = json.loads((out / "report.json").read_text())
    assert [_numbers(r) for r in two["rows"]] == [_numbers(r) for r in full["rows"]]
    assert _numbers(two["overall"]) == _numbers(full["overall"])


def test_threads_hand_an_error_and_a_stop_to_the_caller(files, monkeypatch) -> None:
    from pokerlab.reports import run as report_run
    from pokerlab.reports.flops import read_flop_file

    template = report_run.load_template(files["template"])
    plan = read_flop_file(files["flops"])[0]
    settings = report_run.ReportSettings(target_pct=1.0)
    real = report_run.solve_flop

    def failing(template, flop, settings, threads, stop, save_to):  # noqa: ANN001, ANN202
        if flop.text == "AsQh2d":
            raise ValueError("broken flop AsQh2d")
        return real(template, flop, settings, threads, stop, save_to)

    monkeypatch.setattr(report_run, "solve_flop", failing)
    rows: list[dict] = []
    with pytest.raises(ValueError, match="broken flop AsQh2d"):
        report_run.run_local(template, plan, settings, rows.append, threads=2)
    assert all(r["board"] != "AsQh2d" for r in rows)
    monkeypatch.setattr(report_run, "solve_flop", real)
    rows.clear()
    finished = report_run.run_local(
        template, plan, settings, rows.append, threads=2, should_stop=lambda: len(rows) >= 1
    )
    assert finished is False and 1 <= len(rows) < len(plan)
