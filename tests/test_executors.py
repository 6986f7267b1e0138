"""The subtree seam's executors (pokerlab.tree.executors) and the seam on both split backends."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from pokerlab.tree.backend import SubtreeSeam
from pokerlab.tree.executors import (
    LINE_BYTES,
    SerialWorkers,
    ThreadWorkers,
    chunks,
    share_out,
    thread_rows,
    worker_pool,
)
from pokerlab.tree.vector.passes import item_costs


def test_chunks_cut_neighbours_of_about_equal_cost() -> None:
    assert [c.tolist() for c in chunks([1, 1, 1, 1, 1, 1], 3)] == [[0, 1], [2, 3], [4, 5]]
    assert [c.tolist() for c in chunks([5, 1, 1, 1, 1, 1], 2)] == [[0], [1, 2, 3, 4, 5]]
    assert [c.tolist() for c in chunks([2, 2], 5)] == [[0], [1]]  # never more than the items
    assert chunks([], 4) == []
    costs = np.random.default_rng(3).uniform(1, 50, size=97)
    for pieces in (1, 2, 8, 97, 200):
        parts = chunks(costs, pieces)
        assert 1 <= len(parts) <= min(pieces, 97)
        assert np.concatenate(parts).tolist() == list(range(97))  # in order, each once
        assert all(p.dtype == np.int64 and p.size for p in parts)
        # each item starts in its run's share of the cost: a run costs at most one share plus
        # the cost of its last item
        share = costs.sum() / pieces
        assert max(costs[p].sum() for p in parts) <= share + costs.max() + 1e-9


def test_share_out_runs_every_piece_once_and_keeps_order() -> None:
    work = list(range(40))
    seen: list[tuple[int, int]] = []
    lock = threading.Lock()

    def run(w: int, piece: int) -> int:
        with lock:
            seen.append((w, piece))
        return piece * piece

    for pool in (SerialWorkers(), ThreadWorkers(3)):
        seen.clear()
        assert share_out(pool, work, run) == [x * x for x in work]
        assert sorted(p for _, p in seen) == work
        assert {w for w, _ in seen} <= set(range(pool.workers))
        pool.close()
    assert share_out(SerialWorkers(), [], run) == []


def test_worker_pools_run_every_worker_once_in_order() -> None:
    assert isinstance(worker_pool(1), SerialWorkers)
    pool = worker_pool(3)
    assert isinstance(pool, ThreadWorkers)
    names: dict[int, str] = {}

    def run(w: int) -> int:
        names[w] = threading.current_thread().name
        return 10 * w

    try:
        assert pool.map(run) == [0, 10, 20]
        assert pool.map(run) == [0, 10, 20]  # the pool is reused
    finally:
        pool.close()
    assert names[0] == threading.current_thread().name  # worker 0: the calling thread
    assert all(names[w].startswith("pokerlab-subtree") for w in (1, 2))
    with pytest.raises(ValueError, match="at least 1"):
        ThreadWorkers(0)


def test_the_vector_backend_gives_the_seam() -> None:
    import pokerlab
    from pokerlab.solvers.postflop import PostflopSolver

    solver = PostflopSolver(pokerlab.load_game("postflop", spot="turn"), "dcfr", threads=2)
    assert isinstance(solver.passes, SubtreeSeam)
    assert isinstance(solver.passes.pool, ThreadWorkers)
    runs = solver.passes.chunks
    assert np.concatenate(runs).tolist() == list(range(solver.tree.num_items))
    assert len(runs) == 32  # about sixteen a worker
    costs = item_costs(solver.tree)
    loads = [costs[r].sum() for r in runs]
    assert max(loads) <= costs.sum() / 32 + costs.max()
    # the kernel's view of the runs: starts into the item ids, each run where chunks put it
    starts, ids = solver.passes.run_starts, solver.passes.item_ids
    assert [ids[a:b].tolist() for a, b in zip(starts[:-1], starts[1:], strict=True)] == [
        r.tolist() for r in runs
    ]
    single = PostflopSolver(pokerlab.load_game("postflop", spot="turn"), "dcfr", threads=1)
    assert len(single.passes.chunks) == 1 and isinstance(single.passes.pool, SerialWorkers)


def test_item_costs_count_each_subtree_s_nodes() -> None:
    import pokerlab
    from pokerlab.solvers.postflop import PostflopSolver

    tree = PostflopSolver(pokerlab.load_game("postflop", spot="turn"), "dcfr").tree
    a = tree.arrays
    costs = item_costs(tree)

    def count(node: int) -> int:
        kids = a.children[a.child_start[node] : a.child_start[node + 1]]
        return 1 + sum(count(int(k)) for k in kids)

    for i in (0, 1, tree.num_items // 2, tree.num_items - 1):
        assert costs[i] == count(int(a.item_node[i]))


@pytest.mark.parametrize(
    ("shape", "dtype"), [((3,), np.int64), ((52,), np.float64), ((4, 5, 7), np.float32)]
)
def test_thread_rows_share_no_cache_line(shape: tuple[int, ...], dtype: type) -> None:
    """Each thread's block is C-contiguous zeros of the shape, starts on a line boundary, and
    the next thread's block begins at least a line after its last byte (no false sharing)."""
    a = thread_rows(3, shape, dtype)
    assert a.shape == (3, *shape) and a.dtype == np.dtype(dtype)
    assert not a.any()
    spans = []
    for w in range(3):
        block = a[w]
        assert block.flags.c_contiguous
        start = block.ctypes.data
        assert start % LINE_BYTES == 0
        spans.append((start, start + block.nbytes))
    for (_, end), (nxt, _) in zip(spans, spans[1:], strict=False):
        assert nxt // 64 > (end - 1) // 64  # another 64-byte line
    a[1] = 7
    assert not a[0].any() and not a[2].any()  # blocks do not overlap


def test_one_thread_walks_the_whole_tree_with_the_split_walk_s_numbers() -> None:
    """On one thread a pass walks through the split points in one kernel call
    (``Passes.whole_tree``); the numbers and the nodes counted are the split walk's, bit for bit
    (two threads take the split walk), over CFR iterations and best responses."""
    import pokerlab
    from pokerlab.solvers.postflop import PostflopSolver

    game = pokerlab.load_game("postflop", spot="turn")
    one = PostflopSolver(game, "dcfr-ps", threads=1)
    two = PostflopSolver(game, "dcfr-ps", threads=2)
    assert one.passes.whole_tree() and not two.passes.whole_tree()
    one.step(7)
    two.step(7)
    np.testing.assert_array_equal(one.regrets, two.regrets)
    np.testing.assert_array_equal(one.strat_sum, two.strat_sum)
    assert one.nodes_touched == two.nodes_touched == 7 * 2 * one.tree.arrays.kind.shape[0]
    assert one.exploitability() == two.exploitability()
    assert one.values() == two.values()


def test_fetch_add_hands_each_number_to_one_thread() -> None:
    from numba import njit

    from pokerlab.tree._primitives import fetch_add

    @njit(nogil=True)
    def draw(counter, seen):  # type: ignore[no-untyped-def]
        got = 0
        r = fetch_add(counter, 1)
        while r < seen.shape[0]:
            seen[r] += 1
            got += 1
            r = fetch_add(counter, 1)
        return got

    counter = np.zeros(1, dtype=np.int64)
    seen = np.zeros(200_000, dtype=np.int64)
    got: list[int] = []
    threads = [threading.Thread(target=lambda: got.append(draw(counter, seen))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen.min() == 1 and seen.max() == 1  # every number drawn, none twice
    assert sum(got) == seen.size and counter[0] == seen.size + 4  # each thread's last draw


def test_workers_drawing_runs_give_the_one_thread_numbers(monkeypatch) -> None:
    """Three workers drawing the turn spot's 48 runs of subtrees from the shared counter, in the
    CFR iterations' and the best-response passes' one call a worker (cfr_iterations_shared,
    best_response_pair_shared: passes synchronised by counters), and with the passes
    dispatched from Python (traverse_runs): the regrets, strategy sums and exploitability of
    one thread."""
    import pokerlab
    from pokerlab.solvers.postflop import PostflopSolver
    from pokerlab.tree.vector import shared_calls

    monkeypatch.setattr(shared_calls, "usable_cpus", lambda: 3)  # the shared calls on any machine
    game = pokerlab.load_game("postflop", spot="turn")
    one = PostflopSolver(game, "dcfr", threads=1)
    three = PostflopSolver(game, "dcfr", threads=3)
    assert len(three.passes.chunks) == 48 and three.passes.shared_calls()
    one.step(6)
    three.step(6)
    np.testing.assert_array_equal(one.regrets, three.regrets)
    np.testing.assert_array_equal(one.strat_sum, three.strat_sum)
    assert one.exploitability() == three.exploitability()
    # the solve's float32 checks: the whole walk's and the workers' agree bit for bit, and
    # stay within float32's rounding of the float64 measure
    check = one.check_exploitability()
    assert check == three.check_exploitability()
    assert check == pytest.approx(one.exploitability(), rel=1e-5) and check != one.exploitability()
    monkeypatch.setattr(shared_calls, "usable_cpus", lambda: 1)  # one call a pass from Python
    assert not three.passes.shared_calls()
    one.step(2)
    three.step(2)
    np.testing.assert_array_equal(one.regrets, three.regrets)
    assert one.exploitability() == three.exploitability()


def test_more_threads_than_cpus_take_the_dispatch_from_python(monkeypatch) -> None:
    """The workers of one compiled call wait for each other, so they run only where each has a
    CPU; with more threads than CPUs the passes go one call a pass from Python (same numbers)."""
    import pokerlab
    from pokerlab.solvers.postflop import PostflopSolver
    from pokerlab.tree.vector import shared_calls

    game = pokerlab.load_game("postflop", spot="turn")
    one = PostflopSolver(game, "dcfr-ps", threads=1)
    two = PostflopSolver(game, "dcfr-ps", threads=2)
    monkeypatch.setattr(shared_calls, "usable_cpus", lambda: 1)
    s = two.passes
    args = (0, 1, two.params, False, False, two.regrets.copy(), two.strat_sum.copy())
    assert s.cfr_iterations(*args) is None  # the caller then runs pass_ per player
    one.step(3)
    two.step(3)
    np.testing.assert_array_equal(one.regrets, two.regrets)
    np.testing.assert_array_equal(one.strat_sum, two.strat_sum)


def test_waiting_workers_spin_then_yield() -> None:
    """A wait longer than the spins gives the CPU away (sched_yield) and still sees the value."""
    from numba import njit

    from pokerlab.tree._primitives import atomic_load, atomic_store, cpu_yield
    from pokerlab.tree.vector._walk_batches import SPINS, _wait_for

    @njit(nogil=True)
    def later(counter, value, delay):  # type: ignore[no-untyped-def]
        for _ in range(delay):
            cpu_yield()
        atomic_store(counter, value)

    @njit(nogil=True)
    def wait(counter, value):  # type: ignore[no-untyped-def]
        _wait_for(counter, value)
        return atomic_load(counter)

    counter = np.zeros(1, dtype=np.int64)
    setter = threading.Thread(target=later, args=(counter, 7, 20 * SPINS))
    setter.start()
    assert wait(counter, 7) == 7
    setter.join()


def test_a_failing_worker_of_a_shared_call_raises_instead_of_hanging(monkeypatch) -> None:
    """A shared call's workers wait for each other: when one fails before its part (here worker
    1, as a kernel error would), the counters are opened, worker 0 returns and the error
    reaches the caller (before, worker 0 would wait for worker 1 forever)."""
    import pokerlab
    from pokerlab.solvers.postflop import PostflopSolver
    from pokerlab.tree.vector import _walk_batches, shared_calls

    monkeypatch.setattr(shared_calls, "usable_cpus", lambda: 2)
    solver = PostflopSolver(pokerlab.load_game("postflop", spot="turn"), "dcfr-ps", threads=2)
    real = _walk_batches.cfr_iterations_shared

    def failing(runs, *args):  # type: ignore[no-untyped-def]
        if runs.worker == 1:
            time.sleep(0.05)  # worker 0 is waiting by now
            raise RuntimeError("worker 1 failed")
        return real(runs, *args)

    monkeypatch.setattr(_walk_batches, "cfr_iterations_shared", failing)
    errors: list[BaseException] = []

    def step() -> None:
        try:
            solver.step(3)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    runner = threading.Thread(target=step, daemon=True)
    runner.start()
    runner.join(timeout=120)
    assert not runner.is_alive(), "the shared call hung"
    assert len(errors) == 1 and "worker 1 failed" in str(errors[0])
