"""Compiled calls that run several walks of :mod:`pokerlab.tree.vector._kernels` at once: both
players' best responses, and a worker's share of the work items (the subtrees below the split
chance nodes), one kernel call each instead of one per walk: a given list of items
(:func:`traverse_items`) or runs drawn from a counter the workers share (:func:`traverse_runs`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree._primitives import fetch_add, unowned
from pokerlab.tree.vector._bundles import Discounts, Items, RootRows, Roots, Storage
from pokerlab.tree.vector._kernels import MODE_BR, SPLIT_NONE, traverse, walk
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
