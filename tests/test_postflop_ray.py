"""Postflop chance subtrees on Ray actors: the same numbers as one process, bit for bit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from pokerlab import load_game
from pokerlab.errors import PokerlabError
from pokerlab.solvers.postflop import PostflopSolver, load_spot_solution, save_spot_solution

ray = pytest.importorskip("ray")

from pokerlab.distributed.postflop_ray import RayPostflopSolver  # noqa: E402
from pokerlab.distributed.postflop_ray_worker import items_layout  # noqa: E402
from pokerlab.tree.executors import chunks  # noqa: E402
from pokerlab.tree.vector.passes import item_costs  # noqa: E402

#: a turn spot of a few hands per range (benchmarks/search.py's QUICK_SPOT style)
TURN = dict(
    board="Td9d6hQc",
    ranges=("AA,KK,QQ,AK,KQs", "TT,99,AQs,QJs"),
    pot=100,
    stack=300,
    bets="75%, a",
    raises="a",
)
#: a flop spot small enough for a test (the split is the turn card)
FLOP = dict(board="Td9d6h", ranges=("AA,KK", "QQ,JJ"), pot=100, stack=200, bets="a", raises="a")


@pytest.fixture(scope="module")
def games():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield {"turn": load_game("postflop", **TURN), "flop": load_game("postflop", **FLOP)}
    ray.shutdown()


def _arrays(solver) -> dict[str, np.ndarray]:
    return solver.state_dict()["arrays"]


def _assert_same(a, b) -> None:
    sa, sb = _arrays(a), _arrays(b)
    assert sorted(sa) == sorted(sb)
    for name in sa:
        assert sa[name].dtype == sb[name].dtype
        assert np.array_equal(sa[name], sb[name]), name
    assert a.nodes_touched == b.nodes_touched and a.iterations == b.iterations


def test_layout_covers_every_subtree_slot_once(games) -> None:
    tree = games["turn"].expanded.tree
    costs = item_costs(tree)
    slots = [items_layout(tree, ids, costs)[1] for ids in chunks(costs, 3)]
    every = np.concatenate(slots)
    assert every.size == np.unique(every).size  # no slot owned twice
    top = np.setdiff1d(np.arange(tree.size), every)  # the head's nodes above the split
    assert 0 < top.size < tree.size // 10


@pytest.mark.parametrize(
    "spot,algorithm,workers,compressed",
    [
        ("turn", "dcfr", 2, False),
        ("turn", "dcfr-ps", 2, False),
        ("turn", "pdcfr+", 3, False),
        ("turn", "dcfr-ps", 2, True),
        ("flop", "dcfr-ps", 2, False),
    ],
)
def test_ray_run_equals_one_process(
    games, spot: str, algorithm: str, workers: int, compressed: bool
) -> None:
    """Regrets, strategy sums (predictions, 16-bit scales) equal bit for bit after a few
    iterations, and so do the exploitability and the EVs, measured on the actors."""
    game = games[spot]
    one = PostflopSolver(game, algorithm, threads=1, compressed=compressed)
    one.step(3)
    dist = RayPostflopSolver(game, algorithm, workers=workers, compressed=compressed)
    try:
        assert dist.workers == workers and min(dist.worker_bytes) > 0
        dist.step(3)
        assert dist.values() == one.values()  # before any gather: the passes on the actors
        assert dist.exploitability() == one.exploitability()
        _assert_same(one, dist)
        busy = dist.worker_busy_seconds()
        assert len(busy) == workers and min(busy) > 0
        a, b = one.average_strategy().node(""), dist.average_strategy().node("")
        assert np.array_equal(a.strategy, b.strategy)
        assert np.array_equal(a.ev[0], b.ev[0], equal_nan=True)
    finally:
        dist.close()


def test_checkpoints_cross_between_ray_and_one_process(games, tmp_path) -> None:
    """A Ray solve saved is the one-process file; each resumes on the other exactly."""
    game = games["turn"]
    straight = PostflopSolver(game, "dcfr", threads=1)
    straight.step(4)
    dist = RayPostflopSolver(game, "dcfr", workers=2)
    try:
        dist.step(2)
        save_spot_solution(tmp_path / "ray.npz", dist)
        half = PostflopSolver(game, "dcfr", threads=2)
        half.step(2)
        save_spot_solution(tmp_path / "one.npz", half)
        _assert_same(load_spot_solution(tmp_path / "ray.npz"), half)
        # Ray -> one process
        resumed = load_spot_solution(tmp_path / "ray.npz")
        resumed.step(2)
        _assert_same(resumed, straight)
        # one process -> Ray (a fresh Ray solver loads the one-process state)
        dist2 = RayPostflopSolver(game, "dcfr", workers=3)
        try:
            dist2.load_state_dict(load_spot_solution(tmp_path / "one.npz").state_dict())
            dist2.step(2)
            _assert_same(dist2, straight)
        finally:
            dist2.close()
    finally:
        dist.close()


def test_refusals(games) -> None:
    river = load_game("postflop", **{**TURN, "board": "Td9d6hQc2s"})
    with pytest.raises(PokerlabError, match="river spot"):
        RayPostflopSolver(river)
    with pytest.raises(PokerlabError, match="workers must be a positive integer"):
        RayPostflopSolver(games["turn"], workers=0)
    dist = RayPostflopSolver(games["turn"], "dcfr", workers=2)
    try:
        with pytest.raises(PokerlabError, match="node locking is not supported with Ray"):
            dist.lock("", {"check": 1.0})
        with pytest.raises(PokerlabError, match="no thread count"):
            dist.set_threads(2)
        locked = PostflopSolver(games["turn"], "dcfr")
        locked.lock("", {"check": 1.0})
        with pytest.raises(PokerlabError, match="the state holds node locks"):
            dist.load_state_dict(locked.state_dict())
    finally:
        dist.close()


def test_cli_ray_matches_threads(games, capsys) -> None:
    """``pokerlab postflop --ray --workers 2`` prints the numbers of the run on threads; bad
    combinations are refused naming the option."""
    from pokerlab.cli.main import main

    flags = [
        "postflop", "--board", TURN["board"], "--oop-range", TURN["ranges"][0], "--ip-range",
        TURN["ranges"][1], "--pot", "100", "--stack", "300", "--bets", "75%, a", "--raises", "a",
        "-n", "3", "--json",
    ]  # fmt: skip

    def run(*extra: str) -> tuple[int, str, str]:
        try:
            code = main([*flags, *extra])
        except SystemExit as exc:
            code = exc.code
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, _ = run("--ray", "--workers", "2")
    assert code == 0
    on_ray = json.loads(out)
    code, out, _ = run("--threads", "2")
    on_threads = json.loads(out)
    assert on_ray["ray_workers"] == 2
    for key in ("exploitability", "exploitability_pct", "ev", "equity", "root", "iterations"):
        assert on_ray[key] == on_threads[key], key
    code, _, err = run("--workers", "2")
    assert code == 2 and "--workers 2 is the number of Ray actors" in err
    code, _, err = run("--ray", "--threads", "2")
    assert code == 2 and "--threads 2 with --ray" in err
    code, _, err = run("--address", "127.0.0.1:1")
    assert code == 2 and "no Ray cluster answers at '127.0.0.1:1'" in err
