"""``pokerlab postflop search``: the numbers it prints equal the Python API's (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pokerlab
from pokerlab.cli.main import main
from pokerlab.solvers.search import profile_exploitability, search_everywhere
from pokerlab.solvers.search.blueprints import bucketed_blueprint
from pokerlab.tree.vector.passes import Passes

SPOT = """
board = "Td9d6hQc"
pot = 100
stack = 300
oop_range = "AA,KK,QQ,AK,KQs,JTs,T9s"
ip_range = "TT,99,88,AQs,QJs,J8s,AJo"
[turn]
bet = "75%, a"
raise = "a"
[river]
bet = "75%, a"
raise = "a"
"""


@pytest.fixture(scope="module")
def spot(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("spot") / "small.toml"
    path.write_text(SPOT)
    return path


def test_the_cli_prints_what_the_api_computes(spot, capsys) -> None:
    args = ["postflop", "search", str(spot), "--gadget", "unsafe,maxmargin", "--buckets", "4"]
    code = main([*args, "--blueprint-iterations", "60", "--iterations", "40", "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    rows = json.loads(captured.out)["rows"]
    assert [r["configuration"] for r in rows] == [
        "blueprint",
        "river search, unsafe",
        "river search, maxmargin",
    ]
    game = pokerlab.load_game("postflop", spot=str(spot))
    passes = Passes(game.expanded.tree, 1)
    profile, _ = bucketed_blueprint(game, 4, 60)
    assert rows[0]["exploitability_pct"] == pytest.approx(
        profile_exploitability(passes, profile, 100.0), rel=1e-9
    )
    report = search_everywhere(game, profile, "maxmargin", iterations=40)
    assert rows[2]["exploitability_pct"] == pytest.approx(
        profile_exploitability(passes, report.profile, 100.0), rel=1e-9
    )
    assert rows[2]["subgames"] == report.subgames
    assert rows[1]["exploitability_pct"] < rows[0]["exploitability_pct"]


def test_a_self_generative_search_with_a_tolerance_prints_what_the_api_computes(
    spot, capsys
) -> None:
    """``--continuations self --self-tolerance``: the exploitability and the responses added per
    subgame are the API's."""
    args = ["postflop", "search", str(spot), "--gadget", "maxmargin", "--buckets", "4"]
    args += ["--street", "turn", "--depth", "round", "--continuations", "self"]
    code = main([*args, "--self-tolerance", "0.01", "--blueprint-iterations", "60",
                 "--iterations", "20", "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    row = json.loads(captured.out)["rows"][1]
    game = pokerlab.load_game("postflop", spot=str(spot))
    profile, _ = bucketed_blueprint(game, 4, 60)
    report = search_everywhere(
        game, profile, "maxmargin", street="turn", iterations=20, depth="round",
        continuations="self", self_tolerance=0.01,
    )  # fmt: skip
    passes = Passes(game.expanded.tree, 1)
    assert row["exploitability_pct"] == pytest.approx(
        profile_exploitability(passes, report.profile, 100.0), rel=1e-9
    )
    assert row["self_rounds"] == [r["self_rounds"] for r in report.per_subgame]
    assert all(1 <= n <= 3 for n in row["self_rounds"])


def test_bad_input_is_one_line_and_exit_2(spot, capsys) -> None:
    cases = [
        (["--gadget", "safe"], "unknown gadget 'safe'"),
        (["--continuations", "3"], "1, 4 or self, not '3'"),
        (["--street", "preflop"], "not 'preflop'"),
        (["--depth", "leaf"], "depth is 'end' or 'round'"),
        (["--self-tolerance", "0.01"], "--self-tolerance needs --continuations self"),
        (["--continuations", "self", "--self-tolerance", "-1"], "a fraction of the pot >= 0"),
    ]
    for extra, message in cases:
        args = ["postflop", "search", str(spot), "--blueprint-iterations", "2", *extra]
        assert main(args) == 2, extra
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, (extra, err)
    assert main(["postflop", "search", "no-such-spot.toml"]) == 2
    assert "no-such-spot" in capsys.readouterr().err
