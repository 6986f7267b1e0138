"""``pokerlab blueprint match`` and ``pokerlab blueprint lbr``: the oracles of
docs/nolimit-holdem.md through the CLI, a trained checkpoint as an agent, and bad input refused
in one line with exit code 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pokerlab.cli.main import main

TINY = 'base = "fcpa"\nranks = 2\nrounds = 2\nstack = {stack}\n'


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    """Blueprints of the 8-card two-round fcpa game (lossless buckets, 3,000 iterations) with
    stacks of 300 and 400 chips."""
    folder = tmp_path_factory.mktemp("bp")
    out = {}
    for stack in (300, 400):
        config = folder / f"tiny{stack}.toml"
        config.write_text(TINY.format(stack=stack))
        ckpt = folder / f"bp{stack}.npz"
        args = ["blueprint", "train", str(config), "--bucketing", "lossless", "-n", "3000"]
        assert main([*args, "--checkpoint", str(ckpt), "--json"]) == 0
        out[str(stack)] = ckpt
    return out


def _json(capsys, *args: str) -> dict:
    code = main(["blueprint", *args, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_match_of_an_agent_against_itself_is_exactly_zero(capsys) -> None:
    got = _json(capsys, "match", "always-call", "always-call", "--pairs", "20", "--seed", "3")
    assert got["mbb_per_game"] == 0.0 and got["ci95_mbb"] == 0.0
    assert got["games"] == 40 and got["hero"] == got["opponent"] == "always-call"
    assert main(["blueprint", "match", "pot-raise", "pot-raise", "--pairs", "10"]) == 0
    out = capsys.readouterr().out
    assert "52 cards, 4 rounds: pot-raise against pot-raise" in out
    assert "hero +0.0 +- 0.0 mbb/g (95%), 20 games" in out


def test_match_on_a_configuration_with_options(capsys) -> None:
    """Pot-raise against always-fold wins the blinds without a showdown: heads-up 750 mbb/g
    (+100 chips from the small blind, +50 from the big blind); three-handed 1,000 (+150 on the
    button, +100 in the small blind, +50 in the big blind), both with interval 0; the table
    follows --players and --stack."""
    got = _json(capsys, "match", "pot-raise", "always-fold", "--pairs", "5")
    assert got["mbb_per_game"] == 750.0 and got["ci95_mbb"] == 0.0 and got["games"] == 10
    got = _json(
        capsys, "match", "pot-raise", "always-fold", "--players", "3", "--stack", "1000",
        "--pairs", "5",
    )  # fmt: skip
    assert got["players"] == 3 and got["games"] == 15
    assert got["mbb_per_game"] == 1000.0 and got["ci95_mbb"] == 0.0
    assert got["seat_mbb"] == [1000.0, 500.0, 1500.0]


def test_lbr_against_always_fold_is_exactly_750(capsys) -> None:
    got = _json(capsys, "lbr", "always-fold", "--pairs", "10", "--actions", "fcpa")
    assert got["mbb_per_game"] == 750.0 and got["ci95_mbb"] == 0.0
    assert got["lbr_actions"] == "fcpa" and got["lbr_rounds"] == "3-4" and got["games"] == 20
    assert main(["blueprint", "lbr", "always-fold", "--pairs", "5", "--rounds", "1-4"]) == 0
    out = capsys.readouterr().out
    assert "LBR (fcpa, rounds 1-4) against always-fold" in out
    assert "LBR +750.0 +- 0.0 mbb/g (95%), 10 games" in out


def test_lbr_against_a_second_agent_pairs_the_two_runs(capsys) -> None:
    """``--against``: both runs on the same deals and draws, and the paired difference (always
    folding gives LBR +750 in every pair; always calling, the run of its own)."""
    alone = _json(capsys, "lbr", "always-call", "--pairs", "6", "--seed", "2")
    got = _json(capsys, "lbr", "always-call", "--against", "always-fold", "--pairs", "6",
                "--seed", "2")  # fmt: skip
    assert got["agent"]["mbb_per_game"] == alone["mbb_per_game"]
    assert got["against"]["mbb_per_game"] == 750.0 and got["against"]["agent"] == "always-fold"
    diff = got["difference"]
    assert diff["mbb_per_game"] == pytest.approx(alone["mbb_per_game"] - 750.0)
    assert diff["ci95_mbb"] == pytest.approx(alone["ci95_mbb"]) and diff["pairs"] == 6
    assert (
        main(["blueprint", "lbr", "always-fold", "--against", "always-fold", "--pairs", "3"]) == 0
    )
    out = capsys.readouterr().out
    assert "LBR (fcpa, rounds 3-4) against always-fold and always-fold" in out
    assert "always-fold minus always-fold, paired on the same deals: +0.0 +- 0.0 mbb/g" in out


def test_lbr_and_matches_on_worker_processes_equal_one_process(capsys) -> None:
    one = _json(capsys, "lbr", "always-call", "--pairs", "4", "--seed", "3")
    two = _json(capsys, "lbr", "always-call", "--pairs", "4", "--seed", "3", "--workers", "2")
    assert two["mbb_per_game"] == one["mbb_per_game"] and two["ci95_mbb"] == one["ci95_mbb"]
    assert two["counts"] == one["counts"] and two["seat_mbb"] == one["seat_mbb"]
    one = _json(capsys, "match", "rule", "always-call", "--pairs", "5", "--seed", "2")
    two = _json(capsys, "match", "rule", "always-call", "--pairs", "5", "--seed", "2",
                "--workers", "2")  # fmt: skip
    assert two["mbb_per_game"] == one["mbb_per_game"] and two["seat_mbb"] == one["seat_mbb"]


def test_checkpoint_plays_a_match_and_beats_always_call(checkpoints, capsys) -> None:
    """A 3,000-iteration blueprint of the 8-card game beats always-call in its own game (the
    game comes from the checkpoint); as the opponent the sign flips."""
    ckpt = str(checkpoints["300"])
    got = _json(capsys, "match", ckpt, "always-call", "--pairs", "300", "--seed", "1")
    assert got["hero"] == "bp300.npz" and got["games"] == 600
    assert got["mbb_per_game"] - got["ci95_mbb"] > 0
    flipped = _json(capsys, "match", "always-call", ckpt, "--pairs", "300", "--seed", "1")
    assert flipped["mbb_per_game"] == pytest.approx(-got["mbb_per_game"])
    same = _json(capsys, "match", ckpt, ckpt, "--pairs", "50")
    assert same["mbb_per_game"] == 0.0 and same["ci95_mbb"] == 0.0
    assert main(["blueprint", "match", ckpt, "always-call", "--pairs", "20"]) == 0
    assert "stacks 300/300, blinds 50/100, ante 0, 8 cards, 2 rounds" in capsys.readouterr().out


def test_bad_input_is_one_line_and_exit_2(checkpoints, tmp_path, capsys) -> None:
    a, b = str(checkpoints["300"]), str(checkpoints["400"])
    cases = [
        (["match", "bogus", "always-call"], "HERO: unknown agent 'bogus'"),
        (["match", "always-call", "Always-Raise"], "OPPONENT: unknown agent 'Always-Raise'"),
        (["match", str(tmp_path / "none.npz"), "always-call"], "no such file"),
        (["match", a, b, "--pairs", "4"], f"OPPONENT {b!r} was trained on another game"),
        (["match", a, "always-call", "--config", "fcpa"], "the configuration 'fcpa'"),
        (["match", "always-call", "always-call", "--config", "nope"], "'nope'"),
        (["lbr", a], "local_best_response: needs four rounds, got 2"),
        (["lbr", "always-fold", "--actions", "fcx"], "--actions: unknown 'fcx'"),
        (["lbr", "always-fold", "--rounds", "2-4"], "--rounds: unknown '2-4'"),
        (["lbr", "nobody"], "AGENT: unknown agent 'nobody'"),
        (["lbr", "always-fold", "--against", "nobody"], "AGENT2: unknown agent 'nobody'"),
        (["lbr", a, "--against", b], f"AGENT2 {b!r} was trained on another game"),
    ]
    not_ckpt = tmp_path / "text.npz"
    not_ckpt.write_text("not a checkpoint")
    cases.append((["lbr", str(not_ckpt)], "text.npz"))
    for args, message in cases:
        assert main(["blueprint", *args]) == 2, args
        err = capsys.readouterr().err
        assert message in err, (args, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


@pytest.mark.parametrize("workers", [1, 2])
def test_a_blueprint_trained_on_threads_loads_for_play(tmp_path, workers) -> None:
    """A checkpoint of a run on batched workers reads as its head's arrays: the agent plays
    the solver's own average strategy, and the judging commands take it."""
    import numpy as np

    import pokerlab
    from pokerlab.io.files import save_checkpoint
    from pokerlab.solvers.batched import ThreadedBlueprintSolver
    from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction
    from pokerlab.solvers.blueprint_load import load_blueprint

    game = pokerlab.load_game("nolimit-holdem", config="fcpa", ranks=2, rounds=2, stack=300)
    abstraction = lossless_abstraction(2)
    solver = (
        ThreadedBlueprintSolver(game, abstraction, workers=workers, seed=1, batch=500)
        if workers > 1
        else BlueprintSolver(game, abstraction, seed=1)
    )
    solver.step(3000)
    path = tmp_path / "bp.npz"
    save_checkpoint(path, solver.state_dict())
    agent, loaded = load_blueprint(path)
    np.testing.assert_array_equal(agent.strategy.probs, solver.average_strategy().probs)
    assert loaded.rules == game.rules
    assert main(["blueprint", "match", str(path), "always-call", "--pairs", "3"]) == 0
