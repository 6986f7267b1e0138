"""Predictive and optimistic CFR (PCFR+, DCFR+, PDCFR+) and hyperparameter schedules on postflop
spots (issue 13): the vector kernels equal the readable reference CFR on the history form of a
tiny spot; the prediction is part of the state, so a resumed run is bit-identical; threads do
not change it; locks override the strategy that regret matching reads from the prediction; the
names work in ``make_solver``, ``pokerlab postflop`` and ``pokerlab compare``."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

import pokerlab
from _postflop_spots import TINY_TURN
from pokerlab.analysis.postflop import SolvedSpot
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import (
    POSTFLOP_ALGORITHMS,
    PostflopSolver,
    load_spot_solution,
    save_spot_solution,
)
from pokerlab.solvers.schedule import schedule_by_name
from pokerlab.tree.compiled import compile_game

NEW = ["pcfr+", "dcfr+", "pdcfr+", "hs-pcfr+", "hs-dcfr"]


def reference_river() -> PostflopGame:
    """A river spot small enough for the pure-Python reference CFR (102 information sets) and
    without exact ties of regrets (which float32 and float64 could break either way)."""
    return PostflopGame(
        board="Td9d6hQc7s",
        ranges=("KK,T9s,76s", "QQ,AK,J8s"),
        pot=100,
        stack=300,
        bets="50%",
        raises="a",
    )


def small_turn() -> PostflopGame:
    """A turn spot whose river subtrees run as parallel work items."""
    return PostflopGame(**TINY_TURN)


def _table(game: PostflopGame, spot: SolvedSpot) -> dict[str, np.ndarray]:
    """The normalised ``strat_sum`` of ``spot`` per information set of the history form."""
    compiled = compile_game(game, "history")
    views: dict[str, object] = {}
    out = {}
    for key in compiled.index.keys:
        hand, rest = key.split("|", 1)
        line = rest.split(":", 1)[1]
        if line not in views:
            views[line] = spot.node([t for t in line.split(",") if t])
        view = views[line]
        combo = pokerlab.cards.COMBO_INDEX[
            pokerlab.cards.parse_card(hand[:2]), pokerlab.cards.parse_card(hand[2:])
        ]
        row = int(np.flatnonzero(view.combos[view.player] == combo)[0])  # type: ignore[attr-defined]
        out[key] = view.strategy[row]  # type: ignore[attr-defined]
    return out


@pytest.mark.parametrize("name", NEW)
def test_variants_equal_the_reference_cfr(name: str) -> None:
    """Average and current strategy of every information set equal ReferenceCFR's (float64,
    history tree) to 1e-6 after 8 iterations; the vector tree's values are its counterfactual
    values times a constant per player, which regret matching and the discounts ignore."""
    game = reference_river()
    schedule = schedule_by_name(name)
    if schedule.scheduled:  # a short horizon, so that the exponents move within the test
        schedule = dataclasses.replace(schedule, horizon=5)
    ref = pokerlab.ReferenceCFR(game, schedule)
    solver = PostflopSolver(game, name)
    solver.params = schedule.as_array()
    for _ in range(8):
        ref.iterate()
    solver.step(8)
    assert (solver.prediction is not None) == schedule.predictive
    average = _table(game, solver.average_strategy())
    # the current strategy: regret matching on the prediction (or the regrets), read as sums
    source = solver.prediction if solver.prediction is not None else solver.regrets
    current = _table(game, SolvedSpot(game, np.maximum(source, 0.0), solver.regrets, solver.passes))
    ref_average = ref.average_strategy()
    for key, probs in average.items():
        np.testing.assert_allclose(probs, ref_average[key], atol=1e-6, err_msg=key)
        np.testing.assert_allclose(current[key], ref.current_strategy(key), atol=1e-6, err_msg=key)


def test_dcfr_equals_the_reference_cfr_through_a_deal() -> None:
    """On a turn spot with betting before and after the river is dealt, DCFR's average and
    current strategies equal ReferenceCFR's on every information set (8,144) to 1e-5 after 4
    iterations: the chance node's card removal and 1 / 44 weights, the alternation and the
    discounts are the textbook algorithm's (where the B6 flop's course parts from
    postflop-solver's, rounding at regret ties decides it, docs/benchmarks.md)."""
    game = PostflopGame(
        board="Td9d6hQc", ranges=("KK,T9s", "QQ,J8s"), pot=100, stack=300, bets="50%", raises=""
    )
    ref = pokerlab.ReferenceCFR(game, schedule_by_name("dcfr"))
    solver = PostflopSolver(game, "dcfr")
    for _ in range(4):
        ref.iterate()
    solver.step(4)
    average = _table(game, solver.average_strategy())
    current = _table(
        game, SolvedSpot(game, np.maximum(solver.regrets, 0.0), solver.regrets, solver.passes)
    )
    ref_average = ref.average_strategy()
    assert len(average) == 8144 and any(":bet 50,call," in key for key in average)
    for key, probs in average.items():
        np.testing.assert_allclose(probs, ref_average[key], atol=1e-5, err_msg=key)
        np.testing.assert_allclose(current[key], ref.current_strategy(key), atol=1e-5, err_msg=key)


def test_schedule_factors_equal_the_engine_schedules() -> None:
    """The kernels' factors equal the engine's Python twin for every postflop schedule, the
    hyperparameter schedules' moving exponents, a negative beta at t = 1 and dcfr-ps's restarts
    included."""
    from pokerlab.solvers.postflop import postflop_schedule
    from pokerlab.solvers.schedule import discount_factors
    from pokerlab.tree import _primitives

    for name in POSTFLOP_ALGORITHMS:
        params = postflop_schedule(name)
        for t in (1, 2, 3, 10, 500, 999, 1000, 1001, 5000):
            kernel = _primitives.discount_factors(params, t)
            assert kernel == pytest.approx(discount_factors(params, t), rel=1e-12)


@pytest.mark.parametrize("name", ["pcfr+", "pdcfr+"])
def test_resume_with_the_prediction_is_exact(name: str, tmp_path) -> None:
    game = small_turn()
    straight = PostflopSolver(game, name)
    straight.step(12)
    state = straight.state_dict()
    assert set(state["arrays"]) == {"regrets", "strategy_sum", "prediction"}
    assert np.abs(state["arrays"]["prediction"]).max() > 0.0
    path = tmp_path / "spot.npz"
    save_spot_solution(path, straight)
    straight.step(9)
    back = load_spot_solution(path)
    assert back.algorithm == name and back.prediction is not None
    back.step(9)
    assert back.iterations == 21
    np.testing.assert_array_equal(back.regrets, straight.regrets)
    np.testing.assert_array_equal(back.strat_sum, straight.strat_sum)
    np.testing.assert_array_equal(back.prediction, straight.prediction)
    # a state without its prediction cannot resume a predictive solver
    del state["arrays"]["prediction"]
    with pytest.raises(PokerlabError, match="prediction"):
        PostflopSolver(game, name).load_state_dict(state)
    # non-predictive schedules keep the two arrays they always had
    assert set(PostflopSolver(game, "dcfr+").state_dict()["arrays"]) == {
        "regrets",
        "strategy_sum",
    }


@pytest.mark.parametrize("name", ["pdcfr+", "hs-pcfr+", "dcfr+"])
def test_threads_give_the_same_result(name: str) -> None:
    game = small_turn()
    one = PostflopSolver(game, name, threads=1)
    two = PostflopSolver(game, name, threads=2)
    assert one.tree.num_items > 0  # the river subtrees run as parallel items
    assert two.threads == 2 and len(two.passes.chunks) > 1
    one.step(15)
    two.step(15)
    np.testing.assert_array_equal(one.regrets, two.regrets)
    np.testing.assert_array_equal(one.strat_sum, two.strat_sum)
    if one.prediction is not None:
        np.testing.assert_array_equal(one.prediction, two.prediction)
    assert one.exploitability() == two.exploitability()


@pytest.mark.parametrize("name", ["pcfr+", "pdcfr+"])
def test_locks_override_the_predicted_strategy(name: str) -> None:
    """A locked node plays the lock in every pass whatever the prediction says, the rest
    converges in the locked game, and the locked best response equals policy iteration."""
    game = pokerlab.load_game("postflop", spot="river")
    solver = PostflopSolver(game, name)
    solver.step(5)
    solver.lock("", {"check": 0.5, "bet 66": 0.5}, hands="AA, KK")
    solver.lock("check", {"check": 1.0})
    solver.solve(iterations=200)
    assert solver.exploitability_pct() < 0.3
    root = solver.average_strategy().node("")
    assert root.locked is not None and root.locked.sum() == 12  # AA and KK (6 + 6 combos)
    np.testing.assert_array_equal(root.strategy[root.locked][:, :2], 0.5)
    assert root.strategy[~root.locked][:, 1].max() > 0.0  # the other hands still choose
    ip = solver.average_strategy().node("check")
    np.testing.assert_array_equal(ip.strategy[:, 0], 1.0)
    # the prediction alone would play something else at the locked IP node: the lock wins
    view = SolvedSpot(game, np.maximum(solver.prediction, 0.0), solver.regrets, solver.passes)
    assert view.node("check").strategy[:, 0].min() < 1.0
    values = solver.values()
    assert values["best_response"][1] == pytest.approx(
        solver._locked_best_response(1), rel=1e-9, abs=1e-9
    )


def test_make_solver_and_the_command_line_take_the_new_names(capsys, tmp_path) -> None:
    game = pokerlab.load_game("postflop", spot="river")
    for name in NEW:
        solver = pokerlab.make_solver(game, name)
        assert isinstance(solver, PostflopSolver) and solver.algorithm == name
    assert pokerlab.make_solver(game, "pdcfrplus").algorithm == "pdcfr+"
    code = main(["postflop", "river", "--algorithm", "pdcfr+", "-n", "20", "--json"])
    got = json.loads(capsys.readouterr().out)
    assert code == 0 and got["algorithm"] == "pdcfr+"
    same = PostflopSolver(game, "pdcfr+")
    same.step(20)
    assert got["ev"]["oop"] == pytest.approx(same.values()["ev"][0], abs=1e-9)
    code = main(
        ["compare", "river", "--algorithms", "dcfr,pcfr+,dcfr+,pdcfr+", "--seconds", "0.2",
         "--points", "3", "--json"]
    )  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [c["algorithm"] for c in result["curves"]] == ["dcfr", "pcfr+", "dcfr+", "pdcfr+"]
