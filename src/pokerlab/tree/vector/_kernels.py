"""Numba kernels of the vector tree: depth-first CFR, best-response and expected-value passes.

A vector tree (:mod:`pokerlab.tree.vector.tree`) is a public tree whose nodes hold vectors over
each player's own list of hands. One pass walks it depth first with an explicit stack (numba's
on-disk cache cannot hold recursive functions), keeping per depth only:

* the opponent's reach vector and the traverser's own reach vector,
* the acting player's strategy at the node (``actions x hands``),
* the children's counterfactual value vectors (``children x hands``),

so scratch memory is depth x children x hands, not nodes x hands, as in the recursive native
solvers (postflop-solver's ``solve_recursive``). Regrets and strategy sums are float32 and
the only per-node storage.

Counterfactual values follow Zinkevich et al. (2007): for the traverser i and hand h at node z,
``v_i(z, h) = sum over opponent hands h' compatible with h of reach_-i(h') * payoff``; chance
probabilities (1 / cards left) are folded into the opponent's reach when a card is dealt, and the
initial deal's normalisation is applied once at the root by the caller.

The per-node work lives by job in :mod:`pokerlab.tree._showdown` (fold and showdown values),
``_chance_kernels.py`` (dealing a card, split points, summing the cards) and
``_node_kernels.py`` (strategy, strategy sums, regret update), all inlined here; the kernel
arguments' bundles are in ``_bundles.py``.

Modes: ``MODE_CFR`` (regret matching on cumulative regrets, regret and strategy-sum updates of
the traverser, DCFR-style discounting inline), ``MODE_BR`` (the opponent plays the average
strategy, the traverser maximises), ``MODE_EV`` (both play the average strategy).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree._primitives import CHANCE, DECISION, FOLD, SHOWDOWN, discount_factors, unowned
from pokerlab.tree._showdown import (
    any_reach,
    fold_from_sums,
    fold_values,
    showdown_values,
    snapshot_card_sums,
)
from pokerlab.tree.vector._bundles import Discounts, Items, RootRows, Roots, Storage
from pokerlab.tree.vector._chance_kernels import (
    chance_values,
    collect_items,
    deal_reaches,
    sampled_renormalise,
    sampled_spread,
)
from pokerlab.tree.vector._node_kernels import (
    best_values,
    expected_values,
    reach_times,
    sigma_block,
    strategy_sums,
    strategy_sums_16,
    sum_values,
    update_regrets,
    update_regrets_16,
)

MODE_CFR, MODE_BR, MODE_EV = 0, 1, 2
#: split modes: descend everywhere / at split chance nodes record reaches and stop / read the
#: values that the parallel pass computed for their children
SPLIT_NONE, SPLIT_COLLECT, SPLIT_USE = 0, 1, 2


@njit(cache=True, nogil=True, error_model="numpy")
def traverse(
    t,
    hands,
    sw,
    root,
    trav,
    mode,
    split,
    store: Storage,
    disc: Discounts,
    rows: RootRows,
    sc,
    items: Items,
    rec_node,
    rec,
):
    """One depth-first pass from ``root`` for traverser ``trav``; values into ``rows.out``
    (:func:`walk` with one root)."""
    ro0, rp0, out = rows
    row = np.zeros(1, dtype=np.int64)
    one = (ro0.reshape((1, -1)), rp0.reshape((1, -1)), out.reshape((1, -1)))
    roots = Roots(row + root, row, one[0], one[1], one[2])
    return walk(t, hands, sw, roots, trav, mode, split, store, disc, sc, items, rec_node, rec)


@njit(cache=True, nogil=True, error_model="numpy")
def walk(
    t,
    hands,
    sw,
    roots: Roots,
    trav,
    mode,
    split,
    store: Storage,
    disc: Discounts,
    sc,
    items: Items,
    rec_node,
    rec,
):
    """Depth-first passes for traverser ``trav`` from each root ``roots.node[k]`` in turn, the
    reaches there in row ``roots.row[k]`` of ``roots.ro`` / ``roots.rp``, its values into that
    row of ``roots.out``: a worker's run of items is one call (about a microsecond a call).

    ``sw``: the sweep tables (:class:`~pokerlab.tree.vector.tree.SweepArrays`). ``fa``, ``fb``,
    ``fg``: this iteration's discounts of positive regrets, negative regrets and strategy sums;
    ``floor``: clip regrets at 0 (CFR+). ``pred``: the predicted regrets of a predictive
    schedule (PCFR+, PDCFR+; same layout as the regrets) or an empty array: when given,
    ``MODE_CFR`` plays regret matching on ``pred`` for both players, and each regret update R <-
    [R d_t + r]+ also writes pred <- [R d_{t+1} + r]+ with d_{t+1} = ``next_a`` where R > 0,
    ``next_b`` elsewhere (the next iteration's discounts; floored with ``floor``). ``rscale`` /
    ``sscale`` (float32, one per node) switch on the 16-bit mode: the regrets are int16 and the
    strategy sums uint16, a node's block standing for code x scale / 32767 (65535); each update
    re-encodes the node's block with its largest magnitude as the new scale (regret matching and
    the normalised average do not depend on the scale, so they read the codes as they are).
    Empty arrays: float32 storage. ``sc`` is the tuple of scratch arrays of
    :meth:`~pokerlab.tree.vector.tree.VectorTree.scratch`. ``rec_node`` >= 0: copy the
    opponent's reach, the traverser's reach and the traverser's value vector at that node into
    ``rec[0]``, ``rec[1]``, ``rec[2]`` (for reading one node). In ``MODE_BR`` the traverser
    plays its locked probabilities where ``lock_probs`` holds them and maximises elsewhere.
    Returns the number of nodes visited.
    """
    # every array a pass takes views of, without its owner record: no atomic reference count
    # per view (:func:`~pokerlab.tree._primitives.unowned`; the caller holds the arrays)
    store, items, roots, sc, sw, rec = unowned((store, items, roots, sc, sw, rec))
    regrets, strat, pred, rscale, sscale, lock_probs = store
    # the CFR passes (float32 scratch) update in float32, as postflop-solver does
    fg32 = np.float32(disc.fg)

    opp = 1 - trav
    ro_buf, rp_buf, sig, val, st_node, st_next, st_slot, ro_at, rp_at, cards_sum, tot, uni, snap = (
        sc
    )
    sd = sw.sd
    nh_t = hands.num[trav]
    nh_o = hands.num[opp]
    fm_t = sw.fm[trav]
    fm_o = sw.fm[opp]
    cs_t = sw.card_start[trav]
    ch_t = sw.card_hands[trav]
    cs_o = sw.card_start[opp]
    ch_o = sw.card_hands[opp]
    predictive = pred.shape[0] > 0
    compressed = rscale.shape[0] > 0
    visited = 0
    for k in range(roots.node.shape[0]):
        root = roots.node[k]
        ro0 = roots.ro[roots.row[k]]
        rp0 = roots.rp[roots.row[k]]
        out = roots.out[roots.row[k]]
        for h in range(nh_o):
            ro_buf[0, h] = ro0[h]
        for h in range(nh_t):
            rp_buf[0, h] = rp0[h]
        ro_at[0] = 0
        rp_at[0] = 0
        st_node[0] = root
        st_next[0] = -1
        st_slot[0] = 0
        d = 0
        while d >= 0:
            n = st_node[d]
            kind = t.kind[n]
            if st_next[d] == -1:
                visited += 1
                if n == rec_node:
                    for g in range(nh_o):
                        rec[0, g] = ro_buf[ro_at[d], g]
                    for h in range(nh_t):
                        rec[1, h] = rp_buf[rp_at[d], h]
                if kind == FOLD or kind == SHOWDOWN:
                    # ---- terminal: values of the traverser's hands against the opponent's reach
                    dst = out if d == 0 else val[d - 1, st_slot[d]]
                    ro = ro_buf[ro_at[d]]
                    live = any_reach(ro, nh_o)
                    if not live:
                        for h in range(nh_t):
                            dst[h] = 0.0
                    if kind == FOLD and live:
                        pay = t.lose[n] if t.player[n] == trav else t.win[n]
                        fold_values(pay, ro, nh_o, nh_t, fm_o, fm_t, cards_sum, dst)
                    elif kind == SHOWDOWN:
                        b = t.board[n]
                        nv_t = hands.num_valid[trav, b]
                        nv_o = hands.num_valid[opp, b]
                        if live:
                            showdown_values(
                                t.win[n], t.lose[n], t.tie[n], ro, nv_t, nv_o, sd[trav, b],
                                sd[opp, b], nh_t, snap, dst,
                            )  # fmt: skip
                        f = t.twin[n]
                        if f >= 0 and d > 0 and rec_node < 0 and t.player[st_node[d - 1]] == trav:
                            # the traverser's fold beside this call (skipped on the way down): the
                            # same opponent reach, so the sweep's total and card sums give it
                            if live:
                                snapshot_card_sums(sw.last[opp, b], snap, sd.shape[2], cards_sum)
                            up = st_node[d - 1]
                            slot = 0
                            for e in range(t.child_start[up], t.child_start[up + 1]):
                                if t.children[e] == f:
                                    slot = e - t.child_start[up]
                            total = snap[nv_o] if live else 0.0  # no reach: zeros
                            fv = val[d - 1, slot]
                            fold_from_sums(t.lose[f], total, ro, nh_t, fm_t, cards_sum, fv)
                    if n == rec_node:
                        for h in range(nh_t):
                            rec[2, h] = dst[h]
                    d -= 1
                    continue
                if kind == DECISION:
                    actor = t.player[n]
                    na = t.child_start[n + 1] - t.child_start[n]
                    nh_a = hands.num[actor]
                    off = t.offset[n]
                    use_avg = mode == MODE_EV or (mode == MODE_BR and actor != trav)
                    # (three calls: the stores may differ in type, float32 or 16-bit codes)
                    if use_avg:
                        sigma_block(strat, off, na, nh_a, sig, d, lock_probs, tot, uni)
                    elif mode == MODE_CFR and predictive:
                        sigma_block(pred, off, na, nh_a, sig, d, lock_probs, tot, uni)
                    elif mode == MODE_CFR:
                        sigma_block(regrets, off, na, nh_a, sig, d, lock_probs, tot, uni)
                    if mode == MODE_CFR and actor == trav and split != SPLIT_COLLECT:
                        rp = rp_buf[rp_at[d]]
                        if compressed:
                            fg = disc.fg
                            strategy_sums_16(
                                strat, sscale, n, off, na, nh_a, sig, val, d, rp, fg, disc.weighted
                            )
                        else:
                            strategy_sums(strat, off, na, nh_a, sig, d, rp, fg32, disc.weighted)
                elif kind == CHANCE and split == SPLIT_COLLECT and t.item_first[n] >= 0:
                    # record the reaches entering each dealt card's subtree, then stop here
                    ro = ro_buf[ro_at[d]]
                    rp = rp_buf[rp_at[d]]
                    iro, irp = items.ro, items.rp
                    collect_items(t, cs_o, ch_o, cs_t, ch_t, n, ro, rp, nh_o, nh_t, iro, irp, fm_o)
                    dst = out if d == 0 else val[d - 1, st_slot[d]]
                    for h in range(nh_t):
                        dst[h] = 0.0
                    d -= 1
                    continue
                elif kind == CHANCE and split == SPLIT_USE and t.item_first[n] >= 0:
                    first = t.item_first[n]
                    k = t.child_start[n + 1] - t.child_start[n]
                    for i in range(k):
                        src = items.val[first + i]
                        vv = val[d, i]
                        for h in range(nh_t):
                            vv[h] = src[h]
                    st_next[d] = k  # children done: fall through to the exit below
                if st_next[d] == -1:
                    st_next[d] = 0
            # ---- descend into the next child, or combine the children's values
            i = st_next[d]
            na = t.child_start[n + 1] - t.child_start[n]
            if i < na:
                child = t.children[t.child_start[n] + i]
                st_next[d] = i + 1
                if (
                    kind == DECISION and t.twin[child] >= 0 and t.kind[child] == FOLD
                    and t.player[n] == trav and rec_node < 0
                ):  # fmt: skip
                    visited += 1  # the traverser's fold: its showdown sibling writes its values
                    continue
                d1 = d + 1
                st_node[d1] = child
                st_next[d1] = -1
                st_slot[d1] = i
                if kind == DECISION:
                    actor = t.player[n]
                    if actor == trav:
                        ro_at[d1] = ro_at[d]
                        if mode == MODE_CFR and disc.weighted:
                            reach_times(rp_buf[rp_at[d]], sig[d, i], nh_t, rp_buf[d1])
                            rp_at[d1] = d1
                        else:
                            rp_at[d1] = rp_at[d]
                    else:
                        rp_at[d1] = rp_at[d]
                        reach_times(ro_buf[ro_at[d]], sig[d, i], nh_o, ro_buf[d1])
                        ro_at[d1] = d1
                else:
                    # a dealt card: hands holding it are removed from both reaches
                    card = t.edge_card[t.child_start[n] + i]
                    ro = ro_buf[ro_at[d]]
                    rp = rp_buf[rp_at[d]]
                    inv = abs(t.chance_weight[n])  # negative: a sampled deal
                    nro = ro_buf[d1]
                    nrp = rp_buf[d1]
                    deal_reaches(cs_o, ch_o, cs_t, ch_t, card, inv, ro, rp, nh_o, nh_t, nro, nrp)
                    if t.chance_weight[n] < 0.0:  # a sampled deal: the opponent's reach spread
                        sampled_spread(t, n, nro, nh_o, fm_o)
                    ro_at[d1] = d1
                    rp_at[d1] = d1
                d = d1
                continue
            # exit: combine
            dst = out if d == 0 else val[d - 1, st_slot[d]]
            if kind == DECISION:
                actor = t.player[n]
                if actor != trav:
                    sum_values(val, d, na, nh_t, dst)
                elif mode == MODE_BR:
                    best_values(val, d, na, nh_t, dst, lock_probs, t.offset[n])
                else:
                    expected_values(sig, val, d, na, nh_t, dst)
                    if mode == MODE_CFR and split != SPLIT_COLLECT and compressed:
                        update_regrets_16(store, disc, n, t.offset[n], na, nh_t, val, d, dst)
                    elif mode == MODE_CFR and split != SPLIT_COLLECT:
                        update_regrets(store, disc, t.offset[n], na, nh_t, val, d, dst)
            else:
                # chance: summed in float64 (snap is free: no showdown runs while a node combines)
                chance_values(t, hands, cs_t, ch_t, n, trav, na, nh_t, val, d, snap[:nh_t], dst)
                if t.chance_weight[n] < 0.0:  # a sampled deal: each hand's mass made whole
                    ro = ro_buf[ro_at[d]]
                    sampled_renormalise(t, n, ro, nh_o, nh_t, fm_o, fm_t, cards_sum, dst)
            if n == rec_node:
                for h in range(nh_t):
                    rec[2, h] = dst[h]
            d -= 1
    return visited


@njit(cache=True, nogil=True, error_model="numpy")
def cfr_iterations(
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
    """Iterations ``first + 1 .. first + count`` of CFR on a tree without split points, each
    OOP's pass then IP's with the discounts of :func:`factors` (``predictive``: the next
    iteration's too; ``weighted``: see :class:`Discounts`), in one compiled call (the per-pass
    dispatch from Python costs about 8 us, a seventh of a river pass). Returns the nodes
    visited."""
    # each pass's call takes ~50 arrays: unowned, without an atomic reference count each
    t, hands, sw, store, out, sc, items = unowned((t, hands, sw, store, out, sc, items))
    visited = 0
    for i in range(count):
        disc = iteration_discounts(params, first + i + 1, predictive, floor, weighted)
        for player in range(2):
            visited += traverse(
                t, hands, sw, 0, player, MODE_CFR, SPLIT_NONE, store, disc,
                RootRows(hands.weight[1 - player], hands.weight[player], out), sc, items, -1,
                items.val,
            )  # fmt: skip
    return visited


@njit(cache=True, inline="always")
def iteration_discounts(params, it, predictive, floor, weighted):
    """The :class:`Discounts` of CFR iteration ``it`` under the schedule array ``params``
    (``predictive``: with the next iteration's factors for the prediction; ``floor``: CFR+'s
    clip at 0; ``weighted``: strategy sums weighted by the own reach)."""
    fa, fb, fg = discount_factors(params, it)
    next_a, next_b = 1.0, 1.0
    if predictive:
        next_a, next_b, _ = discount_factors(params, it + 1)
    return Discounts(fa, fb, fg, floor, next_a, next_b, weighted)
