"""Limit hold'em training on Ray actors (issue 10): the same numbers as one process."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab import load_game
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.solvers.limit_holdem import LimitPCSSolver

ray = pytest.importorskip("ray")

from pokerlab.distributed.limit_ray import RayLimitPCSSolver, compact_layout  # noqa: E402


@pytest.fixture(scope="module")
def setup():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    game = load_game("limit-holdem", variant="small", raise_caps=[1, 1, 1, 1])
    yield game, build_abstraction(6, (4, 4, 4, 4), "ehs", cache=False)
    ray.shutdown()


def test_layout_covers_every_slot_once(setup) -> None:
    game, abstraction = setup
    solver = LimitPCSSolver(game, abstraction, recall="perfect", workers=3, split_round=1)
    owners = [-1, 0, 1, 2]
    slots = np.concatenate(
        [
            compact_layout(solver.tree, solver.offset, solver.num_states, solver.state._owner, w)[1]
            for w in owners
        ]
    )
    np.testing.assert_array_equal(np.sort(slots), np.arange(solver.size))


@pytest.mark.parametrize(
    "algorithm,workers,split,boards",
    [("cfr+", 2, 0, 1), ("pcfr+", 2, 1, 1), ("dcfr", 1, 0, 1), ("cfr+", 2, 0, 3)],
)
def test_ray_run_equals_one_process(
    setup, algorithm: str, workers: int, split: int, boards: int
) -> None:
    """Bit-identical regrets, sums and predictions after a few iterations (one board per
    iteration, or a batch of three), and a checkpoint of the Ray run resumed in one process
    (and back) goes on exactly as the straight run."""
    game, abstraction = setup
    kwargs = {"recall": "perfect", "algorithm": algorithm, "boards_per_iteration": boards}
    one = LimitPCSSolver(game, abstraction, seed=11, **kwargs)
    one.step(5)
    dist = RayLimitPCSSolver(
        game, abstraction, seed=11, workers=workers, split_round=split, **kwargs
    )
    try:
        assert len(dist.worker_bytes) == workers and min(dist.worker_bytes) > 0
        # the head keeps only its nodes' numbers; the actors hold the rest
        assert dist.state._head_slots.size + sum(s.size for s in dist.state._slots) == one.size
        dist.step(5)
        busy = dist.worker_busy_seconds()  # each actor's seconds in passes, then reset
        assert len(busy) == workers and min(busy) > 0
        assert max(dist.worker_busy_seconds()) == 0.0
        np.testing.assert_array_equal(dist.regrets, one.regrets)
        np.testing.assert_array_equal(dist.sums, one.sums)
        np.testing.assert_array_equal(dist.prediction, one.prediction)
        state = dist.state_dict()
        back = LimitPCSSolver(game, abstraction, seed=0, **kwargs)
        back.load_state_dict(state)
        back.step(3)
        one.step(3)
        np.testing.assert_array_equal(back.regrets, one.regrets)
        dist.load_state_dict(back.state_dict())
        dist.step(2)
        one.step(2)
        np.testing.assert_array_equal(dist.regrets, one.regrets)
        np.testing.assert_array_equal(dist.average_strategy().probs, one.average_strategy().probs)
    finally:
        dist.close()


def test_cli_ray_workers_equal_threads(setup, capsys, tmp_path, monkeypatch) -> None:
    """``pokerlab train ... --ray --workers 2 --boards 2`` (a batch of two boards per
    iteration) writes the checkpoint a thread run writes, and reports the load of each worker;
    a bad or silent address is refused at once."""
    import json

    from pokerlab.cli.main import main
    from pokerlab.io.files import load_checkpoint

    monkeypatch.setenv("POKERLAB_CACHE_DIR", str(tmp_path))
    base = ["train", "limit-holdem", "--variant", "tiny", "--buckets", "3,3,3,3", "-n", "6"]
    base += ["--workers", "2", "--seed", "3", "--no-exploitability", "--json", "--boards", "2"]
    ray_file, thread_file = tmp_path / "ray.npz", tmp_path / "threads.npz"
    assert main([*base, "--ray", "--checkpoint", str(ray_file)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ray"] is True and len(out["worker_nodes"]) == 2 and out["iterations"] == 6
    assert out["boards_per_iteration"] == 2
    assert main([*base, "--checkpoint", str(thread_file)]) == 0
    assert json.loads(capsys.readouterr().out)["ray"] is False
    a, b = load_checkpoint(ray_file), load_checkpoint(thread_file)
    np.testing.assert_array_equal(a["arrays"]["regrets"], b["arrays"]["regrets"])
    np.testing.assert_array_equal(a["arrays"]["sums"], b["arrays"]["sums"])
    for address, needle in (("nohost", "'nohost' is not host:port"), ("127.0.0.1:1", "answers")):
        assert main(["train", "limit-holdem", "--address", address]) == 2
        err = capsys.readouterr().err
        assert needle in err and "Traceback" not in err


@pytest.mark.parametrize(
    "algorithm,workers,split", [("cfr+", 2, 1), ("pcfr+", 2, 0), ("dcfr", 1, 0)]
)
def test_ray_every_board_equals_one_process(
    setup, algorithm: str, workers: int, split: int
) -> None:
    """chance="full" on Ray actors (the head's cut passes, the actors' subtrees over every
    canonical board, their entries sent once): bit-identical to one process."""
    game = load_game("limit-holdem", variant="micro", raise_caps=[1, 1, 1, 1])
    abstraction = build_abstraction(3, (3, 3, 3, 3), "ehs", cache=False)
    kwargs = {"recall": "perfect", "algorithm": algorithm, "chance": "full"}
    one = LimitPCSSolver(game, abstraction, **kwargs)
    one.step(3)
    dist = RayLimitPCSSolver(game, abstraction, workers=workers, split_round=split, **kwargs)
    try:
        assert dist.full_boards == 786
        dist.step(3)
        for name in ("regrets", "sums", "prediction"):
            assert np.array_equal(getattr(one, name), getattr(dist, name)), name
        assert np.array_equal(one.state._root, dist.state._root)
    finally:
        dist.close()
