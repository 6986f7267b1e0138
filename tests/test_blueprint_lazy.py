"""Lazily allocated rows of the no-limit blueprint (issue 24, Pluribus: memory for an action
sequence allocated when a traversal first reaches it): the same numbers as the dense layout bit
for bit (float32 and int32 regrets, lossless and bucketed, discounting and pruning, averages on
every round or the preflop only, a pool that grows), unreached rows read as uniform, exact
resume from a checkpoint of the used rows, the command line's ``--lazy`` and the refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pokerlab
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.io.files import load_checkpoint, save_checkpoint
from pokerlab.solvers import lazy_rows
from pokerlab.solvers.batched import ThreadedBlueprintSolver
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction, restore_blueprint


def _four_rounds() -> pokerlab.HistoryGame:
    """Heads-up, 12 cards, four rounds, fold / call / pot / all-in, 20 big blinds deep."""
    return pokerlab.load_game("nolimit-holdem", actions="fcpa", ranks=3, rounds=4, stack=2000)


def _three() -> pokerlab.HistoryGame:
    return pokerlab.load_game(
        "nolimit-holdem",
        players=3,
        stack=1000,
        ranks=3,
        rounds=2,
        actions={"preflop": "100%, a", "flop": "100%, a", "raise_cap": 2},
    )


def _assert_same(dense: BlueprintSolver, lazy: BlueprintSolver) -> None:
    """Regrets, strategy sums, the average and the current strategy, generator: bit for bit."""
    np.testing.assert_array_equal(dense.dense_regrets(), lazy.dense_regrets())
    assert lazy.dense_regrets().dtype == dense.dense_regrets().dtype
    np.testing.assert_array_equal(dense.strategy_sum(), lazy.strategy_sum())
    np.testing.assert_array_equal(dense.average_strategy().table, lazy.average_strategy().table)
    np.testing.assert_array_equal(dense.current_strategy().table, lazy.current_strategy().table)
    np.testing.assert_array_equal(dense.rng, lazy.rng)
    assert dense.nodes_touched == lazy.nodes_touched


@pytest.mark.parametrize("regrets", ["float32", "int32"])
def test_lazy_equals_dense_lossless_four_rounds(regrets: str) -> None:
    """12 cards, four rounds, lossless buckets, Linear CFR in blocks of 50 then pruning on: the
    lazy run's numbers are the dense run's, with a fraction of the rows reached."""
    game, abstraction = _four_rounds(), lossless_abstraction(3)
    options = {"seed": 1, "regrets": regrets, "discount_every": 50}
    dense = BlueprintSolver(game, abstraction, **options)
    lazy = BlueprintSolver(game, abstraction, lazy=True, **options)
    for solver in (dense, lazy):
        solver.step(400)
    _assert_same(dense, lazy)
    pool = lazy.pool
    assert 0.0 < pool.fraction_reached < 0.5
    assert pool.rows_reached == int(np.count_nonzero(pool.index >= 0)) > 0
    assert lazy.storage_bytes < dense.storage_bytes
    # pruning, from the same state (Pluribus switched it on later)
    dense = restore_blueprint(dense.state_dict(), abstraction, regret_pruning=True)
    lazy = restore_blueprint(lazy.state_dict(), abstraction, regret_pruning=True)
    assert lazy.lazy and not dense.lazy
    for solver in (dense, lazy):
        solver.step(300)
    _assert_same(dense, lazy)


@pytest.mark.parametrize("regrets", ["float32", "int32"])
def test_lazy_equals_dense_bucketed_preflop_averages_and_growth(regrets: str, monkeypatch) -> None:
    """Three players, E[HS] buckets, averages on the preflop only (the sums keep their dense
    layout), a pool that starts with no spare room and grows many times: still bit for bit."""
    monkeypatch.setattr(lazy_rows, "INITIAL_ENTRIES", 0)
    game = _three()
    abstraction = build_abstraction(3, (6, 5, 5, 5), "ehs", cache=False)
    options = {"seed": 7, "regrets": regrets, "averages": "preflop", "discount_every": 40}
    dense = BlueprintSolver(game, abstraction, **options)
    lazy = BlueprintSolver(game, abstraction, lazy=True, **options)
    start = lazy.pool.capacity
    assert not lazy.pool.sums_in_rows and lazy.sums.size == dense.sums.size
    for steps in (1, 60, 139):
        for solver in (dense, lazy):
            solver.step(steps)
        _assert_same(dense, lazy)
    assert lazy.pool.capacity > start  # it grew
    assert lazy.pool.used <= lazy.pool.capacity


def test_int64_index_equals_dense(monkeypatch) -> None:
    """A pool past 2**31 entries indexes its rows with int64 (forced here on a small game): the
    same numbers."""
    monkeypatch.setattr(lazy_rows, "INT32_INDEX_LIMIT", 0)
    game, abstraction = _three(), lossless_abstraction(3)
    dense = BlueprintSolver(game, abstraction, seed=8, discount_every=30)
    lazy = BlueprintSolver(game, abstraction, seed=8, discount_every=30, lazy=True)
    assert lazy.pool.index.dtype == np.int64
    for solver in (dense, lazy):
        solver.step(100)
    _assert_same(dense, lazy)


def test_unreached_rows_read_uniform_and_sampled_values_agree() -> None:
    """After 5 iterations most rows are unreached: the average and current strategies play
    1 / actions there; the sampled value (no update, the pool's row of zeros) is the dense
    run's and claims nothing."""
    game, abstraction = _four_rounds(), lossless_abstraction(3)
    dense = BlueprintSolver(game, abstraction, seed=3)
    lazy = BlueprintSolver(game, abstraction, seed=3, lazy=True)
    for solver in (dense, lazy):
        solver.step(5)
    layout = lazy.layout
    unreached = lazy.pool.expand(np.ones(lazy.pool.capacity, dtype=np.float32)) == 0
    assert unreached.mean() > 0.5
    uniform = layout.uniform()
    table = lazy.average_strategy().table
    np.testing.assert_array_equal(table[unreached], uniform[unreached])
    np.testing.assert_array_equal(lazy.current_strategy().table[unreached], uniform[unreached])
    used = lazy.pool.used
    assert lazy.sampled_values(0, 300, seed=5) == dense.sampled_values(0, 300, seed=5)
    assert lazy.pool.used == used


@pytest.mark.parametrize("regrets", ["float32", "int32"])
def test_lazy_checkpoint_holds_used_rows_and_resumes_exactly(tmp_path, regrets: str) -> None:
    """A checkpoint of a lazy run holds the index and the used rows only; 150 iterations, saved,
    restored, 150 more equal 300 in one lazy run (and the dense run) bit for bit."""
    game, abstraction = _four_rounds(), lossless_abstraction(3)
    options = {"seed": 2, "regrets": regrets, "discount_every": 100, "lazy": True}
    straight = BlueprintSolver(game, abstraction, **options)
    straight.step(300)
    half = BlueprintSolver(game, abstraction, **options)
    half.step(150)
    path = tmp_path / "lazy.npz"
    save_checkpoint(path, half.state_dict())
    state = load_checkpoint(path)
    arrays = state["arrays"]
    assert state["config"]["lazy"] is True
    assert arrays["regrets"].size == half.pool.used < half.size
    assert arrays["row_index"].size == half.pool.num_slots
    resumed = restore_blueprint(state, abstraction)
    assert resumed.lazy
    resumed.step(150)
    _assert_same(straight, resumed)
    np.testing.assert_array_equal(straight.pool.index, resumed.pool.index)
    assert straight.pool.used == resumed.pool.used
    dense = BlueprintSolver(game, abstraction, **{**options, "lazy": False})
    dense.step(300)
    _assert_same(dense, resumed)


@pytest.mark.parametrize("regrets", ["float32", "int32"])
def test_lazy_threads_equal_dense_threads_and_resume(tmp_path, regrets: str) -> None:
    """Two threads in batches of 30: the lazy run equals the dense run of the same seed, workers
    and batch bit for bit (the head claims its workers' new rows); one thread equals the serial
    lazy run; a checkpoint of the threaded lazy run resumes exactly."""
    game, abstraction = _four_rounds(), lossless_abstraction(3)
    options = {"seed": 5, "regrets": regrets, "discount_every": 45}
    dense = ThreadedBlueprintSolver(game, abstraction, workers=2, batch=30, **options)
    lazy = ThreadedBlueprintSolver(game, abstraction, workers=2, batch=30, lazy=True, **options)
    half = ThreadedBlueprintSolver(game, abstraction, workers=2, batch=30, lazy=True, **options)
    try:
        for solver in (dense, lazy):  # a batched run is cut at the ends of steps
            solver.step(100)
            solver.step(100)
        half.step(100)
        path = tmp_path / "threads.npz"
        save_checkpoint(path, half.state_dict())
        half.close()
        half = ThreadedBlueprintSolver(game, abstraction, workers=2, batch=30, lazy=True, **options)
        half.load_state_dict(load_checkpoint(path))
        half.step(100)
        _assert_same(dense, lazy)
        _assert_same(dense, half)
        np.testing.assert_array_equal(dense.worker_rngs, half.worker_rngs)
        assert lazy.pool.fraction_reached < 1.0 and lazy.iterations == 200
    finally:
        for solver in (dense, lazy, half):
            solver.close()
    serial = BlueprintSolver(game, abstraction, lazy=True, **options)
    one = ThreadedBlueprintSolver(game, abstraction, workers=1, batch=30, lazy=True, **options)
    serial.step(150)
    one.step(150)
    one.close()
    _assert_same(serial, one)
    np.testing.assert_array_equal(serial.pool.index, one.pool.index)


@pytest.mark.parametrize("workers", [1, 2])
def test_lazy_snapshots_equal_dense_and_resume(tmp_path, workers: int) -> None:
    """Averages on the preflop, snapshots of the later rounds every 40 iterations after 20 (rows
    reached between snapshots first get the uniform ones they missed): the average strategy,
    the snapshot sums and a resumed checkpoint equal the dense run's, serial and on 2 threads."""
    game, abstraction = _four_rounds(), lossless_abstraction(3)
    options = {"seed": 6, "averages": "preflop", "snapshot_every": 40, "snapshot_after": 20}

    def solver(lazy: bool) -> BlueprintSolver:
        if workers == 1:
            return BlueprintSolver(game, abstraction, lazy=lazy, **options)
        return ThreadedBlueprintSolver(
            game, abstraction, lazy=lazy, workers=workers, batch=25, **options
        )

    dense, lazy, half = solver(False), solver(True), solver(True)
    for run in (dense, lazy, half):
        run.step(130)
    path = tmp_path / "snap.npz"
    save_checkpoint(path, half.state_dict())
    half.close() if workers > 1 else None
    half = solver(True)
    half.load_state_dict(load_checkpoint(path))
    for run in (dense, lazy, half):
        run.step(110)
    assert dense.snapshots_taken == lazy.snapshots_taken == half.snapshots_taken == 5
    for run in (lazy, half):
        _assert_same(dense, run)
        np.testing.assert_array_equal(dense._later_rounds(), run._later_rounds())
        assert run.pool.fraction_reached < 1.0
    for run in (dense, lazy, half):
        run.close() if workers > 1 else None


def test_lazy_refusals() -> None:
    """A dense checkpoint into a lazy solver (and back) and a non-bool are refused by name; a
    damaged index too."""
    game, abstraction = _three(), lossless_abstraction(3)
    dense_state = BlueprintSolver(game, abstraction).state_dict()
    lazy = BlueprintSolver(game, abstraction, lazy=True)
    lazy.step(10)
    with pytest.raises(PokerlabError, match="dense, this solver's lazy"):
        lazy.load_state_dict(dense_state)
    with pytest.raises(PokerlabError, match="lazy, this solver's dense"):
        BlueprintSolver(game, abstraction).load_state_dict(lazy.state_dict())
    state = lazy.state_dict()
    state["arrays"]["row_index"][0] = 10**6
    with pytest.raises(PokerlabError, match="row_index"):
        BlueprintSolver(game, abstraction, lazy=True).load_state_dict(state)
    with pytest.raises(PokerlabError, match="lazy must be"):
        BlueprintSolver(game, abstraction, lazy="yes")  # type: ignore[arg-type]


def test_cli_lazy_bytes_resume_and_show(tmp_path, capsys) -> None:
    """``--lazy``: the JSON's bytes are the lazy run's (below the dense run's), --resume goes on
    exactly, ``blueprint show`` reads the checkpoint."""
    config = tmp_path / "small.toml"
    config.write_text('base = "fcpa"\nranks = 3\nrounds = 4\nstack = 2000\n')
    common = [str(config), "--bucketing", "lossless", "--seed", "4", "--json"]

    def train(*args: str) -> dict:
        assert main(["blueprint", "train", *common, *args]) == 0
        return json.loads(capsys.readouterr().out.strip().splitlines()[-1])

    dense = train("-n", "200", "--checkpoint", str(tmp_path / "d.npz"))
    lazy = train("-n", "200", "--checkpoint", str(tmp_path / "l.npz"), "--lazy")
    assert lazy["bytes"] < dense["bytes"] and lazy["infoset_actions"] == dense["infoset_actions"]
    assert 0.0 < lazy["reached"] < 1.0 and dense["reached"] == 1.0
    train("-n", "100", "--checkpoint", str(tmp_path / "half.npz"), "--lazy")
    train("-n", "200", "--checkpoint", str(tmp_path / "half.npz"), "--lazy", "--resume")
    one, two = load_checkpoint(tmp_path / "l.npz"), load_checkpoint(tmp_path / "half.npz")
    for name in ("regrets", "sums", "row_index", "rng"):
        np.testing.assert_array_equal(one["arrays"][name], two["arrays"][name])
    shown = []
    for name in ("l.npz", "d.npz"):
        assert main(["blueprint", "show", str(tmp_path / name), "--line", "c", "--json"]) == 0
        view = json.loads(capsys.readouterr().out)
        shown.append({k: v for k, v in view.items() if k not in ("checkpoint", "path", "file")})
    aa = shown[0]["classes"]["AA"]
    assert len(aa) == 3 and max(aa) > 0.4  # trained, not the uniform 1/3
    assert shown[0] == shown[1]  # the same strategy, read from either layout


def test_cli_lazy_trains_a_game_whose_dense_rows_do_not_fit(tmp_path, capsys, monkeypatch) -> None:
    """With less memory than the dense rows need (but more than the row index), a dense run is
    refused with the estimate and a ``--lazy`` run trains, saying the dense bound."""
    import pokerlab
    import pokerlab._system
    import pokerlab.games.nolimit.size as size

    config = tmp_path / "small.toml"
    config.write_text('base = "fcpa"\nranks = 3\nrounds = 4\nstack = 2000\n')
    game = pokerlab.load_game("nolimit-holdem", config=str(config))
    counts = tuple(lossless_abstraction(3).buckets)
    info = game.summary(counts)
    index = 8 * sum(info["infosets"].values())
    assert index < info["bytes"]
    between = (index + info["bytes"]) // 2
    monkeypatch.setattr(pokerlab._system, "memory_available_or_physical", lambda: between)
    monkeypatch.setattr(size, "memory_available_or_physical", lambda: between)
    args = ["blueprint", "train", str(config), "--bucketing", "lossless", "-n", "50", "--json"]
    assert main([*args, "--checkpoint", str(tmp_path / "d.npz")]) == 2
    assert "more than the" in capsys.readouterr().err
    assert main([*args, "--checkpoint", str(tmp_path / "l.npz"), "--lazy"]) == 0
    out = capsys.readouterr()
    assert "--lazy: the dense game would need" in out.err
    assert json.loads(out.out.strip().splitlines()[-1])["iterations"] == 50
    monkeypatch.setattr(pokerlab._system, "memory_available_or_physical", lambda: index // 2)
    assert main([*args, "--checkpoint", str(tmp_path / "x.npz"), "--lazy"]) == 2
    assert "--lazy: the row index alone needs" in capsys.readouterr().err


@pytest.mark.parametrize("workers", [1, 2])
def test_lazy_ray_workers_equal_threads(workers: int) -> None:
    """Ray actors with lazy rows: one actor equals the serial lazy run, two equal two threads
    (and so the dense run) bit for bit, snapshots included."""
    ray = pytest.importorskip("ray")
    from pokerlab.distributed.limit_mccfr_ray import RayBlueprintSolver

    game, abstraction = _four_rounds(), lossless_abstraction(3)
    options = {"seed": 9, "discount_every": 35, "averages": "preflop", "snapshot_every": 50}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        remote = RayBlueprintSolver(
            game, abstraction, workers=workers, batch=20, lazy=True, **options
        )
        remote.step(120)
        remote.close()
    finally:
        ray.shutdown()
    if workers == 1:
        local: BlueprintSolver = BlueprintSolver(game, abstraction, **options)
    else:
        local = ThreadedBlueprintSolver(game, abstraction, workers=workers, batch=20, **options)
    local.step(120)
    getattr(local, "close", lambda: None)()
    _assert_same(local, remote)
    np.testing.assert_array_equal(local._later_rounds(), remote._later_rounds())
    assert remote.pool.fraction_reached < 1.0
