"""No-limit blueprint checkpoints in the viewer (issue 24): a checkpoint of ``pokerlab blueprint
train`` is listed as a blueprint and opens node by node; ``/api/blueprint?line=`` reads the line
as ``pokerlab blueprint show --line`` does and answers the same figures (compared with the
command's ``--json`` output), the 13x13 chart of the seat to act preflop and the buckets after
the flop, and refuses a bad token by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerlab.cards.deck import N_CLASSES, parse_class
from pokerlab.cli.main import main

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("httpx", reason="httpx (test extra) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.viewer import create_app  # noqa: E402


@pytest.fixture(scope="module")
def checkpoint(tiny_blueprint) -> Path:
    return tiny_blueprint


@pytest.fixture(scope="module")
def client(checkpoint) -> TestClient:
    return TestClient(create_app(checkpoint.parent))


def cli_show(capsys, checkpoint: Path, line: str) -> dict:
    capsys.readouterr()
    code = main(["blueprint", "show", str(checkpoint), "--line", line, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_checkpoint_is_listed_and_opened_as_a_blueprint(client) -> None:
    files = client.get("/api/files").json()["files"]
    (row,) = [f for f in files if f["path"] == "bp.npz"]
    assert row["kind"] == "blueprint" and row["format"] == "checkpoint"
    assert row["game"] == "nolimit-holdem" and row["algorithm"] == "es-mccfr"
    assert row["iterations"] == 3000 and row["details"]["bucketing"] == "lossless"
    info = client.get("/api/info", params={"path": "bp.npz"}).json()
    assert info["kind"] == "blueprint"
    assert info["game_params"]["stacks"] == [300, 300] and info["game_params"]["ranks"] == 2
    assert info["positions"] == ["BTN/SB", "BB"] and info["recall"] == "imperfect"
    # the blueprint is not a small game's table
    bad = client.get("/api/table", params={"path": "bp.npz"})
    assert bad.status_code == 400 and "blueprint" in bad.json()["error"]


@pytest.mark.parametrize("line", ["", "c", "r300", "c, r300", "r3bb", "C R300"])
def test_preflop_chart_equals_blueprint_show(client, checkpoint, capsys, line) -> None:
    cli = cli_show(capsys, checkpoint, line)
    got = client.get("/api/blueprint", params={"path": "bp.npz", "line": line})
    assert got.status_code == 200, got.text
    api = got.json()
    assert cli["street"] == "preflop"
    for key in ("line", "history", "seat", "position", "street", "pot", "to_call", "actions"):
        assert api[key] == cli[key], key
    assert api["words"] == cli["words"]
    assert api["classes"] == cli["classes"]  # the same floats, not merely close
    assert api["totals"] == cli["totals"]
    # the chart: 169 cells in class-id order, the deck's 4 classes filled, the rest empty
    assert len(api["grid"]) == N_CLASSES
    assert sum(cell is not None for cell in api["grid"]) == 4
    for name, probs in cli["classes"].items():
        assert api["grid"][parse_class(name)] == probs
        assert sum(probs) == pytest.approx(1.0, abs=1e-9)


def test_root_actions_say_which_end_the_hand(client) -> None:
    root = client.get("/api/blueprint", params={"path": "bp.npz"}).json()
    assert root["actions"] == ["f", "c", "r300"] and root["short"] == ["f", "c", "a"]
    assert root["next"] == [False, True, True]  # a fold ends the hand heads-up
    assert root["tokens"] == []
    limp = client.get("/api/blueprint", params={"path": "bp.npz", "line": "c"}).json()
    assert limp["tokens"] == ["c"] and limp["short"] == ["k", "a"]
    after = client.get("/api/blueprint", params={"path": "bp.npz", "line": "r300"}).json()
    assert after["position"] == "BB" and after["actions"] == ["f", "c"]
    assert after["next"] == [False, False]  # calling the all-in ends the betting


def test_postflop_node_lists_the_buckets_as_blueprint_show(client, checkpoint, capsys) -> None:
    cli = cli_show(capsys, checkpoint, "c, c")
    api = client.get("/api/blueprint", params={"path": "bp.npz", "line": "c, c"}).json()
    assert api["street"] == "flop" and api["history"] == cli["history"] == "cc/"
    assert "grid" not in api and "classes" not in api
    assert api["states"] == cli["states"]
    assert api["states_total"] == len(cli["states"]) == 34  # the lossless flop buckets
    assert list(api["states"]) == list(cli["states"])  # in the same order


@pytest.mark.parametrize(
    "line,words",
    [
        ("r300 zz", ["unknown token 'zz'", "after 'r300' are f, c"]),
        ("r250", ["'r250' is not an action", "at the root", "f, c, r300"]),
        ("f", ["ends the hand"]),
        ("c /", ["'/'", "the street is not over"]),
    ],
)
def test_a_bad_line_is_refused_by_name(client, line, words) -> None:
    got = client.get("/api/blueprint", params={"path": "bp.npz", "line": line})
    assert got.status_code == 400
    error = got.json()["error"]
    assert error.startswith("line: ") or "ends the hand" in error
    assert "--line" not in error  # the viewer has no option of that name
    for w in words:
        assert w in error, (w, error)
