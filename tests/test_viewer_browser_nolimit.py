"""Heads-up no-limit hold'em against a blueprint checkpoint in a real browser (issue 25,
"Playing"): from the blueprint's page to a searching bot, an illegal amount typed and refused
by name, a legal one off the tree played, the hand called down by clicking to the showdown; the
page's log, cards, result and running total are the session's, and its chips the rules' payoffs
of the actions replayed (tests/test_viewer_play_nolimit.py). Screenshots go to
``test-output/viewer/`` (see tests/test_viewer_browser.py for the browser's needs)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the viewer extra (fastapi, uvicorn) is not installed")

from pokerlab.solvers.blueprint_load import load_blueprint  # noqa: E402
from pokerlab.viewer import create_app  # noqa: E402
from pokerlab.viewer.models import BlueprintModel  # noqa: E402
from pokerlab.viewer.play_nolimit import NoLimitPlay  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _viewer_data import LiveServer  # noqa: E402
from test_viewer_browser import (  # noqa: E402  the browser fixture and the page helpers
    browser,  # noqa: F401  (a fixture: pytest finds it here)
    css,
    css_all,
    no_error,
    screenshot,
    shown,
    wait,
)
from test_viewer_play_nolimit import nolimit_checkpoint, replay  # noqa: E402, F401


@pytest.fixture(scope="module")
def served(nolimit_checkpoint) -> Path:  # noqa: F811
    """The checkpoint's folder, after one searching hand played in this process (numba compiles
    the search's kernels once, outside the browser's waits)."""
    model = BlueprintModel(nolimit_checkpoint, "bp.npz")
    warm = NoLimitPlay(model, 0, 0, search=True, search_iterations=10)
    while not warm.done:
        warm.act("check" if "check" in warm.legal() else "call")
    return nolimit_checkpoint.parent


def _log(driver) -> list[dict]:
    return driver.execute_script(
        "return [...document.querySelectorAll('#play-log li')].map(li => Object.assign("
        "{text: li.innerText.trim()}, li.dataset))"
    )


def test_play_a_searching_blueprint_by_clicking(browser, served, nolimit_checkpoint) -> None:  # noqa: F811
    rules = load_blueprint(nolimit_checkpoint)[1].rules
    with LiveServer(create_app(served)) as server:
        browser.get(server.url + "/")
        # the file list offers play; the blueprint's page offers both seats, with search
        shown(browser, '#files-table tr[data-path="bp.npz"][data-kind="blueprint"] a.play-link')
        browser.get(server.url + "/#/file?path=bp.npz")
        shown(browser, '#bp-play a[data-seat="0"][data-search="1"]').click()
        wait(browser, lambda d: css(d, "#play-seat").text == "BTN/SB")
        assert "searches the river, 100 iterations" in css(browser, "#play-bot").text
        total, searched, typed = 0.0, [], False
        for hand in range(12):  # until the bot has searched a river (a hand called down)
            shown(browser, "#play-controls")
            while not css_all(browser, "#play-result"):
                assert [c.text for c in css_all(browser, "#bot-cards .card")] == ["?", "?"]
                before = len(css_all(browser, "#play-log li"))
                if not typed:  # the first move: an amount typed in the box
                    assert css(browser, "#play-raise-go").text == "raise to"
                    box = css(browser, "#play-amount")
                    assert box.get_attribute("value") == "200"  # the smallest raise
                    box.clear()
                    box.send_keys("150")
                    css(browser, "#play-raise-go").click()
                    wait(browser, lambda d: "'raise 150'" in css(d, "#error").text)
                    error = css(browser, "#error").text
                    assert "below the smallest legal raise, 200" in error
                    assert "r 200..5,000" in error and len(css_all(browser, "#play-log li")) == 0
                    screenshot(browser, "15-play-nolimit-refused")
                    box = css(browser, "#play-amount")
                    box.clear()
                    box.send_keys("260")
                    css(browser, "#play-raise-go").click()
                    typed = True
                else:
                    buttons = css_all(browser, "#play-actions button[data-action]")
                    words = [b.get_attribute("data-action") for b in buttons]
                    pick = "check" if "check" in words else "call"
                    css(browser, f'#play-actions button[data-action="{pick}"]').click()
                wait(
                    browser,
                    lambda d, n=before: (
                        css_all(d, "#play-result") or len(css_all(d, "#play-log li")) > n
                    ),
                )
            state = browser.execute_script("return playState")
            log = _log(browser)
            assert len(log) == len(state["history"])
            for li, entry in zip(log, state["history"], strict=True):
                words = "dealt " + entry["action"] if entry["who"] == "dealer" else entry["action"]
                assert li["text"].startswith(
                    words if entry["who"] == "dealer" else f"{entry['who']}: {words}"
                )
                if "search" in entry:
                    assert f"({entry['search']['text']})" in li["text"]
                    assert re.search(r"searched 100 iterations in \d+\.\d\d s", li["text"])
                    searched.append(entry)
            if hand == 0:
                assert log[0]["text"] == "you: raise to 260"
            result = css(browser, "#play-result")
            assert float(result.get_attribute("data-result")) == state["result"]
            assert state["result"] == float(replay(rules, state))
            total += state["result"]
            shown_total = css(browser, "#play-total")
            assert float(shown_total.get_attribute("data-chips")) == pytest.approx(total)
            assert shown_total.text.endswith(
                f"({'+' if total >= 0 else '-'}{abs(total) / 100:g} bb)"
            )
            if state["showdown"]:
                bot = [c.text for c in css_all(browser, "#bot-cards .card")]
                assert bot == state["bot_cards"] and len(css_all(browser, "#board .card")) == 5
            chips = f"{abs(state['result']):,.0f}"
            assert (
                result.text.endswith("You broke even.")
                if state["result"] == 0
                else f"You {'won' if state['result'] > 0 else 'lost'} {chips} chips" in result.text
            )
            if searched:
                break
            css(browser, "#play-next").click()
            wait(browser, lambda d: css_all(d, "#play-actions") or css_all(d, "#play-result"))
        assert searched, "the bot never searched a river in 12 hands"
        no_error(browser)
        screenshot(browser, "16-play-nolimit-search")
