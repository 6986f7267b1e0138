"""The subgame-solving loop of real-time search in one compiled call (issue 25): CFR on the
subtree below a public state for a searching player, with the opponent's gadget decision
learned beside it (see :mod:`pokerlab.solvers.search.gadgets` for the gadgets and the papers).

Per iteration: the gadget's strategy gives the opponent's root row, the searcher's CFR pass runs
from it, the opponent's CFR pass returns its counterfactual values at the root, and the gadget's
regrets (regret matching+, Tammelin 2014) learn from them. Python's loop of the same steps spent
about 0.1 ms an iteration on dispatch and small numpy operations, several times a river
subtree's own pass.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from pokerlab.tree._primitives import discount_factors
from pokerlab.tree.vector._kernels import (
    MODE_CFR,
    MODE_EV,
    SPLIT_COLLECT,
    SPLIT_NONE,
    SPLIT_USE,
    Discounts,
    Items,
    RootRows,
    Storage,
    traverse,
)

__all__ = [
    "GADGET_CODES",
    "Leaves",
    "SubgameRows",
    "gadget_iterations",
    "gadget_learn",
    "gadget_live",
    "gadget_row",
    "leaf_items",
    "leaf_round",
    "sum_item_values",
    "update_picks",
]

#: gadget names to the kernel's codes
GADGET_CODES = {"unsafe": 0, "resolve": 1, "maxmargin": 2}


class SubgameRows(NamedTuple):
    """A subgame's inputs (float64, each ``(H,)``): the searcher's own reach at the root
    (``reach_p``), the same with chance folded in (``reach_pc``, what the opponent's pass reads),
    the opponent's Bayes row for the unsafe gadget (``reach_oc``) and its own reach
    (``reach_o``), its CBVs against the blueprint (``cbv``), 1 for the hands it can hold
    (``possible``), and the searcher's compatible reach of each of its hands (``others``,
    maxmargin's normaliser); ``regrets`` (float64 ``(2, H)``, zeros for a new solve): the
    gadget's own regrets, kept between calls so that a solve cut into calls (a time budget)
    runs the same iterations as one call."""

    reach_p: np.ndarray
    reach_pc: np.ndarray
    reach_oc: np.ndarray
    reach_o: np.ndarray
    cbv: np.ndarray
    possible: np.ndarray
    others: np.ndarray
    regrets: np.ndarray


class Leaves(NamedTuple):
    """A depth limit (Brown, Sandholm and Amos, "Depth-limited solving for imperfect-information
    games", NeurIPS 2018): the subtree's chance nodes that end the round are leaves, where the
    opponent picks, per hand, one of ``k`` continuation profiles for the rest of the game.

    ``arrays``: the tree's arrays with those chance nodes as the only split points (their dealt
    cards' subtrees are the work items, ``item_node``); ``item_leaf``: each item's leaf;
    ``profiles`` (k, size) float32: the continuation profiles (probabilities; the searcher's
    part is its blueprint in each); ``choice`` (leaves, H, k): the opponent's regrets of its
    picks, then ``pick`` its current probabilities and ``values`` its values of each
    continuation this iteration; ``items``: the work items' rows; ``zeros``, ``empty``: an
    all-zero float32 array of the tree's size and an empty one; ``row``, ``col``: scratch.
    With no item the subgame runs to the end of the game."""

    arrays: Any
    item_leaf: np.ndarray
    profiles: np.ndarray
    choice: np.ndarray
    pick: np.ndarray
    values: np.ndarray
    items: Items
    zeros: np.ndarray
    empty: np.ndarray
    row: np.ndarray
    col: np.ndarray


@njit(cache=True, nogil=True, error_model="numpy")
def _subgame_pass(t, hands, sw, node, trav, searcher, store, disc, ro, rp, sc, out, leaves):
    """One CFR pass of the subgame for ``trav``: to the end of the game, or, with leaves, the
    round's part with each leaf's cards valued by the continuation profiles under the
    opponent's current picks (its values of each pick are recorded on its own pass): the
    three steps of :func:`leaf_round` (collecting), :func:`leaf_items` over every item and
    :func:`leaf_round` (using) in one call."""
    items = leaves.items
    n_items = leaves.item_leaf.shape[0]
    if n_items == 0:
        return traverse(
            t, hands, sw, node, trav, MODE_CFR, SPLIT_NONE, store, disc,
            RootRows(ro, rp, out), sc, items, -1, items.val,
        )  # fmt: skip
    visited = leaf_round(
        t, hands, sw, node, trav, store, disc, ro, rp, sc, out, leaves, SPLIT_COLLECT
    )  # fmt: skip
    visited += leaf_items(
        t, hands, sw, trav, searcher, disc, sc, leaves, leaves.row, leaves.col, 0, n_items,
        leaves.values, False,
    )  # fmt: skip
    visited += leaf_round(t, hands, sw, node, trav, store, disc, ro, rp, sc, out, leaves, SPLIT_USE)
    return visited


@njit(cache=True, nogil=True, error_model="numpy")
def leaf_round(t, hands, sw, node, trav, store, disc, ro, rp, sc, out, leaves, split):
    """The round's part of a depth-limited pass: with ``split`` = ``SPLIT_COLLECT`` down to the
    leaves, the reaches entering each leaf card's subtree into ``leaves.items``; with
    ``SPLIT_USE`` from the leaf cards' values of :func:`leaf_items`, regrets and strategy sums
    updated and the root's values into ``out``."""
    items = leaves.items
    return traverse(
        leaves.arrays, hands, sw, node, trav, MODE_CFR, split, store, disc,
        RootRows(ro, rp, out), sc, items, -1, items.val,
    )  # fmt: skip


@njit(cache=True, nogil=True, error_model="numpy")
def leaf_items(t, hands, sw, trav, searcher, disc, sc, leaves, row, col, lo, hi, values, per_item):
    """The values of the leaf cards' subtrees ``lo .. hi - 1`` (work items) for ``trav``
    under every continuation profile, weighted by the opponent's picks (``row``, ``col``:
    scratch of the hand count; ``sc``: a worker's scratch). On the opponent's pass its values
    of each pick go to ``values``: added per leaf (``leaves.values``), or with ``per_item`` one
    row per item (float64 ``(items, H, k)``, summed per leaf by :func:`sum_item_values`: calls
    on other threads then share no row)."""
    items = leaves.items
    la = leaves.arrays
    h = row.shape[0]
    k = leaves.profiles.shape[0]
    no = leaves.empty
    visited = 0
    for i in range(lo, hi):
        leaf = leaves.item_leaf[i]
        child = la.item_node[i]
        for g in range(h):
            items.val[i, g] = 0.0
        for j in range(k):
            ev_store = Storage(leaves.zeros, leaves.profiles[j], no, no, no, no)
            if trav == searcher:
                for g in range(h):
                    row[g] = items.ro[i, g] * leaves.pick[leaf, g, j]
                visited += traverse(
                    t, hands, sw, child, trav, MODE_EV, SPLIT_NONE, ev_store, disc,
                    RootRows(row, items.rp[i], col), sc, items, -1, items.val,
                )  # fmt: skip
                for g in range(h):
                    items.val[i, g] += col[g]
            else:
                visited += traverse(
                    t, hands, sw, child, trav, MODE_EV, SPLIT_NONE, ev_store, disc,
                    RootRows(items.ro[i], items.rp[i], col), sc, items, -1, items.val,
                )  # fmt: skip
                for g in range(h):
                    items.val[i, g] += leaves.pick[leaf, g, j] * col[g]
                    if per_item:
                        values[i, g, j] = col[g]
                    else:
                        values[leaf, g, j] += col[g]
    return visited


@njit(cache=True, nogil=True, error_model="numpy")
def sum_item_values(leaves, item_values):
    """``leaves.values`` += the per-item rows of :func:`leaf_items`, in item order (the
    one-call order, so the same float64 sums)."""
    n_items, h, k = item_values.shape
    for i in range(n_items):
        leaf = leaves.item_leaf[i]
        for g in range(h):
            for j in range(k):
                leaves.values[leaf, g, j] += item_values[i, g, j]


@njit(cache=True, nogil=True, error_model="numpy")
def update_picks(leaves):
    """Regret matching+ on the opponent's picks at every leaf from this iteration's values."""
    n_leaves, h, k = leaves.choice.shape
    for leaf in range(n_leaves):
        for g in range(h):
            value = 0.0
            for j in range(k):
                value += leaves.pick[leaf, g, j] * leaves.values[leaf, g, j]
            total = 0.0
            for j in range(k):
                r = leaves.choice[leaf, g, j] + leaves.values[leaf, g, j] - value
                leaves.choice[leaf, g, j] = r if r > 0.0 else 0.0
                total += leaves.choice[leaf, g, j]
                leaves.values[leaf, g, j] = 0.0
            for j in range(k):
                leaves.pick[leaf, g, j] = (
                    leaves.choice[leaf, g, j] / total if total > 0 else 1.0 / k
                )


@njit(cache=True, nogil=True, error_model="numpy")
def gadget_live(rows: SubgameRows, live):
    """1 in ``live`` for the opponent hands maxmargin may pick (possible, with some of the
    searcher's reach against them), 0 elsewhere; returns how many."""
    n_live = 0.0
    for i in range(live.shape[0]):
        live[i] = 0.0
        if rows.possible[i] > 0 and rows.others[i] > 0:
            live[i] = 1.0
            n_live += 1.0
    return n_live


@njit(cache=True, nogil=True, error_model="numpy")
def gadget_row(gadget, rows: SubgameRows, live, n_live, enter, row):
    """The opponent's root row of this iteration from the gadget's regrets ``rows.regrets`` (unsafe:
    its Bayes row; resolve: each hand's probability of entering; maxmargin: the pick over hands
    per unit of the searcher's reach), ``enter`` set for resolve."""
    h = row.shape[0]
    reg_a = rows.regrets[0]  # resolve: enter; maxmargin: pick this hand
    reg_b = rows.regrets[1]  # resolve: take the alternative
    if gadget == 0:
        for i in range(h):
            row[i] = rows.reach_oc[i]
    elif gadget == 1:
        for i in range(h):
            tot = reg_a[i] + reg_b[i]
            enter[i] = reg_a[i] / tot if tot > 0 else 1.0
            row[i] = rows.possible[i] * enter[i]
    else:
        tot = 0.0
        for i in range(h):
            tot += reg_a[i]
        for i in range(h):
            if live[i] > 0:
                q = reg_a[i] / tot if tot > 0 else 1.0 / n_live
                row[i] = q / rows.others[i]
            else:
                row[i] = 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def gadget_learn(gadget, rows: SubgameRows, live, enter, row, out):
    """Regret matching+ on the gadget's decision from the opponent's root values ``out`` of
    this iteration (float32, the pass's output)."""
    h = row.shape[0]
    reg_a = rows.regrets[0]
    reg_b = rows.regrets[1]
    if gadget == 1:
        for i in range(h):
            if rows.possible[i] > 0:
                v = float(out[i])
                value = enter[i] * v + (1.0 - enter[i]) * rows.cbv[i]
                reg_a[i] = max(reg_a[i] + v - value, 0.0)
                reg_b[i] = max(reg_b[i] + rows.cbv[i] - value, 0.0)
    elif gadget == 2:
        v = np.zeros(h)
        mean = 0.0
        for i in range(h):
            if live[i] > 0:
                v[i] = (float(out[i]) - rows.cbv[i]) / rows.others[i]
                mean += row[i] * rows.others[i] * v[i]
        for i in range(h):
            if live[i] > 0:
                reg_a[i] = max(reg_a[i] + v[i] - mean, 0.0)


@njit(cache=True, nogil=True, error_model="numpy")
def gadget_iterations(
    t,
    hands,
    sw,
    node,
    player,
    gadget,
    first,
    iterations,
    params,
    store: Storage,
    rows: SubgameRows,
    sc,
    out,
    leaves: Leaves,
):
    """``iterations`` CFR iterations of the subtree below ``node`` for searcher ``player`` with
    gadget code ``gadget`` (:data:`GADGET_CODES`), numbered from ``first`` (1 for a new solve)
    for the discounts of the schedule ``params`` (CFR+'s floor where the schedule has it), to
    the end of the game or to ``leaves``; the gadget's own regrets carried in ``rows.regrets``.
    Returns the nodes visited."""
    floor = params[3] != 0.0
    h = rows.cbv.shape[0]
    opp = 1 - player
    row = np.zeros(h)
    enter = np.ones(h)
    live = np.zeros(h)
    n_live = gadget_live(rows, live)
    visited = 0
    for it in range(first, first + iterations):
        fa, fb, fg = discount_factors(params, it)
        disc = Discounts(fa, fb, fg, floor, 1.0, 1.0, True)
        gadget_row(gadget, rows, live, n_live, enter, row)
        visited += _subgame_pass(
            t, hands, sw, node, player, player, store, disc, row, rows.reach_p, sc, out, leaves
        )  # fmt: skip
        own = rows.reach_o if gadget == 0 else row
        visited += _subgame_pass(
            t, hands, sw, node, opp, player, store, disc, rows.reach_pc, own, sc, out, leaves
        )  # fmt: skip
        if leaves.item_leaf.shape[0] > 0:
            update_picks(leaves)
        gadget_learn(gadget, rows, live, enter, row, out)
    return visited


@njit(cache=True, nogil=True, error_model="numpy")
def bias_blocks(out, blueprint, offsets, classes, nh, bias):
    """The biased continuations of :func:`~pokerlab.solvers.search.continuations.
    continuation_profiles`: for each decision block at ``offsets[i]`` (its actions' classes
    ``classes[i]``, -1 padded: 0 fold, 1 check or call, 2 bet or raise; ``nh`` hands a row of
    ``blueprint``), ``out[j + 1]``'s block is the blueprint with class ``j``'s actions weighted
    by ``bias`` and each hand renormalised (left as it is where its total is 0 or the block has
    no class ``j`` action)."""
    for i in range(offsets.shape[0]):
        lo = offsets[i]
        na = 0
        while na < classes.shape[1] and classes[i, na] >= 0:
            na += 1
        for j in range(3):
            has = False
            for q in range(na):
                if classes[i, q] == j:
                    has = True
            if not has:
                continue
            for h in range(nh):
                total = 0.0
                for q in range(na):
                    p = blueprint[lo + q * nh + h]
                    total += p * bias if classes[i, q] == j else p
                for q in range(na):
                    p = blueprint[lo + q * nh + h]
                    if total > 0.0:
                        out[j + 1, lo + q * nh + h] = (
                            p * bias if classes[i, q] == j else p
                        ) / total
                    else:
                        out[j + 1, lo + q * nh + h] = p
