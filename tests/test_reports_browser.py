"""The report page in a real browser (headless Chromium, Selenium): the report opened from the
list, sorted by a column, filtered by texture (table, overall row and bars follow), and a board
clicked: solved on demand and opened in the spot browser. Skipped without Chromium, its driver
or selenium (as ``tests/test_viewer_browser.py``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the viewer extra (fastapi, uvicorn) is not installed")

from pokerlab.cli.main import main  # noqa: E402
from pokerlab.viewer import create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from _report_data import TEMPLATE  # noqa: E402
from _viewer_data import LiveServer  # noqa: E402
from test_viewer_browser import SHOTS, browser, wait  # noqa: E402,F401


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("reports-browser")
    (root / "tiny.toml").write_text(TEMPLATE)
    (root / "flops.txt").write_text("KsKh5d\n9s8s7h\nAsQh2d\n")
    code = main(
        ["report", str(root / "tiny.toml"), "--flops", str(root / "flops.txt"), "--target", "1%"]
        + ["--out", str(root / "r")]
    )
    assert code == 0
    with LiveServer(create_app(root)) as live:
        yield live


def _boards(driver) -> list[str]:
    rows = driver.find_elements("css selector", "#report-table tr[data-board]")
    return [r.get_attribute("data-board") for r in rows]


def test_report_page_sorts_filters_and_opens_a_board(server, browser) -> None:  # noqa: F811
    driver = browser
    driver.get(server.url + "/")
    wait(driver, lambda d: d.find_element("id", "reports-link")).click()
    link = wait(driver, lambda d: d.find_element("css selector", "#reports a"))
    assert link.text == "r/report.json"
    link.click()
    wait(driver, lambda d: len(_boards(d)) == 3, "the report's rows")
    assert _boards(driver) == ["KsKh5d", "9s8s7h", "AsQh2d"]
    assert len(driver.find_elements("css selector", "#bars .bar")) == 3
    overall = driver.find_element("css selector", "#report-table tr.overall td").text
    assert overall == "overall (3)"
    # sort by weight (numbers: largest first), then again (smallest first)
    driver.find_element("css selector", "th[data-col='weight']").click()
    assert _boards(driver) == ["AsQh2d", "KsKh5d", "9s8s7h"]  # 24, 12, 12 (stable)
    driver.find_element("css selector", "th[data-col='weight']").click()
    assert _boards(driver)[-1] == "AsQh2d"
    # filter by texture: two-tone flops only
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("css selector", "select[data-filter='suits']")).select_by_value(
        "two-tone"
    )
    assert _boards(driver) == ["9s8s7h"]
    assert len(driver.find_elements("css selector", "#bars .bar")) == 1
    cells = driver.find_elements("css selector", "#report-table tr.overall td")
    assert cells[0].text == "overall (1)" and cells[1].text == "12"
    driver.save_screenshot(str(SHOTS / "report.png"))
    # a board clicked: solved now, then shown in the spot browser
    driver.find_element("css selector", "#report-table tr[data-board='9s8s7h'] a.board").click()
    wait(driver, lambda d: "#/file?path=" in d.current_url, "the spot browser")
    assert "r%2Fsolutions%2F9s8s7h.npz" in driver.current_url
