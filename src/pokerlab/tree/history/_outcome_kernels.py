"""Numba kernel of outcome-sampling Monte Carlo CFR on the history tree: one sampled episode
from the root to a terminal, with the epsilon-on-policy mix for the traverser and stochastically
weighted averaging (Lanctot, Waugh, Zinkevich & Bowling 2009, section 3.2). Called by
:func:`pokerlab.tree.history._mccfr_kernels.mccfr_run`, whose arrays it shares."""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab._rng import uniform
from pokerlab.tree._primitives import H_CHANCE, H_TERMINAL, sample_action

__all__ = ["outcome_episode"]


@njit(cache=True)
def outcome_episode(
    t,
    traverser: int,
    regrets: np.ndarray,
    strat_sum: np.ndarray,
    sigma: np.ndarray,
    rng: np.ndarray,
    path_node: np.ndarray,
    path_action: np.ndarray,
    path_weight: np.ndarray,
    epsilon: float,
    floor: bool,
    min_regret: float,
) -> int:
    """One outcome-sampling episode for ``traverser``; returns nodes touched.

    One terminal history z is sampled: chance by its probabilities, the other players by sigma,
    the traverser by the epsilon-exploring policy q = epsilon / |A| + (1 - epsilon) sigma. With
    pi_-i(h) (other players and chance) and q(h) (sampling probability) up to h, and the sampled
    action a* at h, the unbiased estimates (Lanctot et al. 2009, section 3.2, in OpenSpiel's form
    with a zero baseline) are

        v~(h.a) = [a = a*] v~(h.a*) / q(a* | h),   v~(h) = sum_a sigma(a) v~(h.a),   v~(z) = u_i(z)
        R(I, a) += pi_-i(h) / q(h) * (v~(h.a) - v~(h))
        S(I, a) += pi_i(h) / q(h) * sigma(I, a)          (stochastically weighted averaging)

    path_node, path_action int32 (D,), path_weight (D, 3) = (pi_i, pi_-i, q) are scratch.
    """
    kind = t.kind
    cs = t.child_start
    ch = t.children
    io = t.info_offset
    n = 0
    my = 1.0
    opp = 1.0
    samp = 1.0
    depth = 0
    touched = 1
    while kind[n] != H_TERMINAL:
        first = cs[n]
        last = cs[n + 1]
        touched += 1
        if kind[n] == H_CHANCE:
            u = uniform(rng)
            acc = 0.0
            c = ch[last - 1]
            for e in range(first, last):
                acc += t.chance_prob[ch[e]]
                if u < acc:
                    c = ch[e]
                    break
            pc = t.chance_prob[c]
            opp *= pc
            samp *= pc
            n = c
            continue
        p = t.player[n]
        off = io[t.infoset[n]]
        na = last - first
        # regret matching written out, as in the other traversal (faster than the helper here)
        total = 0.0
        for a in range(na):
            r = regrets[off + a]
            if r > 0.0:
                total += r
        if total > 0.0:
            for a in range(na):
                r = regrets[off + a]
                sigma[off + a] = r / total if r > 0.0 else 0.0
        else:
            for a in range(na):
                sigma[off + a] = 1.0 / na
        explore = epsilon / na if p == traverser else 0.0
        keep = 1.0 - epsilon if p == traverser else 1.0
        sel = sample_action(sigma, off, na, uniform(rng), explore, keep)
        path_node[depth] = n
        path_action[depth] = sel
        path_weight[depth, 0] = my
        path_weight[depth, 1] = opp
        path_weight[depth, 2] = samp
        depth += 1
        s = sigma[off + sel]
        if p == traverser:
            my *= s
        else:
            opp *= s
        samp *= explore + keep * s
        n = ch[first + sel]

    value = t.utility[n, traverser]
    for d in range(depth - 1, -1, -1):
        n = path_node[d]
        sel = path_action[d]
        p = t.player[n]
        off = io[t.infoset[n]]
        na = cs[n + 1] - cs[n]
        s = sigma[off + sel]
        if p == traverser:
            q_sel = epsilon / na + (1.0 - epsilon) * s
        else:
            q_sel = s
        child = value / q_sel
        estimate = s * child
        if p == traverser:
            ratio = path_weight[d, 1] / path_weight[d, 2]
            for b in range(na):
                x = (child if b == sel else 0.0) - estimate
                r = regrets[off + b] + ratio * x
                if floor and r < 0.0:
                    r = 0.0
                if r < min_regret:
                    r = min_regret
                regrets[off + b] = r
            avg = path_weight[d, 0] / path_weight[d, 2]
            for b in range(na):
                strat_sum[off + b] += avg * sigma[off + b]
        value = estimate
    return touched
