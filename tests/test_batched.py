"""Batched external-sampling MCCFR on threads (issue 24, Pluribus' parallel training made
reproducible): one thread is the serial run bit for bit, two threads are deterministic, resume
exactly and converge; the blueprint trains on them. (Ray's actors against these threads:
tests/test_limit_mccfr_ray.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.blueprint import history_strategy
from pokerlab.solvers.batched import ThreadedBlueprintSolver, ThreadedLimitESSolver
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction
from pokerlab.solvers.limit_mccfr import LimitESSolver


@pytest.fixture(scope="module")
def limit():
    game = pokerlab.load_game("limit-holdem", variant="tiny", raise_caps=[1, 1, 1, 1])
    return game, build_abstraction(4, (4, 4, 4, 4), "ehs", cache=False)


def _tiny() -> pokerlab.HistoryGame:
    return pokerlab.load_game("nolimit-holdem", actions="fcpa", ranks=2, rounds=2, stack=300)


def test_one_thread_equals_the_serial_run(limit) -> None:
    """Batches of 7 across discount blocks of 5, with pruning, uneven step sizes: arrays,
    generator and node count equal the serial run's bit for bit."""
    game, abstraction = limit
    kwargs = {"algorithm": "linear", "discount_every": 5, "regret_pruning": True, "seed": 8}
    serial = LimitESSolver(game, abstraction, **kwargs)
    serial.step(200)
    threaded = ThreadedLimitESSolver(game, abstraction, workers=1, batch=7, **kwargs)
    threaded.step(13)
    threaded.step(187)
    assert threaded.iterations == 200
    np.testing.assert_array_equal(threaded.regrets, serial.regrets)
    np.testing.assert_array_equal(threaded.sums, serial.sums)
    np.testing.assert_array_equal(threaded.rng, serial.rng)
    assert threaded.nodes_touched == serial.nodes_touched


def test_two_threads_train_the_blueprint_deterministically() -> None:
    """The 8-card fcpa blueprint on two threads: 100,000 worker iterations bring the exact
    exploitability (43.8 chips uniform) below 0.1 chips, as the serial run does; the same seed
    gives the same arrays, the run resumed from its state at 30,000 equals the straight
    run bit for bit, and a checkpoint of one thread is refused by name."""
    game, abstraction = _tiny(), lossless_abstraction(2)
    kwargs = {"seed": 3, "discount_every": 500, "batch": 500}
    a = ThreadedBlueprintSolver(game, abstraction, workers=2, **kwargs)
    b = ThreadedBlueprintSolver(game, abstraction, workers=2, **kwargs)
    a.step(30_000)
    b.step(30_000)
    np.testing.assert_array_equal(a.regrets, b.regrets)
    state = a.state_dict()
    a.step(70_000)
    assert a.iterations == 100_000 and a.workers == 2
    exploit = pokerlab.exploitability(game, history_strategy(a.average_strategy(), abstraction))
    assert exploit < 0.1
    b.load_state_dict(state)
    b.step(70_000)
    for x, y in zip(
        (a.regrets, a.sums, a.worker_rngs), (b.regrets, b.sums, b.worker_rngs), strict=True
    ):
        np.testing.assert_array_equal(x, y)
    one = ThreadedBlueprintSolver(game, abstraction, workers=1, **kwargs)
    with pytest.raises(PokerlabError, match="another number of workers"):
        one.load_state_dict(state)
    serial = BlueprintSolver(game, abstraction, seed=3, discount_every=500)
    with pytest.raises(PokerlabError, match="2 batched workers"):
        serial.load_state_dict(state)
    a.close()
    b.close()


@pytest.mark.parametrize("kwargs,needle", [({"workers": 0}, "workers"), ({"batch": 1.5}, "batch")])
def test_bad_thread_options_are_refused(kwargs: dict, needle: str) -> None:
    with pytest.raises(PokerlabError, match=needle):
        ThreadedBlueprintSolver(_tiny(), lossless_abstraction(2), **kwargs)


def test_cli_trains_on_two_threads_and_resumes_only_with_them(tmp_path, capsys) -> None:
    """``pokerlab blueprint train --threads 2``: two workers in the JSON, a resume with the same
    threads reaches the total (the checkpoint's batch and discount block unless given; without a
    checkpoint both are ``BATCH``), a resume on one thread or Ray options without --ray are refused
    in one line with exit code 2."""
    import json

    from pokerlab.cli.blueprint_train import BATCH
    from pokerlab.cli.main import main
    from pokerlab.io.files import load_checkpoint

    config = tmp_path / "tiny.toml"
    config.write_text('base = "fcpa"\nranks = 2\nrounds = 2\nstack = 300\n')
    ckpt = tmp_path / "bp.npz"
    base = ["blueprint", "train", str(config), "--bucketing", "lossless", "--checkpoint", str(ckpt)]
    assert main([*base, "-n", "2000", "--threads", "2", "--batch", "250", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["workers"] == 2 and out["iterations"] == 2000 and out["ray"] is False
    state = load_checkpoint(ckpt)  # with workers, the discount block is the batch by default
    assert (state["extra"]["batch"], state["config"]["discount_every"]) == (250, 250)
    more = [*base, "-n", "3000", "--resume", "--json"]
    assert main([*more, "--threads", "2"]) == 0  # the checkpoint's batch and block
    assert json.loads(capsys.readouterr().out)["iterations"] == 3000
    fresh = tmp_path / "fresh.npz"
    args = [*base[:-1], str(fresh), "-n", "500", "--threads", "2", "--json"]
    assert main(args) == 0 and json.loads(capsys.readouterr().out)["workers"] == 2
    state = load_checkpoint(fresh)
    assert (state["extra"]["batch"], state["config"]["discount_every"]) == (BATCH, BATCH)
    cases = [
        ([*base, "-n", "4000", "--resume"], "2 batched workers"),
        ([*base, "--workers", "2"], "--workers counts Ray actors"),
        ([*base, "--batch", "10"], "--batch is the batch"),
    ]
    for args, message in cases:
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err


def test_snapshots_average_the_current_strategy_after_the_preflop() -> None:
    """``averages="preflop"`` with snapshots every 700 iterations after 1,000: the blueprint's
    later-round rows are the mean of the current strategies seen at iterations 1,700, 2,400 and
    3,100 (recorded here by stepping a twin run to those points), whatever the step sizes; the
    preflop rows are the normalised sums; the state resumes with the snapshots; two threads take
    snapshots too."""
    game, abstraction = _tiny(), lossless_abstraction(2)
    kwargs = {"seed": 5, "discount_every": 100, "averages": "preflop"}
    solver = BlueprintSolver(game, abstraction, snapshot_every=700, snapshot_after=1000, **kwargs)
    solver.step(333)
    solver.step(3000)
    assert solver.snapshots_taken == 3 and solver.iterations == 3333
    twin = BlueprintSolver(game, abstraction, **kwargs)
    seen = []
    for point in (1700, 2400, 3100):
        twin.step(point - twin.iterations)
        seen.append(twin.current_strategy().probs)
    twin.step(3333 - twin.iterations)
    np.testing.assert_array_equal(twin.regrets, solver.regrets)
    probs = solver.average_strategy().probs
    later = np.ones(solver.size, dtype=bool)
    later[solver._kept_positions()] = False
    want = solver.layout.normalise(np.sum([s.astype(np.float32) for s in seen], axis=0))
    np.testing.assert_allclose(probs[later], want[later], atol=1e-6)
    assert not np.allclose(probs[later], twin.current_strategy().probs[later], atol=1e-3)
    state = solver.state_dict()
    back = BlueprintSolver(game, abstraction, snapshot_every=700, snapshot_after=1000, **kwargs)
    back.load_state_dict(state)
    np.testing.assert_array_equal(back.average_strategy().probs, probs)
    with pytest.raises(PokerlabError, match="snapshot_every"):
        BlueprintSolver(game, abstraction, snapshot_every=0)
    one = ThreadedBlueprintSolver(game, abstraction, workers=1, batch=300, **kwargs)
    one.step(3333)  # sums on the preflop only: the head discounts each array over its own size
    np.testing.assert_array_equal(one.regrets, twin.regrets)
    np.testing.assert_array_equal(one.sums, twin.sums)
    two = ThreadedBlueprintSolver(game, abstraction, workers=2, snapshot_every=500, **kwargs)
    two.step(2001)
    assert two.iterations == 2002 and two.snapshots_taken == 4
    two.close()
