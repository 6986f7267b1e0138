"""Limit hold'em files in the viewer (issue 30): a training checkpoint opens at once as its
average strategy per round, betting line and bucket (it used to build the full game's history
tree and never return); a ``train --log`` file opens as a convergence curve; the library
restores a limit checkpoint on the betting tree (restore_solver), never as a history-game solver."""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.io.files import load_checkpoint
from pokerlab.solvers.factory import restore_solver

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("httpx", reason="httpx (test extra) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.viewer import create_app  # noqa: E402

ARGS = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "4,4,4,4"]


@pytest.fixture
def trained(tmp_path, monkeypatch, capsys) -> dict:
    """20 iterations of tiny limit hold'em with a checkpoint, a log and the final JSON."""
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path / "cache"))
    served = tmp_path / "served"
    served.mkdir()
    ckpt, log = served / "tiny.ckpt.npz", served / "tiny.jsonl"
    code = main(
        [*ARGS, "--iterations", "20", "--checkpoint", str(ckpt), "--log", str(log), "--json"]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return {
        "served": served,
        "ckpt": ckpt,
        "log": log,
        "result": json.loads(captured.out),
        "err": captured.err,
        "cache": tmp_path / "cache" / "abstraction",
    }


def test_train_says_what_it_wrote_and_where_the_tables_are(trained) -> None:
    err = trained["err"].splitlines()
    assert f"wrote {trained['ckpt']}" in err
    assert f"appended to {trained['log']}" in err
    cached = [line for line in err if line.startswith("abstraction tables cached in ")]
    assert len(cached) == 1 and str(trained["cache"]) in cached[0]
    assert trained["cache"].is_dir() and any(trained["cache"].glob("*.npz"))


def test_limit_checkpoint_is_restored_by_restore_solver_at_once(trained, monkeypatch) -> None:
    from pokerlab.solvers.limit_holdem import LimitPCSSolver

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(trained["cache"].parent))
    state = load_checkpoint(trained["ckpt"])
    start = time.perf_counter()
    solver = restore_solver(state)  # on the betting tree: it never builds a game tree
    assert time.perf_counter() - start < 5.0
    assert isinstance(solver, LimitPCSSolver) and solver.iterations == 20
    state["format"] = "limit-other"
    with pytest.raises(
        PokerlabError, match=r"not a limit hold'em training state \(format 'limit-other'\)"
    ):
        restore_solver(state)


def test_limit_checkpoint_opens_as_its_strategy_per_bucket(trained, monkeypatch) -> None:
    from pokerlab.abstraction.buckets import build_abstraction
    from pokerlab.games.registry import load_game
    from pokerlab.solvers.limit_holdem import LimitPCSSolver

    client = TestClient(create_app(trained["served"]), raise_server_exceptions=False)
    rows = {f["path"]: f for f in client.get("/api/files").json()["files"]}
    entry = rows["tiny.ckpt.npz"]
    assert entry["kind"] == "limit" and entry["game"] == "limit-holdem"
    assert entry["iterations"] == 20 and entry["algorithm"] == "cfr+"
    info = client.get("/api/info", params={"path": "tiny.ckpt.npz"}).json()
    assert info["kind"] == "table" and info["limit"] is True and info["playable"] is False
    assert info["buckets"] == [4, 4, 4, 4] and info["recall"] == "imperfect"

    # the same numbers as the solver's own average strategy, restored from the checkpoint
    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(trained["cache"].parent))
    game = load_game("limit-holdem", variant="tiny")
    abstraction = build_abstraction(4, (4, 4, 4, 4), "ehs", seed=0, cache=True)
    solver = LimitPCSSolver(game, abstraction, recall="imperfect", algorithm="cfr+", seed=0)
    solver.load_state_dict(load_checkpoint(trained["ckpt"]))
    average = solver.average_strategy().probs
    tree = game.betting_tree
    assert info["infosets"] == sum(
        4 for n in range(tree.num_nodes) if tree.kind[n] == 0
    )  # four buckets at every decision
    for prefix, history, labels in (
        ("preflop::", "", ["fold", "call", "raise"]),
        ("flop:rc/:", "rc/", ["check", "bet"]),
        ("turn:rc/crc/cr:", "rc/crc/cr", ["fold", "call", "raise"]),
    ):
        body = client.get("/api/table", params={"path": "tiny.ckpt.npz", "q": prefix}).json()
        assert body["total"] == 4
        n = tree.find(history)
        na = len(labels)
        block = average[solver.offset[n] : solver.offset[n] + na * 4].reshape(na, 4)
        for bucket, row in enumerate(body["rows"]):
            assert row["key"] == f"{prefix}{bucket}" and row["player"] == tree.player[n]
            assert [a["label"] for a in row["actions"]] == labels
            got = [a["p"] for a in row["actions"]]
            np.testing.assert_allclose(got, block[:, bucket], atol=1e-6)
    flop = client.get("/api/table", params={"path": "tiny.ckpt.npz", "q": "flop:"}).json()
    assert flop["total"] == 4 * sum(
        1 for n in range(tree.num_nodes) if tree.kind[n] == 0 and tree.round[n] == 1
    )
    exact = client.get(
        "/api/table", params={"path": "tiny.ckpt.npz", "q": "flop:rc/:3", "mode": "exact"}
    ).json()
    assert [r["key"] for r in exact["rows"]] == ["flop:rc/:3"]


def test_saved_limit_strategy_opens_as_the_same_table(trained, monkeypatch) -> None:
    """``pokerlab.save_strategy`` of a limit solver's average strategy: listed as a limit file
    (a strategy, not a checkpoint) and read through its index, the same rows as the
    checkpoint's."""
    import pokerlab

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(trained["cache"].parent))
    solver = restore_solver(load_checkpoint(trained["ckpt"]))
    pokerlab.save_strategy(trained["served"] / "tiny.npz", solver.average_strategy(), iterations=20)
    client = TestClient(create_app(trained["served"]), raise_server_exceptions=False)
    rows = {f["path"]: f for f in client.get("/api/files").json()["files"]}
    assert rows["tiny.npz"]["kind"] == "limit" and rows["tiny.npz"]["format"] == "strategy"
    info = client.get("/api/info", params={"path": "tiny.npz"}).json()
    assert info["format"] == "strategy" and info["buckets"] == [4, 4, 4, 4]
    assert info["infosets"] == len(solver.average_strategy())
    for query in ("flop:rc/", "turn:rc/crc/cr:2"):
        saved = client.get("/api/table", params={"path": "tiny.npz", "q": query}).json()
        ckpt = client.get("/api/table", params={"path": "tiny.ckpt.npz", "q": query}).json()
        assert saved["total"] == ckpt["total"] > 0
        assert saved["rows"] == ckpt["rows"]


def test_train_log_opens_as_a_convergence_curve(trained) -> None:
    client = TestClient(create_app(trained["served"]), raise_server_exceptions=False)
    lines = [json.loads(x) for x in trained["log"].read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [0, 10, 20]
    body = client.get("/api/curve", params={"path": "tiny.jsonl"}).json()
    assert body["source"] == "log" and body["unit"] == "mbb/g"
    (curve,) = body["curves"]
    assert curve["algorithm"] == "cfr+" and curve["iterations"] == [0, 10, 20]
    assert curve["exploitability"][0] is None  # the run's first report, before any iteration
    assert curve["exploitability"][1:] == [x["exploitability_abstract_mbb"] for x in lines[1:]]
    # the last point is the exploitability train reports at the end (the same strategy)
    assert curve["exploitability"][-1] == pytest.approx(
        trained["result"]["exploitability_abstract_mbb"], rel=1e-12
    )
    assert curve["exploitability"][1] > curve["exploitability"][-1] > 0
    assert 0 < curve["seconds"][1] < curve["seconds"][2]  # training time, measuring left out
    assert curve["seconds"][2] == pytest.approx(trained["result"]["seconds"], abs=0.5)
