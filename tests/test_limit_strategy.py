"""Limit hold'em behind the seam (issue 23): the average strategy of a limit solver is a
``Strategy`` (a ``BettingStrategy``: its table over (decision node, bucket state) with the
betting layout's index), so keys, ``save_strategy`` / ``load_strategy``, ``pokerlab show`` and
the evaluators work on it; a checkpoint is restored through ``restore_solver``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pokerlab
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.limit_abstract import abstract_exploitability_mbb, joint_bucket_tables
from pokerlab.evaluate.limit_matches import strategy_agent
from pokerlab.games.registry import load_game
from pokerlab.solvers.limit_holdem import LimitPCSSolver
from pokerlab.strategy import BettingStrategy, Strategy

# the 12-card deck: quick bucket tables, and a variant a checkpoint names
GAME = {"variant": "micro"}


@pytest.fixture(scope="module")
def solved():
    game = load_game("limit-holdem", **GAME)
    abstraction = build_abstraction(3, (3, 3, 3, 3), "ehs", cache=False)
    out = {}
    for recall in ("imperfect", "perfect"):
        solver = LimitPCSSolver(game, abstraction, recall=recall, seed=3)
        solver.step(40)
        out[recall] = solver
    return game, abstraction, out


@pytest.mark.parametrize("recall", ["imperfect", "perfect"])
def test_average_strategy_is_a_strategy_indexed_by_key(solved, recall: str) -> None:
    game, abstraction, solvers = solved
    solver = solvers[recall]
    strategy = solver.average_strategy()
    assert isinstance(strategy, BettingStrategy) and isinstance(strategy, Strategy)
    assert strategy.abstraction is abstraction and strategy.table is strategy.probs
    tree = game.betting_tree
    decisions = np.flatnonzero(tree.kind == 0)
    assert len(strategy) == sum(int(solver.num_states[tree.round[n]]) for n in decisions)
    keys = strategy.keys()
    assert len(set(keys)) == len(keys)
    index = strategy.compiled.index
    for k in (0, 1, len(keys) // 2, len(keys) - 1):
        assert index.find(keys[k]) == k
    # a flop key reads the solver's own block: actions x states at offset[n]
    n = tree.find("rc/")
    ns = int(solver.num_states[1])
    state = ns - 1
    name = str(state) if recall == "imperfect" else "-".join(str(d) for d in divmod(state, 3))
    row = strategy[f"flop:rc/:{name}"]
    assert list(row) == ["check", "bet"]
    block = solver.layout.normalise(solver.sums)[solver.offset[n] : solver.offset[n] + 2 * ns]
    np.testing.assert_array_equal(list(row.values()), block.reshape(2, ns)[:, state])
    assert sum(row.values()) == pytest.approx(1.0)
    for bad in ("flop:rc/:99", "turn:rc/:0", "flop:zz/:0", "rc/:0", "flop:rc/:x"):
        with pytest.raises(KeyError, match="unknown information set"):
            index.find(bad)


def test_save_load_and_show_a_limit_strategy(solved, tmp_path, monkeypatch, capsys) -> None:
    from pokerlab.cli.main import main

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path / "cache"))
    game, abstraction, solvers = solved
    strategy = solvers["perfect"].average_strategy()
    path = tmp_path / "limit.npz"
    pokerlab.save_strategy(path, strategy, algorithm="cfr+", iterations=40)
    loaded = pokerlab.load_strategy(path)
    assert isinstance(loaded, BettingStrategy) and loaded.abstraction is None
    np.testing.assert_array_equal(loaded.probs, strategy.probs)
    assert loaded.keys() == strategy.keys()
    assert loaded["turn:rc/cc/:2-1-0"] == strategy["turn:rc/cc/:2-1-0"]
    # the evaluators rebuild the abstraction from the file's identity: the same numbers
    tables = joint_bucket_tables(abstraction)
    assert abstract_exploitability_mbb(loaded, tables) == abstract_exploitability_mbb(
        strategy, tables
    )
    agent = strategy_agent(loaded)
    np.testing.assert_array_equal(agent.probs, strategy.probs)

    assert main(["show", str(path), "--prefix", "flop:rc/:", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["strategy"]
    assert len(shown) == 9 and shown["flop:rc/:2-1"] == strategy["flop:rc/:2-1"]


def test_evaluators_refuse_a_wrong_abstraction(solved) -> None:
    _, _, solvers = solved
    strategy = solvers["imperfect"].average_strategy()
    other = build_abstraction(3, (2, 2, 2, 2), "ehs", cache=False)
    with pytest.raises(PokerlabError, match="abstraction of buckets"):
        strategy_agent(strategy, abstraction=other)
    with pytest.raises(PokerlabError, match="BettingStrategy"):
        abstract_exploitability_mbb(strategy.probs)


def test_restore_solver_restores_a_limit_checkpoint(solved, tmp_path, monkeypatch) -> None:
    from pokerlab.io.files import load_checkpoint, save_checkpoint
    from pokerlab.solvers.factory import load_limit_checkpoint, restore_solver

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path / "cache"))
    _, _, solvers = solved
    solver = solvers["imperfect"]
    path = tmp_path / "run.ckpt.npz"
    save_checkpoint(path, solver.state_dict(), variant="micro", seed=0)
    restored = restore_solver(load_checkpoint(path))
    assert isinstance(restored, LimitPCSSolver) and restored.iterations == 40
    np.testing.assert_array_equal(
        restored.average_strategy().probs, solver.average_strategy().probs
    )
    game, again = load_limit_checkpoint(path)
    assert game.rules.ranks == 3 and again.iterations == 40
    np.testing.assert_array_equal(again.sums, solver.sums)


def test_limit_solvers_are_engine_solvers(solved) -> None:
    """One base class: ``step(n)`` runs n more iterations and counts them, the counters and the
    state schema are the engine's, both strategies are ``BettingStrategy``s."""
    from pokerlab.solvers.base import Solver
    from pokerlab.solvers.limit_mccfr import LimitESSolver

    game, abstraction, _ = solved
    pcs = LimitPCSSolver(game, abstraction, recall="imperfect", seed=4, boards_per_iteration=2)
    es = LimitESSolver(game, abstraction, recall="imperfect", seed=4)
    for solver, every in ((pcs, 5), (es, 1000)):
        assert isinstance(solver, Solver) and solver.default_check_every() == every
        solver.step(3)
        solver.step(2)
        assert solver.iterations == 5 and solver.nodes_touched > 0 and solver.seconds > 0
        with pytest.raises(PokerlabError, match="iterations must be >= 0"):
            solver.step(-1)
        current = solver.current_strategy()
        assert isinstance(current, BettingStrategy)
        regrets = np.maximum(solver.regrets, 0.0)
        np.testing.assert_array_equal(current.probs, solver.layout.normalise(regrets))
        state = solver.state_dict()
        # the state's algorithm: the schedule of full-width CFR, es-mccfr for external sampling
        algorithm = "es-mccfr" if solver is es else solver.schedule.name
        assert state["algorithm"] == algorithm and state["game"] == "limit-holdem"
        assert state["representation"] == "bucketed" and state["game_params"] == game.params
        assert state["config"]["buckets"] == [3, 3, 3, 3] and state["nodes_touched"] > 0
        with pytest.raises(PokerlabError, match="abstract_exploitability_mbb"):
            solver.exploitability()
    # public chance sampling: two passes over the tree per iteration
    assert pcs.nodes_touched == 2 * 5 * game.betting_tree.num_nodes
    assert pcs.state_dict()["config"]["boards_per_iteration"] == 2
