"""External-sampling MCCFR on Ray workers (issue 10): one worker is the serial run, two are
deterministic and converge like it."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab import load_game
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.limit_abstract import abstract_exploitability_mbb, joint_bucket_tables
from pokerlab.solvers.limit_mccfr import LimitESSolver

ray = pytest.importorskip("ray")

from pokerlab.distributed.limit_mccfr_ray import RayLimitESSolver  # noqa: E402


@pytest.fixture(scope="module")
def setup():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    game = load_game("limit-holdem", variant="tiny", raise_caps=[1, 1, 1, 1])
    abstraction = build_abstraction(4, (4, 4, 4, 4), "ehs", cache=False)
    yield game, abstraction, joint_bucket_tables(abstraction)
    ray.shutdown()


def test_one_worker_equals_the_serial_run(setup) -> None:
    """Batches of 7 across discount blocks of 5, with pruning, uneven step sizes: the one-worker
    Ray run's arrays and generator equal the serial run's bit for bit."""
    game, abstraction, _ = setup
    kwargs = {"algorithm": "linear", "discount_every": 5, "regret_pruning": True, "seed": 8}
    serial = LimitESSolver(game, abstraction, **kwargs)
    serial.step(200)
    dist = RayLimitESSolver(game, abstraction, workers=1, batch=7, **kwargs)
    try:
        dist.step(13)
        dist.step(187)
        assert dist.iterations == 200
        np.testing.assert_array_equal(dist.regrets, serial.regrets)
        np.testing.assert_array_equal(dist.sums, serial.sums)
        np.testing.assert_array_equal(dist.rng, serial.rng)
        assert dist.nodes_touched == serial.nodes_touched
    finally:
        dist.close()


def test_two_workers_are_deterministic_and_converge(setup) -> None:
    """Two workers: 100,000 worker iterations cut the exact abstract exploitability as the
    serial run does (1612 mbb/g uniform); the run resumed from its checkpoint at 20,000 equals
    the straight run bit for bit (the batches depend only on the seed, the worker count and the
    batch size); another seed gives other arrays; a checkpoint of another worker count is
    refused."""
    game, abstraction, tables = setup
    kwargs = {"recall": "perfect", "discount_every": 2000, "batch": 2000}
    dist = RayLimitESSolver(game, abstraction, workers=2, seed=1, **kwargs)
    other = RayLimitESSolver(game, abstraction, workers=2, seed=2, **kwargs)
    try:
        dist.step(20_000)
        other.step(20_000)
        assert not np.array_equal(dist.regrets, other.regrets)
        state = dist.state_dict()
        dist.step(80_000)
        straight = (dist.regrets.copy(), dist.sums.copy(), dist.worker_rngs.copy())
        end = abstract_exploitability_mbb(dist, tables)
        serial = LimitESSolver(game, abstraction, recall="perfect", seed=1, discount_every=2000)
        serial.step(100_000)
        reference = abstract_exploitability_mbb(serial, tables)
        assert end < 1612 / 10 and end < 1.5 * reference
        dist.load_state_dict(state)
        assert dist.iterations == 20_000
        dist.step(80_000)
        for a, b in zip((dist.regrets, dist.sums, dist.worker_rngs), straight, strict=True):
            np.testing.assert_array_equal(a, b)
        state["arrays"]["worker_rngs"] = np.zeros((3, 4), dtype=np.uint64)
        with pytest.raises(PokerlabError, match="another number of workers"):
            dist.load_state_dict(state)
    finally:
        dist.close()
        other.close()


@pytest.mark.parametrize("kwargs,needle", [({"workers": 0}, "workers"), ({"batch": 0}, "batch")])
def test_bad_ray_options_are_refused(setup, kwargs: dict, needle: str) -> None:
    game, abstraction, _ = setup
    with pytest.raises(PokerlabError, match=needle):
        RayLimitESSolver(game, abstraction, **kwargs)


def test_cli_es_on_one_ray_worker_equals_serial(setup, capsys, tmp_path, monkeypatch) -> None:
    """``pokerlab train limit-holdem --sampling es --ray --workers 1 --batch 300`` writes the
    checkpoint arrays of the serial ``--sampling es`` run, and reports sampling and ray."""
    import json

    from pokerlab.cli.main import main
    from pokerlab.io.files import load_checkpoint

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    base = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "3,3,3,3", "-n", "2000"]
    base += ["--sampling", "es", "--seed", "6", "--no-exploitability", "--json"]
    ray_file, serial_file = tmp_path / "ray.npz", tmp_path / "serial.npz"
    args = ["--ray", "--workers", "1", "--batch", "300", "--checkpoint", str(ray_file)]
    assert main([*base, *args]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ray"] is True and out["sampling"] == "es" and out["iterations"] == 2000
    assert main([*base, "--checkpoint", str(serial_file)]) == 0
    capsys.readouterr()
    a, b = load_checkpoint(ray_file), load_checkpoint(serial_file)
    for name in ("regrets", "sums", "rng"):
        np.testing.assert_array_equal(a["arrays"][name], b["arrays"][name])


def test_ray_actors_equal_threads_and_train_the_blueprint(setup) -> None:
    """The batches' arithmetic is the head's: two Ray actors give the two-thread run's arrays
    bit for bit (limit hold'em), and one actor trains the no-limit blueprint exactly as the
    serial :class:`BlueprintSolver` does."""
    from pokerlab.distributed.limit_mccfr_ray import RayBlueprintSolver
    from pokerlab.solvers.batched import ThreadedLimitESSolver
    from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction

    game, abstraction, _ = setup
    kwargs = {"discount_every": 300, "batch": 200, "seed": 4, "regret_pruning": True}
    threads = ThreadedLimitESSolver(game, abstraction, workers=2, **kwargs)
    threads.step(3000)
    actors = RayLimitESSolver(game, abstraction, workers=2, **kwargs)
    try:
        actors.step(3000)
        for a, b in zip(
            (actors.regrets, actors.sums, actors.worker_rngs),
            (threads.regrets, threads.sums, threads.worker_rngs),
            strict=True,
        ):
            np.testing.assert_array_equal(a, b)
        assert actors.nodes_touched == threads.nodes_touched
    finally:
        actors.close()
        threads.close()
    nl = load_game("nolimit-holdem", actions="fcpa", ranks=2, rounds=2, stack=300)
    lossless = lossless_abstraction(2)
    serial = BlueprintSolver(nl, lossless, seed=2, discount_every=100)
    serial.step(2000)
    ray_bp = RayBlueprintSolver(nl, lossless, workers=1, batch=150, seed=2, discount_every=100)
    try:
        ray_bp.step(2000)
        np.testing.assert_array_equal(ray_bp.regrets, serial.regrets)
        np.testing.assert_array_equal(ray_bp.sums, serial.sums)
    finally:
        ray_bp.close()
