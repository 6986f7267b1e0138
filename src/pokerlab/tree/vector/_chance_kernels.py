"""Chance-node kernels of the vector tree's CFR pass: dealing a card into the reaches, recording
the work items of a split point, and summing the dealt cards' values.

A dealt card removes the hands holding it from both players' reaches (``card_start`` /
``card_hands`` of :class:`~pokerlab.tree.vector.tree.SweepArrays` list them by card), and the
chance probability (1 / cards left, ``chance_weight``) is folded into the opponent's reach. All
are inlined into :func:`pokerlab.tree.vector._kernels.walk` (``inline="always"``); an edit
here recompiles it (:mod:`pokerlab._kernel_cache`).
"""

from __future__ import annotations

from numba import njit


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


@njit(cache=True, inline="always", error_model="numpy")
def collect_items(t, cs_o, ch_o, cs_t, ch_t, n, ro, rp, nh_o, nh_t, items_ro, items_rp):
    """At a split chance node ``n``: the reaches entering each dealt card's subtree into its
    work item's rows (``t.item_first[n]`` onwards, in edge order)."""
    first = t.item_first[n]
    inv = t.chance_weight[n]
    for e in range(t.child_start[n], t.child_start[n + 1]):
        it = first + e - t.child_start[n]
        card = t.edge_card[e]
        iro = items_ro[it]
        irp = items_rp[it]
        deal_reaches(cs_o, ch_o, cs_t, ch_t, card, inv, ro, rp, nh_o, nh_t, iro, irp)


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
