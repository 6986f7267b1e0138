"""The CFR family: agreement with the reference solver, convergence, schedules, checkpoints."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pokerlab
from pokerlab.solvers.factory import restore_solver
from pokerlab.solvers.schedule import DiscountSchedule, schedule_by_name
from pokerlab.tree.compiled import compile_game

SCHEDULE_NAMES = ["cfr", "cfr+", "linear", "dcfr"]


def _compare_with_reference(game, name, alternating, representation, iterations, linear_until=None):
    schedule = schedule_by_name(name)
    if linear_until is not None:
        schedule = schedule.with_linear_until(linear_until)
    ref = pokerlab.ReferenceCFR(game, schedule, alternating=alternating)
    for _ in range(iterations):
        ref.iterate()
    solver = pokerlab.make_solver(
        game,
        name,
        alternating=alternating,
        representation=representation,
        linear_until=linear_until,
    )
    solver.step(iterations)
    regrets = solver.cumulative_regrets()
    assert set(regrets) == set(ref.regrets)
    average = solver.average_strategy()
    ref_average = ref.average_strategy()
    for key, r in ref.regrets.items():
        np.testing.assert_allclose(regrets[key], r, rtol=1e-9, atol=1e-9, err_msg=key)
        np.testing.assert_allclose(
            average.action_probs(key), ref_average[key], rtol=1e-9, atol=1e-9, err_msg=key
        )


@pytest.mark.parametrize("representation", ["public", "history"])
@pytest.mark.parametrize("alternating", [True, False])
@pytest.mark.parametrize("name", SCHEDULE_NAMES)
def test_kernels_equal_reference_on_kuhn(name, alternating, representation, kuhn) -> None:
    _compare_with_reference(kuhn, name, alternating, representation, iterations=25)


@pytest.mark.parametrize("representation", ["public", "history"])
@pytest.mark.parametrize("name", SCHEDULE_NAMES)
def test_kernels_equal_reference_on_leduc(name, representation, leduc) -> None:
    _compare_with_reference(leduc, name, True, representation, iterations=4)


def test_simultaneous_and_linear_until_equal_reference_on_leduc(leduc) -> None:
    _compare_with_reference(leduc, "cfr+", False, "public", iterations=3)
    _compare_with_reference(leduc, "linear", True, "public", iterations=4, linear_until=2)


def test_three_player_kuhn_equals_reference() -> None:
    game = pokerlab.load_game("kuhn", players=3)
    _compare_with_reference(game, "cfr", True, None, iterations=10)
    _compare_with_reference(game, "dcfr", False, None, iterations=10)


def test_kuhn_game_value_is_minus_one_eighteenth(kuhn) -> None:
    # Kuhn (1950): the first player's equilibrium value is -1/18.
    solver = pokerlab.make_solver(kuhn, "cfr+")
    result = solver.solve(target_exploitability=1e-5)
    value = pokerlab.expected_values(kuhn, solver.average_strategy())[0]
    assert result.exploitability <= 1e-5
    assert value == pytest.approx(-1 / 18, abs=1e-3)


def test_leduc_game_value_and_cfr_plus_budget(leduc) -> None:
    # Leduc's first-player value is about -0.0856 (e.g. Lanctot 2013, OpenSpiel's CFR tests).
    solver = pokerlab.make_solver(leduc, "cfr+")
    solver.step(600)
    strategy = solver.average_strategy()
    assert pokerlab.exploitability(leduc, strategy) < 1e-3
    assert pokerlab.expected_values(leduc, strategy)[0] == pytest.approx(-0.0856, abs=2e-3)


@pytest.mark.parametrize("name", SCHEDULE_NAMES)
@pytest.mark.parametrize("game_name,budget,bound", [("kuhn", 2000, 2e-3), ("leduc", 1000, 2e-2)])
def test_every_schedule_converges(name, game_name, budget, bound) -> None:
    game = pokerlab.load_game(game_name)
    solver = pokerlab.make_solver(game, name)
    first = pokerlab.exploitability(game, solver.average_strategy())
    solver.step(budget)
    last = pokerlab.exploitability(game, solver.average_strategy())
    assert last < bound < first


def test_linear_until_switches_to_plain_cfr(leduc) -> None:
    schedule = schedule_by_name("linear").with_linear_until(10)
    assert schedule.factors(10) == pytest.approx((0.9, 0.9, 0.9))
    assert schedule.factors(11) == (1.0, 1.0, 1.0)
    solver = pokerlab.make_solver(leduc, "linear", linear_until=50)
    assert solver.solve(iterations=800).exploitability < 1e-2


def test_dcfr_one_one_one_is_linear_cfr(kuhn) -> None:
    a = pokerlab.make_solver(kuhn, "linear")
    b = pokerlab.make_solver(kuhn, "dcfr", alpha=1.0, beta=1.0, gamma=1.0)
    a.step(30)
    b.step(30)
    np.testing.assert_allclose(a.average_strategy().probs, b.average_strategy().probs, atol=1e-12)


def test_zero_reach_pruning_changes_nothing(leduc) -> None:
    for rep in ("public", "history"):
        on = pokerlab.make_solver(leduc, "cfr+", prune=True, representation=rep)
        off = pokerlab.make_solver(leduc, "cfr+", prune=False, representation=rep)
        on.step(60)
        off.step(60)
        np.testing.assert_allclose(on.regrets, off.regrets, atol=1e-12)
        np.testing.assert_allclose(on.strat_sum, off.strat_sum, atol=1e-12)
        assert on.nodes_touched < off.nodes_touched  # CFR+ zeroes actions, so subtrees are cut


def test_solve_stops_on_each_limit(leduc) -> None:
    solver = pokerlab.make_solver(leduc, "dcfr")
    assert solver.solve(iterations=37).iterations == 37
    result = solver.solve(target_exploitability=5e-3)
    assert result.exploitability <= 5e-3
    before = solver.iterations
    solver.solve(seconds=0.05)
    assert solver.iterations > before
    seen = []
    solver.solve(iterations=100, callback=lambda p: seen.append(p.iterations) or len(seen) >= 3)
    assert len(seen) == 3
    with pytest.raises(pokerlab.PokerlabError):
        solver.solve()


def test_resume_from_state_equals_uninterrupted_run(leduc, tmp_path) -> None:
    straight = pokerlab.make_solver(leduc, "dcfr")
    straight.step(120)
    first = pokerlab.make_solver(leduc, "dcfr")
    first.step(50)
    path = tmp_path / "run.ckpt.npz"
    pokerlab.save_checkpoint(path, first.state_dict())
    resumed = restore_solver(pokerlab.load_checkpoint(path))
    resumed.step(70)
    assert resumed.iterations == 120
    np.testing.assert_array_equal(resumed.regrets, straight.regrets)
    np.testing.assert_array_equal(resumed.strat_sum, straight.strat_sum)


def test_load_state_refuses_other_settings(kuhn) -> None:
    state = pokerlab.make_solver(kuhn, "cfr").state_dict()
    with pytest.raises(pokerlab.PokerlabError):
        pokerlab.make_solver(kuhn, "cfr+").load_state_dict(state)
    with pytest.raises(pokerlab.PokerlabError):
        pokerlab.make_solver(pokerlab.load_game("leduc"), "cfr").load_state_dict(state)


@settings(max_examples=25, deadline=None)
@given(
    iterations=st.integers(min_value=0, max_value=40),
    alpha=st.floats(min_value=0.0, max_value=3.0),
    beta=st.floats(min_value=-1.0, max_value=2.0),
    gamma=st.floats(min_value=0.0, max_value=4.0),
    floor=st.booleans(),
    alternating=st.booleans(),
    game_name=st.sampled_from(["kuhn", "leduc"]),
)
def test_strategies_are_distributions(
    iterations, alpha, beta, gamma, floor, alternating, game_name
):
    game = pokerlab.load_game(game_name)
    from pokerlab.solvers.cfr import CFRSolver

    schedule = DiscountSchedule("custom", alpha, beta, gamma, floor)
    solver = CFRSolver(compile_game(game), schedule, alternating=alternating)
    solver.step(iterations)
    for strategy in (solver.average_strategy(), solver.current_strategy()):
        idx = strategy.compiled.index
        for k in range(len(idx)):
            p = strategy.probs[idx.positions(k)]
            assert np.all(p >= 0.0) and np.all(np.isfinite(p))
            assert p.sum() == pytest.approx(1.0, abs=1e-12)
