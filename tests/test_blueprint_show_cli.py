"""``pokerlab blueprint show CHECKPOINT --line ...``: a blueprint's strategy at one node. The
preflop grid's probabilities are the ones the blueprint plays (the agent's policy for a hand of
each class), the action totals are the combo-weighted mean, postflop nodes list every bucket,
lines are read as the history interface's tokens and refused by name with the actions there,
and ``--png`` writes a picture."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from rich.console import Console

from pokerlab.cli.blueprint_eval import load_agent
from pokerlab.cli.blueprint_show import NodeView, _best_grid, line_tokens, walk_line
from pokerlab.cli.main import main
from pokerlab.evaluate.nolimit.agents import PublicView
from pokerlab.evaluate.nolimit.blueprint import bucket_state, node_probs
from pokerlab.games.nolimit.rules import ALLIN, CALL, FOLD

# cards of the 8-card deck (top two ranks, card = 4 * rank + suit): Kc Kd Ac Ad As
KC, KD, AC, AD, AS = 44, 45, 48, 49, 51


@pytest.fixture(scope="module")
def checkpoint(tiny_blueprint) -> Path:
    """The tiny blueprint of conftest.py (8 cards, two rounds, fcpa, stacks 300)."""
    return tiny_blueprint


def _show(capsys, *args: str) -> dict:
    code = main(["blueprint", "show", *args, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


@pytest.mark.parametrize(
    "text,tokens",
    [
        ("", []),
        ("r300, c", ["r300", "c"]),
        ("R300 C", ["r300", "c"]),
        ("r300c/c", ["r300", "c", "/", "c"]),
        ("r 2.5bb, call / check", ["r2.5bb", "c", "/", "c"]),
        ("c,c,/,a", ["c", "c", "/", "a"]),
        ("r300 zz", ["r300", "zz"]),  # kept whole: the walk names it
    ],
)
def test_line_tokens(text, tokens) -> None:
    assert line_tokens(text) == tokens


def test_preflop_grid_is_what_the_agent_plays(checkpoint, capsys) -> None:
    agent, game = load_agent(str(checkpoint), "CHECKPOINT")
    rules = game.rules
    got = _show(capsys, str(checkpoint))
    assert got["history"] == "" and got["seat"] == 0 and got["position"] == "BTN/SB"
    assert got["street"] == "preflop" and got["pot"] == 150 and got["to_call"] == 50
    assert got["actions"] == ["f", "c", "r300"]
    assert got["words"] == ["fold", "call 50", "all-in to 300 (3 bb)"]
    assert set(got["classes"]) == {"AA", "AKs", "AKo", "KK"}  # the 8-card deck's classes
    view = PublicView(rules, rules.initial_state(), ())
    hands = {"AA": (AC, AD), "AKs": (KC, AC), "AKo": (KC, AD), "KK": (KC, KD)}
    for name, hole in hands.items():
        policy = agent.policy(view, hole)
        want = [policy.get((FOLD, 0), 0.0), policy.get((CALL, 100), 0.0), policy[(ALLIN, 300)]]
        assert got["classes"][name] == pytest.approx(want, abs=1e-12), name
    combos = {"AA": 6, "AKs": 4, "AKo": 12, "KK": 6}
    mean = sum(combos[n] * np.array(got["classes"][n]) for n in combos) / 28
    assert got["totals"] == pytest.approx(mean.tolist(), abs=1e-12)
    assert sum(got["totals"]) == pytest.approx(1.0)


def test_lines_in_chips_and_big_blinds_name_the_same_node(checkpoint, capsys) -> None:
    a = _show(capsys, str(checkpoint), "--line", "r300")
    b = _show(capsys, str(checkpoint), "--line", "r3bb")
    c = _show(capsys, str(checkpoint), "--line", "a")
    assert a["history"] == b["history"] == c["history"] == "r300"
    assert a["classes"] == b["classes"] == c["classes"]
    assert a["position"] == "BB" and a["to_call"] == 200 and a["actions"] == ["f", "c"]
    limp = _show(capsys, str(checkpoint), "--line", "c")
    assert limp["position"] == "BB" and limp["to_call"] == 0
    assert limp["actions"] == ["c", "r300"] and limp["words"][0] == "check"


def test_postflop_node_lists_every_bucket(checkpoint, capsys) -> None:
    agent, _ = load_agent(str(checkpoint), "CHECKPOINT")
    strategy = agent.strategy
    got = _show(capsys, str(checkpoint), "--line", "c, c /")
    same = _show(capsys, str(checkpoint), "--line", "cc")  # "/" is optional
    assert got == {**same, "line": "c, c /"}
    assert got["history"] == "cc/" and got["street"] == "flop" and got["position"] == "BB"
    assert "classes" not in got
    node = strategy.layout.tree.find("cc/")
    states = int(strategy.layout.num_states[1])
    assert len(got["states"]) == states
    for s in range(states):
        assert got["states"][str(s)] == pytest.approx(node_probs(strategy, node, s).tolist())
    # a flop the BB holds: AdAs on Ac Kc Kd is the bucket the agent reads
    s = bucket_state(strategy, agent.abstraction, 1, [AD, AS, AC, KC, KD])
    assert sum(got["states"][str(s)]) == pytest.approx(1.0)
    assert main(["blueprint", "show", str(checkpoint), "--line", "cc", "--rows", "3"]) == 0
    out = capsys.readouterr().out
    assert "not hand classes: action probabilities per bucket" in out
    assert f"{states - 3} more buckets not shown (--rows 0 shows all)" in out


def test_text_grid_is_cut_to_the_deck(checkpoint, capsys) -> None:
    assert main(["blueprint", "show", str(checkpoint), "--line", "r300"]) == 0
    out = capsys.readouterr().out
    assert "bp.npz: BB (seat 1) on the preflop after 'r300' (tree 'r300'); pot 400" in out
    assert "most likely action per hand" in out and "call 200: frequency" in out
    assert "AA" in out and "KK" in out and "QQ" not in out and "72o" not in out
    assert "figure = the most likely action: f = fold, c = call 200" in out
    assert "over every combo of the deck: fold " in out


def test_a_full_grid_names_every_hand_and_its_most_likely_action() -> None:
    rng = np.random.default_rng(5)
    table = rng.dirichlet(np.ones(3), size=169)
    view = NodeView(0, None, "", ("f", "c", "r250"), ("f", "c", "r250"),
                    ("fold", "call 50", "raise to 250"))  # fmt: skip
    console = Console(width=200, record=True, color_system=None)
    console.print(_best_grid(table, view, "grid"))
    lines = console.export_text().splitlines()
    rows = [line.split() for line in lines[1:14]]
    assert len(rows) == 13 and all(len(r) == 26 for r in rows)  # name and action per cell
    assert rows[0][:2] == ["AA", view.short[int(np.argmax(table[0]))]]
    assert rows[12][-2:] == ["22", view.short[int(np.argmax(table[168]))]]
    assert rows[12][0] == "A2o" and rows[0][-2] == "A2s"


def test_png(checkpoint, tmp_path, capsys) -> None:
    import matplotlib.image as mpimg

    for line, name in (("r300", "pre.png"), ("c c", "post.png")):
        path = tmp_path / name
        got = _show(capsys, str(checkpoint), "--line", line, "--png", str(path))
        assert got["png"] == str(path)
        image = mpimg.imread(path)
        assert image.ndim == 3 and image.shape[0] > 100 and image.shape[1] > 100
        assert image[..., :3].std() > 0.05  # something is drawn
    assert sorted(p.name for p in tmp_path.iterdir()) == ["post.png", "pre.png"]  # no temp files


@pytest.mark.parametrize(
    "line,message",
    [
        ("r250", "--line: 'r250' is not an action of the blueprint at the root: its actions "
                 "there are f, c, r300"),
        ("c r250", "'r250' is not an action of the blueprint after 'c': its actions there are c, "
                   "r300"),
        ("c zz", "unknown token 'zz' (use r<chips>"),
        ("c zz", "the blueprint's actions after 'c' are c, r300"),
        ("c /", "'/' after 'c': the street is not over"),
        ("r300 f c", "'c' comes after the end of the hand ('r300f')"),
        ("r300 c", "'r300 c' ends the hand ('r300c'): no decision"),
        ("r300.5", "'r300.5': chips are whole numbers"),
    ],
)  # fmt: skip
def test_bad_lines_are_refused_by_name(checkpoint, capsys, line, message) -> None:
    assert main(["blueprint", "show", str(checkpoint), "--line", line]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_bad_input_is_one_line_and_exit_2(checkpoint, tmp_path, capsys) -> None:
    cases = [
        (["always-call"], "'always-call' is a built-in agent"),
        ([str(tmp_path / "none.npz")], "no such file"),
        ([str(checkpoint), "--png", str(tmp_path / "no" / "x.png")], "folder does not exist"),
    ]
    for args, message in cases:
        assert main(["blueprint", "show", *args]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err, err


def test_walk_line_follows_the_tree_and_the_rules(checkpoint) -> None:
    agent, game = load_agent(str(checkpoint), "CHECKPOINT")
    tree = agent.strategy.layout.tree
    view = walk_line(tree, game.rules, "c c / c r200")  # the flop: BB checks, SB bets 200
    assert view.node == tree.find("cc/cr200") and view.history == "cc/cr200"
    assert view.state.street == 1 and view.state.to_act == 1 and view.state.to_call() == 200
    assert view.labels == ("f", "c") and view.words == ("fold", "call 200")
