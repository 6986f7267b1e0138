"""One Monte Carlo CFR traversal on a vector tree, on one sampled deal (Lanctot, Waugh,
Zinkevich & Bowling 2009: chance sampling and external sampling; regret-based pruning as in
Pluribus, Brown & Sandholm 2019). The deal (:mod:`pokerlab.tree.vector._deal_kernels`) fixes
one hand per player and the later cards, so the public tree is walked with scalars: the actor's
hand selects one column of a block. :mod:`pokerlab.tree.vector._mccfr_kernels` runs the
iterations over it (an edit here recompiles them: :mod:`pokerlab._kernel_cache`).

Suit isomorphism: a dealt card that the tree folded onto a source card (``iso_*`` arrays) is not
a child; the walk descends into the source child with the whole deal mapped through that suit
swap (both hands through ``hands.perm[p, swap]``, the later cards by swapping their suits), as
the swapped deal is equally likely and the tree below the source is the swapped tree. A source
subtree so collects the samples of every card of its class: its regrets and strategy sums grow by
a constant factor (the class size) in expectation, which regret matching and the per-node
normalisation of the average ignore.

No recursion (numba's on-disk cache cannot hold recursive functions) and no allocation per node:
a traversal is a top-down walk with an explicit stack that records the visited nodes, then one
bottom-up loop over that record (children come after their parent in it) computing sampled
values and updating regrets. Each (node, hand) information set is visited at most once per
traversal (the deal is fixed), so the current strategy read top-down is the one the update uses.

"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab._rng import uniform
from pokerlab.tree._primitives import (
    CHANCE,
    FOLD,
    SHOWDOWN,
    RegretPruning,
    RunArrays,
    sample_action,
)


class VectorSampledScratch(NamedTuple):
    """Scratch of the sampled passes on a vector tree (N nodes, E edges): the deal (hand of OOP,
    hand of IP, later cards), the explicit stack with its visit state and picked actions (int64
    (N,)), the deal as mapped at each node (int64 (N, 4)), reach and values (float64 (N,)),
    explored flags (int8 (N,)) and the current strategy (float64 (E,))."""

    deal: np.ndarray
    stack: np.ndarray
    visit: np.ndarray
    world: np.ndarray
    reach: np.ndarray
    values: np.ndarray
    explored: np.ndarray
    pick: np.ndarray
    sig: np.ndarray


@njit(cache=True, inline="always")
def _swap_card(card: int, s1: int, s2: int) -> int:
    suit = card & 3
    if suit == s1:
        return (card & ~3) | s2
    if suit == s2:
        return (card & ~3) | s1
    return card


@njit(cache=True)
def traversal(
    t,
    hands,
    s,
    external: bool,
    trav: int,
    regrets: np.ndarray,
    strat: np.ndarray,
    out: RunArrays,
    scale: float,
    rng: np.ndarray,
    scratch: VectorSampledScratch,
    prune_now: bool,
    pruning: RegretPruning,
    floor: bool,
) -> int:
    """One chance-sampling or external-sampling traversal for ``trav`` on ``deal``; returns the
    nodes visited (Lanctot et al. 2009, sections 3.1 and 3.3).

    ``t``: :class:`VectorArrays`; ``hands``: :class:`HandArrays`; ``s``: the sampling tables
    (:class:`pokerlab.solvers.postflop_sampling.SampleTables`); ``rng``: the xoshiro256** state
    (:mod:`pokerlab._rng`) for external sampling's opponent actions. The current
    strategy sigma is regret matching on ``regrets``; updates go to ``reg_out`` and
    ``strat_out``, each multiplied by ``scale`` (a run passes the same arrays and 1; the exact
    expectation over deals passes copies and the deal's probability).

    Chance nodes: the deal's card of the node's level (through the isomorphism, see the module
    docstring). Traverser's nodes: every action explored (with ``prune_now``, actions into
    ``prunable`` nodes whose regret is below ``threshold`` are skipped where some regret is
    positive: Pluribus' regret-based pruning; the skipped actions then have sigma 0 and the value
    is exact). The opponent's nodes: external sampling samples one action from sigma; chance
    sampling explores every action of positive probability (zero-reach pruning). With
    v~(h) = sum over explored a of sigma(a) v~(h.a) and v~(z) = the traverser's payoff,

        R(I, a) += w (v~(h.a) - v~(h)),    w = 1 (external) or pi_opp(h) (chance sampling),

    the chance and (external) opponent probabilities cancelling the sampling probability
    (Lanctot et al. eq. 4 and 5). Average strategy at the opponent's nodes (OpenSpiel's "simple"
    averaging): S(I, a) += sigma(a) (external: the sampling weights it by the opponent's reach)
    or pi_opp(h) sigma(a) (chance sampling). Regrets are floored at 0 with ``floor`` (CFR+) and
    at ``min_regret``.

    ``out`` holds the arrays the updates go to (``pred`` unused); ``pruning`` the threshold
    and the regret floor; ``scratch``: :class:`VectorSampledScratch`.
    """
    reg_out, strat_out = out.regrets, out.strat_sum
    deal, stack, visit, world = scratch.deal, scratch.stack, scratch.visit, scratch.world
    reach, values, explored = scratch.reach, scratch.values, scratch.explored
    pick, sig = scratch.pick, scratch.sig
    threshold, min_regret = pruning.threshold, pruning.min_regret

    kind = t.kind
    cs = t.child_start
    ch = t.children
    perm = hands.perm
    for j in range(4):
        world[0, j] = deal[j]
    reach[0] = 1.0
    stack[0] = 0
    top = 1
    nv = 0
    # ---- top-down: strategies, samples, record of the visits ----
    while top > 0:
        top -= 1
        n = stack[top]
        visit[nv] = n
        nv += 1
        k = kind[n]
        if k == FOLD or k == SHOWDOWN:
            continue
        first = cs[n]
        last = cs[n + 1]
        if k == CHANCE:
            ci = s.chance_index[n]
            card = world[n, 2 + s.level[n]]
            slot = s.card_slot[ci, card]
            sw = s.card_swap[ci, card]
            c = ch[first + slot]
            pick[n] = c
            if sw < 0:
                for j in range(4):
                    world[c, j] = world[n, j]
            else:
                s1 = s.suit_pairs[sw, 0]
                s2 = s.suit_pairs[sw, 1]
                world[c, 0] = perm[0, sw, world[n, 0]]
                world[c, 1] = perm[1, sw, world[n, 1]]
                for j in range(2, 4):
                    x = world[n, j]
                    world[c, j] = _swap_card(x, s1, s2) if x >= 0 else x
            reach[c] = reach[n]
            stack[top] = c
            top += 1
            continue
        p = t.player[n]
        h = world[n, p]
        nh = hands.num[p]
        off = t.offset[n]
        na = last - first
        # regret matching: sigma(a) = R+(a) / sum_b R+(b), uniform when no regret is positive
        total = 0.0
        for a in range(na):
            r = float(regrets[off + a * nh + h])
            if r > 0.0:
                total += r
        if total > 0.0:
            for a in range(na):
                r = float(regrets[off + a * nh + h])
                sig[first + a] = r / total if r > 0.0 else 0.0
        else:
            for a in range(na):
                sig[first + a] = 1.0 / na
        if p == trav:
            prune_here = prune_now and total > 0.0
            for a in range(na - 1, -1, -1):  # pushed in reverse: action 0 is walked first
                c = ch[first + a]
                if prune_here and s.prunable[c] != 0 and regrets[off + a * nh + h] < threshold:
                    explored[c] = 0
                    continue
                explored[c] = 1
                for j in range(4):
                    world[c, j] = world[n, j]
                reach[c] = reach[n]
                stack[top] = c
                top += 1
        elif external:
            for a in range(na):
                q = off + a * nh + h
                strat_out[q] = np.float32(strat_out[q] + scale * sig[first + a])
            sel = sample_action(sig, first, na, uniform(rng))
            c = ch[first + sel]
            pick[n] = c
            for j in range(4):
                world[c, j] = world[n, j]
            stack[top] = c
            top += 1
        else:
            own = reach[n]
            for a in range(na):
                q = off + a * nh + h
                strat_out[q] = np.float32(strat_out[q] + scale * own * sig[first + a])
            for a in range(na - 1, -1, -1):
                c = ch[first + a]
                x = sig[first + a]
                if x == 0.0:  # zero reach below: nothing to update there
                    explored[c] = 0
                    continue
                explored[c] = 1
                for j in range(4):
                    world[c, j] = world[n, j]
                reach[c] = own * x
                stack[top] = c
                top += 1

    # ---- bottom-up: sampled values and regret updates ----
    opp = 1 - trav
    for idx in range(nv - 1, -1, -1):
        n = visit[idx]
        k = kind[n]
        if k == FOLD:
            values[n] = t.lose[n] if t.player[n] == trav else t.win[n]
            continue
        if k == SHOWDOWN:
            b = t.board[n]
            mine = hands.strength[trav, b, world[n, trav]]
            theirs = hands.strength[opp, b, world[n, opp]]
            if mine > theirs:
                values[n] = t.win[n]
            elif mine < theirs:
                values[n] = t.lose[n]
            else:
                values[n] = t.tie[n]
            continue
        if k == CHANCE:
            values[n] = values[pick[n]]
            continue
        p = t.player[n]
        if p != trav and external:
            values[n] = values[pick[n]]
            continue
        first = cs[n]
        na = cs[n + 1] - first
        v = 0.0
        for a in range(na):
            c = ch[first + a]
            if explored[c] != 0:
                v += sig[first + a] * values[c]
        values[n] = v
        if p != trav:
            continue
        w = scale if external else scale * reach[n]
        h = world[n, p]
        nh = hands.num[p]
        off = t.offset[n]
        for a in range(na):
            c = ch[first + a]
            if explored[c] == 0:
                continue
            q = off + a * nh + h
            r = float(reg_out[q]) + w * (values[c] - v)
            if floor and r < 0.0:
                r = 0.0
            if r < min_regret:
                r = min_regret
            reg_out[q] = np.float32(r)
    return nv
