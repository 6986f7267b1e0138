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

Showdowns cost O(H) per node: hands are sorted by strength per final board, and one upward
sweep with per-card blocker sums (inclusion-exclusion; the identical combo is added back),
recording its running sums, gives each hand the reach below it, below or level with it, and in
all, hence what it beats, ties and loses to. Isomorphic chance cards (boards and
ranges unchanged by swapping two suits) are not stored: their values are the source card's
values read through the hand permutation of that suit swap.

Modes: ``MODE_CFR`` (regret matching on cumulative regrets, regret and strategy-sum updates of
the traverser, DCFR-style discounting inline), ``MODE_BR`` (the opponent plays the average
strategy, the traverser maximises), ``MODE_EV`` (both play the average strategy).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from pokerlab.tree._primitives import CHANCE, DECISION, FOLD, SHOWDOWN, discount_factors

MODE_CFR, MODE_BR, MODE_EV = 0, 1, 2
#: split modes: descend everywhere / at split chance nodes record reaches and stop / read the
#: values that the parallel pass computed for their children
SPLIT_NONE, SPLIT_COLLECT, SPLIT_USE = 0, 1, 2
#: code ranges of the 16-bit mode: regrets int16 in [-I16_MAX, I16_MAX], sums uint16
I16_MAX = 32767.0
U16_MAX = 65535.0
#: float32 zero: compared with and chosen beside float32 values, it keeps their arithmetic in
#: float32 (a float64 literal would widen it); beside float64 values it widens to float64
Z32 = np.float32(0.0)


class Storage(NamedTuple):
    """The arrays a pass reads and updates, as one kernel argument: regrets and strategy sums
    (float32; int16 and uint16 in the 16-bit mode), a predictive schedule's predicted regrets,
    the 16-bit mode's per-node scales of the regrets and of the sums, and locked probabilities
    (each an empty array when unused)."""

    regrets: np.ndarray
    strat: np.ndarray
    pred: np.ndarray
    rscale: np.ndarray
    sscale: np.ndarray
    lock_probs: np.ndarray


class Discounts(NamedTuple):
    """This iteration's discounts of positive regrets, negative regrets and strategy sums
    (``fa``, ``fb``, ``fg``), the CFR+ floor, and the next iteration's regret discounts that a
    predictive schedule's prediction anticipates (``next_a``, ``next_b``)."""

    fa: float
    fb: float
    fg: float
    floor: bool
    next_a: float
    next_b: float


class Items(NamedTuple):
    """The parallel work items (one subtree below a split chance node each): the opponent's and
    the traverser's reach entering it, and its value vector."""

    ro: np.ndarray
    rp: np.ndarray
    val: np.ndarray


class RootRows(NamedTuple):
    """A pass's root: the opponent's and the traverser's reach there, and where its value vector
    goes."""

    ro: np.ndarray
    rp: np.ndarray
    out: np.ndarray


@njit(cache=True, inline="always", error_model="numpy")
def _sigma_block(store, off, na, nh, sig, d, lock_probs, tot, uni):
    """Strategy of a node into sig[d, :na, :nh]: regret matching, or the normalised average.

    Branch-free and action-major over contiguous hands so that the loops vectorise: one pass
    sums the positive parts, one sets the divisors (1 and a uniform share where the sum is 0),
    one divides. In the precision of ``sig`` (float32 in the CFR passes, as postflop-solver's
    ``regret_matching``), and by division, not by a reciprocal: a pure strategy is exactly 1,
    so the node's value is exactly the action's and its regret update exactly 0 (a
    reciprocal's rounding left regrets of about 1e-12 x the value, and more iterations to a
    target: the river spot's 0.5% of the pot at 90 instead of 60).
    """
    for h in range(nh):
        tot[h] = Z32
    for a in range(na):
        row = store[off + a * nh : off + (a + 1) * nh]
        for h in range(nh):
            x = np.float32(row[h])  # exact for the float32 and 16-bit stores alike
            tot[h] += x if x > Z32 else Z32
    u = 1.0 / na
    for h in range(nh):
        x = tot[h]
        uni[h] = 0.0 if x > Z32 else u
        tot[h] = x if x > Z32 else 1.0
    for a in range(na):
        row = store[off + a * nh : off + (a + 1) * nh]
        sg = sig[d, a]
        for h in range(nh):
            x = np.float32(row[h])
            sg[h] = (x if x > Z32 else Z32) / tot[h] + uni[h]
    if lock_probs.shape[0] > 0:
        # node locking: fixed probabilities where lock_probs holds a non-negative number
        for a in range(na):
            lk = lock_probs[off + a * nh : off + (a + 1) * nh]
            for h in range(nh):
                x = lk[h]
                if x >= 0.0:
                    sig[d, a, h] = x


@njit(cache=True, inline="always", error_model="numpy")
def _fold_values(pay, ro, nh_o, nh_t, c0o, c1o, c0t, c1t, same1, cards_sum, dst):
    """dst[h] = pay x (opponent reach compatible with hand h): blocker sums by card, the
    identical combo added back (``same1`` points at a zero slot of ``ro`` when absent)."""
    for c in range(52):
        cards_sum[c] = 0.0
    total = 0.0
    for g in range(nh_o):
        r = ro[g]
        if r != 0.0:
            total += r
            cards_sum[c0o[g]] += r
            cards_sum[c1o[g]] += r
    if total == 0.0:
        for h in range(nh_t):
            dst[h] = 0.0
        return
    for h in range(nh_t):
        dst[h] = pay * (total - cards_sum[c0t[h]] - cards_sum[c1t[h]] + ro[same1[h]])


@njit(cache=True, inline="always", error_model="numpy")
def _showdown_values(win, lose, tie, ro, nv_t, nv_o, sw, trav, b, same1, nh_t, cards_sum, snap,
                     dst):  # fmt: skip
    """Showdown values from one upward sweep over the opponent's hands sorted by strength.

    With B, E, A the compatible opponent reach strictly below, equal to and strictly above a
    hand, and ALL = B + E + A, the value ``win B + tie E + lose A`` is
    ``(win - tie) B + (tie - lose) (B + E) + lose ALL``. The sweep adds the opponent's hands
    in order (per-card sums for the blockers) and records the running total after each in
    ``snap[:nv_o + 1]`` and its two cards' running sums in ``snap[H + 1 + 2 j]``,
    ``snap[H + 2 + 2 j]``; a second loop reads B (the first ``t_lo[k]`` opponent hands) and
    B + E (the first ``t_hi[k]``) for each hand through the snapshot slots of
    :class:`~pokerlab.tree.vector.tree.SweepArrays`, and ALL from the final sums
    (inclusion-exclusion: the identical combo, counted in B + E and ALL but subtracted twice
    there, is added back once per term, which is ``tie`` x its reach in all). Reading
    snapshots instead of emitting inside the sweep keeps the loads off the addresses the sweep
    is storing to."""
    opp = 1 - trav
    t_idx, t_c0, t_c1 = sw.idx[trav, b], sw.sc0[trav, b], sw.sc1[trav, b]
    t_lo, t_hi = sw.lo[trav, b], sw.hi[trav, b]
    o_idx, o_c0, o_c1 = sw.idx[opp, b], sw.sc0[opp, b], sw.sc1[opp, b]
    s_lo0, s_lo1 = sw.snap_lo0[trav, b], sw.snap_lo1[trav, b]
    s_hi0, s_hi1 = sw.snap_hi0[trav, b], sw.snap_hi1[trav, b]
    hh = t_c0.shape[0]
    tot = snap[: hh + 1]
    cs = snap[hh + 1 :]
    for c in range(52):
        cards_sum[c] = 0.0
    acc = 0.0
    tot[0] = 0.0
    for j in range(nv_o):
        r = ro[o_idx[j]]
        acc += r
        x0 = cards_sum[o_c0[j]] + r
        cards_sum[o_c0[j]] = x0
        x1 = cards_sum[o_c1[j]] + r
        cards_sum[o_c1[j]] = x1
        tot[j + 1] = acc
        cs[2 * j] = x0
        cs[2 * j + 1] = x1
    cs[2 * hh] = 0.0
    for h in range(nh_t):
        dst[h] = 0.0
    cb = win - tie
    ce = tie - lose
    for k in range(nv_t):
        h = t_idx[k]
        b = tot[t_lo[k]] - cs[s_lo0[k]] - cs[s_lo1[k]]
        be = tot[t_hi[k]] - cs[s_hi0[k]] - cs[s_hi1[k]]
        al = lose * (acc - cards_sum[t_c0[k]] - cards_sum[t_c1[k]]) + tie * ro[same1[h]]
        dst[h] = cb * b + ce * be + al


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
    """One depth-first pass from ``root`` for traverser ``trav``; values into ``out[:H_trav]``.

    ``sw``: the sweep tables (:class:`~pokerlab.tree.vector.tree.SweepArrays`). ``ro0`` /
    ``rp0``: the opponent's and the traverser's reach at ``root``. ``fa``, ``fb``, ``fg``: this
    iteration's discounts of positive regrets, negative regrets and strategy sums; ``floor``:
    clip regrets at 0 (CFR+). ``pred``: the predicted regrets of a predictive schedule (PCFR+,
    PDCFR+; same layout as the regrets) or an empty array: when given, ``MODE_CFR`` plays regret
    matching on ``pred`` for both players, and each regret update R <- [R d_t + r]+ also writes
    pred <- [R d_{t+1} + r]+ with d_{t+1} = ``next_a`` where R > 0, ``next_b`` elsewhere (the
    next iteration's discounts; floored with ``floor``). ``rscale`` / ``sscale`` (float32, one
    per node) switch on the 16-bit mode: the regrets are int16 and the strategy sums uint16, a
    node's block standing for code x scale / 32767 (65535); each update re-encodes the node's
    block with its largest magnitude as the new scale (regret matching and the normalised
    average do not depend on the scale, so they read the codes as they are). Empty arrays:
    float32 storage. ``sc`` is the tuple of scratch arrays of
    :meth:`~pokerlab.tree.vector.tree.VectorTree.scratch`. ``rec_node`` >= 0: copy the
    opponent's reach, the traverser's reach and the traverser's value vector at that node into
    ``rec[0]``, ``rec[1]``, ``rec[2]`` (for reading one node). In ``MODE_BR`` the traverser
    plays its locked probabilities where ``lock_probs`` holds them and maximises elsewhere.
    Returns the number of nodes visited.
    """
    regrets, strat, pred, rscale, sscale, lock_probs = store
    fa, fb, fg, floor, next_a, next_b = disc
    # the CFR passes (float32 scratch) update in float32, as postflop-solver does
    fa32, fb32, fg32 = np.float32(fa), np.float32(fb), np.float32(fg)
    ro0, rp0, out = rows
    items_ro, items_rp, items_val = items

    opp = 1 - trav
    ro_buf, rp_buf, sig, val, st_node, st_next, st_slot, ro_at, rp_at, cards_sum, tot, uni, snap = (
        sc
    )
    nh_t = hands.num[trav]
    nh_o = hands.num[opp]
    c0t = sw.c0[trav]
    c1t = sw.c1[trav]
    c0o = sw.c0[opp]
    c1o = sw.c1[opp]
    same1 = sw.same1[trav]
    cs_t = sw.card_start[trav]
    ch_t = sw.card_hands[trav]
    cs_o = sw.card_start[opp]
    ch_o = sw.card_hands[opp]
    locked = lock_probs.shape[0] > 0
    predictive = pred.shape[0] > 0
    compressed = rscale.shape[0] > 0
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
                dst = out if d == 0 else val[d - 1, st_slot[d]]
                ro = ro_buf[ro_at[d]]
                if kind == FOLD:
                    pay = t.lose[n] if t.player[n] == trav else t.win[n]
                    _fold_values(pay, ro, nh_o, nh_t, c0o, c1o, c0t, c1t, same1, cards_sum, dst)
                else:
                    b = t.board[n]
                    nv_t = hands.num_valid[trav, b]
                    nv_o = hands.num_valid[opp, b]
                    _showdown_values(
                        t.win[n], t.lose[n], t.tie[n], ro, nv_t, nv_o, sw, trav, b, same1, nh_t,
                        cards_sum, snap, dst,
                    )  # fmt: skip
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
                    _sigma_block(strat, off, na, nh_a, sig, d, lock_probs, tot, uni)
                elif mode == MODE_CFR and predictive:
                    _sigma_block(pred, off, na, nh_a, sig, d, lock_probs, tot, uni)
                elif mode == MODE_CFR:
                    _sigma_block(regrets, off, na, nh_a, sig, d, lock_probs, tot, uni)
                if mode == MODE_CFR and actor == trav and split != SPLIT_COLLECT:
                    # average strategy: S <- g * S + pi_i(I) * sigma(I, a)
                    rp = rp_buf[rp_at[d]]
                    if compressed:
                        # 16 bits: S = u * scale / 65535; the new block goes through val[d]
                        # (free until the children write it) and is encoded with its maximum
                        dec = np.float32(sscale[n] * fg / U16_MAX)
                        mx = Z32
                        for a in range(na):
                            row = strat[off + a * nh_a : off + (a + 1) * nh_a]
                            sg = sig[d, a]
                            vv = val[d, a]
                            for h in range(nh_a):
                                x = np.float32(row[h]) * dec + rp[h] * sg[h]
                                vv[h] = x
                                mx = x if x > mx else mx
                        enc = np.float32(U16_MAX / mx if mx > 0.0 else 0.0)
                        half = np.float32(0.5)
                        for a in range(na):
                            row = strat[off + a * nh_a : off + (a + 1) * nh_a]
                            vv = val[d, a]
                            for h in range(nh_a):
                                row[h] = np.uint16(math.floor(vv[h] * enc + half))
                        sscale[n] = np.float32(mx)
                    else:
                        for a in range(na):
                            row = strat[off + a * nh_a : off + (a + 1) * nh_a]
                            sg = sig[d, a]
                            for h in range(nh_a):
                                row[h] = row[h] * fg32 + rp[h] * sg[h]
            elif kind == CHANCE and split == SPLIT_COLLECT and t.item_first[n] >= 0:
                # record the reaches entering each dealt card's subtree, then stop here
                first = t.item_first[n]
                ro = ro_buf[ro_at[d]]
                rp = rp_buf[rp_at[d]]
                inv = t.chance_weight[n]
                for e in range(t.child_start[n], t.child_start[n + 1]):
                    it = first + e - t.child_start[n]
                    card = t.edge_card[e]
                    iro = items_ro[it]
                    irp = items_rp[it]
                    for g in range(nh_o):
                        iro[g] = ro[g] * inv
                    for q in range(cs_o[card], cs_o[card + 1]):
                        iro[ch_o[q]] = 0.0
                    for h in range(nh_t):
                        irp[h] = rp[h]
                    for q in range(cs_t[card], cs_t[card + 1]):
                        irp[ch_t[q]] = 0.0
                dst = out if d == 0 else val[d - 1, st_slot[d]]
                for h in range(nh_t):
                    dst[h] = 0.0
                d -= 1
                continue
            elif kind == CHANCE and split == SPLIT_USE and t.item_first[n] >= 0:
                first = t.item_first[n]
                k = t.child_start[n + 1] - t.child_start[n]
                for i in range(k):
                    src = items_val[first + i]
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
                        nrp = rp_buf[d1]
                        sg = sig[d, i]
                        for h in range(nh_t):
                            nrp[h] = rp[h] * sg[h]
                        rp_at[d1] = d1
                    else:
                        rp_at[d1] = rp_at[d]
                else:
                    rp_at[d1] = rp_at[d]
                    ro = ro_buf[ro_at[d]]
                    nro = ro_buf[d1]
                    sg = sig[d, i]
                    for g in range(nh_o):
                        nro[g] = ro[g] * sg[g]
                    ro_at[d1] = d1
            else:
                # a dealt card: hands holding it are removed from both reaches
                card = t.edge_card[t.child_start[n] + i]
                inv = t.chance_weight[n]
                ro = ro_buf[ro_at[d]]
                rp = rp_buf[rp_at[d]]
                for g in range(nh_o):
                    ro_buf[d1, g] = ro[g] * inv
                for q in range(cs_o[card], cs_o[card + 1]):
                    ro_buf[d1, ch_o[q]] = 0.0
                for h in range(nh_t):
                    rp_buf[d1, h] = rp[h]
                for q in range(cs_t[card], cs_t[card + 1]):
                    rp_buf[d1, ch_t[q]] = 0.0
                ro_at[d1] = d1
                rp_at[d1] = d1
            d = d1
            continue
        # exit: combine
        dst = out if d == 0 else val[d - 1, st_slot[d]]
        if kind == DECISION:
            actor = t.player[n]
            if actor != trav:
                vv = val[d, 0]
                for h in range(nh_t):
                    dst[h] = vv[h]
                for a in range(1, na):
                    vv = val[d, a]
                    for h in range(nh_t):
                        dst[h] += vv[h]
            elif mode == MODE_BR:
                vv = val[d, 0]
                for h in range(nh_t):
                    dst[h] = vv[h]
                for a in range(1, na):
                    vv = val[d, a]
                    for h in range(nh_t):
                        x = vv[h]
                        dst[h] = x if x > dst[h] else dst[h]
                if locked:
                    # the best response plays the lock where one is set
                    off = t.offset[n]
                    for h in range(nh_t):
                        if lock_probs[off + h] >= 0.0:
                            x = 0.0
                            for a in range(na):
                                x += lock_probs[off + a * nh_t + h] * val[d, a, h]
                            dst[h] = x
            else:
                sg = sig[d, 0]
                vv = val[d, 0]
                for h in range(nh_t):
                    dst[h] = sg[h] * vv[h]
                for a in range(1, na):
                    sg = sig[d, a]
                    vv = val[d, a]
                    for h in range(nh_t):
                        dst[h] += sg[h] * vv[h]
                if mode == MODE_CFR and split != SPLIT_COLLECT and compressed:
                    # 16 bits: R = i * scale / 32767, the node's block re-encoded with its
                    # largest magnitude (the new regrets wait in val[d], read once each)
                    off = t.offset[n]
                    dec = np.float32(rscale[n] / I16_MAX)
                    mx = Z32
                    for a in range(na):
                        lo = off + a * nh_t
                        row = regrets[lo : lo + nh_t]
                        prow = pred[lo : lo + nh_t] if predictive else pred
                        vv = val[d, a]
                        for h in range(nh_t):
                            inst = vv[h] - dst[h]
                            r = np.float32(row[h]) * dec
                            r = r * fa32 if r > Z32 else r * fb32
                            r += inst
                            if floor and r < Z32:
                                r = Z32
                            if predictive:
                                pv = (r * next_a if r > 0.0 else r * next_b) + inst
                                prow[h] = np.float32(0.0 if (floor and pv < 0.0) else pv)
                            vv[h] = r
                            m = r if r > Z32 else -r
                            mx = m if m > mx else mx
                    enc = np.float32(I16_MAX / mx if mx > 0.0 else 0.0)
                    half = np.float32(0.5)
                    for a in range(na):
                        row = regrets[off + a * nh_t : off + (a + 1) * nh_t]
                        vv = val[d, a]
                        for h in range(nh_t):
                            row[h] = np.int16(math.floor(vv[h] * enc + half))
                    rscale[n] = np.float32(mx)
                elif mode == MODE_CFR and split != SPLIT_COLLECT:
                    # R <- R d_t + r (floored for CFR+), and for a predictive schedule the
                    # prediction P <- [R d_{t+1} + r]+
                    off = t.offset[n]
                    for a in range(na):
                        lo = off + a * nh_t
                        row = regrets[lo : lo + nh_t]
                        prow = pred[lo : lo + nh_t] if predictive else pred
                        vv = val[d, a]
                        for h in range(nh_t):
                            inst = vv[h] - dst[h]
                            r = row[h]
                            r = r * fa32 if r > Z32 else r * fb32
                            r += inst
                            if floor and r < Z32:
                                r = Z32
                            row[h] = r
                            if predictive:
                                pv = (r * next_a if r > 0.0 else r * next_b) + inst
                                prow[h] = np.float32(0.0 if (floor and pv < 0.0) else pv)
        else:
            # chance: sum over dealt cards (hands holding the card cannot be there: their
            # entries are zeroed first), plus the isomorphic cards read through their suit
            # permutation (a hand holding the isomorphic card maps onto one holding the
            # source card, whose entry is zero)
            base_e = t.child_start[n]
            for i in range(na):
                card = t.edge_card[base_e + i]
                for q in range(cs_t[card], cs_t[card + 1]):
                    val[d, i, ch_t[q]] = 0.0
            # summed in float64 (snap is free: no showdown runs while a node combines)
            acc64 = snap[:nh_t]
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
    store: Storage,
    out,
    sc,
    items: Items,
):
    """Iterations ``first + 1 .. first + count`` of CFR on a tree without split points, each
    OOP's pass then IP's with the discounts of :func:`factors` (``predictive``: the next
    iteration's too), in one compiled call (the per-pass dispatch from Python costs about
    8 us, a seventh of a river pass). Returns the nodes visited."""

    visited = 0
    for i in range(count):
        it = first + i + 1
        fa, fb, fg = discount_factors(params, it)
        next_a, next_b = 1.0, 1.0
        if predictive:
            next_a, next_b, _ = discount_factors(params, it + 1)
        for player in range(2):
            visited += traverse(
                t, hands, sw, 0, player, MODE_CFR, SPLIT_NONE, store,
                Discounts(fa, fb, fg, floor, next_a, next_b),
                RootRows(hands.weight[1 - player], hands.weight[player], out), sc, items, -1,
                items.val,
            )  # fmt: skip
    return visited


@njit(cache=True, nogil=True, error_model="numpy")
def best_response_pair(t, hands, sw, store: Storage, out, sc, items: Items, norm):
    """Both players' best-response values against the average strategy (chips: each root
    value vector dotted with the player's range weights, over ``norm``), the two
    ``MODE_BR`` passes in one compiled call, for trees without split points."""
    res = np.zeros(2)
    for trav in range(2):
        traverse(
            t, hands, sw, 0, trav, MODE_BR, SPLIT_NONE, store,
            Discounts(1.0, 1.0, 1.0, False, 1.0, 1.0),
            RootRows(hands.weight[1 - trav], hands.weight[trav], out), sc, items, -1, items.val,
        )  # fmt: skip
        v = 0.0
        for h in range(hands.num[trav]):
            v += hands.weight[trav, h] * out[h]
        res[trav] = v / norm
    return res


@njit(cache=True, parallel=True, nogil=True, error_model="numpy")
def traverse_items(
    t,
    hands,
    sw,
    trav,
    mode,
    store: Storage,
    disc: Discounts,
    scratch_all,
    items: Items,
):
    """The subtrees below the split chance nodes, in parallel: one work item per dealt card.

    Items are handed out as threads free up (the caller launches with a chunk size of 1: on
    shared cores a fixed split waits for its slowest thread), each thread working in its own
    scratch; each item is computed the same way whatever the thread and the thread count
    (it reads only its entry reaches and writes only its own subtree and value row), so
    results do not depend on them.
    """

    n_items = items.ro.shape[0]
    n_threads = scratch_all[0].shape[0]
    counts = np.zeros(n_threads, dtype=np.int64)
    for it in prange(n_items):
        tid = numba.get_thread_id()
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
            scratch_all[11][tid],
            scratch_all[12][tid],
        )
        counts[tid] += traverse(
            t, hands, sw, t.item_node[it], trav, mode, SPLIT_NONE, store, disc,
            RootRows(items.ro[it], items.rp[it], items.val[it]), sc, items, -1, items.val,
        )  # fmt: skip
    return counts.sum()


def thread_ids_available() -> int:
    """How many scratch slots the parallel pass needs (numba's thread pool size)."""
    return int(numba.config.NUMBA_NUM_THREADS)
