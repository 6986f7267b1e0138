"""Issue 29, items 4-6: amounts a float32 solver cannot hold are refused, a non-finite value
stops the solve naming its node (nothing saved), the bet-size grammar and spot files refuse
huge and Unicode numbers, odd inputs (stack 0, a FIFO) get a clean answer."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from pokerlab.cli.main import main
from pokerlab.errors import NonFiniteError, ParseError, PokerlabError
from pokerlab.games.postflop import parse_bet_sizes, spot_from_params
from pokerlab.games.postflop.betsizes import MAX_SIZE_VALUE, MAX_STREETS
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.spot import MAX_CHIPS, load_spot
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.solvers.postflop_mccfr import PostflopMCCFR
from pokerlab.solvers.run import TrainingRun

RIVER = dict(board="Td9d6hQc2s", ranges=("AA,KK,QQ", "QQ,JJ,AK"), pot=100, stack=300)


def _game(**extra) -> PostflopGame:
    return PostflopGame(spot_from_params(**{**RIVER, **extra}))


# --- item 4: amounts and non-finite values ----------------------------------------------------


@pytest.mark.parametrize("key", ["pot", "stack", "rake_cap"])
@pytest.mark.parametrize("value", [1e39, 3.5e38, MAX_CHIPS * 2, 10**400])
def test_amounts_above_the_bound_are_refused(key, value) -> None:
    with pytest.raises(PokerlabError, match=key):
        spot_from_params(**{**RIVER, "rake_rate": 0.05, key: value})


def test_the_largest_amounts_still_solve_to_finite_numbers() -> None:
    game = _game(pot=MAX_CHIPS, stack=MAX_CHIPS)
    solver = PostflopSolver(game)
    solver.step(50)
    expl = solver.exploitability()
    assert np.isfinite(expl) and expl >= 0
    assert np.isfinite(solver.regrets).all() and np.isfinite(solver.strat_sum).all()


@pytest.mark.parametrize("solver_class", [PostflopSolver, PostflopMCCFR])
def test_a_non_finite_value_stops_the_exploitability_check_naming_the_node(solver_class) -> None:
    game = _game()
    solver = solver_class(game)
    solver.step(4)
    assert np.isfinite(solver.exploitability())
    a = solver.tree.arrays
    ip_decisions = np.flatnonzero((a.offset >= 0) & (a.player == 1))
    node = int(ip_decisions[0])  # IP's first decision: after OOP checks
    solver.regrets[int(a.offset[node]) + 1] = np.nan
    with pytest.raises(
        NonFiniteError, match=r"regrets is not finite \(nan\) at node 'check' \(IP\)"
    ):
        solver.exploitability()


def test_a_run_with_a_non_finite_value_saves_nothing(tmp_path: Path) -> None:
    solver = PostflopSolver(_game())
    solver.step(2)
    solver.strat_sum[0] = np.inf
    checkpoint = tmp_path / "run.ckpt"
    run = TrainingRun(solver, iterations=10, checkpoint=checkpoint, checkpoint_every=1)
    with pytest.raises(NonFiniteError, match="strategy_sum is not finite .* at node 'the root'"):
        run.run()
    assert not checkpoint.exists()
    assert list(tmp_path.iterdir()) == []


def test_cli_refuses_a_stack_float32_cannot_hold(capsys) -> None:
    code = main(
        ["postflop", "--board", "Td9d6hQc2s", "--oop-range", "AA", "--ip-range", "KK",
         "--pot", "100", "--stack", "1e39", "-n", "2"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("error: stack 1e+39 chips is above the largest 1e+09")


# --- item 5: the grammar and spot files --------------------------------------------------------


@pytest.mark.parametrize(
    "spec,needle",
    [
        ("\u0663\u0663%", "bad bet size"),  # Arabic-Indic 33%
        ("\uff15\uff10%", "bad bet size"),  # full-width 50%
        ("2.\u0665x", "bad bet size"),
        ("\u0663e", "bad bet size"),
        ("9" * 5000 + "e", f"at most {MAX_STREETS} streets"),
        ("0" * 5000 + "1e", None),  # leading zeros: 1 street
        ("1" + "0" * 306 + "%", "bet size too large"),
        ("9" * 400 + "%", "bet size too large"),
        ("e1" + "0" * 306 + "%", "bet size too large"),
        ("1" + "0" * 300 + "c", "bet size too large"),
    ],
    ids=lambda x: x[:12] + f"..{len(x)}" if isinstance(x, str) else str(x),
)
def test_bet_size_grammar_refuses_huge_and_unicode_numbers(spec, needle) -> None:
    if needle is None:
        assert parse_bet_sizes(spec)[0].streets == 1
        return
    with pytest.raises(ParseError, match=needle):
        parse_bet_sizes(spec, raise_sizes=True)


def test_the_largest_pot_fraction_builds_a_tree() -> None:
    top = f"{100 * MAX_SIZE_VALUE:.0f}%"
    assert parse_bet_sizes(top)[0].value == MAX_SIZE_VALUE
    game = _game(pot=MAX_CHIPS, stack=MAX_CHIPS, bets=f"{top}, e{top}", raises="1000000000x")
    assert game.tree_summary()["dealt_upper_bound"]["decision"] > 0


def _write(tmp_path: Path, text: str, name: str = "spot.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


HEAD = 'board = "Td9d6hQc2s"\noop_range = "AA"\nip_range = "KK"\n'


@pytest.mark.parametrize(
    "body,needle",
    [
        ("pot = 1" + "0" * 400 + "\nstack = 100\n", "pot must be a finite number"),
        ("pot = 100\nstack = " + "9" * 5000 + "\n", "Exceeds the limit"),
        ("pot = 100\nstack = 1e39\n", "stack 1e+39 chips is above the largest"),
        ("pot = 100\nstack = inf\n", "stack must be a finite number"),
        ("pot = 100\nstack = 100\nrake_cap = 1e300\nrake_rate = 0.1\n", "rake_cap"),
        ("pot = 100\nstack = 100\n[tree]\nadd_allin_threshold = 1e308\n", "add_allin_threshold"),
        # a street-level size that both players override is still checked
        (
            'pot = 100\nstack = 100\n[river]\nbet = "999e"\n[river.oop]\nbet = "50%"\n'
            '[river.ip]\nbet = "50%"\n',
            "[river] bet: at most 100 streets in a geometric size: '999e'",
        ),
        (
            'pot = 100\nstack = 100\n[river]\nraise = "\u0663x"\n[river.oop]\nraise = "a"\n'
            '[river.ip]\nraise = "a"\n',
            "[river] raise: bad bet size",
        ),
    ],
    ids=lambda x: x[:30] + f"..{len(x)}" if isinstance(x, str) else str(x),
)
def test_spot_files_with_huge_numbers_are_refused(tmp_path, body, needle) -> None:
    path = _write(tmp_path, HEAD + body)
    with pytest.raises(PokerlabError) as info:
        load_spot(path)
    assert needle in str(info.value)
    assert str(path) in str(info.value)


def test_json_spot_with_a_huge_integer_is_refused(tmp_path) -> None:
    path = _write(
        tmp_path,
        '{"board": "Td9d6hQc2s", "oop_range": "AA", "ip_range": "KK", "pot": 100, '
        '"stack": ' + "1" * 5000 + "}",
        "spot.json",
    )
    with pytest.raises(PokerlabError, match="Exceeds the limit"):
        load_spot(path)


# --- item 6: odd inputs --------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_named_toml_is_refused_without_reading(tmp_path, capsys) -> None:
    fifo = tmp_path / "spot.toml"
    os.mkfifo(fifo)
    code = main(["postflop", str(fifo), "-n", "1"])  # would block forever on a read
    err = capsys.readouterr().err
    assert code == 2
    assert "not a regular file" in err


def test_a_spot_file_too_large_is_refused(tmp_path) -> None:
    path = _write(tmp_path, HEAD + "pot = 100\nstack = 100\n" + "#" * (1 << 21) + "\n")
    with pytest.raises(PokerlabError, match="too large for a spot file"):
        load_spot(path)


@pytest.mark.parametrize("as_json", [False, True])
def test_stack_zero_prints_the_showdown_instead_of_crashing(capsys, as_json) -> None:
    args = ["postflop", "--board", "Td9d6hQc2s", "--oop-range", "AA,KK", "--ip-range",
            "QQ,JJ", "--pot", "100", "--stack", "0", "-n", "3"]  # fmt: skip
    code = main(args + (["--json"] if as_json else []))
    out = capsys.readouterr().out
    assert code == 0
    if as_json:
        import json

        data = json.loads(out)
        assert data["root"] == {"player": None, "actions": {}}
        assert data["ev"]["oop"] == pytest.approx(200 / 3)  # AA, KK beat QQ, JJ 2/3 of combos
    else:
        assert "no decision at the root" in out


# --- item 3: huge trees are counted, not built ---------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        dict(spot="river"),
        dict(spot="turn"),
        dict(spot="flop"),
        dict(
            board="Td9d6h",
            ranges=("AA,KK", "QQ"),
            pot=100,
            stack=1000,
            bets="33%,75%,a",
            raises="2.5x,a",
        ),  # fmt: skip
        dict(board="Td9d6h", ranges=("AA,KK", "QQ"), pot=100, stack=0),
        dict(
            board="Td9d6hQc",
            ranges=("AA,KK", "QQ"),
            pot=100,
            stack=500,
            bets={"turn": {"bet": "50%", "oop": {"donk": "33%"}}, "river": {"bet": "e, 50%"}},
        ),
    ],  # fmt: skip
    ids=["river", "turn", "flop", "flop-sizes", "flop-stack0", "turn-donk"],
)
def test_the_count_of_the_shared_graph_equals_the_built_tree(params) -> None:
    from pokerlab.games.postflop.action_walk import count_action_nodes
    from pokerlab.games.postflop.expand import count_expanded

    game = PostflopGame(spot_from_params(**params))
    summary = game.tree_summary()  # counted before anything is built
    assert "action_tree" not in game.__dict__
    tree = game.action_tree
    assert summary["action_tree"] == count_action_nodes(tree)
    dealt = count_expanded(tree, list(game.config.board))
    assert summary["dealt_upper_bound"] == {k: dealt[k] for k in ("decision", "chance", "terminal")}
    hands = max(int(np.count_nonzero(w)) for w in game.config.weights())
    assert summary["memory_upper_bound_bytes"] == 8 * dealt["action_slots"] * hands


def test_the_issue_flop_spot_is_refused_with_an_estimate_within_seconds(capsys) -> None:
    import time

    start = time.perf_counter()
    code = main(
        ["postflop", "--board", "Td9d6h", "--oop-range", "66+,A8s+", "--ip-range",
         "QQ-22,AQs-A2s", "--pot", "100", "--stack", "10000", "--bets",
         "25%, 33%, 50%, 66%, 75%, 100%, 150%, 200%", "--raises", "50%, 75%, 100%, 2.5x, 3x",
         "-n", "1"]
    )  # fmt: skip
    err = capsys.readouterr().err
    assert time.perf_counter() - start < 5.0  # was 195 s and 6 GiB before the refusal
    assert code == 2
    assert err.startswith("error: the tree is too large:")
    assert "GiB" in err and "river" in err


def test_a_tree_of_too_many_betting_states_is_refused_quickly() -> None:
    import time

    config = spot_from_params(
        board="Td9d6hQc2s", ranges=("AA", "KK"), pot=100, stack=10**9, bets="10%,30%,50%,70%",
        raises="2x,3x,4x,5x", raise_limit=100, merging_threshold=0,
    )  # fmt: skip
    start = time.perf_counter()
    with pytest.raises(PokerlabError, match="more than 10,000 distinct betting states"):
        PostflopGame(config).tree_summary()
    assert time.perf_counter() - start < 10.0


def test_a_tree_past_the_decision_cap_is_refused_before_it_is_built(monkeypatch) -> None:
    import pokerlab.games.postflop.game as G

    monkeypatch.setattr(G, "MAX_ACTION_DECISIONS", 100)
    game = PostflopGame(spot_from_params(spot="flop"))  # 182 decision nodes
    with pytest.raises(PokerlabError, match="182 decision nodes before cards are dealt"):
        _ = game.action_tree


def test_raise_limit_is_bounded() -> None:
    with pytest.raises(PokerlabError, match="raise_limit must be an integer from 0 to 100"):
        spot_from_params(**RIVER, raise_limit=10**6)
