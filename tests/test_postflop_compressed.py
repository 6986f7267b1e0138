"""The 16-bit storage mode of the postflop solver (int16 regrets, uint16 strategy sums, one
float32 scale per node): half the memory, convergence close to float32 storage, values read by
the independent history-tree evaluator, threads, exact resume, locks, options and errors."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from _postflop_spots import TINY_TURN
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import PostflopSolver, load_spot_solution, save_spot_solution


def _solve(solver: PostflopSolver, target_pct: float, limit: int) -> int:
    while solver.iterations < limit:
        solver.step(10)
        if solver.exploitability_pct() <= target_pct:
            break
    return solver.iterations


def test_half_the_memory_and_about_the_float32_convergence() -> None:
    game = pokerlab.load_game("postflop", spot="river")
    f32 = PostflopSolver(game)
    c16 = PostflopSolver(game, compressed=True)
    assert c16.regrets.dtype == np.int16 and c16.strat_sum.dtype == np.uint16
    assert (
        c16.regrets.nbytes + c16.strat_sum.nbytes
        == (f32.regrets.nbytes + f32.strat_sum.nbytes) // 2
    )
    its_f32 = _solve(f32, 0.1, 600)
    its_c16 = _solve(c16, 0.1, 600)
    assert c16.exploitability_pct() <= 0.1
    # the rounding of 16-bit codes costs at most a few checks more
    assert its_c16 <= its_f32 + 40
    assert c16.values()["ev"][0] == pytest.approx(f32.values()["ev"][0], abs=0.5)
    # the average strategy is a distribution at every node
    view = c16.average_strategy().node("")
    np.testing.assert_allclose(view.strategy.sum(axis=1), 1.0, atol=1e-6)


def test_values_agree_with_the_history_tree_evaluator() -> None:
    """The strategy read from the 16-bit sums, evaluated by an implementation independent of the
    vector kernels, has the values the solver reports."""
    from test_postflop_solver import _history_strategy

    game = PostflopGame(
        board="Td9d6hQc7s", ranges=("AA,KK,T9s,76s", "QQ,AK,J8s"), pot=100, stack=300,
        bets="50%, a", raises="a",
    )  # fmt: skip
    solver = PostflopSolver(game, "dcfr", compressed=True)
    solver.step(60)
    ours = solver.values()
    report = pokerlab.exploitability_report(game, _history_strategy(game, solver))
    half = 50.0
    assert report.values[0] == pytest.approx(ours["ev"][0] - half, abs=1e-6)
    for p in (0, 1):
        assert report.best_response_values[p] == pytest.approx(
            ours["best_response"][p] - half, abs=1e-6
        )
    assert solver.exploitability_pct() < 1.0


def test_threads_resume_and_predictive_schedules(tmp_path) -> None:
    game = PostflopGame(**TINY_TURN)
    one = PostflopSolver(game, compressed=True)
    two = PostflopSolver(game, threads=2, compressed=True)
    one.step(20)
    two.step(20)
    np.testing.assert_array_equal(one.regrets, two.regrets)
    np.testing.assert_array_equal(one.strat_sum, two.strat_sum)
    assert one.scales is not None and two.scales is not None
    np.testing.assert_array_equal(one.scales[0], two.scales[0])
    path = tmp_path / "spot.npz"
    save_spot_solution(path, one)
    one.step(15)
    back = load_spot_solution(path)
    assert back.compressed and back.strat_sum.dtype == np.uint16
    back.step(15)
    np.testing.assert_array_equal(one.regrets, back.regrets)
    np.testing.assert_array_equal(one.strat_sum, back.strat_sum)
    np.testing.assert_array_equal(one.scales[1], back.scales[1])
    # a 16-bit state does not load into a float32 solver, nor the reverse
    with pytest.raises(PokerlabError, match="16-bit mode"):
        PostflopSolver(game).load_state_dict(one.state_dict())
    with pytest.raises(PokerlabError, match="float32 mode"):
        PostflopSolver(game, compressed=True).load_state_dict(PostflopSolver(game).state_dict())
    # a predictive schedule keeps its prediction in float32 beside the 16-bit regrets
    pred = PostflopSolver(game, "pdcfr+", compressed=True)
    pred.step(60)
    assert pred.prediction is not None and pred.prediction.dtype == np.float32
    assert pred.exploitability_pct() < 2.0


def test_a_lock_rescales_the_16_bit_sums() -> None:
    game = pokerlab.load_game("postflop", spot="river")
    solver = PostflopSolver(game, compressed=True)
    solver.step(30)
    solver.lock("check", {"check": 0.25, "bet 66": 0.75})
    view = solver.average_strategy().node("check")
    assert (view.strategy[:, :2] == [0.25, 0.75]).all()
    # the node's codes were re-encoded to the lock: the raw normalised codes agree too
    node = solver.average_strategy().find("check")[0]
    off = int(solver.tree.arrays.offset[node])
    nh = int(solver.tree.hands.num[1])
    codes = solver.strat_sum[off : off + 5 * nh].astype(np.float64).reshape(5, nh)
    np.testing.assert_allclose(codes / codes.sum(axis=0), view.strategy.T, atol=1e-4)
    solver.step(20)
    np.testing.assert_array_equal(solver.average_strategy().node("check").strategy, view.strategy)
    # the locked game's best response (one pass) equals policy iteration
    assert solver.values()["best_response"][1] == pytest.approx(
        solver._locked_best_response(1), rel=1e-9, abs=1e-9
    )


def test_make_solver_option_and_errors() -> None:
    game = PostflopGame(**TINY_TURN)
    solver = pokerlab.make_solver(game, "dcfr", compressed=True)
    assert isinstance(solver, PostflopSolver) and solver.compressed
    assert solver.state_dict()["config"] == {
        "algorithm": "dcfr",
        "average": "reach",
        "compressed": True,
    }
    with pytest.raises(PokerlabError, match="compressed must be True or False"):
        pokerlab.make_solver(game, "dcfr", compressed="yes")
    # the memory check halves its estimate in the 16-bit mode
    need = game.tree_summary()["memory_upper_bound_bytes"]
    game.check_memory(available_bytes=need // 2 + 1, compressed=True)
    with pytest.raises(PokerlabError, match="16-bit"):
        game.check_memory(available_bytes=need // 2 - 1, compressed=True)


def test_cli_compressed_flag(tmp_path, capsys) -> None:
    import json

    from pokerlab.cli.main import main

    path = tmp_path / "river16.npz"
    code = main(["postflop", "river", "-n", "40", "--compressed", "--json", "--out", str(path)])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    game = pokerlab.load_game("postflop", spot="river")
    assert out["compressed"] is True
    assert out["memory_bytes"] == 2 * 2 * game.expanded.tree.size
    back = load_spot_solution(path)
    assert back.compressed and back.iterations == 40
    assert back.check_exploitability() == pytest.approx(out["exploitability"], rel=1e-9)
    assert back.exploitability() == pytest.approx(out["exploitability"], rel=1e-5)
