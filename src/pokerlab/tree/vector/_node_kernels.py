"""Decision-node kernels of the vector tree's CFR pass: strategy, strategy sums, combining the
children's values and the regret update, each over one node's ``actions x hands`` block.

A node's block starts at ``off`` in the regret and strategy-sum arrays, action-major (the hands
of action ``a`` at ``off + a * nh``). ``sig[d]`` and ``val[d]`` are the node's strategy and its
children's values in the pass's depth scratch (indexed in place, as a view per call costs a
reference count). Discounting follows DCFR (Brown & Sandholm 2019): positive regrets times
``fa``, negative ones times ``fb``, strategy sums times ``fg``; CFR+ floors the regrets at 0.
All are inlined into :func:`pokerlab.tree.vector._kernels.walk` (``inline="always"``; an edit
here recompiles it: :mod:`pokerlab._kernel_cache`), except :func:`root_dot`, a root vector's
value, which the passes and Python callers share.
"""

from __future__ import annotations

import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

#: code ranges of the 16-bit mode: regrets int16 in [-I16_MAX, I16_MAX], sums uint16
I16_MAX = 32767.0
U16_MAX = 65535.0
#: float32 zero: compared with and chosen beside float32 values, it keeps their arithmetic in
#: float32 (a float64 literal would widen it); beside float64 values it widens to float64
Z32 = np.float32(0.0)


@njit(cache=True, inline="always", error_model="numpy")
def sigma_block(store, off, na, nh, sig, d, lock_probs, tot, uni):
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
def strategy_sums(strat, off, na, nh, sig, d, rp, fg32, weighted):
    """Average strategy of the traverser: S <- g S + pi_i(I) sigma(I, a), or with ``weighted``
    False S <- g S + sigma(I, a) (postflop-solver's sums; ``rp`` is not read) (float32)."""
    for a in range(na):
        row = strat[off + a * nh : off + (a + 1) * nh]
        sg = sig[d, a]
        if weighted:
            for h in range(nh):
                row[h] = row[h] * fg32 + rp[h] * sg[h]
        else:
            for h in range(nh):
                row[h] = row[h] * fg32 + sg[h]


@njit(cache=True, inline="always", error_model="numpy")
def strategy_sums_16(strat, sscale, n, off, na, nh, sig, val, d, rp, fg, weighted):
    """:func:`strategy_sums` in 16 bits: S = u x scale / 65535; the new block goes through
    ``val[d]`` (free until the children write it) and is encoded with its maximum as the node's
    new scale."""
    dec = np.float32(sscale[n] * fg / U16_MAX)
    for a in range(na):
        row = strat[off + a * nh : off + (a + 1) * nh]
        sg = sig[d, a]
        vv = val[d, a]
        if weighted:
            for h in range(nh):
                vv[h] = np.float32(row[h]) * dec + rp[h] * sg[h]
        else:
            for h in range(nh):
                vv[h] = np.float32(row[h]) * dec + sg[h]
    mx = block_max_abs(val[d], na, nh)
    enc = np.float32(U16_MAX / mx if mx > 0.0 else 0.0)
    half = np.float32(0.5)
    for a in range(na):
        row = strat[off + a * nh : off + (a + 1) * nh]
        vv = val[d, a]
        for h in range(nh):
            row[h] = np.uint16(math.floor(vv[h] * enc + half))
    sscale[n] = np.float32(mx)


@intrinsic
def _float32_bits(typingctx, bits):  # noqa: ARG001 (numba passes the typing context)
    """The float32 whose bit pattern is the int32 ``bits`` (numba has no scalar bit cast)."""

    def codegen(context, builder, signature, args):  # noqa: ARG001
        return builder.bitcast(args[0], ir.FloatType())

    return types.float32(types.int32), codegen


@njit(cache=True, inline="always", error_model="numpy")
def block_max_abs(block, na, nh):
    """The largest magnitude in ``block[:na, :nh]`` (float32), the 16-bit mode's new scale.

    Taken on the float32 bit patterns as int32 with the sign bit cleared: for finite numbers
    their order is the numbers' order, and an integer maximum vectorises where a float one
    (a comparison chain, NaN-aware) does not: the two encodings of a node's update were a
    third of a 16-bit iteration's decision work."""
    mx = np.int32(0)
    for a in range(na):
        bits = block[a, :nh].view(np.int32)
        for h in range(nh):
            x = bits[h] & np.int32(0x7FFFFFFF)
            mx = x if x > mx else mx
    return _float32_bits(mx)


@njit(cache=True, inline="always", error_model="numpy")
def reach_times(reach, sg, n, dst):
    """dst = reach x the action's probabilities ``sg`` over the first ``n`` hands: the actor's
    reach entering a child."""
    for h in range(n):
        dst[h] = reach[h] * sg[h]


@njit(cache=True, inline="always", error_model="numpy")
def sum_values(val, d, na, nh, dst):
    """dst = the sum of the children's values (the opponent acts: its strategy is in the
    reach)."""
    vv = val[d, 0]
    for h in range(nh):
        dst[h] = vv[h]
    for a in range(1, na):
        vv = val[d, a]
        for h in range(nh):
            dst[h] += vv[h]


@njit(cache=True, inline="always", error_model="numpy")
def best_values(val, d, na, nh, dst, lock_probs, off):
    """dst = the best child's value per hand (a best response), or the locked probabilities'
    mix where ``lock_probs`` holds them."""
    vv = val[d, 0]
    for h in range(nh):
        dst[h] = vv[h]
    for a in range(1, na):
        vv = val[d, a]
        for h in range(nh):
            x = vv[h]
            dst[h] = x if x > dst[h] else dst[h]
    if lock_probs.shape[0] > 0:
        # the best response plays the lock where one is set
        for h in range(nh):
            if lock_probs[off + h] >= 0.0:
                x = 0.0
                for a in range(na):
                    x += lock_probs[off + a * nh + h] * val[d, a, h]
                dst[h] = x


@njit(cache=True, inline="always", error_model="numpy")
def expected_values(sig, val, d, na, nh, dst):
    """dst = sum over actions of sigma(a) x the child's value."""
    sg = sig[d, 0]
    vv = val[d, 0]
    for h in range(nh):
        dst[h] = sg[h] * vv[h]
    for a in range(1, na):
        sg = sig[d, a]
        vv = val[d, a]
        for h in range(nh):
            dst[h] += sg[h] * vv[h]


@njit(cache=True, inline="always", error_model="numpy")
def update_regrets(store, disc, off, na, nh, val, d, dst):
    """R <- R d_t + r with r = v(a) - v (floored at 0 for CFR+), and for a predictive schedule
    (PCFR+, PDCFR+; ``store.pred`` not empty) the prediction P <- [R d_{t+1} + r]+, d_{t+1}
    being ``next_a`` where R > 0 and ``next_b`` elsewhere; in float32."""
    regrets, pred = store.regrets, store.pred
    fa32, fb32 = np.float32(disc.fa), np.float32(disc.fb)
    floor, next_a, next_b = disc.floor, disc.next_a, disc.next_b
    predictive = pred.shape[0] > 0
    for a in range(na):
        lo = off + a * nh
        row = regrets[lo : lo + nh]
        prow = pred[lo : lo + nh] if predictive else pred
        vv = val[d, a]
        for h in range(nh):
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


@njit(cache=True, inline="always", error_model="numpy")
def update_regrets_16(store, disc, n, off, na, nh, val, d, dst):
    """:func:`update_regrets` in 16 bits: R = i x scale / 32767, the node's block re-encoded
    with its largest magnitude as the new scale (the new regrets wait in ``val[d]``, read once
    each)."""
    regrets, pred, rscale = store.regrets, store.pred, store.rscale
    fa32, fb32 = np.float32(disc.fa), np.float32(disc.fb)
    floor, next_a, next_b = disc.floor, disc.next_a, disc.next_b
    predictive = pred.shape[0] > 0
    dec = np.float32(rscale[n] / I16_MAX)
    for a in range(na):
        lo = off + a * nh
        row = regrets[lo : lo + nh]
        prow = pred[lo : lo + nh] if predictive else pred
        vv = val[d, a]
        for h in range(nh):
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
    mx = block_max_abs(val[d], na, nh)
    enc = np.float32(I16_MAX / mx if mx > 0.0 else 0.0)
    half = np.float32(0.5)
    for a in range(na):
        row = regrets[off + a * nh : off + (a + 1) * nh]
        vv = val[d, a]
        for h in range(nh):
            row[h] = np.int16(math.floor(vv[h] * enc + half))
    rscale[n] = np.float32(mx)


@njit(cache=True, nogil=True, error_model="numpy")
def root_dot(weight, out, n):
    """sum over the first ``n`` hands of ``weight[h] x out[h]``, in hand order (float64): the
    one summation every root value goes through, so that a value does not depend on which
    path computed the root vector."""
    v = 0.0
    for h in range(n):
        v += weight[h] * out[h]
    return v
