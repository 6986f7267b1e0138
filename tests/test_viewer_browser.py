"""The viewer in a real browser (issue 11): headless Chromium driven by Selenium.

The page is opened from the file list and clicked through like a user would: down a postflop line
(the numbers on the page checked against the solution file loaded with the Python API), a turn
card from the card picker, a push/fold hand, a Leduc hand and a postflop hand played to the end, a
Leduc information-set table, convergence charts, node locking. Screenshots go to
``test-output/viewer/`` (git-ignored) for a person to look at.

Needs Debian's ``chromium`` and ``chromium-driver`` (or any Chromium and matching chromedriver on
PATH; ``POKERLAB_CHROMIUM`` and ``POKERLAB_CHROMEDRIVER`` name other binaries) and ``selenium``.
Skipped when they are absent, except under CI (the ``CI`` environment variable set), where a
missing browser is a failure: ``.ci/run`` installs them.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the viewer extra (fastapi, uvicorn) is not installed")

import pokerlab  # noqa: E402
from pokerlab.cards.deck import COMBO_CLASS, class_name, format_combo, parse_class  # noqa: E402
from pokerlab.io import read_metadata  # noqa: E402
from pokerlab.solvers.postflop import load_spot_solution  # noqa: E402
from pokerlab.viewer import create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _viewer_data import LiveServer, build_folder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-output" / "viewer"
TIMEOUT_S = 20


def _missing(reason: str) -> None:
    """Skip, or fail under CI (where the browser must be there)."""
    if os.environ.get("CI"):
        pytest.fail(f"CI is set but {reason}: .ci/run should install chromium and chromium-driver")
    pytest.skip(reason)


def _browser_binaries() -> tuple[str, str]:
    chromium = os.environ.get("POKERLAB_CHROMIUM") or next(
        (p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None
    )
    driver = os.environ.get("POKERLAB_CHROMEDRIVER") or shutil.which("chromedriver")
    if not (chromium and driver and os.path.isfile(chromium) and os.path.isfile(driver)):
        _missing("chromium or chromedriver is not installed (Debian: chromium, chromium-driver)")
    return str(chromium), str(driver)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict:
    d = build_folder(tmp_path_factory.mktemp("viewer-browser"))
    # a copy for node locking, so that the locks do not change what the other tests read
    shutil.copy(d["served"] / "river.npz", d["served"] / "river_lock.npz")
    return d


@pytest.fixture(scope="module")
def server(data):
    with LiveServer(create_app(data["served"])) as live:
        yield live


@pytest.fixture(scope="module")
def browser():
    chromium, driver_path = _browser_binaries()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed (test extra)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1400,1000",
        "--lang=en-US",
        "--no-first-run",
        "--disable-extensions",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(TIMEOUT_S)
    SHOTS.mkdir(parents=True, exist_ok=True)
    yield driver
    driver.quit()


# --- helpers -------------------------------------------------------------------------------------


def wait(driver, condition, message: str = ""):
    """Wait for ``condition(driver)`` to be truthy (elements replaced meanwhile are retried); on
    a timeout, save the page as ``timeout.png`` and say what the page's error box says."""
    from selenium.common.exceptions import (
        NoSuchElementException,
        StaleElementReferenceException,
        TimeoutException,
    )
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(
            driver,
            TIMEOUT_S,
            poll_frequency=0.05,
            ignored_exceptions=(NoSuchElementException, StaleElementReferenceException),
        ).until(condition, message)
    except TimeoutException:
        driver.save_screenshot(str(SHOTS / "timeout.png"))
        box = driver.execute_script("return document.querySelector('#error').textContent")
        raise AssertionError(
            f"{message or 'timed out'} (page error: {box!r}; screenshot {SHOTS / 'timeout.png'})"
        ) from None


def css(driver, selector: str):
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, selector)


def css_all(driver, selector: str):
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, selector)


def shown(driver, selector: str):
    """Wait until ``selector`` is on the page; return it."""
    return wait(driver, lambda d: css(d, selector), f"{selector} never appeared")


def no_error(driver) -> None:
    box = css(driver, "#error")
    assert not box.is_displayed(), box.text


def screenshot(driver, name: str) -> None:
    """Save the whole page, beyond the window, as ``name.png`` (Chrome DevTools' full-page
    capture)."""
    import base64

    size = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 6000), "scale": 1}
    shot = driver.execute_cdp_cmd(
        "Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip}
    )
    (SHOTS / f"{name}.png").write_bytes(base64.b64decode(shot["data"]))


def number(text: str) -> float:
    """The number in a cell's text (``"62.7%"``, ``"-1.25"``, ``"1,234"``)."""
    m = re.search(r"-?[\d,]*\.?\d+(e-?\d+)?", text)
    assert m, f"no number in {text!r}"
    return float(m.group(0).replace(",", ""))


def near(text: str, value: float, digits: int, scale: float = 1.0) -> bool:
    """``text`` shows ``value * scale`` rounded to ``digits`` (half a unit of the last digit, so a
    value rounded once on the server and once on the page still counts)."""
    return abs(number(text) - value * scale) <= 0.5 * 10.0**-digits + 1e-9


def open_from_file_list(driver, server, path: str) -> None:
    driver.get(server.url + "/")
    shown(driver, f'#files-table tr[data-path="{path}"] a.open').click()
    shown(driver, "#file-info")


def table(driver, rows: str, cells: str = "td") -> list[dict[str, str]]:
    """Per element matching ``rows``: its ``data-*`` attributes and, under ``"cells"``, the
    rendered text of its ``cells`` (one round trip to the browser, not one per cell)."""
    return driver.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(r => Object.assign("
        "{cells: [...r.querySelectorAll(arguments[1])].map(c => c.innerText.trim())}, r.dataset))",
        rows,
        cells,
    )


def at_line(driver, tokens: list[str]) -> bool:
    """The breadcrumbs show ``tokens`` (the last one current) and the node below is drawn."""
    crumbs, current, drawn = driver.execute_script(
        "const q = (s) => [...document.querySelectorAll(s)].map(a => a.innerText.trim());"
        "return [q('#breadcrumbs a'), q('#breadcrumbs a.current'), q('#ranges').length];"
    )
    return crumbs == ["root", *tokens] and current == [(tokens or ["root"])[-1]] and drawn == 1


def go_down(driver, tokens: list[str], label: str) -> list[str]:
    """Click the action (or card) ``label`` at the node of ``tokens``; wait for the child."""
    if css_all(driver, "#card-picker"):
        css(driver, f'#card-picker button[data-card="{label}"]').click()
    else:
        css(driver, f'#actions .action[data-label="{label}"]').click()
    child = [*tokens, label]
    wait(driver, lambda d: at_line(d, child), f"the page never reached {child}")
    no_error(driver)
    return child


def check_node_against_api(driver, view) -> None:
    """Actions, their frequencies and every grid cell of the page equal ``view`` (a NodeView)."""
    totals = view.action_totals()
    actions = table(driver, "#actions .action", ".freq")
    assert [a["label"] for a in actions] == list(view.actions)
    for a in actions:
        assert float(a["freq"]) == pytest.approx(totals[a["label"]], abs=1e-6)
        assert near(a["cells"][0], totals[a["label"]], 1, 100)
    # the page's cells hold the raw reach (the API's grid) and show it times the node's
    # "scale" as combos (see test_card_picker_deals_the_river_of_a_turn_spot)
    g = view.grid(scaled=False)
    weight, mix = g["weight"].ravel(), g["mix"].reshape(169, -1)
    got = driver.execute_script(
        "return [...document.querySelectorAll('#grid .cell')].map("
        "c => [c.dataset.hand, Number(c.dataset.weight), JSON.parse(c.dataset.mix), c.title])"
    )
    assert len(got) == 169
    for hand, w, m, title in got:
        cls = parse_class(hand)
        assert w == pytest.approx(weight[cls], abs=1e-6), hand
        if weight[cls] > 0:
            assert m == pytest.approx(mix[cls].tolist(), abs=1e-6), hand
            # the tooltip: "AKs (3.00 combos): check 62.7%, bet 66 37.3%"
            for k, label in enumerate(view.actions):
                shown_pct = re.search(re.escape(label) + r" ([\d.]+)%", title)
                assert shown_pct and near(shown_pct.group(1), mix[cls, k], 1, 100), (hand, title)
        else:
            assert "not in range" in title


def check_combos_against_api(driver, view, hand: str, player: int | None = None) -> None:
    """Click ``hand`` in the actor's grid (or in ``player``'s range grid); its combos table equals
    ``view``: the actor's strategy, each combo's EV and equity."""
    if player is None or player == view.player:
        player = view.player
        css(driver, f'#grid .cell[data-hand="{hand}"]').click()
    else:
        css(driver, f'#range-{player} .cell[data-hand="{hand}"]').click()
    rows_api = np.flatnonzero(COMBO_CLASS[view.combos[player]] == parse_class(hand))
    title = f"{['OOP', 'IP'][player]} {hand}"
    wait(driver, lambda d: css(d, "#cell-detail h3").text == title, f"no combos of {hand}")
    # columns: combo, weight, one per action, EV, equity, EQR
    rows = table(driver, "#combos-table tbody tr")
    assert len(rows) == len(rows_api)
    n = len(view.actions) if player == view.player else 0
    for row, k in zip(rows, rows_api, strict=True):
        assert row["combo"] == format_combo(int(view.combos[player][k]))
        for a, text in enumerate(row["cells"][2 : 2 + n]):
            assert near(text, view.strategy[k, a], 1, 100), (hand, view.actions[a], text)
        assert near(row["cells"][2 + n], view.ev[player][k], 2)
        assert near(row["cells"][3 + n], view.equity[player][k], 1, 100)


# --- the tests -----------------------------------------------------------------------------------


def test_file_list_shows_every_file_with_its_numbers(browser, server, data) -> None:
    browser.get(server.url + "/")
    shown(browser, "#files-table")
    assert browser.title == "pokerlab viewer"
    rows = {r.get_attribute("data-path"): r for r in css_all(browser, "#files-table tbody tr")}
    assert {"river.npz", "spots/small_turn.npz", "leduc.npz", "pf10.npz", "leduc.jsonl"} <= set(
        rows
    )
    cells = [td.text for td in css_all(rows["leduc.npz"], "td")]
    meta = read_metadata(data["served"] / "leduc.npz")
    assert cells[1:5] == ["strategy table", "leduc", "dcfr", "200"]
    assert number(cells[5]) == pytest.approx(meta["exploitability"], rel=1e-3)
    assert cells[1] == "strategy table" and "chips" in cells[5]
    assert css_all(rows["river.npz"], "td")[1].text == "postflop spot"
    # a damaged file is a row with its error, not a broken page
    assert "error-row" in rows["bad.npz"].get_attribute("class")
    assert "not a readable pokerlab file" in rows["bad.npz"].text
    no_error(browser)
    screenshot(browser, "01-file-list")


def test_a_damaged_file_shows_its_error_and_the_server_keeps_running(browser, server) -> None:
    browser.get(server.url + "/#/file?path=trunc.npz")
    shown(browser, "#load-failed")
    error = css(browser, "#error")
    assert error.is_displayed() and "trunc.npz" in error.text and "damaged" in error.text
    screenshot(browser, "01-damaged-file")
    css(browser, "#load-failed a").click()
    shown(browser, "#files-table")
    no_error(browser)


def test_click_down_a_postflop_line_matches_the_solution_file(browser, server, data) -> None:
    solved = load_spot_solution(data["served"] / "river.npz").average_strategy()
    open_from_file_list(browser, server, "river.npz")
    wait(browser, lambda d: at_line(d, []))
    assert css(browser, "#node-status").text == "OOP to act"
    check_node_against_api(browser, solved.node(""))
    # hovering over a hand (nothing pinned by a click) shows its combos
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(browser).move_to_element(css(browser, '#grid .cell[data-hand="AA"]')).perform()
    wait(browser, lambda d: css(d, "#cell-detail h3").text == "OOP AA", "hover showed nothing")
    assert len(table(browser, "#combos-table tbody tr")) == 6
    screenshot(browser, "02-river-root")
    line = go_down(browser, [], "check")
    assert css(browser, "#node-status").text == "IP to act"
    check_node_against_api(browser, solved.node(line))
    line = go_down(browser, line, "bet 66")
    view = solved.node(line)
    check_node_against_api(browser, view)
    assert number(css(browser, "#node-pot").text) == view.pot
    hand = next(
        h
        for h in ("AQs", "KQs", "QJs", "QTs", "T9s")
        if view.grid()["weight"].ravel()[parse_class(h)] > 0
    )
    check_combos_against_api(browser, view, hand)
    # both ranges at the node: combos, EV and equity of each player's whole range
    heads = [row["cells"][0] for row in table(browser, "#ranges .panel", "h3")]
    for p, head in enumerate(heads):
        ev, eq = view.range_value(p)
        m = re.search(r"([\d.]+) combos, EV (-?[\d.]+), equity ([\d.]+)%", head)
        assert m, head
        assert near(m.group(1), float(view.reach[p].sum()), 1)
        assert near(m.group(2), ev, 2) and near(m.group(3), eq, 1, 100)
    screenshot(browser, "03-river-check-bet66-combos")
    # a click on the other player's range grid shows that player's combos (EV and equity)
    ip_weight = np.bincount(COMBO_CLASS[view.combos[1]], weights=view.reach[1], minlength=169)
    check_combos_against_api(browser, view, class_name(int(np.argmax(ip_weight))), player=1)
    # breadcrumbs lead back up
    css(browser, '#breadcrumbs a[data-depth="1"]').click()
    wait(browser, lambda d: at_line(d, ["check"]))
    css(browser, '#breadcrumbs a[data-depth="0"]').click()
    wait(browser, lambda d: at_line(d, []))
    no_error(browser)


def test_card_picker_deals_the_river_of_a_turn_spot(browser, server, data) -> None:
    solved = load_spot_solution(data["served"] / "spots" / "small_turn.npz").average_strategy()
    open_from_file_list(browser, server, "spots/small_turn.npz")
    wait(browser, lambda d: at_line(d, []))
    line = go_down(browser, [], "check")
    line = go_down(browser, line, "check")
    picker = shown(browser, "#card-picker")
    assert css(browser, "#node-status").text == "deal the river"
    disabled = {b.get_attribute("data-card") for b in css_all(picker, "button:disabled")}
    assert disabled == {"Td", "9d", "6h", "Qc"}
    assert len(css_all(picker, "button")) == 52
    screenshot(browser, "04-turn-card-picker")
    line = go_down(browser, line, "2c")
    assert [c.text for c in css_all(browser, "#node-summary .card")] == [
        "Td",
        "9d",
        "6h",
        "Qc",
        "2c",
    ]
    check_node_against_api(browser, solved.node(line))
    screenshot(browser, "05-turn-river-2c")


def test_pushfold_charts_and_a_hand_s_combos(browser, server, data) -> None:
    pf = data["pushfold"]
    open_from_file_list(browser, server, "pf10.npz")
    shown(browser, "#grid-sb .cell")
    assert near(css(browser, "#sb-fraction").text, pf.sb_shove_fraction, 1, 100)
    assert near(css(browser, "#bb-fraction").text, pf.bb_call_fraction, 1, 100)
    css(browser, '#grid-bb .cell[data-hand="A5o"]').click()
    wait(browser, lambda d: css(d, "#cell-detail h3").text == "BB A5o at 10 bb")
    assert len(table(browser, "#combos-table tbody tr")) == 12
    no_error(browser)
    screenshot(browser, "06-pushfold-chart")
    # a sweep: the largest stack (bb) each hand shoves or calls, up to the largest one solved
    open_from_file_list(browser, server, "sweep.json")
    shown(browser, "#main .grid .cell")
    labels = table(browser, "#main .grid .cell", ".val")
    assert len(labels) == 2 * 169 and labels[0]["hand"] == "AA" and labels[0]["cells"] == ["12+"]
    no_error(browser)
    screenshot(browser, "06-pushfold-sweep")


def test_play_a_pushfold_hand_to_the_end(browser, server) -> None:
    browser.get(server.url + "/")
    shown(browser, '#files-table tr[data-path="pf10.npz"] a.play-link').click()
    total = 0.0
    showdown_seen = False
    for hand in range(40):  # the SB always shoves: the BB calls about 37% of hands
        shown(browser, "#play-controls")
        if not css_all(browser, "#play-result"):
            legal = [
                b.get_attribute("data-action") for b in css_all(browser, "#play-actions button")
            ]
            assert legal == ["fold", "shove"]
            assert [c.text for c in css_all(browser, "#bot-cards .card")] == ["?", "?"]
            css(browser, '#play-actions button[data-action="shove"]').click()
        result = shown(browser, "#play-result")
        total += float(result.get_attribute("data-result"))
        assert re.fullmatch(r".+\. You (won|lost) [\d.]+ bb\.|.+ You broke even\.", result.text)
        assert near(css(browser, "#play-total").text, total, 2)
        assert int(css(browser, "#play-hands").text) == hand + 1
        bot = [c.text for c in css_all(browser, "#bot-cards .card")]
        if result.get_attribute("data-showdown") == "1":
            showdown_seen = True
            assert all(re.fullmatch(r"[2-9TJQKA][shdc]", c) for c in bot), bot
            assert set(bot).isdisjoint(c.text for c in css_all(browser, "#your-cards .card"))
            assert len(css_all(browser, "#board .card")) == 5
            screenshot(browser, "07-pushfold-showdown")
            break
        css(browser, "#play-next").click()
        shown(browser, "#play-actions")
    assert showdown_seen
    no_error(browser)
    # the other seat: the big blind answers the bot's move (or sees its fold)
    css(browser, "#switch-seat").click()
    wait(browser, lambda d: css(d, "#play-seat").text == "BB")
    if css_all(browser, "#play-actions"):
        css(browser, '#play-actions button[data-action="call"]').click()
    shown(browser, "#play-result")
    no_error(browser)


@pytest.mark.parametrize(
    ("path", "seat"),
    [("leduc.npz", 1), ("kuhn.npz", 0), ("river.npz", 1), ("spots/small_turn.npz", 0)],
)
def test_play_leduc_and_postflop_hands_to_the_end(browser, server, path, seat) -> None:
    browser.get(server.url + f"/#/play?path={path}&seat={seat}&seed=5")
    for _ in range(30):
        wait(browser, lambda d: css_all(d, "#play-result") or css_all(d, "#play-actions button"))
        if css_all(browser, "#play-result"):
            break
        before = len(css_all(browser, "#play-log li"))
        buttons = css_all(browser, "#play-actions button")
        # call or check when possible, so that hands reach the later streets
        pick = next(
            (b for b in buttons if b.get_attribute("data-action") in ("c", "call", "check")),
            buttons[-1],
        )
        pick.click()
        wait(
            browser,
            lambda d, n=before: css_all(d, "#play-result") or len(css_all(d, "#play-log li")) > n,
        )
    result = shown(browser, "#play-result")
    assert re.search(r"You (won|lost) [\d.]+ chips|You broke even", result.text), result.text
    assert near(css(browser, "#play-total").text, float(result.get_attribute("data-result")), 2)
    no_error(browser)
    screenshot(browser, f"08-play-{Path(path).stem}-seat{seat}")


def test_leduc_information_set_table(browser, server, data) -> None:
    strategy = pokerlab.load_strategy(data["served"] / "leduc.npz")
    open_from_file_list(browser, server, "leduc.npz")
    shown(browser, "#infoset-table")
    field = css(browser, "#table-filter")
    field.send_keys("Ks:")
    wait(
        browser,
        lambda d: all(
            r.get_attribute("data-key").startswith("Ks:")
            for r in css_all(d, "#infoset-table tbody tr")
        ),
    )
    rows = css_all(browser, "#infoset-table tbody tr")
    keys = [k for k in strategy.keys() if k.startswith("Ks:")]
    assert sorted(r.get_attribute("data-key") for r in rows) == sorted(keys)
    for r in rows:
        probs = strategy[r.get_attribute("data-key")]
        for span in css_all(r, "span.prob"):
            label = span.get_attribute("data-label")
            assert float(span.get_attribute("data-p")) == pytest.approx(probs[label], abs=1e-6)
            assert near(span.text.split()[-1], probs[label], 1, 100)
    no_error(browser)
    screenshot(browser, "09-leduc-table")


def test_convergence_charts(browser, server, data) -> None:
    import json

    open_from_file_list(browser, server, "leduc.jsonl")
    shown(browser, "#curves svg")
    lines = [json.loads(x) for x in (data["served"] / "leduc.jsonl").read_text().splitlines()]
    assert len(css_all(browser, "#curves svg path.curve")) == 2  # against iterations and seconds
    final = css(browser, "#curve-table td.final").text
    assert number(final) == pytest.approx(lines[-1]["exploitability"], rel=1e-3)
    screenshot(browser, "10-log-curve")
    open_from_file_list(browser, server, "cmp.json")
    shown(browser, "#curves svg")
    names = [p.get_attribute("data-name") for p in css_all(browser, "#curves svg path.curve")]
    assert names == ["cfr", "cfr+", "cfr", "cfr+"]
    finals = [number(td.text) for td in css_all(browser, "#curve-table td.final")]
    want = [c.exploitability[-1] for c in data["curves"]]
    assert finals == pytest.approx(want, rel=1e-3)
    no_error(browser)
    screenshot(browser, "11-compare-curves")


def test_node_locking_shows_the_ev_before_and_after(browser, server, data) -> None:
    solved = load_spot_solution(data["served"] / "river_lock.npz").average_strategy()
    root = solved.node("")
    open_from_file_list(browser, server, "river_lock.npz")
    wait(browser, lambda d: at_line(d, []))
    panel = shown(browser, "#lock-panel")
    css(browser, '#grid .cell[data-hand="AA"]').click()  # fills the hands and their mix in
    assert css(panel, "#lock-hands").get_attribute("value") == "AA"
    for field in css_all(panel, "input.freq[data-action]"):
        field.clear()
        field.send_keys("1" if field.get_attribute("data-action") == "allin 900" else "0")
    iterations = css(panel, "#lock-iterations")
    iterations.clear()
    iterations.send_keys("20")
    css(panel, "#lock-go").click()
    table = shown(browser, "#lock-table")
    before = css(table, 'tr[data-when="before"]')
    after = css(table, 'tr[data-when="after"]')
    ev = [root.range_value(p)[0] for p in (0, 1)]
    assert near(css(before, "td.ev0").text, ev[0], 3) and near(css(before, "td.ev1").text, ev[1], 3)
    assert css(after, "td.ev0").text != css(before, "td.ev0").text
    no_error(browser)
    screenshot(browser, "12-node-locking")
    css(browser, "#lock-show").click()
    locked = shown(browser, "#lock-panel p.locked")
    assert "AA" in locked.text and "allin 900 100.0%" in locked.text
    mix = browser.execute_script(
        "return JSON.parse(document.querySelector('#grid .cell[data-hand=\"AA\"]').dataset.mix)"
    )
    assert mix[-1] == pytest.approx(1.0, abs=1e-6)
    css(browser, "#reset-go").click()
    wait(browser, lambda d: not css_all(d, "#lock-panel p.locked") and at_line(d, []))
    no_error(browser)


def test_page_loads_nothing_from_elsewhere_and_logs_no_errors(browser, server) -> None:
    browser.get(server.url + "/")
    shown(browser, "#files-table")
    urls = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert urls and all(u.startswith(server.url + "/") for u in urls), urls
    # every page the tests opened logged no error, but the damaged file's answer (a 400)
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not [e for e in severe if "path=trunc.npz" not in e["message"]], severe
