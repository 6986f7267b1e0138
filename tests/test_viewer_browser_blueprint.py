"""A no-limit blueprint checkpoint in a real browser (issue 24): the chart of the seat to act at
the root, the numbers behind each cell equal to ``/api/blueprint``'s (themselves compared with
``pokerlab blueprint show`` in tests/test_viewer_blueprint.py), an action clicked to the next
seat's chart, a bad line typed and refused by name, and a flop node's bucket table. Screenshots
go to ``test-output/viewer/`` (see tests/test_viewer_browser.py for the browser's needs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the viewer extra (fastapi, uvicorn) is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from pokerlab.viewer import create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _viewer_data import LiveServer  # noqa: E402
from test_viewer_browser import (  # noqa: E402  the browser fixture and the page helpers
    browser,  # noqa: F401  (a fixture: pytest finds it here)
    css,
    no_error,
    screenshot,
    shown,
    table,
    wait,
)


@pytest.fixture(scope="module")
def served(tiny_blueprint) -> Path:
    return tiny_blueprint.parent


def test_blueprint_chart_line_box_and_flop_buckets(browser, served) -> None:  # noqa: F811
    api = TestClient(create_app(served))

    def node(line: str) -> dict:
        return api.get("/api/blueprint", params={"path": "bp.npz", "line": line}).json()

    with LiveServer(create_app(served)) as server:
        browser.get(server.url + "/")
        shown(browser, '#files-table tr[data-path="bp.npz"][data-kind="blueprint"] a.open').click()
        wait(browser, lambda d: css(d, "#bp-position").text == "BTN/SB (seat 0)")
        root = node("")
        rows = table(browser, "#bp-actions .action", "span")
        assert [r["label"] for r in rows] == root["actions"]
        assert [r["cells"][0] for r in rows] == root["words"]
        for r, total in zip(rows, root["totals"], strict=True):
            assert r["cells"][-1] == f"{100 * total:.1f}%"
        cells = {c["hand"]: c for c in table(browser, "#bp-grid .cell")}
        assert set(cells) == set(root["classes"]) == {"AA", "AKs", "AKo", "KK"}  # 2 ranks
        for hand, probs in root["classes"].items():
            assert json.loads(cells[hand]["mix"]) == probs  # the API's floats, drawn
        freq = {c["hand"]: c for c in table(browser, "#bp-freq-2 .cell", ".val")}
        assert freq["AKo"]["cells"] == [f"{100 * root['classes']['AKo'][2]:.0f}%"]
        no_error(browser)
        screenshot(browser, "13-blueprint-root")
        # a click on "call 50" goes to the big blind's chart after the limp
        css(browser, '#bp-actions .action[data-label="c"]').click()
        wait(browser, lambda d: css(d, "#bp-position").text == "BB (seat 1)")
        assert css(browser, "#bp-line").get_attribute("value") == "c"
        limp = node("c")
        cells = {c["hand"]: c for c in table(browser, "#bp-grid .cell")}
        assert json.loads(cells["AA"]["mix"]) == limp["classes"]["AA"]
        # a bad token typed in the line box: the error names it, the page keeps running
        box = css(browser, "#bp-line")
        box.clear()
        box.send_keys("r300 zz")
        css(browser, "#bp-go").click()
        wait(browser, lambda d: "unknown token 'zz'" in css(d, "#error").text)
        shown(browser, "#bp-bad")
        # a flop node: the buckets, not hand classes, as blueprint show lists them
        box = css(browser, "#bp-line")
        box.clear()
        box.send_keys("c, c")
        css(browser, "#bp-go").click()
        wait(browser, lambda d: css(d, "#bp-street").text == "flop")
        flop = node("c, c")
        rows = table(browser, "#bp-states tbody tr")
        assert [r["state"] for r in rows] == list(flop["states"])
        want = [f"{100 * p:.1f}%" for p in flop["states"][rows[1]["state"]]]
        assert rows[1]["cells"][1:] == want
        no_error(browser)
        screenshot(browser, "14-blueprint-flop")
