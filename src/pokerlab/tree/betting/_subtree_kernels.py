"""Public-chance-sampling CFR on limit hold'em's betting tree: one depth-first pass over a subtree.

One pass walks the betting tree (preorder arrays, an explicit stack, no recursion) for one
traversing player with whole vectors over the real hole-card pairs of the sampled boards: reach
top-down, terminal values (fold: opponent reach compatible with the hand, by per-card sums and
inclusion-exclusion; showdown: one sweep over the hands sorted by strength,
:func:`pokerlab.tree.betting._kernels.terminal_values`), then values and regret updates
bottom-up. A hand's regrets and strategy sums live in the slot of its private state (bucket or
bucket sequence) of the node's round, so hands of the same bucket share them.

Rows are kept only for the current root-to-leaf path: the reach of each player at each depth (a
row per depth; a child of a decision points at its parent's row for the player who did not
act), the current strategy of each decision on the path and its children's value rows, plus one
row of strategies per state. The scratch is ``depth x entries`` (about 0.7 MB on the 24-card
deck for one board), which stays in cache. Regret matching runs once per (node, state) when a
node has fewer states than entries (imperfect recall), else once per entry.

Storage is float32 (regrets, strategy sums and, for predictive schedules, the predicted
regrets); reach and values are float32 rows, strategies and accumulations float64.

Predictive schedules (PCFR+, PDCFR+; :mod:`pokerlab.solvers.schedule`): regret matching reads
the prediction P instead of R, and the traverser's update of a node rewrites P for every state
of the node: P = R d + r, with r the state's instantaneous regret of this pass (the sum over the
hands of that state; 0 for a state no hand of the sampled board has) and d the next iteration's
discount (``next_a`` where R > 0, ``next_b`` elsewhere), floored at 0 with the regret floor, as
the public and history tree kernels do (Farina, Kroer and Sandholm 2021; Xu et al. 2024).

The split pass (threads or Ray actors) runs this kernel three times: the head over the nodes
above the subtree roots on the way down (cut mode 1: it collects the reach rows arriving at each
root), the workers over their subtrees from those rows, the head on the way up (cut mode 2: it
takes the workers' value rows). Each node is computed by the same arithmetic in the same order
either way, so a split pass equals a one-worker pass bit for bit (tested).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.tree._primitives import RunArrays, unowned
from pokerlab.tree.betting._kernels import (
    DEAL,
    FOLD_END,
    SHOWDOWN_END,
    BettingArrays,
    BoardBatch,
    Discounts,
    terminal_values,
)


class SubtreeScratch(NamedTuple):
    """The scratch of :func:`pcs_subtree` (:func:`subtree_buffers`): reach rows per depth (2, D,
    W) float32, the strategy (D, 3, W) float64 and the children's value rows (D, 3, W) float32
    of each decision on the path, the strategy per state (3, W) float64, the reach row pointers
    (2, D) and the stack's nodes and positions (D,) int64, the per-card sums (104,) float64."""

    reach: np.ndarray
    sigma: np.ndarray
    child_values: np.ndarray
    state_sigma: np.ndarray
    ptr: np.ndarray
    stack_node: np.ndarray
    stack_pos: np.ndarray
    card_sum: np.ndarray


class Cuts(NamedTuple):
    """The seam of a split pass (see :func:`pcs_subtree`): ``cut[n]`` the slot of subtree root
    ``n`` (-1 elsewhere), ``mode`` (0: no cuts, 1: the head's way down, 2: its way up), the
    reach rows arriving at each root (slots, 2, W) and the value rows the workers wrote there
    (slots, W), float32."""

    cut: np.ndarray
    mode: np.int64
    reach: np.ndarray
    values: np.ndarray


def tree_depth(child_start: np.ndarray, children: np.ndarray) -> int:
    """Number of nodes on the longest root-to-leaf path of a preorder tree (the stack size)."""
    n = child_start.size - 1
    depth = np.zeros(n, dtype=np.int64)
    for v in range(n):  # preorder: a parent comes before its children
        kids = children[child_start[v] : child_start[v + 1]]
        depth[kids] = depth[v] + 1
    return int(depth.max()) + 1


def subtree_buffers(depth: int, width: int) -> SubtreeScratch:
    """Scratch of :func:`pcs_subtree` for a tree of ``depth`` levels and ``width`` entries per
    vector."""
    d = depth + 1
    return SubtreeScratch(
        np.zeros((2, d, width), dtype=np.float32),
        np.zeros((d, 3, width), dtype=np.float64),
        np.zeros((d, 3, width), dtype=np.float32),
        np.zeros((3, width), dtype=np.float64),
        np.zeros((2, d), dtype=np.int64),
        np.zeros(d, dtype=np.int64),
        np.zeros(d, dtype=np.int64),
        np.zeros(104, dtype=np.float64),
    )


#: The cuts of a :func:`pcs_subtree` call without cuts (mode 0).
NO_CUTS = Cuts(
    np.full(1, -1, dtype=np.int64),
    np.int64(0),
    np.zeros((1, 2, 1), dtype=np.float32),
    np.zeros((1, 1), dtype=np.float32),
)


@njit(cache=True, nogil=True)
def pcs_subtree(
    tree: BettingArrays,
    entries: BoardBatch,
    scale: float,
    traverser: np.int64,
    run: RunArrays,
    disc: Discounts,
    update: bool,
    root: np.int64,
    root_reach: np.ndarray,
    out: np.ndarray,
    scratch: SubtreeScratch,
    cuts: Cuts,
) -> float:
    """One pass for ``traverser`` over the subtree at ``root``; returns its value summed over
    the entries, and writes each entry's value at the root into ``out`` (float32, width).

    ``tree``: the betting tree and the storage layout; ``entries``: the hand entries of a batch
    of B boards, one pass with vectors B times as long (entry ``b * H + i`` is hole-card pair
    ``i`` on board ``b``; ``states`` (4, B H): private state of each entry per round, -1 where
    the hand meets its board). Folds and showdowns compare entries of the same board only; the
    regret update of a (node, state) sums over every board's hands, so the batch's boards share
    one current strategy and one update. ``scale``: the chance weight of a terminal value.
    ``root_reach`` (2, width): each player's reach at the root (the live entries for the whole
    tree's root). ``update``: accumulate the regrets and (traverser-reach-weighted) strategy
    sums of the subtree's decisions into ``run``, the additions times ``disc``'s weights.
    ``run.pred`` (same layout as the regrets): the predicted regrets that regret matching reads
    when ``disc.predictive`` (the update writes the next ones; see the module docstring).
    ``scratch``: :func:`subtree_buffers`.

    Cut nodes (the split pass's seam): with ``cuts.mode`` 1 or 2, a node ``n`` below the root
    with ``cut[n] >= 0`` is not entered. Mode 1 (the head's way down, with ``update`` False)
    copies the two reach rows arriving there into ``cuts.reach[cut[n]]`` (2, width) and takes 0
    as its value; mode 2 (the head's way up) takes ``cuts.values[cut[n]]`` (width,) as its
    value, the row a worker's pass over the subtree at ``n`` wrote. Mode 0 ignores the cut
    arrays. Nodes above the cuts read the same regrets in both modes (workers update only their
    subtrees), so a split pass does the one-process pass's arithmetic.
    """
    kind, player, rnd, child_start, children, _, _, offset, num_states = tree
    # every array the pass takes views of, without its owner record: no atomic reference count
    # per view (:func:`~pokerlab.tree._primitives.unowned`; the caller holds the arrays)
    args = unowned((entries, run, scratch, cuts, root_reach, out))
    entries, run, scratch, cuts, root_reach, out = args
    states = entries.states
    hand_cards = entries.cards
    regrets, sums, pred = run
    regret_floor, predictive, next_a, next_b, sum_weight, regret_weight = disc
    reach, sigma, child_values, state_sigma, ptr, stack_node, stack_pos, card_sum = scratch
    cut, cut_mode, cut_reach, cut_values = cuts
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
            terminal_values(tree, entries, n, k, scale, p, reach[o, ptr[o, sp]], dest, card_sum)
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
