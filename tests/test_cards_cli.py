"""``pokerlab equity`` and ``pokerlab range`` end to end through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerlab.cards.equity import hand_vs_hand
from pokerlab.cli.main import main


def test_equity_json_exact(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["equity", "AsKs", "QdQc", "--board", "Td9d6h", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    expected = hand_vs_hand("AsKs", "QdQc", "Td9d6h")
    assert out["exact"] is True and out["std_error"] == 0
    assert out["equity"] == pytest.approx(expected.equity)
    assert out["win"] + out["tie"] + out["lose"] == pytest.approx(1.0)
    assert {"equity", "win", "tie", "lose", "exact", "std_error", "seconds"} <= set(out)


def test_equity_monte_carlo_seeded(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["equity", "AsKs", "QQ", "--samples", "20000", "--seed", "3", "--json"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    second = json.loads(capsys.readouterr().out)
    assert first["exact"] is False and first["std_error"] > 0 and first["samples"] == 20000
    assert first["equity"] == second["equity"]


def test_equity_table_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["equity", "AsKs", "QdQc", "-b", "Td9d6h", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "22.6768%" in out and "exact" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["equity", "AsKs", "QQx"], "'QQx'"),
        (["equity", "AsKs", "QQ", "--board", "Td9"], "'9'"),
        (["equity", "AsKs", "AsQd"], "no pair of hands"),
        (["equity", "AsKs", "QQ", "--exact", "--samples", "10"], "exclude"),
        (["range", "QQ+, AKx"], "'AKx' at position 5"),
    ],
)
def test_bad_input_exits_2_with_one_line(
    args: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert needle in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_range_grid_json_and_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "grid.png"
    assert main(["range", "QQ+, AKs, AhKd:0.5", "--png", str(png), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["combos"] == pytest.approx(18 + 4 + 0.5)
    assert out["grid"][0][0] == 1.0 and out["grid"][0][1] == 1.0
    assert out["grid"][1][0] == pytest.approx(0.5 / 12)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(tmp_path.glob("*.tmp"))
    assert main(["range", "QQ+"]) == 0
    text = capsys.readouterr().out
    assert "18 combos" in text and "QQ" in text


def test_range_given_twice_warns_on_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    # the first item wins (postflop-solver's rule) and the CLI says which combos and weights
    assert main(["range", "AA, AhAd:0.25", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["combos"] == 6.0
    (line,) = captured.err.splitlines()
    assert line.startswith("warning: range 'AA, AhAd:0.25' gives 1 combo twice")
    assert "AhAd (kept from 'AA', not 'AhAd:0.25')" in line
    assert main(["range", "AhAd:0.25, AA", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["combos"] == 5.25
    assert "AhAd (kept from 'AhAd:0.25', not 'AA')" in captured.err
