"""The viewer's report page: the report list, one report checked whole, a damaged report refused
by name, and a board solved on demand into the spot browser (its numbers are the row's)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("httpx", reason="httpx (test extra) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from _report_data import TEMPLATE  # noqa: E402
from pokerlab.cli.main import main  # noqa: E402
from pokerlab.viewer import create_app  # noqa: E402


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("served")
    (root / "tiny.toml").write_text(TEMPLATE)
    (root / "flops.txt").write_text("KsKh5d\n9s8s7h\n")
    code = main(
        ["report", str(root / "tiny.toml"), "--flops", str(root / "flops.txt"), "--target", "1%"]
        + ["--out", str(root / "r")]
    )
    assert code == 0
    return root


def _finished(c: TestClient, job_id: str, seconds: float = 120) -> dict:
    deadline = time.time() + seconds
    while time.time() < deadline:
        job = c.get(f"/api/jobs/{job_id}").json()
        if job["state"] in ("done", "failed", "cancelled"):
            return job
        time.sleep(0.1)
    raise AssertionError("the job did not finish")


def test_report_list_page_and_report(served) -> None:
    c = TestClient(create_app(served))
    page = c.get("/reports")
    assert page.status_code == 200 and "/reports/static/reports.js" in page.text
    script = c.get("/reports/static/reports.js")
    assert script.status_code == 200 and "openBoard" in script.text
    assert c.get("/reports/static/other.js").status_code == 404
    assert 'href="/reports"' in c.get("/").text
    listing = c.get("/api/reports").json()
    assert listing == [
        {
            "path": "r/report.json",
            "kind": "flops",
            "boards": 2,
            "done": 2,
            "complete": True,
            "target_pct": 1.0,
        }
    ]
    doc = c.get("/api/report", params={"path": "r/report.json"}).json()
    on_disk = json.loads((served / "r" / "report.json").read_text())
    assert doc["rows"] == on_disk["rows"] and doc["overall"] == on_disk["overall"]
    assert doc["solutions"] == {}


def test_bad_requests(served, tmp_path) -> None:
    c = TestClient(create_app(served))
    r = c.get("/api/report", params={"path": "../r/report.json"})
    assert r.status_code == 403
    r = c.get("/api/report", params={"path": "tiny.toml"})
    assert r.status_code == 400 and "is not a report" in r.json()["error"]
    r = c.post("/api/report/solve", json={"path": "r/report.json", "board": "AsKd7c"})
    assert r.status_code == 400 and "'AsKd7c' is not a board of r/report.json" in r.json()["error"]
    # a damaged copy is refused by name, and listed with its error
    damaged = served / "damaged"
    damaged.mkdir(exist_ok=True)
    text = (served / "r" / "report.json").read_text()
    (damaged / "report.json").write_text(text.replace('"weight": 12.0', '"weight": 13.0', 1))
    try:
        r = c.get("/api/report", params={"path": "damaged/report.json"})
        assert r.status_code == 400
        assert r.json()["error"] == (
            "damaged/report.json is damaged or was edited: its sha256 does not match"
        )
        errors = [e for e in c.get("/api/reports").json() if "error" in e]
        assert [e["path"] for e in errors] == ["damaged/report.json"]
    finally:
        (damaged / "report.json").unlink()
        damaged.rmdir()


def test_a_board_is_solved_on_demand_and_opens_in_the_spot_browser(served) -> None:
    c = TestClient(create_app(served))
    r = c.post("/api/report/solve", json={"path": "r/report.json", "board": "9s8s7h"})
    assert r.status_code == 202, r.text
    job = _finished(c, r.json()["id"])
    assert job["state"] == "done", job
    solution = job["result"]["solution"]
    assert solution == "r/solutions/9s8s7h.npz" and (served / solution).is_file()
    row = next(
        x
        for x in json.loads((served / "r" / "report.json").read_text())["rows"]
        if x["board"] == "9s8s7h"
    )
    assert job["result"]["row"]["ev"] == row["ev"]
    # the spot browser reads it: the root's action frequencies are the row's
    info = c.get("/api/info", params={"path": solution}).json()
    assert info["kind"] == "postflop"
    node = c.get("/api/node", params={"path": solution, "line": ""}).json()
    freq = {a["label"]: a["freq"] for a in node["actions"]}  # rounded to 6 places
    assert freq == pytest.approx(row["actions"]["root"], abs=1e-6)
    # asked again: the saved solution at once
    again = c.post("/api/report/solve", json={"path": "r/report.json", "board": "9s8s7h"})
    assert again.status_code == 200 and again.json() == {"solution": solution}
    doc = c.get("/api/report", params={"path": "r/report.json"}).json()
    assert doc["solutions"] == {"9s8s7h": solution}
