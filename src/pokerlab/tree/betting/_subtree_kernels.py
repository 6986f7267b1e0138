"""Depth-first pass of public-chance-sampling CFR over one subtree of limit hold'em's betting tree.

:func:`pokerlab.tree.betting._kernels.pcs_pass` keeps a reach row and a value row for every
node (``nodes x entries`` scratch: 57 MB per pass on the 24-card deck with all 276 hole-card
pairs, more than the last-level cache). This kernel walks the same preorder arrays depth first
with an explicit stack and keeps rows only for the current path: the reach of each player at
each depth (a row per depth; a child of a decision points at its parent's row for the player
who did not act), the current strategy of each decision on the path and its children's value
rows, plus one row of strategies per state. The scratch is ``depth x entries`` (about 0.7 MB on
the 24-card deck for one board), which stays in cache. Regret matching runs once per (node,
state) when a node has fewer states than entries (imperfect recall), else once per entry.

The arithmetic is the per-node kernel's, in the same order and the same precisions (float32
reach, values, regrets and sums; float64 strategy, accumulations and terminal sums), so both
kernels give bit-identical regrets, sums, predictions and values (tested). ``pcs_pass`` remains
for the head's part of a split pass (its top-down and bottom-up steps over the preflop nodes)
and as the reference.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree.betting._kernels import DEAL, FOLD_END, SHOWDOWN_END, terminal_values


def tree_depth(child_start: np.ndarray, children: np.ndarray) -> int:
    """Number of nodes on the longest root-to-leaf path of a preorder tree (the stack size)."""
    n = child_start.size - 1
    depth = np.zeros(n, dtype=np.int64)
    for v in range(n):  # preorder: a parent comes before its children
        kids = children[child_start[v] : child_start[v + 1]]
        depth[kids] = depth[v] + 1
    return int(depth.max()) + 1


def subtree_buffers(depth: int, width: int) -> tuple[np.ndarray, ...]:
    """Scratch of :func:`pcs_subtree` for a tree of ``depth`` levels and ``width`` entries per
    vector: (reach, strategy, child values, strategy per state, row pointers, stack nodes,
    stack positions, per-card sums)."""
    d = depth + 1
    return (
        np.zeros((2, d, width), dtype=np.float32),
        np.zeros((d, 3, width), dtype=np.float64),
        np.zeros((d, 3, width), dtype=np.float32),
        np.zeros((3, width), dtype=np.float64),
        np.zeros((2, d), dtype=np.int64),
        np.zeros(d, dtype=np.int64),
        np.zeros(d, dtype=np.int64),
        np.zeros(104, dtype=np.float64),
    )


#: The cut arguments of a :func:`pcs_subtree` call without cuts (mode 0).
NO_CUTS = (
    np.full(1, -1, dtype=np.int64),
    np.int64(0),
    np.zeros((1, 2, 1), dtype=np.float32),
    np.zeros((1, 1), dtype=np.float32),
)


@njit(cache=True, nogil=True)
def pcs_subtree(
    kind: np.ndarray,
    player: np.ndarray,
    rnd: np.ndarray,
    child_start: np.ndarray,
    children: np.ndarray,
    payoff_id: np.ndarray,
    payoff_table: np.ndarray,
    offset: np.ndarray,
    num_states: np.ndarray,
    states: np.ndarray,
    hand_cards: np.ndarray,
    order: np.ndarray,
    ranked: np.ndarray,
    segments: np.ndarray,
    scale: float,
    traverser: np.int64,
    regrets: np.ndarray,
    sums: np.ndarray,
    regret_floor: bool,
    update: bool,
    root: np.int64,
    root_reach: np.ndarray,
    out: np.ndarray,
    reach: np.ndarray,
    sigma: np.ndarray,
    child_values: np.ndarray,
    state_sigma: np.ndarray,
    ptr: np.ndarray,
    stack_node: np.ndarray,
    stack_pos: np.ndarray,
    card_sum: np.ndarray,
    pred: np.ndarray,
    predictive: bool,
    next_a: float,
    next_b: float,
    sum_weight: float,
    regret_weight: float,
    cut: np.ndarray,
    cut_mode: np.int64,
    cut_reach: np.ndarray,
    cut_values: np.ndarray,
) -> float:
    """One pass for ``traverser`` over the subtree at ``root``; returns its value summed over
    the entries, and writes each entry's value at the root into ``out`` (float32, width).

    Arguments as :func:`pokerlab.tree.betting._kernels.pcs_pass` (the tree, the layout, the
    board batch's entry arrays, the storage, the schedule's flags), plus ``root_reach`` (2,
    width): each player's reach at the root (the live entries for the whole tree's root), and
    the buffers of :func:`subtree_buffers`. Regrets and strategy sums of the subtree's decisions
    are updated as the per-node kernel updates them.

    Cut nodes (the split pass's seam): with ``cut_mode`` 1 or 2, a node ``n`` below the root with
    ``cut[n] >= 0`` is not entered. Mode 1 (the head's way down, with ``update`` False) copies
    the two reach rows arriving there into ``cut_reach[cut[n]]`` (2, width) and takes 0 as its
    value; mode 2 (the head's way up) takes ``cut_values[cut[n]]`` (width,) as its value, the
    row a worker's pass over the subtree at ``n`` wrote. Mode 0 ignores the cut arrays. Nodes
    above the cuts read the same regrets in both modes (workers update only their subtrees), so
    a split pass does the one-process pass's arithmetic.
    """
    # regret matching reads the predictions (predictive schedules) or, when a non-predictive
    # caller passes a non-empty ``pred``, that frozen copy of the regrets (a pass over every
    # board in chunks: each chunk's strategy is the iteration's), else the regrets themselves
    match = pred if (predictive or pred.size > 0) else regrets
    num_hands = hand_cards.shape[0]
    p = traverser
    o = 1 - p
    for q in range(2):
        for h in range(num_hands):
            reach[q, 0, h] = root_reach[q, h]
        ptr[q, 0] = 0
    sp = 0
    stack_node[0] = root
    stack_pos[0] = -1
    while sp >= 0:
        n = stack_node[sp]
        k = kind[n]
        j = stack_pos[sp]
        first = child_start[n]
        # the row this node's value goes to: the caller's, or its parent's slot for it
        if sp == 0:
            dest = out
        else:
            dest = child_values[sp - 1, stack_pos[sp - 1]]
        if cut_mode != 0 and sp > 0 and cut[n] >= 0:
            slot = cut[n]
            if cut_mode == 1:
                arrive0 = reach[0, ptr[0, sp]]
                arrive1 = reach[1, ptr[1, sp]]
                for h in range(num_hands):
                    cut_reach[slot, 0, h] = arrive0[h]
                    cut_reach[slot, 1, h] = arrive1[h]
                    dest[h] = 0.0
            else:
                for h in range(num_hands):
                    dest[h] = cut_values[slot, h]
            sp -= 1
            continue
        if k == FOLD_END or k == SHOWDOWN_END:
            terminal_values(
                n, k, player, payoff_id, payoff_table, states, hand_cards, order, ranked,
                segments, scale, p, reach[o, ptr[o, sp]], dest, card_sum,
            )  # fmt: skip
            sp -= 1
            continue
        if k == DEAL:
            if j == -1:  # down into the one child, reach unchanged
                stack_pos[sp] = 0
                ptr[0, sp + 1] = ptr[0, sp]
                ptr[1, sp + 1] = ptr[1, sp]
                sp += 1
                stack_node[sp] = children[first]
                stack_pos[sp] = -1
                continue
            src = child_values[sp, 0]
            for h in range(num_hands):
                dest[h] = src[h]
            sp -= 1
            continue
        q = player[n]
        na = child_start[n + 1] - first
        r = rnd[n]
        ns = num_states[r]
        base = offset[n]
        if j == -1:
            # entering: the current strategy of every live entry (as the per-node kernel's
            # top-down step computes it) and the traverser's strategy sums; regret matching
            # once per state when the node has fewer states than entries (imperfect recall)
            per_state = ns <= num_hands
            for x_s in range(ns if per_state else 0):
                total = 0.0
                for a in range(na):
                    x = match[base + a * ns + x_s]
                    if x > 0:
                        total += x
                for a in range(na):
                    if total > 0:
                        x = match[base + a * ns + x_s]
                        state_sigma[a, x_s] = x / total if x > 0 else 0.0
                    else:
                        state_sigma[a, x_s] = 1.0 / na
            own_row = reach[q, ptr[q, sp]]
            for h in range(num_hands):
                s = states[r, h]
                if s < 0:
                    continue
                if per_state:
                    for a in range(na):
                        sigma[sp, a, h] = state_sigma[a, s]
                else:
                    total = 0.0
                    for a in range(na):
                        x = match[base + a * ns + s]
                        if x > 0:
                            total += x
                    for a in range(na):
                        if total > 0:
                            x = match[base + a * ns + s]
                            sigma[sp, a, h] = x / total if x > 0 else 0.0
                        else:
                            sigma[sp, a, h] = 1.0 / na
                own = own_row[h]
                if update and q == p and own != 0.0:
                    for a in range(na):
                        sums[base + a * ns + s] += own * sigma[sp, a, h] * sum_weight
            j = 0
        else:
            j += 1  # child j - 1 is done
        if j < na:
            # down into child j: the actor's reach row at the next depth, the other's shared
            own_row = reach[q, ptr[q, sp]]
            child_row = reach[q, sp + 1]
            for h in range(num_hands):
                own = own_row[h]
                if states[r, h] < 0 or own == 0.0:
                    child_row[h] = 0.0
                else:
                    child_row[h] = own * sigma[sp, j, h]
            ptr[q, sp + 1] = sp + 1
            ptr[1 - q, sp + 1] = ptr[1 - q, sp]
            stack_pos[sp] = j
            sp += 1
            stack_node[sp] = children[first + j]
            stack_pos[sp] = -1
            continue
        # every child done: this node's values, then the traverser's regrets
        vals = child_values[sp]
        if q != p:
            for h in range(num_hands):
                a_sum = 0.0
                for a in range(na):
                    a_sum += vals[a, h]
                dest[h] = a_sum
            sp -= 1
            continue
        for h in range(num_hands):
            s = states[r, h]
            if s < 0:
                dest[h] = 0.0
                continue
            a_sum = 0.0
            for a in range(na):
                a_sum += sigma[sp, a, h] * vals[a, h]
            dest[h] = a_sum
        if update:
            if predictive:
                for i in range(base, base + na * ns):
                    pred[i] = 0.0
                for h in range(num_hands):
                    s = states[r, h]
                    if s < 0:
                        continue
                    for a in range(na):
                        pred[base + a * ns + s] += vals[a, h] - dest[h]
                for i in range(base, base + na * ns):
                    inst = pred[i] * regret_weight
                    x = regrets[i] + inst
                    if regret_floor and x < 0:
                        x = 0.0
                    regrets[i] = x
                    pv = (x * next_a if x > 0 else x * next_b) + inst
                    pred[i] = 0.0 if (regret_floor and pv < 0) else pv
            else:
                for h in range(num_hands):
                    s = states[r, h]
                    if s < 0:
                        continue
                    for a in range(na):
                        regrets[base + a * ns + s] += (vals[a, h] - dest[h]) * regret_weight
                if regret_floor and ns <= num_hands:
                    # over the block's slots, fewer than the entries: every regret was >= 0
                    # before this update (the floor holds from the run's start), so only the
                    # slots this pass updated can be below 0, as in the per-entry loop
                    for i in range(base, base + na * ns):
                        if regrets[i] < 0:
                            regrets[i] = 0.0
                elif regret_floor:
                    for h in range(num_hands):
                        s = states[r, h]
                        if s < 0:
                            continue
                        for a in range(na):
                            if regrets[base + a * ns + s] < 0:
                                regrets[base + a * ns + s] = 0.0
        sp -= 1
    total = 0.0
    for h in range(num_hands):
        total += out[h]
    return total
