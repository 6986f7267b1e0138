"""``pokerlab postflop``: solve a spot, show a node, the pictures, bad input and Ctrl-C.

Every command line runs through the real entry point (:func:`pokerlab.cli.main.main`) with the
typer and click versions ``pip install`` resolves; numbers printed are compared with the Python
API's on the same spot.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console
from rich.text import Text

import pokerlab
from pokerlab.cards.deck import class_name
from pokerlab.cli.main import main
from pokerlab.cli.render_postflop import (
    ONE_LINE_CONSOLE,
    ActionGrid,
    cell_figure,
    cell_segments,
)
from pokerlab.io.files import read_metadata
from pokerlab.plots.actions import action_styles
from pokerlab.solvers.postflop import PostflopSolver, load_spot_solution

OOP = "66+,A8s+,K9s+,Q9s+,J9s+,T8s+,97s+,86s+,75s+,64s+,A9o+,KTo+,QTo+,JTo"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
RIVER_FLAGS = [
    "--board", "Td9d6hQc7s", "--oop-range", OOP, "--ip-range", IP, "--pot", "200",
    "--stack", "900", "--bets", "66c, 150c, 300c, a", "--raises", "60%",
]  # fmt: skip
EVERY_HAND = "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"


def run(capsys, args: list[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _river_solver(iterations: int) -> PostflopSolver:
    solver = PostflopSolver(pokerlab.load_game("postflop", spot="river"), "dcfr-ps")
    solver.step(iterations)
    return solver


@pytest.fixture(scope="module")
def river_solution(tmp_path_factory) -> Path:
    """A river solve of 60 iterations saved by the CLI."""
    path = tmp_path_factory.mktemp("solution") / "river.npz"
    code = main(["postflop", "river", "-n", "60", "--json", "--out", str(path)])
    assert code == 0
    return path


# --- solve: JSON ----------------------------------------------------------------------------


def test_json_has_the_documented_fields_and_the_python_api_values(capsys) -> None:
    code, out, err = run(capsys, ["postflop", "river", "-n", "50", "--json"])
    assert code == 0, err
    got = json.loads(out)
    solver = _river_solver(50)
    ev = solver.values()["ev"]
    root = solver.average_strategy().node("")
    assert got["iterations"] == 50 and got["status"] == "completed" and not got["partial"]
    assert 0 < got["seconds"] < got["wall_seconds"]
    # solving and the exploitability measured at the end, timed apart
    assert got["solve_seconds"] == got["seconds"] and got["check_seconds"] > 0
    assert got["solve_seconds"] + got["check_seconds"] < got["wall_seconds"]
    # the solving loop's check (float32 best responses), within float32's rounding of float64
    assert got["exploitability"] == pytest.approx(solver.check_exploitability(), abs=1e-9)
    assert got["exploitability"] == pytest.approx(solver.exploitability(), rel=1e-5)
    assert got["exploitability_pct"] == pytest.approx(got["exploitability"] / 2, abs=1e-12)
    assert got["ev"] == {"oop": pytest.approx(ev[0], abs=1e-9), "ip": pytest.approx(ev[1])}
    assert got["ev"]["oop"] + got["ev"]["ip"] == pytest.approx(200.0, abs=1e-6)
    assert got["equity"]["oop"] == pytest.approx(root.range_value(0)[1], abs=1e-12)
    assert got["equity"]["ip"] == pytest.approx(root.range_value(1)[1], abs=1e-12)
    assert got["equity"]["oop"] + got["equity"]["ip"] == pytest.approx(1.0, abs=0.05)
    assert got["root"]["player"] == "oop"
    assert list(got["root"]["actions"]) == [
        "check", "bet 66", "bet 150", "bet 300", "allin 900"
    ]  # fmt: skip
    for action, frequency in root.action_totals().items():
        assert got["root"]["actions"][action] == pytest.approx(frequency, abs=1e-12)
    assert got["nodes"] == {"decision": 22, "chance": 0, "terminal": 41}
    assert got["memory_bytes"] == solver.tree.memory_bytes(4) == 114_080
    assert got["algorithm"] == "dcfr-ps" and got["spot"] == "river"
    assert got["game_params"]["board"] == "Td9d6hQc7s"
    assert err == ""  # no progress bar when stderr is not a terminal, no summary with --json


def test_default_and_explicit_targets_in_percent_of_the_pot(capsys) -> None:
    code, out, _ = run(capsys, ["postflop", "river", "--json"])
    assert code == 0
    default = json.loads(out)
    assert default["target_pct"] == 0.5 and default["exploitability_pct"] <= 0.5
    assert default["stop_reason"] == "target exploitability 1 reached"  # 0.5% of 200 chips
    for target in ("0.3%", "0.3", " 0.3 %"):
        code, out, _ = run(capsys, ["postflop", "river", "--target", target, "--json"])
        assert code == 0
        got = json.loads(out)
        assert got["target_pct"] == 0.3
        assert got["exploitability_pct"] <= 0.3 < default["exploitability_pct"]
        assert got["iterations"] % 10 == 0  # measured every 10 iterations (--check-every)


def test_flags_build_the_same_spot_as_the_builtin_river(capsys) -> None:
    code, out, _ = run(capsys, ["postflop", *RIVER_FLAGS, "-n", "20", "--json"])
    assert code == 0
    by_flags = json.loads(out)
    code, out, _ = run(capsys, ["postflop", "solve", "river", "-n", "20", "--json"])
    assert code == 0
    builtin = json.loads(out)
    assert by_flags["spot"] == "spot" and by_flags["game_params"] == builtin["game_params"]
    assert by_flags["ev"] == builtin["ev"]
    assert by_flags["exploitability"] == builtin["exploitability"]


def test_algorithms_and_threads_pass_through(capsys) -> None:
    code, out, _ = run(capsys, ["postflop", "river", "-a", "cfr+", "-n", "30", "--json"])
    assert code == 0
    got = json.loads(out)
    solver = PostflopSolver(pokerlab.load_game("postflop", spot="river"), "cfr+")
    solver.step(30)
    assert got["algorithm"] == "cfr+"
    assert got["ev"]["oop"] == pytest.approx(solver.values()["ev"][0], abs=1e-9)
    code, out, _ = run(capsys, ["postflop", "river", "--threads", "2", "-n", "30", "--json"])
    assert code == 0 and json.loads(out)["threads"] >= 1


def test_target_not_reached_exits_3_with_results(capsys) -> None:
    code, out, err = run(capsys, ["postflop", "river", "-n", "10", "-t", "0.01%", "--json"])
    assert code == 3
    got = json.loads(out)
    assert got["status"] == "target not reached" and got["partial"] is True
    assert got["iterations"] == 10
    assert err.startswith("warning: target 0.01% of the pot not reached")


def test_seconds_limit(capsys) -> None:
    code, out, _ = run(capsys, ["postflop", "river", "--seconds", "0.05", "--json"])
    assert code == 0
    got = json.loads(out)
    assert got["stop_reason"] == "0.05 seconds" and got["iterations"] >= 10


# --- solve: text ----------------------------------------------------------------------------


def _cells(text: str) -> dict[str, str]:
    """Hand class -> figure, read from a piped grid (two lines per row: names, figures)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["AA", "AKs"])
    cells: dict[str, str] = {}
    for row in range(13):
        names = lines[start + 2 * row].split()
        figures = lines[start + 2 * row + 1].split()
        assert len(names) == len(figures) == 13, lines[start + 2 * row : start + 2 * row + 2]
        cells.update(zip(names, figures, strict=True))
    return cells


def test_text_output_prints_summary_grid_and_values_of_the_api(capsys) -> None:
    code, out, err = run(capsys, ["postflop", "river", "-n", "50"])
    assert code == 0, err
    assert "\x1b[" not in out  # no colour codes when not a terminal
    lines = out.splitlines()
    assert lines[0] == (
        "river: river spot, board Td9d6hQc7s, pot 200, stack 900 (SPR 4.5); "
        "OOP 220 combos, IP 240 combos"
    )
    assert lines[1].split() == ["nodes", "river", "dealt", "(at", "most)"]
    assert lines[2].split() == ["decision", "22", "22"]
    assert lines[4].split() == ["terminal", "41", "41"]
    assert lines[5].startswith("memory: up to 116.2 KiB of solver arrays")
    assert "OOP to act at the root (Td9d6hQc7s, pot 200)" in out
    root = _river_solver(50).average_strategy().node("")
    styles = action_styles(root.actions)
    grid = root.grid()
    cells = _cells(out)
    for c in range(169):
        r, k = divmod(c, 13)
        expected = cell_figure(grid["mix"][r, k], styles) if grid["weight"][r, k] > 0 else "·"
        assert cells[class_name(c)] == expected, class_name(c)
    assert cells["A7s"] == "·" and cells["A8s"] != "·"  # A8s+ is OOP's range
    totals = root.action_totals()
    legend = next(line for line in lines if line.lstrip().startswith("X  check"))
    assert f"check {100 * totals['check']:.1f}%" in legend
    assert f"bet 66 {100 * totals['bet 66']:.1f}%" in legend
    ev0, eq0 = root.range_value(0)
    oop_row = next(line for line in lines if line.startswith("OOP (acts)")).split()
    assert oop_row[2:] == [
        "220.0", f"{ev0:.2f}", f"{100 * ev0 / 200:.1f}%", f"{100 * eq0:.1f}%",
        f"{ev0 / (eq0 * 200):.2f}",
    ]  # fmt: skip
    assert lines[-1].startswith("river dcfr-ps: 50 iterations in ")


def test_piped_console_script_has_no_colour_and_no_progress_bar() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pokerlab.cli.main", "postflop", "river", "-n", "20"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "\x1b" not in proc.stdout
    assert "OOP to act at the root" in proc.stdout
    # a wide console: each cell on one line ("AA X57    AKs X84 ...")
    row = next(line for line in proc.stdout.splitlines() if line.startswith("AA "))
    assert len(row.split()) == 26


def test_terminal_grid_is_coloured_by_action_and_fits_the_console() -> None:
    view = _river_solver(50).average_strategy().node("")
    grid = view.grid()
    renderable = ActionGrid(grid["weight"], grid["mix"], action_styles(view.actions))
    for width, rows in ((80, 26), (ONE_LINE_CONSOLE, 13)):
        con = Console(width=width, force_terminal=True, color_system="truecolor")
        with con.capture() as capture:
            con.print(renderable)
        text = capture.get()
        assert "\x1b[" in text and "48;2;63;163;77" in text  # check's green as a background
        lines = Text.from_ansi(text).plain.splitlines()
        assert len(lines) == rows
        assert max(len(line) for line in lines) <= width


def test_cell_segments_share_the_width_by_frequency() -> None:
    assert cell_segments([0.5, 0.5], 5) in ([3, 2], [2, 3])
    assert sum(cell_segments([0.2, 0.3, 0.5], 7)) == 7
    assert cell_segments([1.0, 0.0, 0.0], 5) == [5, 0, 0]
    assert cell_segments([0.0, 0.0], 5) == [0, 0]
    styles = action_styles(["check", "bet 66", "allin 900"])
    assert cell_figure([0.62, 0.38, 0.0], styles) == "X62"
    assert cell_figure([0.0, 0.999, 0.001], styles) == "B"
    assert cell_figure([0.0, 0.004, 0.996], styles) == "A"


@pytest.mark.parametrize(
    ("actions", "codes"),
    [
        (["check", "bet 100", "allin 900"], "XBA"),
        (["check", "bet 66", "bet 150", "bet 300", "allin 900"], "XSMLA"),
        (["fold", "call", "raise 265"], "FCR"),
        (["fold", "call", "raise 450", "raise 265", "allin 900"], "FCLSA"),
        (["check", "bet 1", "bet 2", "bet 3", "bet 4"], "XSMLH"),
        (["check", *[f"bet {n}" for n in range(10, 70, 10)]], "X123456"),
    ],
)
def test_action_codes_are_one_character_and_unique_per_node(actions: list[str], codes: str) -> None:
    styles = action_styles(actions)
    assert "".join(s.code for s in styles) == codes
    colours = [s.colour for s in styles]
    sized = [s.colour for s in styles if s.code not in "FXCA"]
    assert len(set(sized)) == len(sized)  # sizes of one node never share a colour
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in colours)


def test_action_text_colours_have_the_better_contrast() -> None:
    from pokerlab.plots import actions
    from pokerlab.plots.grids import text_color_for

    pairs = [actions.FOLD_COLOUR, actions.PASSIVE_COLOUR, actions.ALLIN_COLOUR]
    many = action_styles(["check", *[f"bet {n}" for n in range(10, 100, 10)]])
    blended = [(s.colour, s.text) for s in many[1:]]
    assert len({c for c, _ in blended}) == 9
    for colour, text in [*pairs, *actions.SIZED_COLOURS, *blended]:
        rgb = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        assert text_color_for(rgb) == text == actions.text_colour(colour), colour


# --- show -----------------------------------------------------------------------------------


def test_show_json_grid_equals_the_api(capsys, river_solution) -> None:
    code, out, err = run(
        capsys, ["postflop", "show", str(river_solution), "--line", "check, bet 66", "--json"]
    )
    assert code == 0, err
    got = json.loads(out)
    view = load_spot_solution(river_solution).average_strategy().node("check, bet 66")
    assert got["kind"] == "decision" and got["player"] == "oop"
    assert got["line"] == ["check", "bet 66"] and got["pot"] == 266.0  # bet included
    assert got["actions"] == pytest.approx(view.action_totals(), abs=1e-12)
    assert list(got["actions"]) == ["fold", "call", "raise 265"]
    grid = view.grid()
    assert len(got["grid"]) == int(np.count_nonzero(grid["weight"]))
    for c in range(169):
        r, k = divmod(c, 13)
        name = class_name(c)
        if grid["weight"][r, k] == 0:
            assert name not in got["grid"]
            continue
        assert got["grid"][name]["combos"] == pytest.approx(grid["weight"][r, k], abs=1e-9)
        mix = [got["grid"][name]["actions"][a] for a in view.actions]
        np.testing.assert_allclose(mix, grid["mix"][r, k], atol=1e-12)
    for p, key in enumerate(("oop", "ip")):
        ev, equity = view.range_value(p)
        assert got["ev"][key] == pytest.approx(ev, abs=1e-9)
        assert got["equity"][key] == pytest.approx(equity, abs=1e-12)
    assert got["iterations"] == 60


def test_show_text_grid_equals_the_api(capsys, river_solution) -> None:
    code, out, err = run(capsys, ["postflop", "show", str(river_solution), "-l", "check, bet 66"])
    assert code == 0, err
    assert out.startswith("OOP to act after check, bet 66 (Td9d6hQc7s, pot 266)\n")
    view = load_spot_solution(river_solution).average_strategy().node("check, bet 66")
    grid = view.grid()
    styles = action_styles(view.actions)
    cells = _cells(out)
    for c in range(169):
        r, k = divmod(c, 13)
        expected = cell_figure(grid["mix"][r, k], styles) if grid["weight"][r, k] > 0 else "·"
        assert cells[class_name(c)] == expected
    totals = view.action_totals()
    assert f"F  fold {100 * totals['fold']:.1f}%" in out
    assert "C  call" in out and "R  raise 265" in out
    assert f"{river_solution}: dcfr-ps 60 iterations, exploitability" in out


def test_show_at_terminal_and_chance_nodes(capsys, river_solution) -> None:
    code, out, _ = run(capsys, ["postflop", "show", str(river_solution), "-l", "check, check"])
    assert code == 0
    assert out.startswith("after check, check (Td9d6hQc7s, pot 200): showdown: the hand is over")
    assert "OOP " in out and "IP " in out


def test_show_png_is_written(capsys, river_solution, tmp_path) -> None:
    png = tmp_path / "pics" / "node.png"
    code, out, err = run(
        capsys, ["postflop", "show", str(river_solution), "-l", "bet 150", "--png", str(png)]
    )
    assert code == 2 and out == "" and not png.parent.exists()  # no folder made silently
    assert f"--png '{png}': folder '{png.parent}' does not exist (create it first)" in err
    png.parent.mkdir()
    code, out, err = run(
        capsys, ["postflop", "show", str(river_solution), "-l", "bet 150", "--png", str(png)]
    )
    assert code == 0, err
    assert f"wrote {png}" in out
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert 800 < width < 1400 and 900 < height < 1500


def test_png_figure_has_every_action_in_its_legend(river_solution) -> None:
    from pokerlab.plots.common import plt
    from pokerlab.plots.postflop import node_grid_figure

    view = load_spot_solution(river_solution).average_strategy().node("bet 150")
    fig = node_grid_figure(view, title="IP facing a bet of 150")
    try:
        texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        totals = view.action_totals()
        assert texts[:-1] == [
            f"{s.code}  {s.label}: {100 * totals[s.label]:.1f}%"
            for s in action_styles(view.actions)
        ]
        assert texts[-1] == "not in range"
        labels = {t.get_text() for t in fig.axes[0].texts}
        assert {"AA", "72o", "KK"} <= labels
        assert fig.axes[0].get_title() == "IP facing a bet of 150"
    finally:
        plt.close(fig)


# --- nodes after a dealt card -----------------------------------------------------------------

TINY_FLOP_FLAGS = [
    "--board", "Td9d6h", "--oop-range", "AA,KK,QQ,AKs,T9s", "--ip-range", "JJ,TT,AQs,87s",
    "--pot", "100", "--stack", "100", "--bets", "a", "--raises", "a",
]  # fmt: skip
TURN = "check, check, Qs"
RIVER = "check, check, Qs, check, check, 2c"
RIVER_SWAPPED = "check, check, Qc, check, check, 2s"  # clubs and spades swap on this board


@pytest.fixture(scope="module")
def flop_solution(tmp_path_factory) -> Path:
    """A small flop spot (all-in or check on every street) solved for 20 iterations."""
    folder = tmp_path_factory.mktemp("flop")
    path = folder / "flop.npz"
    assert main(["postflop", *TINY_FLOP_FLAGS, "-n", "20", "--json", "--out", str(path)]) == 0
    return path


def _weights_after_the_card(solved, before: str, card: str, p: int) -> float:
    """Player p's combos after ``card`` from the reach at the chance node ``before``: every
    combo that does not hold the card keeps its weight (the card is chosen, not drawn)."""
    from pokerlab.cards.deck import COMBO_CARDS, parse_cards

    chance = solved.node(before)
    assert chance.kind == "chance"
    (c,) = parse_cards(card)
    keep = ~(COMBO_CARDS[chance.combos[p]] == c).any(axis=1)
    return float(chance.weights(p)[keep].sum())


@pytest.mark.parametrize(
    "line,before,card",
    [(TURN, "check, check", "Qs"), (RIVER, TURN + ", check, check", "2c"), (RIVER_SWAPPED, "", "")],
    ids=["turn", "river", "river-suit-swap"],
)
def test_cli_viewer_and_library_agree_after_a_dealt_card(
    capsys, flop_solution, line, before, card
) -> None:
    pytest.importorskip("fastapi", reason="the viewer extra is not installed")
    from fastapi.testclient import TestClient

    from pokerlab.viewer import create_app

    solved = load_spot_solution(flop_solution).average_strategy()
    view = solved.node(line)
    assert view.kind == "decision" and view.deal_scale == (45 if line == TURN else 45 * 44)
    code, out, err = run(capsys, ["postflop", "show", str(flop_solution), "-l", line, "--json"])
    assert code == 0, err
    cli = json.loads(out)
    client = TestClient(create_app(flop_solution.parent), raise_server_exceptions=False)
    api = client.get("/api/node", params={"path": flop_solution.name, "line": line}).json()
    assert api["scale"] == view.deal_scale
    grid = view.grid()
    for p, key in enumerate(("oop", "ip")):
        combos = float(view.weights(p).sum())
        assert combos > 1.0  # combos, not combos times the card's probability
        assert cli["combos"][key] == pytest.approx(combos, rel=1e-9)
        assert api["ranges"][p]["combos"] == pytest.approx(combos, abs=1e-3)
        if before:
            expected = _weights_after_the_card(solved, before, card, p)
            assert combos == pytest.approx(expected, rel=1e-4)  # float32 sums
        ev, equity = view.range_value(p)
        assert cli["ev"][key] == pytest.approx(ev, abs=1e-9)
        assert api["ranges"][p]["range_ev"] == pytest.approx(ev, abs=1e-5)
        assert cli["equity"][key] == pytest.approx(equity, abs=1e-12)
    weight = grid["weight"].ravel()
    api_weight = np.array(api["grid"]["weight"], dtype=float) * api["scale"]
    np.testing.assert_allclose(api_weight, weight, atol=1e-5)
    assert set(cli["grid"]) == {class_name(c) for c in np.flatnonzero(weight > 0)}
    for c in np.flatnonzero(weight > 0):
        assert cli["grid"][class_name(c)]["combos"] == pytest.approx(weight[c], rel=1e-9)
    assert cli["grid"]["AA"]["combos"] > 1.0  # AA is in OOP's range and the actor is OOP
    code, out, err = run(capsys, ["postflop", "show", str(flop_solution), "-l", line])
    assert code == 0, err
    assert re.search(rf"^OOP \(acts\)\s+{cli['combos']['oop']:.1f}\s", out, re.M), out


def test_png_after_a_dealt_card_fills_its_cells(flop_solution) -> None:
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Rectangle

    from pokerlab.cards.deck import COMBO_CARDS, COMBO_CLASS
    from pokerlab.plots import postflop as plots
    from pokerlab.plots.common import plt

    view = load_spot_solution(flop_solution).average_strategy().node(RIVER)
    weight = view.grid()["weight"].ravel()
    blocked = np.isin(COMBO_CARDS, view.board).any(axis=1)
    available = np.bincount(COMBO_CLASS[~blocked], minlength=169)
    in_range = np.flatnonzero(weight > 0)
    shares = weight[in_range] / available[in_range]  # QQ: of the 3 combos left with Qs out
    # some class drawn at part of its cell (0.46 at most in this 20-iteration solution)
    assert available[in_range].min() >= 3 and 0.4 < shares.max() < 1.0
    fig = plots.node_grid_figure(view)
    backgrounds = {to_rgba(plots._EMPTY), to_rgba(plots._OUT), to_rgba("white")}
    try:
        heights = [
            p.get_height()
            for p in fig.axes[0].patches
            if isinstance(p, Rectangle) and p.get_fill() and p.get_facecolor() not in backgrounds
        ]
        for share in shares:  # every in-range class is drawn with its share of the cell
            assert any(abs(h - share) < 1e-9 for h in heights), (share, heights)
        assert max(heights) == pytest.approx(shares.max(), abs=1e-9)
    finally:
        plt.close(fig)


# --- bad input ------------------------------------------------------------------------------

BAD: list[tuple[list[str], str]] = [
    (
        ["postflop", "rivr"],
        "unknown spot 'rivr': not a file and not a built-in spot; "
        "built-in spots: flop, river, turn",
    ),
    (["postflop", "nosuch.toml"], "cannot read spot file nosuch.toml"),
    (["postflop", "solve", "rivr"], "unknown spot 'rivr'"),
    (["postflop", *RIVER_FLAGS[:-4], "--bets", "33%%"], "--bets '33%%'"),
    (["postflop", *RIVER_FLAGS[:-4], "--bets", "33%, 2.5x"], "'2.5x'"),
    (["postflop", *RIVER_FLAGS[:-2], "--raises", "60%, 2y"], "--raises '60%, 2y'"),
    (["postflop", *RIVER_FLAGS[:-4], "--donks", "huge"], "--donks 'huge'"),
    (["postflop", "--board", "Td9d6hQc7s", "--oop-range", "AA"], "missing: --ip-range, --pot"),
    (["postflop", "river", "--board", "Td9d6hQc7s"], "not both"),
    (["postflop", *RIVER_FLAGS[:4], "--ip-range", "ZZ", *RIVER_FLAGS[6:]], "'ZZ'"),
    (["postflop", *RIVER_FLAGS[:8], "--stack", "-5"], "stack must be >= 0"),
    (["postflop", "--board", "Td9d6hQcTd", *RIVER_FLAGS[2:]], "given twice"),
    (["postflop", "river", "--target", "0%"], "--target '0%' must be above 0%"),
    (["postflop", "river", "--target", "0"], "must be above 0%"),
    (["postflop", "river", "--target", "-1%"], "must be above 0%"),
    (["postflop", "river", "--target", "abc"], "bad --target 'abc'"),
    (["postflop", "river", "--target", "0.5%%"], "bad --target '0.5%%'"),
    (["postflop", "river", "--target", "nan"], "must be above 0%"),
    (["postflop", "river", "--threads", "0"], "--threads"),
    (["postflop", "river", "--check-every", "0"], "--check-every"),
    (["postflop", "river", "-n", "0"], "--iterations"),
    (["postflop", "river", "-n", "abc"], "--iterations"),
    (["postflop", "river", "--seconds", "0"], "--seconds must be a number > 0"),
    (["postflop", "river", "-a", "bogus"], "unknown algorithm 'bogus' for a postflop spot"),
    (["postflop", "river", "-a", "es-mccfr"], "unknown algorithm 'es-mccfr'"),
    (["postflop", "river", "--bogus"], "No such option: --bogus"),
    (["postflop", "river", "extra"], "unexpected extra argument"),
    (["postflop", "river", "--out", "/"], "--out '/' names a folder"),
    (
        ["postflop", "river", "--out", "/nonexistent/dir/x.npz"],
        "--out '/nonexistent/dir/x.npz': folder '/nonexistent/dir' does not exist",
    ),
    (["postflop", "show"], "Missing argument 'file'"),
    (["postflop", "show", "/nonexistent/river.npz"], "no such file"),
    (["postflop", "show", "x" * 300 + ".npz"], "too long"),
]


def test_the_bad_input_table_covers_both_commands() -> None:
    assert {args[1] if args[1] in ("solve", "show") else "solve" for args, _ in BAD} == {
        "solve",
        "show",
    }


@pytest.mark.parametrize("args,needle", BAD, ids=[" ".join(a)[:70] for a, _ in BAD])
def test_bad_input_is_one_line_and_exit_2(capsys, args, needle, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, args)
    assert code == 2, err
    assert "Traceback" not in out + err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert needle in lines[0]
    assert out == ""  # refused before anything is printed


def test_bad_line_names_the_token_and_lists_the_actions(capsys, river_solution) -> None:
    code, out, err = run(capsys, ["postflop", "show", str(river_solution), "-l", "bet 77"])
    assert code == 2 and out == ""
    assert err == (
        "error: action 'bet 77' is not one of check, bet 66, bet 150, bet 300, allin 900 at the "
        "root\n"
    )
    code, _, err = run(capsys, ["postflop", "show", str(river_solution), "-l", "check, jump"])
    assert code == 2 and err == (
        "error: unknown action 'jump' at check; the actions there: check, bet 66, bet 150, "
        "bet 300, allin 900\n"
    )  # the actions at that node, not examples from another spot
    code, _, err = run(
        capsys, ["postflop", "show", str(river_solution), "-l", "bet 66, Qs"]
    )  # a card where IP acts
    assert code == 2 and err == (
        "error: unknown action 'Qs' at bet 66; the actions there: fold, call, raise 265\n"
    )
    code, _, err = run(
        capsys, ["postflop", "show", str(river_solution), "-l", "check, bet 66, call, bet 9"]
    )
    assert code == 2 and err.strip() == "error: the line ends at a terminal node before 'bet 9'"


def test_show_refuses_other_files_and_png_of_a_terminal(
    capsys, river_solution, tmp_path, leduc
) -> None:
    strategy = tmp_path / "leduc.npz"
    solver = pokerlab.make_solver(leduc, "cfr")
    solver.step(2)
    pokerlab.save_strategy(strategy, solver.average_strategy())
    code, out, err = run(capsys, ["postflop", "show", str(strategy)])
    assert code == 2 and out == ""
    assert "is not a postflop solution" in err
    png = tmp_path / "x.png"
    code, out, err = run(
        capsys, ["postflop", "show", str(river_solution), "-l", "bet 66, fold", "--png", str(png)]
    )
    assert code == 2 and out == "" and not png.exists()
    assert "--png draws a decision node; the line 'bet 66, fold' ends at a fold node" in err


def test_too_large_tree_is_refused_with_its_estimate_without_building_it(capsys) -> None:
    from pokerlab.games.postflop.game import available_memory_bytes

    args = [
        "postflop", "--board", "Td9d6h", "--oop-range", EVERY_HAND, "--ip-range", EVERY_HAND,
        "--pot", "100", "--stack", "1000", "--bets", "25%, 50%, 75%, a", "--raises", "2.5x, a",
    ]  # fmt: skip
    need = 236_171_959_296  # 220 GiB: 8 bytes per (decision node, action, hand)
    available = available_memory_bytes()
    if available is not None and available >= need:
        pytest.skip("this machine has the memory for the tree")
    code, out, err = run(capsys, args)
    assert code == 2
    assert "9,137,464" in out and "memory: up to 220.0 GiB" in out  # the summary came first
    assert err.startswith("error: the tree is too large for this machine's memory: its solver ")
    assert f"up to 220.0 GiB ({need:,} bytes; 9,137,464 decision nodes" in err
    assert len(err.splitlines()) == 1
    code, out, err = run(capsys, [*args, "--json"])
    assert code == 2 and out == "" and "220.0 GiB" in err


def test_usage_and_help(capsys) -> None:
    code, out, err = run(capsys, ["postflop"])
    assert code == 2 and out == ""
    assert err.startswith("error: give a spot (e.g. pokerlab postflop turn) or a command")
    assert "Usage: pokerlab postflop" in err and "solve" in err and "show" in err
    assert "Usage: pokerlab [OPTIONS]" not in err  # the group's usage, not the top level's
    for args in (
        ["postflop", "--help"],
        ["postflop", "solve", "--help"],
        ["postflop", "show", "--help"],
    ):
        code, out, _ = run(capsys, args)
        assert code == 0 and "<bool>" not in out
    code, out, _ = run(capsys, ["postflop", "solve", "--help"])
    assert "--target" in out and "0.5%" in out and "--threads" in out


# --- Ctrl-C ---------------------------------------------------------------------------------


def test_ctrl_c_prints_and_saves_partial_results(monkeypatch, capsys, tmp_path) -> None:
    import pokerlab.cli.postflop as postflop_cli

    original = postflop_cli.make_solver

    def make(*args, **kwargs):
        solver = original(*args, **kwargs)
        step = solver.step
        calls = [0]

        def step_then_interrupt(n: int = 1) -> None:
            step(n)
            calls[0] += 1
            if calls[0] == 3:
                os.kill(os.getpid(), signal.SIGINT)

        solver.step = step_then_interrupt
        return solver

    monkeypatch.setattr(postflop_cli, "make_solver", make)
    out_file = tmp_path / "river.npz"
    code, out, err = run(
        capsys,
        ["postflop", "river", "-n", "100000", "--check-every", "5", "--json", "-o", str(out_file)],
    )
    assert code == 130
    got = json.loads(out)
    assert got["status"] == "interrupted" and got["partial"] is True
    assert got["iterations"] == 15  # three steps of 5, then a clean stop
    meta = read_metadata(out_file)
    assert meta["partial"] is True and meta["status"] == "interrupted"
    assert meta["iterations"] == 15
    assert load_spot_solution(out_file).iterations == 15
    assert f"wrote {out_file}" in err and "interrupted at iteration 15" in err
    assert "Traceback" not in err


def test_raise_limit_flag_none_builds_postflop_solvers_tree(capsys) -> None:
    # a river with 2x raises and 20 pots behind: 14 decision nodes in postflop-solver (no raise
    # limit) and with --raise-limit none; pokerlab's default limit of 3 raises leaves 10
    flags = [
        "postflop", "--board", "Td9d6hQc7s", "--oop-range", "AA,KK", "--ip-range", "QQ,JJ",
        "--pot", "100", "--stack", "2000", "--bets", "50%", "--raises", "2x", "-n", "1", "--json",
    ]  # fmt: skip
    code, out, _ = run(capsys, [*flags, "--raise-limit", "none"])
    assert code == 0
    got = json.loads(out)
    assert got["nodes"] == {"decision": 14, "chance": 0, "terminal": 25}
    assert got["game_params"]["tree"]["raise_limit"] == "none"
    code, out, _ = run(capsys, flags)
    assert code == 0 and json.loads(out)["nodes"]["decision"] == 10
    code, out, err = run(capsys, [*flags, "--raise-limit", "many"])
    assert code == 2 and out == ""
    assert err.strip() == "error: --raise-limit must be a whole number >= 0 or 'none', got 'many'"


# --- the first compile ------------------------------------------------------------------------


def test_kernels_cold_reads_numbas_cache_index(tmp_path, monkeypatch) -> None:
    import importlib

    from pokerlab.warmup import kernels_cold

    (tmp_path / "coldmod_i30.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("coldmod_i30")
    assert kernels_cold([module])  # never compiled: the first call compiles
    assert module.twice(21) == 42
    assert not kernels_cold([module])  # cached on disk now
    assert any((tmp_path / "__pycache__").glob("coldmod_i30.twice-*.nbi"))


def test_cold_cache_is_announced_on_a_terminal_stderr_only(capsys, monkeypatch) -> None:
    import importlib

    import pokerlab.cli.render_postflop as postflop_cli

    warmup = importlib.import_module("pokerlab.warmup")  # pokerlab.warmup is also a function
    assert main(["postflop", "river", "-n", "2", "--json"]) == 0
    capsys.readouterr()
    assert not warmup.postflop_kernels_cold()  # a solve ran: its kernels are cached
    monkeypatch.setattr(postflop_cli, "stderr_is_terminal", lambda: True)
    code, out, err = run(capsys, ["postflop", "river", "-n", "2", "--json"])
    assert code == 0 and err == ""  # warm: nothing to say
    monkeypatch.setattr(warmup, "postflop_kernels_cold", lambda: True)
    code, out, err = run(capsys, ["postflop", "river", "-n", "2", "--json"])
    assert code == 0 and err == "compiling (once, about a minute)\n"
    assert json.loads(out)["iterations"] == 2  # stdout is the JSON object alone
    monkeypatch.setattr(postflop_cli, "stderr_is_terminal", lambda: False)
    code, out, err = run(capsys, ["postflop", "river", "-n", "2", "--json"])
    assert code == 0 and err == ""  # piped: silent, like the progress bar


def test_memory_estimate_covers_the_process_peak(tmp_path) -> None:
    """The announced process estimate is at least the solving process's peak resident memory
    (turn spot, with --out: the save included)."""
    from pokerlab.games.postflop.game import process_bytes_estimate

    if not Path("/proc/self/status").is_file():
        pytest.skip("the peak is read from /proc/self/status (Linux)")
    # VmHWM, not ru_maxrss: after fork or vfork and exec that one still holds pytest's own peak
    script = (
        "import json, sys\n"
        "from pokerlab.cli.main import main\n"
        "code = main(sys.argv[1:])\n"
        "line = next(x for x in open('/proc/self/status') if x.startswith('VmHWM:'))\n"
        "peak = int(line.split()[1]) * 1024\n"
        "print(json.dumps({'peak': peak, 'code': code}), file=sys.stderr)\n"
    )
    out_file = tmp_path / "turn.npz"
    args = ["postflop", "turn", "-n", "20", "--json", "--out", str(out_file)]
    proc = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    measured = json.loads(proc.stderr.strip().splitlines()[-1])
    assert measured["code"] == 0
    got = json.loads(proc.stdout)
    bound = got["tree_upper_bound"]
    assert bound["process_bytes"] == process_bytes_estimate(bound["memory_bytes"])
    assert measured["peak"] <= bound["process_bytes"] <= 2 * measured["peak"]
