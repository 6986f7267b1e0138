"""Monte Carlo CFR: convergence, unbiased sampled regrets, seeds, resume, pruning, discounting.

Bounds below are for the fixed seeds used (OpenSpiel's C++ solvers reach about the same after the
same iteration counts: external sampling 0.065 and outcome sampling 0.52 chips on Leduc after
10^5 iterations, seed 0-5 means).
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import pokerlab
from pokerlab._rng import next_u64, seed_state
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.factory import restore_solver
from pokerlab.solvers.mccfr import MCCFRSolver
from pokerlab.solvers.schedule import schedule_by_name
from pokerlab.tree.compiled import compile_game
from pokerlab.tree.history.tree import H_TERMINAL

VARIANTS = ["cs-mccfr", "es-mccfr", "os-mccfr"]


@njit(cache=True)
def _draw(state, n):
    out = np.zeros(n, dtype=np.uint64)
    for k in range(n):
        out[k] = next_u64(state)
    return out


def test_xoshiro256starstar_reference_values() -> None:
    # Reference output of xoshiro256** 1.0 from the state {1, 2, 3, 4} (Blackman & Vigna's C code).
    state = np.array([1, 2, 3, 4], dtype=np.uint64)
    assert _draw(state, 4).tolist() == [11520, 0, 1509978240, 1215971899390074240]
    # The project's seeding convention (pokerlab._rng): the state is SeedSequence(seed)'s first
    # four 64-bit words.
    expected = np.random.SeedSequence(0).generate_state(4, dtype=np.uint64)
    np.testing.assert_array_equal(seed_state(0), expected)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize(
    "game_name,iterations,bounds",
    [
        # (cs, es, os) exploitability bounds in chips after `iterations`, seed 0 (Kuhn os-mccfr:
        # seeds 0-7 give 0.008 to 0.035)
        ("kuhn", 20_000, {"cs-mccfr": 0.01, "es-mccfr": 0.01, "os-mccfr": 0.04}),
        ("leduc", 100_000, {"cs-mccfr": 0.08, "es-mccfr": 0.09, "os-mccfr": 0.65}),
    ],
)
def test_each_variant_converges(variant, game_name, iterations, bounds) -> None:
    game = pokerlab.load_game(game_name)
    solver = pokerlab.make_solver(game, variant, seed=0)
    uniform = pokerlab.exploitability(game, solver.average_strategy())
    solver.step(iterations)
    expl = pokerlab.exploitability(game, solver.average_strategy())
    assert expl < bounds[variant] < uniform
    assert solver.nodes_touched > iterations  # at least one node per traversal
    if variant != "os-mccfr":  # the game values of Kuhn (-1/18) and Leduc (about -0.0856)
        value = pokerlab.expected_values(game, solver.average_strategy())[0]
        assert value == pytest.approx(-1 / 18 if game_name == "kuhn" else -0.0856, abs=0.01)


@pytest.mark.parametrize("variant", VARIANTS)
def test_three_player_kuhn_runs_and_gives_distributions(variant) -> None:
    game = pokerlab.load_game("kuhn", players=3)
    solver = pokerlab.make_solver(game, variant, seed=0)
    assert solver.compiled.num_players == 3
    before = pokerlab.nash_conv(game, solver.average_strategy())  # uniform: 2.0625
    solver.step(20_000)
    for strategy in (solver.average_strategy(), solver.current_strategy()):
        idx = strategy.compiled.index
        for k in range(len(idx)):
            p = strategy.probs[idx.positions(k)]
            assert np.all(p >= 0.0) and p.sum() == pytest.approx(1.0, abs=1e-12)
    # no equilibrium guarantee with three players, but the profile improves a lot
    assert pokerlab.nash_conv(game, solver.average_strategy()) < 0.15 < before


def _exact_instantaneous(compiled, regrets):
    """Full-width simultaneous CFR from ``regrets``: exact instantaneous regrets and sums."""
    full = CFRSolver(compiled, schedule_by_name("cfr"), alternating=False)
    full.regrets[:] = regrets
    full.step(1)
    return full.regrets - regrets, full.strat_sum.copy()


@pytest.mark.parametrize(
    "variant,samples", [("cs-mccfr", 4_000), ("es-mccfr", 10_000), ("os-mccfr", 40_000)]
)
def test_sampled_regrets_are_unbiased_on_kuhn(variant, samples) -> None:
    """Mean of many single sampled updates from a fixed non-uniform regret state equals the
    full-width instantaneous regret (Lanctot et al. 2009, Lemma 1), within 5 standard errors; the
    strategy-sum increments match too (chance sampling and external sampling: up to the chance
    probability 1/6 of each Kuhn deal, a constant per information set)."""
    game = pokerlab.load_game("kuhn")
    compiled = compile_game(game, "history")
    regrets0 = np.random.default_rng(5).normal(0.0, 1.0, compiled.size)
    exact_r, exact_s = _exact_instantaneous(compiled, regrets0)
    solver = MCCFRSolver(compiled, variant, seed=123)
    for player in range(2):
        lo, hi = compiled.player_ranges[player]
        avg_player = player if variant == "os-mccfr" else 1 - player
        alo, ahi = compiled.player_ranges[avg_player]
        dr = np.zeros((samples, hi - lo))
        ds = np.zeros((samples, ahi - alo))
        for k in range(samples):
            solver.regrets[:] = regrets0
            solver.strat_sum[:] = 0.0
            solver.sampled_update(player)
            dr[k] = solver.regrets[lo:hi] - regrets0[lo:hi]
            ds[k] = solver.strat_sum[alo:ahi]
        scale = 1.0 if variant == "os-mccfr" else 1.0 / 6.0
        for draws, exact in ((dr, exact_r[lo:hi]), (ds, scale * exact_s[alo:ahi])):
            mean = draws.mean(axis=0)
            stderr = draws.std(axis=0) / np.sqrt(samples)
            assert np.mean(stderr > 0) >= 0.5  # mostly random entries: the check has teeth
            assert np.all(np.abs(mean - exact) <= 5.0 * stderr + 1e-12), (mean, exact)
    assert solver.iterations == 0


def test_chance_sampling_on_a_game_without_chance_is_cfr() -> None:
    """Without chance nodes chance sampling explores everything: its regrets equal full-width
    CFR's, also under Linear CFR discounting applied every iteration (discount_every=1)."""

    class H(pokerlab.History):
        def __init__(self, moves=()):
            self.moves = moves

        def is_terminal(self):
            return len(self.moves) == 2 or self.moves == (2,)

        def terminal_utility(self, p):
            if self.moves == (2,):
                w = 0.25
            else:
                w = 1.0 if self.moves[0] == self.moves[1] else -1.0 + 0.5 * self.moves[1]
            return w if p == 0 else -w

        def current_player(self):
            return len(self.moves)

        def legal_actions(self):
            return [0, 1, 2] if not self.moves else [0, 1]

        def chance_outcomes(self):
            return []

        def child(self, action):
            return H(self.moves + (action,))

        def info_set_key(self):
            return f"p{len(self.moves)}"

    class Game(pokerlab.HistoryGame):
        name = "pennies3"

        def initial_history(self):
            return H()

    game = Game()
    full = pokerlab.make_solver(game, "linear", linear_until=20)
    sampled = pokerlab.make_solver(game, "cs-mccfr", linear_until=20, discount_every=1)
    full.step(40)
    sampled.step(40)
    np.testing.assert_allclose(sampled.regrets, full.regrets, rtol=1e-12, atol=1e-12)


def test_prunable_flags_follow_pluribus_rules(leduc) -> None:
    tree = compile_game(leduc, "history").tree
    a = tree.arrays
    first_round = 0
    for n in np.flatnonzero(a.kind == 0):
        key = tree.info_keys[a.infoset[n]]
        kids = a.children[a.child_start[n] : a.child_start[n + 1]]
        for c in kids:
            if a.kind[c] == H_TERMINAL or "|" in key:  # terminal action, or the last round
                assert a.prunable[c] == 0
            else:
                assert a.prunable[c] == 1
                first_round += 1
    assert first_round > 0
    kuhn = compile_game(pokerlab.load_game("kuhn"), "history").tree  # one round: the last
    assert not kuhn.arrays.prunable.any()


def test_pruning_with_an_infinite_threshold_skips_all_it_may(leduc) -> None:
    # threshold +inf, pruning in every traversal: at information sets with a positive regret every
    # non-terminal first-round action is skipped. Far fewer nodes are touched, but fold actions
    # (into terminals) and the last round keep being updated.
    solver = pokerlab.make_solver(
        leduc, "es-mccfr", regret_pruning=True, prune_threshold=np.inf, prune_probability=1.0
    )
    plain = pokerlab.make_solver(leduc, "es-mccfr")
    solver.step(2000)
    plain.step(2000)
    assert solver.min_regret is None  # no Pluribus floor below an infinite threshold
    assert solver.nodes_touched < 0.5 * plain.nodes_touched
    a = solver.compiled.tree.arrays
    into_terminal = np.zeros(solver.compiled.size, dtype=bool)
    for n in np.flatnonzero(a.kind == 0):
        off = a.info_offset[a.infoset[n]]
        for k, c in enumerate(a.children[a.child_start[n] : a.child_start[n + 1]]):
            into_terminal[off + k] |= a.kind[c] == H_TERMINAL
    assert np.count_nonzero(solver.regrets[into_terminal]) > 50
    last_round = [k for k, key in enumerate(solver.compiled.index.keys) if "|" in key]
    positions = np.concatenate([solver.compiled.index.positions(k) for k in last_round])
    assert np.count_nonzero(solver.regrets[positions]) > 50


@pytest.mark.parametrize("variant", ["cs-mccfr", "es-mccfr"])
def test_pruning_and_linear_discounting_keep_the_fixed_point(variant, leduc) -> None:
    results = {}
    for prune in (False, True):
        for linear_until in (None, 20_000):
            solver = pokerlab.make_solver(
                leduc, variant, seed=1, regret_pruning=prune, linear_until=linear_until
            )
            solver.step(100_000)
            strategy = solver.average_strategy()
            results[prune, linear_until] = solver.nodes_touched
            assert pokerlab.exploitability(leduc, strategy) < 0.1
            value = pokerlab.expected_values(leduc, strategy)[0]
            assert value == pytest.approx(-0.0856, abs=0.02)
    # pruning skips work: fewer nodes touched for the same iterations
    assert results[True, None] < 0.95 * results[False, None]


def test_same_seed_same_result_different_seed_differs(kuhn) -> None:
    runs = {}
    for variant in VARIANTS:
        for seed in (3, 3, 4):
            solver = pokerlab.make_solver(kuhn, variant, seed=seed)
            solver.step(500)
            runs.setdefault((variant, seed), []).append(solver.strat_sum.copy())
        same = runs[variant, 3]
        np.testing.assert_array_equal(same[0], same[1])
        assert not np.array_equal(same[0], runs[variant, 4][0])
    gen = np.random.default_rng(9)
    a = pokerlab.make_solver(kuhn, "es-mccfr", seed=gen)
    b = pokerlab.make_solver(kuhn, "es-mccfr", seed=np.random.default_rng(9))
    assert a.seed == b.seed


@pytest.mark.parametrize("variant", VARIANTS)
def test_resume_equals_uninterrupted_run(variant, leduc, tmp_path) -> None:
    options = dict(seed=7, linear_until=1500, discount_every=64)
    if variant != "os-mccfr":  # outcome sampling follows one action: nothing to prune
        options.update(regret_pruning=True, prune_threshold=-20.0)
    straight = pokerlab.make_solver(leduc, variant, **options)
    straight.step(3000)
    first = pokerlab.make_solver(leduc, variant, **options)
    first.step(1234)  # stops inside a discount block
    path = tmp_path / "run.ckpt.npz"
    pokerlab.save_checkpoint(path, first.state_dict())
    resumed = restore_solver(pokerlab.load_checkpoint(path))
    assert isinstance(resumed, MCCFRSolver) and resumed.algorithm == variant
    resumed.step(1000)
    resumed.step(766)
    assert resumed.iterations == 3000
    assert resumed.nodes_touched == straight.nodes_touched
    for name in ("regrets", "strat_sum", "rng"):
        np.testing.assert_array_equal(getattr(resumed, name), getattr(straight, name))


def test_linear_seconds_freezes_and_resumes_exactly(kuhn) -> None:
    solver = pokerlab.make_solver(kuhn, "es-mccfr", linear_seconds=0.02, discount_every=10)
    solver.solve(seconds=0.1)
    reached = solver.linear_until_reached
    assert reached is not None and reached % 10 == 0 and 0 < reached < solver.iterations
    state = solver.state_dict()
    twin = restore_solver(state)
    assert twin.linear_until_reached == reached
    solver.step(1000)
    twin.step(1000)
    np.testing.assert_array_equal(solver.regrets, twin.regrets)


def test_bad_settings_are_refused(kuhn) -> None:
    with pytest.raises(pokerlab.PokerlabError, match="epsilon"):
        pokerlab.make_solver(kuhn, "os-mccfr", epsilon=0.0)
    with pytest.raises(pokerlab.PokerlabError, match="discount_every"):
        pokerlab.make_solver(kuhn, "es-mccfr", discount_every=0)
    with pytest.raises(pokerlab.PokerlabError, match="es-mccfr"):
        pokerlab.make_solver(kuhn, "xs-mccfr")
    state = pokerlab.make_solver(kuhn, "es-mccfr", seed=1).state_dict()
    with pytest.raises(pokerlab.PokerlabError):
        pokerlab.make_solver(kuhn, "es-mccfr", seed=2).load_state_dict(state)


def test_solve_reports_nodes_touched_and_exploitability(leduc) -> None:
    solver = pokerlab.make_solver(leduc, "es-mccfr")
    seen = []
    result = solver.solve(iterations=30_000, callback=seen.append)
    assert [p.iterations for p in seen] == [0, 10_000, 20_000, 30_000]
    assert all(b.nodes_touched > a.nodes_touched for a, b in zip(seen, seen[1:], strict=False))
    assert result.exploitability == pytest.approx(solver.exploitability())
    assert result.nodes_touched == solver.nodes_touched
