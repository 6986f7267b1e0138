"""Numba kernels of the vector tree: depth-first CFR, best-response and expected-value passes.

A vector tree (:mod:`pokerlab.tree.vector_tree`) is a public tree whose nodes hold vectors over
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

Showdowns cost O(H) per node: hands are sorted by strength per final board, and one upward and
one downward sweep with per-card blocker sums (inclusion-exclusion; the identical combo is added
back) give each hand the reach it beats, loses to and ties. Isomorphic chance cards (boards and
ranges unchanged by swapping two suits) are not stored: their values are the source card's
values read through the hand permutation of that suit swap.

Modes: ``MODE_CFR`` (regret matching on cumulative regrets, regret and strategy-sum updates of
the traverser, DCFR-style discounting inline), ``MODE_BR`` (the opponent plays the average
strategy, the traverser maximises), ``MODE_EV`` (both play the average strategy).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

DECISION, CHANCE, FOLD, SHOWDOWN = 0, 1, 2, 3
MODE_CFR, MODE_BR, MODE_EV = 0, 1, 2
#: split modes: descend everywhere / at split chance nodes record reaches and stop / read the
#: values that the parallel pass computed for their children
SPLIT_NONE, SPLIT_COLLECT, SPLIT_USE = 0, 1, 2


@njit(cache=True, inline="always", error_model="numpy", fastmath=True)
def _sigma_block(store, off, na, nh, sig, d, use_avg, lock_probs, tot):
    """Strategy of a node into sig[d, :na, :nh]: regret matching, or the normalised average.

    Loops run action-major over contiguous hands so that they vectorise.
    """
    for h in range(nh):
        tot[h] = 0.0
    if use_avg:
        for a in range(na):
            base = off + a * nh
            for h in range(nh):
                tot[h] += store[base + h]
        for a in range(na):
            base = off + a * nh
            for h in range(nh):
                sig[d, a, h] = store[base + h] / tot[h] if tot[h] > 0.0 else 1.0 / na
    else:
        for a in range(na):
            base = off + a * nh
            for h in range(nh):
                x = store[base + h]
                tot[h] += x if x > 0.0 else 0.0
        for a in range(na):
            base = off + a * nh
            for h in range(nh):
                x = store[base + h]
                if tot[h] > 0.0:
                    sig[d, a, h] = (x if x > 0.0 else 0.0) / tot[h]
                else:
                    sig[d, a, h] = 1.0 / na
    if lock_probs.shape[0] > 0:
        # node locking: fixed probabilities where lock_probs holds a non-negative number
        for a in range(na):
            for h in range(nh):
                x = lock_probs[off + a * nh + h]
                if x >= 0.0:
                    sig[d, a, h] = x


@njit(cache=True, error_model="numpy", fastmath=True)
def traverse(
    t,
    hands,
    root,
    trav,
    mode,
    split,
    regrets,
    strat,
    fa,
    fb,
    fg,
    floor,
    ro0,
    rp0,
    out,
    sc,
    items_ro,
    items_rp,
    items_val,
    lock_probs,
    rec_node,
    rec,
):
    """One depth-first pass from ``root`` for traverser ``trav``; values into ``out[:H_trav]``.

    ``ro0`` / ``rp0``: the opponent's and the traverser's reach at ``root``. ``fa``, ``fb``,
    ``fg``: this iteration's discounts of positive regrets, negative regrets and strategy sums;
    ``floor``: clip regrets at 0 (CFR+). ``sc`` is a :class:`Scratch`-like tuple of arrays.
    ``rec_node`` >= 0: copy the opponent's reach, the traverser's reach and the traverser's
    value vector at that node into ``rec[0]``, ``rec[1]``, ``rec[2]`` (for reading one node).
    Returns the number of nodes visited.
    """
    opp = 1 - trav
    ro_buf, rp_buf, sig, val, st_node, st_next, st_slot, ro_at, rp_at, cards_sum, tot = sc
    nh_t = hands.num[trav]
    nh_o = hands.num[opp]
    hc = hands.cards
    visited = 0
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
                if d == 0:
                    dst = out
                else:
                    dst = val[d - 1, st_slot[d]]
                ro = ro_buf[ro_at[d]]
                for c in range(cards_sum.shape[0]):
                    cards_sum[c] = 0.0
                total = 0.0
                for g in range(nh_o):
                    r = ro[g]
                    total += r
                    cards_sum[hc[opp, g, 0]] += r
                    cards_sum[hc[opp, g, 1]] += r
                if kind == FOLD:
                    pay = t.lose[n] if t.player[n] == trav else t.win[n]
                    for h in range(nh_t):
                        c = total - cards_sum[hc[trav, h, 0]] - cards_sum[hc[trav, h, 1]]
                        s = hands.same[trav, h]
                        if s >= 0:
                            c += ro[s]
                        dst[h] = pay * c
                else:
                    b = t.board[n]
                    win = t.win[n]
                    lose = t.lose[n]
                    tie = t.tie[n]
                    order_t = hands.order[trav, b]
                    order_o = hands.order[opp, b]
                    str_t = hands.strength[trav, b]
                    str_o = hands.strength[opp, b]
                    nv_t = hands.num_valid[trav, b]
                    nv_o = hands.num_valid[opp, b]
                    for h in range(nh_t):
                        dst[h] = 0.0
                    # compatible reach, then wins (strictly weaker), then losses (stronger)
                    for k in range(nv_t):
                        h = order_t[k]
                        c = total - cards_sum[hc[trav, h, 0]] - cards_sum[hc[trav, h, 1]]
                        s = hands.same[trav, h]
                        if s >= 0:
                            c += ro[s]
                        dst[h] = tie * c
                    for c in range(cards_sum.shape[0]):
                        cards_sum[c] = 0.0
                    acc = 0.0
                    j = 0
                    for k in range(nv_t):
                        h = order_t[k]
                        sh = str_t[h]
                        while j < nv_o and str_o[order_o[j]] < sh:
                            g = order_o[j]
                            r = ro[g]
                            acc += r
                            cards_sum[hc[opp, g, 0]] += r
                            cards_sum[hc[opp, g, 1]] += r
                            j += 1
                        w = acc - cards_sum[hc[trav, h, 0]] - cards_sum[hc[trav, h, 1]]
                        dst[h] += (win - tie) * w
                    for c in range(cards_sum.shape[0]):
                        cards_sum[c] = 0.0
                    acc = 0.0
                    j = nv_o - 1
                    for k in range(nv_t - 1, -1, -1):
                        h = order_t[k]
                        sh = str_t[h]
                        while j >= 0 and str_o[order_o[j]] > sh:
                            g = order_o[j]
                            r = ro[g]
                            acc += r
                            cards_sum[hc[opp, g, 0]] += r
                            cards_sum[hc[opp, g, 1]] += r
                            j -= 1
                        lo = acc - cards_sum[hc[trav, h, 0]] - cards_sum[hc[trav, h, 1]]
                        dst[h] += (lose - tie) * lo
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
                if mode == MODE_CFR or use_avg:
                    _sigma_block(
                        strat if use_avg else regrets,
                        off,
                        na,
                        nh_a,
                        sig,
                        d,
                        use_avg,
                        lock_probs,
                        tot,
                    )
                if mode == MODE_CFR and actor == trav and split != SPLIT_COLLECT:
                    # average strategy: S <- g * S + pi_i(I) * sigma(I, a)
                    rp = rp_buf[rp_at[d]]
                    for a in range(na):
                        base = off + a * nh_a
                        for h in range(nh_a):
                            strat[base + h] = np.float32(
                                strat[base + h] * fg + rp[h] * sig[d, a, h]
                            )
            elif kind == CHANCE and split == SPLIT_COLLECT and t.item_first[n] >= 0:
                # record the reaches entering each dealt card's subtree, then stop here
                first = t.item_first[n]
                ro = ro_buf[ro_at[d]]
                rp = rp_buf[rp_at[d]]
                inv = t.chance_weight[n]
                for e in range(t.child_start[n], t.child_start[n + 1]):
                    it = first + e - t.child_start[n]
                    card = t.edge_card[e]
                    for g in range(nh_o):
                        blocked = hc[opp, g, 0] == card or hc[opp, g, 1] == card
                        items_ro[it, g] = 0.0 if blocked else ro[g] * inv
                    for h in range(nh_t):
                        blocked = hc[trav, h, 0] == card or hc[trav, h, 1] == card
                        items_rp[it, h] = 0.0 if blocked else rp[h]
                dst = out if d == 0 else val[d - 1, st_slot[d]]
                for h in range(nh_t):
                    dst[h] = 0.0
                d -= 1
                continue
            elif kind == CHANCE and split == SPLIT_USE and t.item_first[n] >= 0:
                first = t.item_first[n]
                k = t.child_start[n + 1] - t.child_start[n]
                for i in range(k):
                    for h in range(nh_t):
                        val[d, i, h] = items_val[first + i, h]
                st_next[d] = k  # children done: fall through to the exit below
            if st_next[d] == -1:
                st_next[d] = 0
        # ---- descend into the next child, or combine the children's values
        i = st_next[d]
        na = t.child_start[n + 1] - t.child_start[n]
        if i < na:
            child = t.children[t.child_start[n] + i]
            st_next[d] = i + 1
            d1 = d + 1
            st_node[d1] = child
            st_next[d1] = -1
            st_slot[d1] = i
            if kind == DECISION:
                actor = t.player[n]
                if actor == trav:
                    ro_at[d1] = ro_at[d]
                    if mode == MODE_CFR:
                        rp = rp_buf[rp_at[d]]
                        for h in range(nh_t):
                            rp_buf[d1, h] = rp[h] * sig[d, i, h]
                        rp_at[d1] = d1
                    else:
                        rp_at[d1] = rp_at[d]
                else:
                    rp_at[d1] = rp_at[d]
                    ro = ro_buf[ro_at[d]]
                    if mode == MODE_EV or mode == MODE_BR or mode == MODE_CFR:
                        for g in range(nh_o):
                            ro_buf[d1, g] = ro[g] * sig[d, i, g]
                    ro_at[d1] = d1
            else:
                card = t.edge_card[t.child_start[n] + i]
                inv = t.chance_weight[n]
                ro = ro_buf[ro_at[d]]
                rp = rp_buf[rp_at[d]]
                for g in range(nh_o):
                    blocked = hc[opp, g, 0] == card or hc[opp, g, 1] == card
                    ro_buf[d1, g] = 0.0 if blocked else ro[g] * inv
                for h in range(nh_t):
                    blocked = hc[trav, h, 0] == card or hc[trav, h, 1] == card
                    rp_buf[d1, h] = 0.0 if blocked else rp[h]
                ro_at[d1] = d1
                rp_at[d1] = d1
            d = d1
            continue
        # exit: combine
        dst = out if d == 0 else val[d - 1, st_slot[d]]
        if kind == DECISION:
            actor = t.player[n]
            if actor != trav:
                for h in range(nh_t):
                    dst[h] = val[d, 0, h]
                for a in range(1, na):
                    for h in range(nh_t):
                        dst[h] += val[d, a, h]
            elif mode == MODE_BR:
                for h in range(nh_t):
                    dst[h] = val[d, 0, h]
                for a in range(1, na):
                    for h in range(nh_t):
                        if val[d, a, h] > dst[h]:
                            dst[h] = val[d, a, h]
            else:
                for h in range(nh_t):
                    dst[h] = sig[d, 0, h] * val[d, 0, h]
                for a in range(1, na):
                    for h in range(nh_t):
                        dst[h] += sig[d, a, h] * val[d, a, h]
                if mode == MODE_CFR and split != SPLIT_COLLECT:
                    off = t.offset[n]
                    for a in range(na):
                        base = off + a * nh_t
                        for h in range(nh_t):
                            r = float(regrets[base + h])
                            r = r * fa if r > 0.0 else r * fb
                            r += val[d, a, h] - dst[h]
                            if floor and r < 0.0:
                                r = 0.0
                            regrets[base + h] = np.float32(r)
        else:
            # chance: sum over dealt cards (hands holding the card cannot be there), plus the
            # isomorphic cards read through their suit permutation
            for h in range(nh_t):
                dst[h] = 0.0
            for i in range(na):
                card = t.edge_card[t.child_start[n] + i]
                for h in range(nh_t):
                    if hc[trav, h, 0] != card and hc[trav, h, 1] != card:
                        dst[h] += val[d, i, h]
            for q in range(t.iso_start[n], t.iso_start[n + 1]):
                src = t.iso_child[q]
                card = t.iso_card[q]
                perm = hands.perm[trav, t.iso_swap[q]]
                for h in range(nh_t):
                    if hc[trav, h, 0] != card and hc[trav, h, 1] != card:
                        dst[h] += val[d, src, perm[h]]
        if n == rec_node:
            for h in range(nh_t):
                rec[2, h] = dst[h]
        d -= 1
    return visited


@njit(cache=True, parallel=True, error_model="numpy")
def traverse_items(
    t,
    hands,
    trav,
    mode,
    regrets,
    strat,
    fa,
    fb,
    fg,
    floor,
    scratch_all,
    items_ro,
    items_rp,
    items_val,
    lock_probs,
):
    """The subtrees below the split chance nodes, in parallel: one work item per dealt card.

    Items are handed out to threads in a fixed interleaved pattern; each item is computed the
    same way whatever the thread count, so results do not depend on it.
    """
    n_items = items_ro.shape[0]
    n_threads = scratch_all[0].shape[0]
    counts = np.zeros(n_threads, dtype=np.int64)
    for tid in prange(n_threads):
        sc = (
            scratch_all[0][tid],
            scratch_all[1][tid],
            scratch_all[2][tid],
            scratch_all[3][tid],
            scratch_all[4][tid],
            scratch_all[5][tid],
            scratch_all[6][tid],
            scratch_all[7][tid],
            scratch_all[8][tid],
            scratch_all[9][tid],
            scratch_all[10][tid],
        )
        for it in range(tid, n_items, n_threads):
            counts[tid] += traverse(
                t,
                hands,
                t.item_node[it],
                trav,
                mode,
                SPLIT_NONE,
                regrets,
                strat,
                fa,
                fb,
                fg,
                floor,
                items_ro[it],
                items_rp[it],
                items_val[it],
                sc,
                items_ro,
                items_rp,
                items_val,
                lock_probs,
                -1,
                items_val,
            )
    return counts.sum()


@njit(cache=True)
def _ratio(tp: float, exponent: float) -> float:
    if np.isnan(exponent):
        return 1.0
    x = tp**exponent
    return x / (x + 1.0)


@njit(cache=True)
def factors(params, t):
    """(a_t, b_t, g_t) of iteration t (1-based) from a schedule array.

    ``params = [alpha, beta, gamma, floor, linear_until, reset_base]``: DCFR's discounts
    (Brown & Sandholm 2019) with NaN meaning "none"; with ``reset_base`` = 4 the average is
    discounted as if the run restarted at the last power of 4 (postflop-solver's DCFR variant);
    ``beta`` may be a constant factor when ``params[6]`` is 1.
    """
    if params[4] >= 0.0 and t > params[4]:
        return 1.0, 1.0, 1.0
    tp = float(t - 1)
    base = params[5] if params.shape[0] > 5 else 0.0
    # postflop-solver counts iterations from 0 and discounts regrets with max(t0 - 1, 0)
    a = _ratio(max(tp - 1.0, 0.0) if base >= 2.0 else tp, params[0])
    if params.shape[0] > 6 and params[6] == 1.0:
        b = params[1]
    else:
        b = _ratio(tp, params[1])
    if np.isnan(params[2]):
        g = 1.0
    else:
        if base >= 2.0:
            # iteration counter from 0 as postflop-solver counts; restart at powers of base
            it0 = t - 1
            p = 1
            while p * base <= it0:
                p = int(p * base)
            tg = float(it0 - p) if it0 > 0 else 0.0
            g = (tg / (tg + 1.0)) ** params[2]
        else:
            g = (tp / t) ** params[2]
    return a, b, g


def thread_ids_available() -> int:
    """How many scratch slots the parallel pass needs (numba's thread pool size)."""
    return int(numba.config.NUMBA_NUM_THREADS)
