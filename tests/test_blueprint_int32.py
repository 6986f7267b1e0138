"""The blueprint's int32 regrets (issue 24, Pluribus' 4-byte integer regrets): the scale, the
store (rounded, floored, saturated), convergence and closeness to float32 on the 8-card game,
threads and Ray equal to the serial run, exact integer merges, the dtype in checkpoints and on
the command line. (Exact resume with int32: tests/test_blueprint.py.)"""

from __future__ import annotations

import json

import numpy as np
import pytest

import pokerlab
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.blueprint import history_strategy
from pokerlab.solvers.batched import ThreadedBlueprintSolver
from pokerlab.solvers.blueprint import (
    BlueprintSolver,
    int32_regret_scale,
    lossless_abstraction,
)
from pokerlab.tree._primitives import INT32_MAX, INT32_MIN, discount_range, store_regret


def _tiny() -> pokerlab.HistoryGame:
    """Heads-up, 8 cards, two rounds, fold / call / pot / all-in, 300 chips (3 big blinds)."""
    return pokerlab.load_game("nolimit-holdem", actions="fcpa", ranks=2, rounds=2, stack=300)


def _three() -> pokerlab.HistoryGame:
    return pokerlab.load_game(
        "nolimit-holdem", players=3, stack=1000, ranks=3, rounds=2, actions="fcpa"
    )


def _exploitability(game, solver: BlueprintSolver, abstraction) -> float:
    return pokerlab.exploitability(game, history_strategy(solver.average_strategy(), abstraction))


def test_scale_is_a_power_of_two_with_16384_stacks_of_headroom() -> None:
    """256 units a chip at 300-chip stacks, 8 at 10,000, 4 at ACPC's 20,000, 1/16 at two
    million; 16,384 stacks fit under the int32 maximum and twice the scale would not."""
    for stack, scale in ((300, 256.0), (10_000, 8.0), (20_000, 4.0), (2_000_000, 0.0625)):
        assert int32_regret_scale(stack) == scale
        assert scale * 16384 * stack <= INT32_MAX < 2 * scale * 16384 * stack
    with pytest.raises(PokerlabError, match="largest stack"):
        int32_regret_scale(0)


def test_store_rounds_half_to_even_and_saturates() -> None:
    """The store into an int32 array rounds to the nearest integer and saturates at the int32
    range instead of wrapping; a float32 array takes the value as it is. The Linear CFR discount
    rounds its products back (7 * 0.5 = 3.5 -> 4, -10 * 0.25 = -2.5 -> -2)."""
    ints = np.zeros(1, dtype=np.int32)
    cases = [(2.5, 2), (3.5, 4), (-2.5, -2), (-0.6, -1), (1e12, INT32_MAX), (-1e12, INT32_MIN)]
    cases.append((INT32_MAX - 0.4, INT32_MAX))
    for x, want in cases:
        store_regret(ints, 0, x)
        assert ints[0] == want, x
    floats = np.zeros(1, dtype=np.float32)
    store_regret(floats, 0, 2.5)
    assert floats[0] == 2.5
    regrets = np.array([10, -10, 7, -7, INT32_MAX, INT32_MIN], dtype=np.int32)
    sums = np.ones(6, dtype=np.float32)
    discount_range(regrets, sums, 0, 6, 0.5, 0.25, 1.0)
    np.testing.assert_array_equal(regrets, [5, -2, 4, -2, 2**30, -(2**29)])


@pytest.fixture(scope="module")
def tiny_pair():
    """float32 and int32 runs of the same seed after 1,000 and 100,000 iterations."""
    game, abstraction = _tiny(), lossless_abstraction(2)
    runs = {}
    for dtype in ("float32", "int32"):
        solver = BlueprintSolver(game, abstraction, seed=1, discount_every=100, regrets=dtype)
        solver.step(1000)
        early = (solver.average_strategy().probs, solver.regrets / solver.regret_scale)
        early_rng = solver.rng.copy()
        solver.step(99_000)
        runs[dtype] = (solver, early, early_rng, _exploitability(game, solver, abstraction))
    return game, abstraction, runs


def test_int32_converges_as_float32(tiny_pair) -> None:
    """Lossless 8-card game, 100,000 iterations: int32 regrets (25,600 units a big blind)
    bring the exact exploitability from 43.8 chips below 0.05, within a factor 3 of float32's
    at the same iterations (measured: 0.0033 int32, 0.0060 float32; over seeds 4-15 the
    median is 0.00050 chips for both, the geometric mean 0.00090 int32 and 0.00098 float32)."""
    _, _, runs = tiny_pair
    solver, _, _, exploit = runs["int32"]
    assert solver.regrets.dtype == np.int32 and solver.regret_scale == 256.0 * 100
    assert exploit < 0.05
    reference = runs["float32"][3]
    assert exploit < 3 * reference and reference < 3 * exploit
    # 4 bytes a regret either way, plus the float32 sums
    assert solver.storage_bytes == runs["float32"][0].storage_bytes == 8 * solver.size


def test_int32_follows_float32_closely(tiny_pair) -> None:
    """After 1,000 iterations of the same seed the two runs drew the same samples (same
    generator state): the regrets agree to 0.001 big blinds and the average strategies to
    1e-4, but not bit for bit (the int32 regrets are rounded)."""
    _, _, runs = tiny_pair
    f_probs, f_regrets = runs["float32"][1]
    i_probs, i_regrets = runs["int32"][1]
    np.testing.assert_array_equal(runs["float32"][2], runs["int32"][2])
    assert np.abs(f_regrets - i_regrets).max() < 1e-3
    assert np.abs(f_probs - i_probs).max() < 1e-4
    assert not np.array_equal(f_regrets, i_regrets)


def test_sampled_values_are_in_big_blinds(tiny_pair) -> None:
    """The kernel's values are in regret units with int32; ``sampled_values`` reports big
    blinds: the int32 run's estimate of its current strategy equals the exact value."""
    game, abstraction, runs = tiny_pair
    solver = runs["int32"][0]
    exact = pokerlab.expected_values(game, history_strategy(solver.current_strategy(), abstraction))
    mean, se = solver.sampled_values(0, 100_000, seed=5)
    assert 0 < se < 0.01
    assert abs(mean - exact[0] / 100.0) < 4 * se


def test_floor_clamps_int32_regrets() -> None:
    """Pruning below -0.5 big blinds with the floor at -0.6: the stored regrets reach the floor,
    round(-0.6 * scale), and never go below it; the threshold is converted alike."""
    game, abstraction = _three(), lossless_abstraction(3)
    solver = BlueprintSolver(
        game,
        abstraction,
        seed=2,
        regret_pruning=True,
        prune_threshold=-0.5,
        min_regret=-0.6,
        regrets="int32",
    )
    floor = round(-0.6 * solver.regret_scale)
    pruning = solver._blocks().pruning
    assert pruning.min_regret == floor and pruning.threshold == -0.5 * solver.regret_scale
    solver.step(3000)
    assert solver.regrets.min() == floor
    assert (solver.regrets == floor).sum() > 100


def test_int32_regrets_saturate_at_the_top() -> None:
    """Regrets set just under the int32 maximum stay at most the maximum after training (the
    store saturates; a wrap would turn them hugely negative)."""
    game, abstraction = _tiny(), lossless_abstraction(2)
    solver = BlueprintSolver(game, abstraction, seed=4, regrets="int32", algorithm="cfr")
    solver.regrets[:] = INT32_MAX - 10
    solver.step(200)
    assert solver.regrets.max() == INT32_MAX
    assert (solver.regrets == INT32_MAX).sum() > 10
    assert solver.regrets.min() > 0


def test_checkpoint_of_another_dtype_is_refused() -> None:
    game, abstraction = _tiny(), lossless_abstraction(2)
    ints = BlueprintSolver(game, abstraction, regrets="int32")
    floats = BlueprintSolver(game, abstraction)
    with pytest.raises(PokerlabError, match="checkpoint has int32 regrets, this solver float32"):
        floats.load_state_dict(ints.state_dict())
    with pytest.raises(PokerlabError, match="checkpoint has float32 regrets, this solver int32"):
        ints.load_state_dict(floats.state_dict())
    state = ints.state_dict()
    state["config"] = {**state["config"], "regret_scale": 8.0}
    with pytest.raises(PokerlabError, match="8.0 units per chip"):
        ints.load_state_dict(state)
    with pytest.raises(PokerlabError, match="regrets must be 'float32' or 'int32'"):
        BlueprintSolver(game, abstraction, regrets="int64")


def test_one_thread_equals_the_serial_int32_run() -> None:
    """Batches of 7 across discount blocks of 5, with pruning and uneven steps: one thread's
    int32 arrays and generator equal the serial int32 run's bit for bit."""
    game, abstraction = _three(), lossless_abstraction(3)
    kwargs = {"discount_every": 5, "regret_pruning": True, "seed": 8, "regrets": "int32"}
    serial = BlueprintSolver(game, abstraction, **kwargs)
    serial.step(200)
    threaded = ThreadedBlueprintSolver(game, abstraction, workers=1, batch=7, **kwargs)
    threaded.step(13)
    threaded.step(187)
    assert threaded.regrets.dtype == np.int32
    np.testing.assert_array_equal(threaded.regrets, serial.regrets)
    np.testing.assert_array_equal(threaded.sums, serial.sums)
    np.testing.assert_array_equal(threaded.rng, serial.rng)
    threaded.close()


def test_two_threads_merge_int32_exactly() -> None:
    """The head adds the workers' integer deltas exactly: regrets near 2**30 (where float32
    steps by 128) move by single units, the sum is floored at the pruning floor and saturated
    at the int32 maximum; two threads are deterministic and train the 8-card game."""
    game, abstraction = _tiny(), lossless_abstraction(2)
    kwargs = {"seed": 3, "discount_every": 500, "batch": 500, "regrets": "int32"}
    kwargs |= {"regret_pruning": True}
    head = ThreadedBlueprintSolver(game, abstraction, workers=2, **kwargs)
    floor = int(head._blocks().pruning.min_regret)
    base = np.full(head.size, 2**30, dtype=np.int32)
    base[:3] = (INT32_MAX - 1, floor + 1, 0)
    head.regrets[:] = base
    up, down = base.copy(), base.copy()
    up[3:] += 1
    down[3:] += 2
    up[:3] = (INT32_MAX, floor, -1)
    down[:3] = (INT32_MAX, floor, 5)
    sums = head.sums.copy()
    head._merge([(up, sums, head.worker_rngs[0], 0), (down, sums, head.worker_rngs[1], 0)])
    np.testing.assert_array_equal(head.regrets[3:], 2**30 + 3)
    assert head.regrets[:3].tolist() == [INT32_MAX, floor, 4]
    head.close()
    a = ThreadedBlueprintSolver(game, abstraction, workers=2, **kwargs)
    b = ThreadedBlueprintSolver(game, abstraction, workers=2, **kwargs)
    a.step(20_000)
    b.step(20_000)
    np.testing.assert_array_equal(a.regrets, b.regrets)
    np.testing.assert_array_equal(a.sums, b.sums)
    assert _exploitability(game, a, abstraction) < 0.5
    a.close()
    b.close()


def test_ray_actors_equal_threads_with_int32() -> None:
    """Two Ray actors train the int32 blueprint to the two-thread run's arrays bit for bit."""
    pytest.importorskip("ray")
    from pokerlab.distributed.limit_mccfr_ray import RayBlueprintSolver

    game, abstraction = _tiny(), lossless_abstraction(2)
    kwargs = {"seed": 5, "discount_every": 300, "batch": 200, "regrets": "int32"}
    threads = ThreadedBlueprintSolver(game, abstraction, workers=2, **kwargs)
    threads.step(3000)
    actors = RayBlueprintSolver(game, abstraction, workers=2, **kwargs)
    try:
        actors.step(3000)
        assert actors.regrets.dtype == np.int32
        np.testing.assert_array_equal(actors.regrets, threads.regrets)
        np.testing.assert_array_equal(actors.sums, threads.sums)
        np.testing.assert_array_equal(actors.worker_rngs, threads.worker_rngs)
    finally:
        actors.close()
        threads.close()


def test_cli_trains_int32_and_refuses_to_resume_as_float32(tmp_path, capsys) -> None:
    """``pokerlab blueprint train --regrets int32``: the checkpoint holds int32 regrets and the
    JSON's bytes are 4 a regret plus the sums; a resume without ``--regrets int32`` and an
    unknown dtype are refused in one line, exit 2."""
    from pokerlab.cli.main import main
    from pokerlab.io.files import load_checkpoint

    config = tmp_path / "tiny.toml"
    config.write_text('base = "fcpa"\nranks = 2\nrounds = 2\nstack = 300\n')
    ckpt = tmp_path / "bp.npz"
    base = ["blueprint", "train", str(config), "--bucketing", "lossless", "--checkpoint", str(ckpt)]
    assert main([*base, "-n", "1000", "--regrets", "int32", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    state = load_checkpoint(ckpt)
    regrets = state["arrays"]["regrets"]
    assert regrets.dtype == np.int32 and state["config"]["regret_scale"] == 256.0
    assert out["bytes"] == 4 * regrets.size + 4 * state["arrays"]["sums"].size
    assert main([*base, "-n", "2000", "--resume", "--regrets", "int32", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["iterations"] == 2000
    for args, message in (
        ([*base, "-n", "3000", "--resume"], "checkpoint has int32 regrets"),
        ([*base, "--regrets", "int16"], "--regrets: unknown 'int16'"),
    ):
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
