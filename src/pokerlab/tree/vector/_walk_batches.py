"""Compiled calls that run several walks of :mod:`pokerlab.tree.vector._kernels` at once: both
players' best responses, and a worker's share of the work items (the subtrees below the split
chance nodes), one kernel call each instead of one per walk: a given list of items
(:func:`traverse_items`) or runs drawn from a counter the workers share (:func:`traverse_runs`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree._primitives import (
    atomic_load,
    atomic_store,
    cpu_yield,
    fetch_add,
    spin_pause,
    unowned,
)
from pokerlab.tree.vector._bundles import (
    Discounts,
    Items,
    RootRows,
    Roots,
    SharedRuns,
    Storage,
)
from pokerlab.tree.vector._kernels import (
    MODE_BR,
    MODE_CFR,
    SPLIT_COLLECT,
    SPLIT_NONE,
    SPLIT_USE,
    iteration_discounts,
    traverse,
    walk,
)
from pokerlab.tree.vector._node_kernels import root_dot


@njit(cache=True, nogil=True, error_model="numpy")
def best_response_pair(t, hands, sw, store: Storage, out, sc, items: Items, norm):
    """Both players' best-response values against the average strategy (chips: each root
    value vector dotted with the player's range weights, over ``norm``), the two
    ``MODE_BR`` passes in one compiled call, for trees without split points."""
    t, hands, sw, store, out, sc, items = unowned((t, hands, sw, store, out, sc, items))
    res = np.zeros(2)
    for trav in range(2):
        traverse(
            t, hands, sw, 0, trav, MODE_BR, SPLIT_NONE, store,
            Discounts(1.0, 1.0, 1.0, False, 1.0, 1.0, True),
            RootRows(hands.weight[1 - trav], hands.weight[trav], out), sc, items, -1, items.val,
        )  # fmt: skip
        res[trav] = root_dot(hands.weight[trav], out, hands.num[trav]) / norm
    return res


@njit(cache=True, nogil=True, error_model="numpy")
def traverse_items(
    t,
    hands,
    sw,
    trav,
    mode,
    store: Storage,
    disc: Discounts,
    sc,
    items: Items,
    ids,
):
    """The subtrees of the work items ``ids`` (one subtree below a split chance node each), one
    after another in the scratch ``sc``: each reads only its entry reaches and writes only its
    own subtree and value row, so a worker's share can run beside the others' on another thread
    (:mod:`pokerlab.tree.executors`) and the results do not depend on how items are shared."""
    return walk(
        t, hands, sw, Roots(t.item_node[ids], ids, items.ro, items.rp, items.val), trav, mode,
        SPLIT_NONE, store, disc, sc, items, -1, items.val,
    )  # fmt: skip


@njit(cache=True, nogil=True, error_model="numpy")
def traverse_runs(
    t,
    hands,
    sw,
    trav,
    mode,
    store: Storage,
    disc: Discounts,
    sc,
    items: Items,
    ids,
    starts,
    counter,
):
    """A worker's part of the work items ``ids``, cut in runs ``ids[starts[r]:starts[r + 1]]``:
    it draws the next run's number from ``counter`` (int64, zero before the workers start;
    :func:`~pokerlab.tree._primitives.fetch_add`) and walks it as :func:`traverse_items` does,
    until no run is left. Every worker of a pass makes one call on its own thread and scratch
    ``sc``, so a pass on two threads costs one call each, whatever the number of runs: runs
    handed out from Python cost about 17 us each (the call's arguments, the lock, the GIL),
    which made eight runs a turn pass slower than four. Results do not depend on who drew
    which run. Returns the nodes visited."""
    visited = 0
    runs = starts.shape[0] - 1
    r = fetch_add(counter, 1)
    while r < runs:
        sub = ids[starts[r] : starts[r + 1]]
        visited += walk(
            t, hands, sw, Roots(t.item_node[sub], sub, items.ro, items.rp, items.val), trav,
            mode, SPLIT_NONE, store, disc, sc, items, -1, items.val,
        )  # fmt: skip
        r = fetch_add(counter, 1)
    return visited


#: rows of the ``sync`` array of :func:`cfr_iterations_shared` (each on a cache line of its own)
SYNC_READY, SYNC_RUN, SYNC_DONE = 0, 1, 2


#: spins of :func:`_wait_for` before it gives the CPU away each time round (about 0.5 ms: a
#: pause is 25 ns here; a pass's top part, which the other workers wait for, takes 50-100 us)
SPINS = 20_000


@njit(cache=True, nogil=True, error_model="numpy")
def _wait_for(counter, value):
    """Wait until ``counter[0]`` reaches ``value`` (an acquire load each time round): spinning
    for :data:`SPINS` rounds, then yielding the CPU each round (a thread waiting for one that
    the system has not scheduled would otherwise spin away its own time slice)."""
    spins = 0
    while atomic_load(counter) < value:
        if spins < SPINS:
            spin_pause()
            spins += 1
        else:
            cpu_yield()


@njit(cache=True, nogil=True, error_model="numpy")
def _split_pass(runs: SharedRuns, t, hands, sw, trav, mode, store, disc, rows, sc, items, q):
    """Worker ``runs.worker``'s part of the split pass number ``q`` (from 0) of a shared call (see
    :func:`cfr_iterations_shared`): worker 0 collects the reaches entering the subtrees and marks
    the pass ready, every worker walks the runs it draws, worker 0 waits for all to be done and
    walks the top part again with their values. Returns the nodes this worker visited."""
    worker, workers, ids, starts, sync = runs
    ready, run_counter, done = sync[SYNC_READY], sync[SYNC_RUN], sync[SYNC_DONE]
    visited = 0
    if worker == 0:
        visited += traverse(
            t, hands, sw, 0, trav, mode, SPLIT_COLLECT, store, disc, rows, sc, items, -1,
            items.val,
        )  # fmt: skip
        atomic_store(run_counter, 0)
        atomic_store(ready, q + 1)
    else:
        _wait_for(ready, q + 1)
    visited += traverse_runs(
        t, hands, sw, trav, mode, store, disc, sc, items, ids, starts, run_counter
    )
    fetch_add(done, 1)
    if worker == 0:
        _wait_for(done, workers * (q + 1))
        traverse(
            t, hands, sw, 0, trav, mode, SPLIT_USE, store, disc, rows, sc, items, -1, items.val
        )
    return visited


@njit(cache=True, nogil=True, error_model="numpy")
def cfr_iterations_shared(
    runs: SharedRuns,
    t,
    hands,
    sw,
    first,
    count,
    params,
    predictive,
    floor,
    weighted,
    store: Storage,
    out,
    sc,
    items: Items,
):
    """Worker ``runs.worker``'s part of CFR iterations ``first + 1 .. first + count`` on a tree with
    split points, ``runs.workers`` workers each in one call on its own thread and scratch ``sc``
    (``runs``: :class:`~pokerlab.tree.vector._bundles.SharedRuns`): the iterations of
    :func:`~pokerlab.tree.vector._kernels.cfr_iterations` (each OOP's pass, then IP's), every pass
    split as the passes split it from Python (the top part collects the reaches entering the
    subtrees, the subtrees run, the top part runs again reading their values; :func:`_split_pass`).

    Worker 0 walks the top part; the subtrees' runs (``ids[starts[r]:starts[r + 1]]`` of ``runs``)
    are drawn by every worker from a shared counter. ``runs.sync`` (int64, three rows on cache lines
    of their own, zero at the call): ``SYNC_READY`` counts the passes whose reaches worker 0 has
    collected, ``SYNC_RUN`` is the pass's run counter (worker 0 sets it to 0 before it marks the
    pass ready), ``SYNC_DONE`` counts the workers' finished passes; the other workers wait for a
    pass to be ready, worker 0 for every worker to be done with it (:func:`_wait_for`: a pass's top
    part takes tens of microseconds, a wake-up from the thread pool about as long: two of these a
    pass were a twentieth of a turn iteration on two threads). Every worker's call must run at once,
    each on a CPU: a worker waits for the others. Returns the nodes visited by this worker (the top
    part's counted once, by worker 0, as :meth:`~pokerlab.tree.vector.passes.Passes.pass_` counts
    them)."""
    t, hands, sw, store, out, sc, items = unowned((t, hands, sw, store, out, sc, items))
    visited = 0
    q = 0  # passes of this call so far
    for i in range(count):
        disc = iteration_discounts(params, first + i + 1, predictive, floor, weighted)
        for player in range(2):
            rows = RootRows(hands.weight[1 - player], hands.weight[player], out)
            visited += _split_pass(
                runs, t, hands, sw, player, MODE_CFR, store, disc, rows, sc, items, q
            )
            q += 1
    return visited


@njit(cache=True, nogil=True, error_model="numpy")
def best_response_pair_shared(
    runs: SharedRuns, t, hands, sw, store: Storage, out, sc, items: Items, norm
):
    """Worker ``runs.worker``'s part of both players' best-response passes on a tree with split
    points (:func:`best_response_pair`'s values, from worker 0; zeros from the others), the
    workers synchronised as in :func:`cfr_iterations_shared`."""
    t, hands, sw, store, out, sc, items = unowned((t, hands, sw, store, out, sc, items))
    res = np.zeros(2)
    disc = Discounts(1.0, 1.0, 1.0, False, 1.0, 1.0, True)
    for trav in range(2):
        rows = RootRows(hands.weight[1 - trav], hands.weight[trav], out)
        _split_pass(runs, t, hands, sw, trav, MODE_BR, store, disc, rows, sc, items, trav)
        if runs.worker == 0:
            res[trav] = root_dot(hands.weight[trav], out, hands.num[trav]) / norm
    return res
