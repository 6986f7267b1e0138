"""The viewer's JSON API (issue 11): values equal the Python API's, paths stay inside the folder,
damaged files are errors that do not stop the server, 1,000 concurrent requests on loopback."""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the viewer extra (fastapi, uvicorn) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx (test extra) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

import pokerlab  # noqa: E402
from pokerlab.analysis.pushfold import class_frequencies, shove_call_arrays  # noqa: E402
from pokerlab.cards.deck import COMBO_CLASS, class_name, parse_class  # noqa: E402
from pokerlab.io import read_metadata  # noqa: E402
from pokerlab.viewer import create_app  # noqa: E402
from pokerlab.viewer.files import PathRefused, resolve_inside  # noqa: E402
from pokerlab.viewer.server import is_loopback  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _viewer_data import LiveServer, build_folder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict:
    return build_folder(tmp_path_factory.mktemp("viewer"))


@pytest.fixture(scope="module")
def client(data) -> TestClient:
    return TestClient(create_app(data["served"]), raise_server_exceptions=False)


def close(a: float | None, b: float, tol: float = 1e-6) -> bool:
    return a is not None and math.isclose(a, b, rel_tol=tol, abs_tol=tol)


# --- the file list -------------------------------------------------------------------------------


def test_file_list_has_every_kind_with_its_numbers(client, data) -> None:
    r = client.get("/api/files")
    assert r.status_code == 200
    rows = {f["path"]: f for f in r.json()["files"]}
    assert set(rows) == {
        "bad.npz",
        "broken.jsonl",
        "cmp.json",
        "kuhn.npz",
        "kuhn3.npz",
        "leduc.ckpt.npz",
        "leduc.jsonl",
        "leduc.npz",
        "link_in.npz",
        "pf10.json",
        "pf10.npz",
        "river.npz",
        "spots/small_turn.npz",
        "sweep.json",
        "trunc.npz",
    }  # not: other.json (not pokerlab's), .hidden.npz, link_out.npz and linkdir/ (outside)
    kinds = {p: f["kind"] for p, f in rows.items()}
    assert kinds["leduc.npz"] == "table" and kinds["leduc.ckpt.npz"] == "table"
    assert kinds["pf10.npz"] == "pushfold" and kinds["pf10.json"] == "pushfold-result"
    assert kinds["river.npz"] == "postflop" and kinds["spots/small_turn.npz"] == "postflop"
    assert kinds["leduc.jsonl"] == "log" and kinds["cmp.json"] == "compare"
    assert kinds["sweep.json"] == "pushfold-sweep"
    for bad in ("bad.npz", "trunc.npz", "broken.jsonl"):
        assert kinds[bad] == "error" and rows[bad]["error"], bad
    assert "line 2" in rows["broken.jsonl"]["error"]
    meta = read_metadata(data["served"] / "leduc.npz")
    leduc = rows["leduc.npz"]
    assert (leduc["game"], leduc["algorithm"], leduc["iterations"]) == ("leduc", "dcfr", 200)
    assert leduc["exploitability"] == meta["exploitability"]
    expl = pokerlab.exploitability(pokerlab.load_game("leduc"), data["leduc"])
    assert close(leduc["exploitability"], expl)
    assert rows["pf10.npz"]["exploitability"] == data["pushfold"].exploitability_bb
    assert rows["pf10.npz"]["unit"] == "bb/hand"
    river = rows["river.npz"]
    assert (river["game"], river["algorithm"], river["iterations"]) == ("postflop", "dcfr-ps", 60)
    log_lines = [json.loads(x) for x in (data["served"] / "leduc.jsonl").read_text().splitlines()]
    assert rows["leduc.jsonl"]["exploitability"] == log_lines[-1]["exploitability"]
    finals = [c.exploitability[-1] for c in data["curves"]]
    assert close(rows["cmp.json"]["exploitability"], min(finals))


def test_info_measures_what_the_file_lacks(client, data) -> None:
    ckpt = client.get("/api/info", params={"path": "leduc.ckpt.npz"}).json()
    expl = pokerlab.exploitability(pokerlab.load_game("leduc"), data["leduc"])
    assert ckpt["format"] == "pokerlab-checkpoint" and close(ckpt["exploitability"], expl)
    river = client.get("/api/info", params={"path": "river.npz"}).json()
    assert close(river["exploitability"], data["river"].exploitability(), 1e-5)
    v = data["river"].values()
    assert close(river["ev"][0], v["ev"][0], 1e-5) and close(river["ev"][1], v["ev"][1], 1e-5)
    assert river["board"] == ["Td", "9d", "6h", "Qc", "7s"] and river["pot"] == 200
    three = client.get("/api/info", params={"path": "kuhn3.npz"}).json()
    assert three["players"] == 3 and three["exploitability"] is None
    # the file list shows what was measured for a spot whose file has no exploitability
    rows = {f["path"]: f for f in client.get("/api/files").json()["files"]}
    assert rows["river.npz"]["measured"] is True
    assert rows["river.npz"]["exploitability"] == river["exploitability"]
    assert "measured" not in rows["leduc.npz"]


# --- paths ---------------------------------------------------------------------------------------


def traversal_paths(data) -> list[str]:
    outside = data["outside"] / "secret.npz"
    return [
        "../outside/secret.npz",
        "spots/../../outside/secret.npz",
        str(outside),
        "/etc/passwd",
        "%2e%2e/outside/secret.npz",
        "%2E%2E%2Foutside%2Fsecret.npz",
        "%252e%252e/outside/secret.npz",
        "..%2foutside%2fsecret.npz",
        "..\\outside\\secret.npz",
        "link_out.npz",
        "linkdir/secret.npz",
        "kuhn.npz\x00.json",
        "~/secret.npz",
    ]


@pytest.mark.parametrize(
    "route,extra",
    [
        ("/api/info", {}),
        ("/api/table", {}),
        ("/api/node", {"line": ""}),
        ("/api/pushfold", {}),
        ("/api/curve", {}),
    ],
)
def test_paths_outside_the_folder_are_refused(client, data, route, extra) -> None:
    for path in traversal_paths(data):
        r = client.get(route, params={"path": path, **extra})
        assert r.status_code == 403, (path, r.status_code, r.text)
        assert "secret" not in r.json()["error"] or "refused" in r.json()["error"]
        assert "algorithm" not in r.text


def test_encoded_traversal_in_the_raw_url_is_refused(client) -> None:
    for raw in (
        "/api/info?path=%2e%2e%2foutside%2fsecret.npz",
        "/api/info?path=%252e%252e%252foutside%252fsecret.npz",
        "/api/info?path=..%2Foutside/secret.npz",
        "/api/info?path=%2Fetc%2Fpasswd",
    ):
        r = client.get(raw)
        assert r.status_code == 403, raw
    for raw in ("/static/..%2F..%2Fetc%2Fpasswd", "/static/%2e%2e/app.py", "/static/../app.py"):
        r = client.get(raw)
        assert r.status_code == 404, raw
        assert "root:" not in r.text and "def " not in r.text
    assert client.post("/api/play", json={"path": "../outside/secret.npz"}).status_code == 403
    assert client.post("/api/lock", json={"path": "/etc/passwd", "strategy": {}}).status_code == 403


def test_resolve_inside_unit(data) -> None:
    served = data["served"]
    assert resolve_inside(served, "link_in.npz") == (served / "kuhn.npz").resolve()
    assert resolve_inside(served, "./spots/small_turn.npz").name == "small_turn.npz"
    for path in traversal_paths(data):
        with pytest.raises(PathRefused):
            resolve_inside(served, path)
    r = TestClient(create_app(served)).get("/api/info", params={"path": "nothere.npz"})
    assert r.status_code == 404


# --- damaged files -------------------------------------------------------------------------------


def test_damaged_files_are_errors_and_the_server_keeps_running(client, data, tmp_path) -> None:
    for path in ("bad.npz", "trunc.npz", "broken.jsonl"):
        r = client.get("/api/info", params={"path": path})
        assert r.status_code == 400 and r.json()["error"], path
        assert client.get("/api/files").status_code == 200
    r = client.get("/api/info", params={"path": "other.json"})
    assert r.status_code == 400 and "not a file pokerlab wrote" in r.json()["error"]
    # a file damaged after it was listed and loaded: the new version is read and refused
    served = tmp_path / "d"
    served.mkdir()
    (served / "k.npz").write_bytes((data["served"] / "kuhn.npz").read_bytes())
    c = TestClient(create_app(served), raise_server_exceptions=False)
    assert c.get("/api/info", params={"path": "k.npz"}).status_code == 200
    raw = bytearray((served / "k.npz").read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    (served / "k.npz").write_bytes(bytes(raw))
    os.utime(served / "k.npz", ns=(time.time_ns() + 10**9,) * 2)
    r = c.get("/api/info", params={"path": "k.npz"})
    assert r.status_code == 400 and "k.npz" in r.json()["error"]
    assert c.get("/api/files").json()["files"][0]["kind"] == "error"
    assert c.get("/").status_code == 200


def test_wrong_kind_and_bad_input_are_400(client) -> None:
    assert client.get("/api/node", params={"path": "leduc.npz"}).status_code == 400
    assert client.get("/api/table", params={"path": "river.npz"}).status_code == 400
    r = client.get("/api/node", params={"path": "river.npz", "line": "check, bogus"})
    assert r.status_code == 400 and "bogus" in r.json()["error"]
    r = client.get("/api/combos", params={"path": "river.npz", "player": 0, "hand": "AKx"})
    assert r.status_code == 400
    r = client.get("/api/pushfold/cell", params={"path": "pf10.npz", "seat": "co", "hand": "AA"})
    assert r.status_code == 400
    assert client.get("/api/play/nope").status_code == 404
    assert client.post("/api/play", json={"path": "cmp.json"}).status_code == 400
    assert client.post("/api/play", json={"path": "kuhn3.npz"}).status_code == 400


# --- values equal the Python API's ---------------------------------------------------------------


def test_table_rows_equal_the_strategy(client, data) -> None:
    r = client.get("/api/table", params={"path": "leduc.npz", "q": "Ks:", "mode": "prefix"})
    body = r.json()
    strategy = data["leduc"]
    keys = [k for k in strategy.keys() if k.startswith("Ks:")]
    assert body["total"] == len(keys) == 6
    for row in body["rows"]:
        probs = strategy[row["key"]]
        assert {a["label"]: a["p"] for a in row["actions"]} == pytest.approx(probs, abs=1e-6)
    all_rows = client.get("/api/table", params={"path": "leduc.npz", "limit": 5000}).json()
    assert all_rows["total"] == len(strategy) == 936
    contains = client.get(
        "/api/table", params={"path": "leduc.npz", "q": "|Ks", "mode": "contains"}
    )
    assert contains.json()["total"] == sum("|Ks" in k for k in strategy.keys())


def test_pushfold_grids_and_cells_equal_the_api(client, data) -> None:
    body = client.get("/api/pushfold", params={"path": "pf10.npz"}).json()
    pf = data["pushfold"]
    sb, bb = shove_call_arrays(pf.strategy)
    assert body["sb_shove"] == pytest.approx(class_frequencies(sb[0]).tolist(), abs=1e-6)
    assert body["bb_call"] == pytest.approx(class_frequencies(bb[0]).tolist(), abs=1e-6)
    assert body["sb_fraction"] == pytest.approx(pf.sb_shove_fraction, abs=1e-9)
    same = client.get("/api/pushfold", params={"path": "pf10.json"}).json()
    assert same["sb_shove"] == pytest.approx(body["sb_shove"], abs=1e-9)
    # EV of a combo, independently through the game's history interface (exact equities)
    game = pf.strategy.game
    cell = client.get(
        "/api/pushfold/cell", params={"path": "pf10.npz", "seat": "sb", "hand": "K2o"}
    )
    first = cell.json()["combos"][0]
    from pokerlab.cards.deck import COMBO_INDEX, parse_card

    a, b = (parse_card(first["combo"][:2]), parse_card(first["combo"][2:]))
    i = int(COMBO_INDEX[a, b])
    h = game.initial_history().child(i)
    total = n = 0.0
    for j, _ in h.chance_outcomes():
        hj = h.child(j).child(1)  # SB shoves
        q = bb[0][j]
        total += (1 - q) * hj.child(0).terminal_utility(0) + q * hj.child(1).terminal_utility(0)
        n += 1
    assert first["ev"]["shove"] == pytest.approx(total / n, abs=1e-6)
    assert first["ev"]["fold"] == -0.5
    assert first["strategy"]["shove"] == pytest.approx(sb[0][i], abs=1e-6)
    sweep = client.get("/api/sweep", params={"path": "sweep.json"}).json()
    assert sweep["sb_shove_max_bb"][parse_class("AA")] == 12.0
    assert sweep["sb_shove_max_bb"] == [
        data["sweep"]["sb_shove_max_bb"][class_name(c)] for c in range(169)
    ]


def node_view(data, line):
    return data["river"].average_strategy().node(line)


@pytest.mark.parametrize("line", ["", "check", "check, bet 66", "bet 66, raise 265"])
def test_postflop_node_equals_the_api(client, data, line) -> None:
    body = client.get("/api/node", params={"path": "river.npz", "line": line}).json()
    v = node_view(data, line)
    assert body["kind"] == v.kind == "decision" and body["player"] == v.player
    totals = v.action_totals()
    assert [a["label"] for a in body["actions"]] == v.actions
    for a in body["actions"]:
        assert a["freq"] == pytest.approx(totals[a["label"]], abs=1e-6)
    g = v.grid()
    assert body["grid"]["weight"] == pytest.approx(g["weight"].ravel().tolist(), abs=1e-6)
    assert np.allclose(np.array(body["grid"]["mix"]), g["mix"].reshape(169, -1), atol=1e-6)
    for p in (0, 1):
        ev, eq = v.range_value(p)
        assert body["ranges"][p]["range_ev"] == pytest.approx(ev, abs=1e-5)
        assert body["ranges"][p]["range_equity"] == pytest.approx(eq, abs=1e-5)
        weight = np.bincount(COMBO_CLASS[v.combos[p]], weights=v.reach[p], minlength=169)
        assert body["ranges"][p]["weight"] == pytest.approx(weight.tolist(), abs=1e-6)
    assert body["pot"] == v.pot and body["board"] == ["Td", "9d", "6h", "Qc", "7s"]
    # the combos of a class in the actor's range
    cls = int(np.flatnonzero(g["weight"].ravel() > 0)[0])
    hand = class_name(cls)
    combos = client.get(
        "/api/combos", params={"path": "river.npz", "line": line, "player": v.player, "hand": hand}
    ).json()
    rows = np.flatnonzero(COMBO_CLASS[v.combos[v.player]] == cls)
    assert len(combos["combos"]) == len(rows)
    for row, k in zip(combos["combos"], rows, strict=True):
        assert row["ev"] == pytest.approx(v.ev[v.player][k], abs=1e-5)
        assert row["equity"] == pytest.approx(v.equity[v.player][k], abs=1e-6)
        for a, label in enumerate(v.actions):
            assert row["strategy"][label] == pytest.approx(v.strategy[k, a], abs=1e-6)


def test_chance_nodes_list_cards_and_read_isomorphic_ones(client, data) -> None:
    body = client.get(
        "/api/node", params={"path": "spots/small_turn.npz", "line": "check, check"}
    ).json()
    assert body["kind"] == "chance" and body["chance"]["street"] == "river"
    assert len(body["chance"]["cards"]) == 48 and "Td" not in body["chance"]["cards"]
    solved = data["turn"].average_strategy()
    for card in ("2c", "2s", "Ah", "As"):  # 2s and As are read through a suit swap
        line = f"check, check, {card}"
        node = client.get("/api/node", params={"path": "spots/small_turn.npz", "line": line})
        assert node.status_code == 200, node.text
        body = node.json()
        v = solved.node(line)
        assert body["board"][-1] == card and body["scale"] == 44
        totals = v.action_totals()
        for a in body["actions"]:
            assert a["freq"] == pytest.approx(totals[a["label"]], abs=1e-6)


def test_curves_equal_the_files(client, data) -> None:
    log = client.get("/api/curve", params={"path": "leduc.jsonl"}).json()
    lines = [json.loads(x) for x in (data["served"] / "leduc.jsonl").read_text().splitlines()]
    assert log["source"] == "log" and len(log["curves"]) == 1
    assert log["curves"][0]["iterations"] == [x["iteration"] for x in lines]
    assert log["curves"][0]["exploitability"] == [x["exploitability"] for x in lines]
    cmp = client.get("/api/curve", params={"path": "cmp.json"}).json()
    assert [c["algorithm"] for c in cmp["curves"]] == ["cfr", "cfr+"]
    for got, want in zip(cmp["curves"], data["curves"], strict=True):
        assert got["nodes_touched"] == want.nodes_touched
        assert got["exploitability"] == pytest.approx(want.exploitability)


# --- play ----------------------------------------------------------------------------------------


def play_out(client, path: str, seat: int, seed: int, pick=0) -> dict:
    s = client.post("/api/play", json={"path": path, "seat": seat, "seed": seed}).json()
    assert "error" not in s, s
    for _ in range(50):
        if s["done"]:
            return s
        assert s["legal"], s
        action = s["legal"][pick if pick >= 0 else len(s["legal"]) + pick]
        s = client.post(f"/api/play/{s['id']}/act", json={"action": action}).json()
    raise AssertionError("the hand did not end")


def test_play_pushfold_both_seats(client) -> None:
    results = []
    for seat in (0, 1):
        for seed in range(12):
            s = play_out(client, "pf10.npz", seat, seed, pick=-1)  # shove / call when asked
            assert s["hands"] == 1 and s["total"] == s["result"]
            assert s["result"] in (-10.0, 10.0, 0.0, 0.5, -0.5, 1.0, -1.0)
            if s["showdown"]:
                assert len(s["board"]) == 5 and len(s["bot_cards"]) == 2
            results.append(s["result"])
    # the same seed and actions replay the same hand
    assert (
        play_out(client, "pf10.npz", 0, 3)["your_cards"]
        == play_out(client, "pf10.npz", 0, 3)["your_cards"]
    )
    s = client.post("/api/play", json={"path": "pf10.npz", "seat": 0, "seed": 1}).json()
    bad = client.post(f"/api/play/{s['id']}/act", json={"action": "call"})
    assert bad.status_code == 400 and "not an action" in bad.json()["error"]
    total = 0.0
    for _ in range(5):
        s = client.post(f"/api/play/{s['id']}/next").json()
        while not s["done"]:
            s = client.post(f"/api/play/{s['id']}/act", json={"action": s["legal"][0]}).json()
        total += s["result"]
    assert s["hands"] == 5 and s["total"] == pytest.approx(total)


@pytest.mark.parametrize("path", ["leduc.npz", "kuhn.npz", "leduc.ckpt.npz"])
def test_play_small_games(client, path) -> None:
    for seat in (0, 1):
        for seed in range(6):
            s = play_out(client, path, seat, seed, pick=seed % 2)
            assert s["done"] and s["result"] is not None
            assert abs(s["result"]) <= 13
            if s["showdown"]:
                assert (
                    s["bot_cards"] and s["bot_cards"][0] != s["your_cards"][0] or path != "kuhn.npz"
                )


@pytest.mark.parametrize("path", ["river.npz", "spots/small_turn.npz"])
def test_play_postflop_both_seats(client, data, path) -> None:
    for seat in (0, 1):
        for seed in range(4):
            s = play_out(client, path, seat, seed, pick=seed % 2)
            assert s["done"] and len(s["board"]) == (5 if s["showdown"] else len(s["board"]))
            assert len(s["board"]) >= 4
            pot0 = 200.0 if path == "river.npz" else 100.0
            # zero-sum convention: collected - put in - half the starting pot
            assert -pot0 / 2 - 900 <= s["result"] <= pot0 / 2 + 900
            if s["showdown"]:
                assert len(s["bot_cards"]) == 2
                assert not set(s["bot_cards"]) & set(s["your_cards"] + s["board"])


# --- node locking --------------------------------------------------------------------------------


def finished_job(client: TestClient, url: str, body: dict, seconds: float = 120.0) -> dict:
    """POST a re-solve (202 and a job), poll the job until it ends; the job."""
    r = client.post(url, json=body)
    assert r.status_code == 202, r.text
    job = r.json()
    deadline = time.monotonic() + seconds
    while job["state"] in ("queued", "running"):
        assert time.monotonic() < deadline, job
        time.sleep(0.02)
        job = client.get(f"/api/jobs/{job['id']}").json()
    return job


def test_lock_and_resolve_equals_the_solver(client, data) -> None:
    if not hasattr(data["river"], "lock"):
        pytest.skip("this pokerlab has no node locking")
    from pokerlab.solvers.postflop import load_spot_solution

    body = {
        "path": "river.npz",
        "line": "check",
        "strategy": {"check": 0.25, "bet 66": 0.75},
        "hands": "QQ, JJ",
        "iterations": 30,
    }
    job = finished_job(client, "/api/lock", body)
    assert job["state"] == "done" and job["done"] == job["total"] == 30, job
    out = job["result"]
    direct = load_spot_solution(data["served"] / "river.npz")
    before = direct.values()
    direct.lock("check", {"check": 0.25, "bet 66": 0.75}, "QQ, JJ")
    direct.step(30)
    after = direct.values()
    assert out["before"]["ev"] == pytest.approx(list(before["ev"]), abs=1e-4)
    assert out["after"]["ev"] == pytest.approx(list(after["ev"]), abs=1e-4)
    assert out["after"]["exploitability"] == pytest.approx(direct.exploitability(), abs=1e-4)
    assert out["total_iterations"] == 90 and len(out["locks"]) == 1
    combos = client.get(
        "/api/combos", params={"path": "river.npz", "line": "check", "player": 1, "hand": "QQ"}
    ).json()["combos"]
    assert combos and all(c["strategy"]["bet 66"] == pytest.approx(0.75, abs=1e-6) for c in combos)
    jj = client.get(
        "/api/combos", params={"path": "river.npz", "line": "check", "player": 1, "hand": "JJ"}
    ).json()["combos"]
    assert jj and all(c["strategy"]["check"] == pytest.approx(0.25, abs=1e-6) for c in jj)
    info = client.get("/api/info", params={"path": "river.npz"}).json()
    assert info["modified"] and info["locks"][0]["line"] == "check"
    job = finished_job(
        client, "/api/unlock", {"path": "river.npz", "line": "check", "iterations": 0}
    )
    assert job["state"] == "done" and job["result"]["locks"] == []
    bad = client.post("/api/unlock", json={"path": "river.npz", "line": "check"})
    assert bad.status_code == 400 and "nothing is locked" in bad.json()["error"]
    assert client.post("/api/reset", json={"path": "river.npz"}).json()["reset"]
    info = client.get("/api/info", params={"path": "river.npz"}).json()
    assert info["iterations"] == 60 and not info["modified"]
    bad = client.post("/api/lock", json={**body, "iterations": 10**9})
    assert bad.status_code == 400
    bad = client.post("/api/lock", json={**body, "line": "check, check"})
    assert bad.status_code == 400  # a terminal (showdown) node


# --- the page and the server ---------------------------------------------------------------------


def test_page_and_static_files_work_offline(client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "pokerlab viewer" in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    for name in ("app.js", "style.css"):
        r = client.get(f"/static/{name}")
        assert r.status_code == 200 and len(r.text) > 1000
        external = re.findall(r"https?://[^\s\"')]+", r.text)
        assert all(u.startswith("http://www.w3.org/") for u in external), external
    assert not re.findall(r"(src|href)=\"(https?:)?//", page.text)
    assert client.get("/static/nothere.js").status_code == 404


def test_unknown_host_header_is_refused(data) -> None:
    c = TestClient(create_app(data["served"], allowed_hosts=["127.0.0.1", "localhost"]))
    assert c.get("/api/files", headers={"host": "127.0.0.1:8000"}).status_code == 200
    assert c.get("/api/files", headers={"host": "evil.example:8000"}).status_code == 400


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert is_loopback("127.3.4.5") and not is_loopback("0.0.0.0")
    assert not is_loopback("192.168.1.2") and not is_loopback("example.com")


class CliServer:
    """``pokerlab serve DIR --port 0`` as a separate process; ``url`` is the line it printed."""

    def __init__(self, folder: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pokerlab.cli.main", "serve", str(folder), "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(self.proc.stdout.readline()))
        reader.daemon = True
        reader.start()
        reader.join(timeout=120)
        self.url = lines[0].strip() if lines else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def cli_server(data):
    server = CliServer(data["served"])
    yield server
    server.stop()


def test_serve_command_prints_its_url_on_one_line(cli_server) -> None:
    url = cli_server.url
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", url), url
    page = httpx.get(url, timeout=60)
    assert page.status_code == 200 and "pokerlab viewer" in page.text
    files = httpx.get(url + "api/files", timeout=60).json()["files"]
    assert any(f["path"] == "river.npz" for f in files)
    assert httpx.get(url + "api/files", headers={"host": "evil.example"}).status_code == 400


def test_thousand_concurrent_requests_on_loopback(cli_server) -> None:
    base = cli_server.url.rstrip("/")
    assert base.startswith("http://127.0.0.1:")  # loopback only
    httpx.get(base + "/api/node", params={"path": "river.npz", "line": "check"}, timeout=120)
    urls = [
        "/api/files",
        "/api/info?path=leduc.npz",
        "/api/node?path=river.npz&line=check",
        "/api/table?path=kuhn.npz",
        "/",
    ]

    async def run() -> list[int]:
        # ten clients of 100 connections: all 1,000 requests are in flight at once (one client
        # queueing 1,000 requests on its own pool spends its time in the pool, not the server)
        clients = [
            httpx.AsyncClient(base_url=base, limits=httpx.Limits(max_connections=100), timeout=240)
            for _ in range(10)
        ]
        try:
            tasks = [clients[k % 10].get(urls[k % len(urls)]) for k in range(1000)]
            return [r.status_code for r in await asyncio.gather(*tasks)]
        finally:
            for c in clients:
                await c.aclose()

    codes = asyncio.run(asyncio.wait_for(run(), timeout=300))
    assert len(codes) == 1000 and set(codes) == {200}
    assert httpx.get(base + "/api/files", timeout=60).status_code == 200


def test_a_large_spot_loads_without_blocking_other_requests(data, tmp_path) -> None:
    from pokerlab.solvers.postflop import PostflopSolver, save_spot_solution

    served = tmp_path / "big"
    served.mkdir()
    turn = PostflopSolver(pokerlab.load_game("postflop", spot="turn"))
    turn.step(1)
    save_spot_solution(served / "turn.npz", turn)
    (served / "kuhn.npz").write_bytes((data["served"] / "kuhn.npz").read_bytes())
    with LiveServer(create_app(served)) as live:

        async def run() -> tuple[float, list[float]]:
            async with httpx.AsyncClient(base_url=live.url, timeout=120) as c:
                start = time.monotonic()
                big = asyncio.create_task(c.get("/api/node", params={"path": "turn.npz"}))
                small: list[float] = []
                while not big.done() and len(small) < 200:
                    t = time.monotonic()
                    r = await c.get("/api/info", params={"path": "kuhn.npz"})
                    assert r.status_code == 200
                    small.append(time.monotonic() - t)
                response = await big
                assert response.status_code == 200
                return time.monotonic() - start, small

        big_seconds, small = asyncio.run(asyncio.wait_for(run(), timeout=300))
        assert small, "no request was answered while the spot loaded"
        assert len(small) >= 2 or big_seconds < 1.0
        assert min(small) < big_seconds


def test_serve_refuses_a_missing_folder_and_a_busy_port(tmp_path, capsys) -> None:
    from pokerlab.cli.main import main

    assert main(["serve", str(tmp_path / "nope")]) == 2
    assert "not a folder" in capsys.readouterr().err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        assert main(["serve", str(tmp_path), "--port", str(port)]) == 2
        assert "cannot listen" in capsys.readouterr().err


def test_serve_stops_cleanly_on_ctrl_c(cli_server) -> None:
    """Last in the file: interrupts the server the tests above used."""
    assert cli_server.proc.poll() is None
    cli_server.proc.send_signal(signal.SIGINT)
    code = cli_server.proc.wait(timeout=60)
    err = cli_server.proc.stderr.read()
    assert code in (0, 130), err
    assert "Traceback" not in err
