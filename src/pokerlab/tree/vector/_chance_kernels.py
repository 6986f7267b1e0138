"""Chance-node kernels of the vector tree's CFR pass: dealing a card into the reaches, recording
the work items of a split point, and summing the dealt cards' values.

A dealt card removes the hands holding it from both players' reaches (``card_start`` /
``card_hands`` of :class:`~pokerlab.tree.vector.tree.SweepArrays` list them by card), and the
chance probability (1 / cards left, ``chance_weight``) is folded into the opponent's reach. All
are inlined into :func:`pokerlab.tree.vector._kernels.walk` (``inline="always"``); an edit
here recompiles it (:mod:`pokerlab._kernel_cache`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree._showdown import FM_C0, FM_C1, fold_values


@njit(cache=True, inline="always", error_model="numpy")
def deal_reaches(cs_o, ch_o, cs_t, ch_t, card, inv, ro, rp, nh_o, nh_t, nro, nrp):
    """The reaches below a dealt ``card``: nro = ro x ``inv`` and nrp = rp, each zero on the
    hands holding the card (``cs_o`` / ``ch_o``: the opponent's ``card_start`` / ``card_hands``,
    ``cs_t`` / ``ch_t`` the traverser's)."""
    for g in range(nh_o):
        nro[g] = ro[g] * inv
    for q in range(cs_o[card], cs_o[card + 1]):
        nro[ch_o[q]] = 0.0
    for h in range(nh_t):
        nrp[h] = rp[h]
    for q in range(cs_t[card], cs_t[card + 1]):
        nrp[ch_t[q]] = 0.0


@njit(cache=True, error_model="numpy")
def _sample_mask(t, n, inside):
    """``inside[c]`` = 1 for the cards chance node ``n`` deals (its sample), else 0; returns
    how many it deals."""
    for c in range(52):
        inside[c] = 0
    m = 0
    for e in range(t.child_start[n], t.child_start[n + 1]):
        inside[t.edge_card[e]] = 1
        m += 1
    return m


@njit(cache=True, error_model="numpy")
def sampled_spread(t, n, nro, nh_o, fm_o):
    """Below a sampled deal of chance node ``n`` (``chance_weight`` < 0): the opponent's dealt
    reach ``nro`` times m / (m - a_s) per hand s, a_s = the sampled cards s holds, m = the
    sample's size. A pair leaves m - a_h - a_s of the sampled cards; with a_h = 0 (most hands)
    every opponent hand then meets the traverser's with the same total weight, as in the full
    deal, and for the others the tilt is at most (m - 3)(m) / ((m - 1)(m - 2)); the rest is
    :func:`sampled_renormalise`'s."""
    inside = np.zeros(52, dtype=np.int64)
    m = _sample_mask(t, n, inside)
    for g in range(nh_o):
        a = inside[fm_o[g, FM_C0]] + inside[fm_o[g, FM_C1]]
        nro[g] = nro[g] * (m / (m - a))


@njit(cache=True, inline="always", error_model="numpy")
def collect_items(t, cs_o, ch_o, cs_t, ch_t, n, ro, rp, nh_o, nh_t, items_ro, items_rp, fm_o):
    """At a split chance node ``n``: the reaches entering each dealt card's subtree into its
    work item's rows (``t.item_first[n]`` onwards, in edge order; a sampled deal's spread by
    :func:`sampled_spread`)."""
    first = t.item_first[n]
    inv = abs(t.chance_weight[n])  # negative at a sampled deal (sampled_renormalise)
    for e in range(t.child_start[n], t.child_start[n + 1]):
        it = first + e - t.child_start[n]
        card = t.edge_card[e]
        iro = items_ro[it]
        irp = items_rp[it]
        deal_reaches(cs_o, ch_o, cs_t, ch_t, card, inv, ro, rp, nh_o, nh_t, iro, irp)
        if t.chance_weight[n] < 0.0:
            sampled_spread(t, n, iro, nh_o, fm_o)


@njit(cache=True, inline="always", error_model="numpy")
def chance_values(t, hands, cs_t, ch_t, n, trav, na, nh_t, val, d, acc64, dst):
    """dst = the sum over the dealt cards' values ``val[d, :na]`` (hands holding the card cannot
    be there: their entries are zeroed first), plus the isomorphic cards read through their suit
    permutation (a hand holding the isomorphic card maps onto one holding the source card, whose
    entry is zero); summed in float64 in ``acc64``."""
    base_e = t.child_start[n]
    for i in range(na):
        card = t.edge_card[base_e + i]
        for q in range(cs_t[card], cs_t[card + 1]):
            val[d, i, ch_t[q]] = 0.0
    vv = val[d, 0]
    for h in range(nh_t):
        acc64[h] = vv[h]
    for i in range(1, na):
        vv = val[d, i]
        for h in range(nh_t):
            acc64[h] += vv[h]
    for q in range(t.iso_start[n], t.iso_start[n + 1]):
        src = t.iso_child[q]
        perm = hands.perm[trav, t.iso_swap[q]]
        for h in range(nh_t):
            acc64[h] += val[d, src, perm[h]]
    for h in range(nh_t):
        dst[h] = acc64[h]


@njit(cache=True, error_model="numpy")
def sampled_renormalise(t, n, ro, nh_o, nh_t, fm_o, fm_t, cards_sum, dst):
    """At a chance node ``n`` that deals a sample S of the cards left (``chance_weight`` < 0,
    :func:`~pokerlab.games.postflop.expand.expand_spot`'s ``deal_sample``): ``dst`` (the sum of
    its children's values, each dealt with weight w = -``chance_weight``) times R(h) / M(h),
    so that every traverser hand h meets the opponent's reach ``ro`` at the node with its whole
    chance probability, as in the full deal.

    R(h) = sum of ro(s) over the opponent hands s disjoint from h (the full deal gives each such
    pair probability one over the cards it leaves); M(h) = w x sum of ro(s) b(s) (m - a_h -
    a_s), the sample's mass for h, where m = |S|, a_x = |x & S| (m - a_h - a_s: the sampled
    cards a pair leaves) and b(s) = m / (m - a_s), the spread of :func:`sampled_spread`.
    The result is the ratio estimator of the chance expectation: unbiased in the limit, exact
    when S is every card left (then M = R), and free of the sample's bias toward a larger or
    smaller total weight per pair (a sample that blocks none of a pair's cards would otherwise
    weigh it by (cards left) / (cards left - 4)). Public chance sampling: Johanson, Bard,
    Lanctot, Gibson and Bowling, AAMAS 2012; Pluribus sampled its leaves' rollouts (Brown and
    Sandholm, Science 2019)."""
    w = -t.chance_weight[n]
    inside = np.zeros(52, dtype=np.int64)
    m = _sample_mask(t, n, inside)
    spread = np.zeros(ro.shape[0])  # ro(s) b(s), the zero pad slot kept
    held = np.zeros(ro.shape[0])  # ro(s) b(s) a_s
    for g in range(nh_o):
        a = inside[fm_o[g, FM_C0]] + inside[fm_o[g, FM_C1]]
        spread[g] = ro[g] * (m / (m - a))
        held[g] = spread[g] * a
    total = np.empty(nh_t)
    spread_sum = np.empty(nh_t)
    held_sum = np.empty(nh_t)
    fold_values(1.0, ro, nh_o, nh_t, fm_o, fm_t, cards_sum, total)
    fold_values(1.0, spread, nh_o, nh_t, fm_o, fm_t, cards_sum, spread_sum)
    fold_values(1.0, held, nh_o, nh_t, fm_o, fm_t, cards_sum, held_sum)
    for h in range(nh_t):
        a_h = inside[fm_t[h, FM_C0]] + inside[fm_t[h, FM_C1]]
        mass = w * ((m - a_h) * spread_sum[h] - held_sum[h])
        dst[h] = dst[h] * (total[h] / mass) if mass > 0.0 else 0.0
