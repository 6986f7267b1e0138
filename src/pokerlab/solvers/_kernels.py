"""Numba kernels of full-width CFR on flat trees (public tree and history tree).

One iteration is two loops over nodes in preorder: top-down, the current strategy by regret
matching and the reach probabilities (with the strategy-sum update of the updating players);
bottom-up, counterfactual values and the regret update. No Python objects, no allocation per node.
Array layouts are described in :mod:`pokerlab.tree.public_tree` and
:mod:`pokerlab.tree.history_tree`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from pokerlab.tree._terminal import terminal_values
from pokerlab.tree.public_tree import CHANCE_NODE, DECISION

# ---------------------------------------------------------------------------------------------
# schedules


@njit(cache=True)
def _ratio(t_prev: float, exponent: float) -> float:
    """t'^e / (t'^e + 1); 1 where t'^e is infinite (t' = 0 with e < 0: the limit)."""
    if math.isnan(exponent):
        return 1.0
    x = t_prev**exponent
    if math.isinf(x):
        return 1.0
    return x / (x + 1.0)


@njit(cache=True)
def _exponent(params: np.ndarray, k: int, t: int) -> float:
    """Exponent k (0 alpha, 1 beta, 2 gamma) of iteration t, moved along its hyperparameter
    schedule when it has one: start + (end - start) * min((t - 1) / horizon, 1)."""
    end = params[8 + k]
    horizon = params[11]
    if math.isnan(end) or horizon <= 0.0:
        return params[k]
    return params[k] + (end - params[k]) * min((t - 1) / horizon, 1.0)


@njit(cache=True)
def discount_factors(params: np.ndarray, t: int) -> tuple[float, float, float]:
    """(a_t, b_t, g_t) for iteration t; params laid out as in
    :data:`pokerlab.solvers.schedule.PARAMS_LAYOUT`: [alpha, beta, gamma, floor, linear_until,
    -, -, predictive, alpha_end, beta_end, gamma_end, horizon]."""
    if params[4] >= 0.0 and t > params[4]:
        return 1.0, 1.0, 1.0
    tp = float(t - 1)
    gamma = _exponent(params, 2, t)
    g = 1.0 if math.isnan(gamma) else (tp / t) ** gamma
    return _ratio(tp, _exponent(params, 0, t)), _ratio(tp, _exponent(params, 1, t)), g


@njit(cache=True)
def discount_range(
    regrets: np.ndarray, strat_sum: np.ndarray, start: int, stop: int, a: float, b: float, g: float
) -> None:
    """Scale accumulated regrets (a if positive, b otherwise) and strategy sums (g) in a slice."""
    if a != 1.0 or b != 1.0:
        for k in range(start, stop):
            r = regrets[k]
            regrets[k] = r * a if r > 0.0 else r * b
    if g != 1.0:
        for k in range(start, stop):
            strat_sum[k] *= g


# ---------------------------------------------------------------------------------------------
# public tree


@njit(cache=True, inline="always")
def regret_matching_block(
    regrets: np.ndarray, sigma: np.ndarray, off: int, num_actions: int, h: int, stride: int
) -> None:
    """sigma(a) = R+(a) / sum_b R+(b), uniform when no regret is positive (Hart & Mas-Colell)."""
    total = 0.0
    for a in range(num_actions):
        r = regrets[off + a * stride + h]
        if r > 0.0:
            total += r
    if total > 0.0:
        for a in range(num_actions):
            r = regrets[off + a * stride + h]
            sigma[off + a * stride + h] = r / total if r > 0.0 else 0.0
    else:
        u = 1.0 / num_actions
        for a in range(num_actions):
            sigma[off + a * stride + h] = u


@njit(cache=True)
def public_regret_matching(t, regrets: np.ndarray, sigma: np.ndarray, totals: np.ndarray) -> None:
    """Current strategy of every (decision node, private state) by regret matching.

    Works on whole ``actions x H`` blocks so the inner loops run over contiguous private states.
    ``totals`` (H,) is scratch.
    """
    num_h = totals.shape[0]
    for idx in range(t.decisions.shape[0]):
        n = t.decisions[idx]
        off = t.offset[n]
        na = t.child_start[n + 1] - t.child_start[n]
        totals[:] = 0.0
        for a in range(na):
            base = off + a * num_h
            for h in range(num_h):
                r = regrets[base + h]
                if r > 0.0:
                    totals[h] += r
        for a in range(na):
            base = off + a * num_h
            for h in range(num_h):
                r = regrets[base + h]
                tot = totals[h]
                if tot > 0.0:
                    sigma[base + h] = r / tot if r > 0.0 else 0.0
                else:
                    sigma[base + h] = 1.0 / na


@njit(cache=True)
def public_cfr_pass(
    t,
    regrets: np.ndarray,
    strat_sum: np.ndarray,
    sigma: np.ndarray,
    reach: np.ndarray,
    cfv: np.ndarray,
    live: np.ndarray,
    cards_sum: np.ndarray,
    totals: np.ndarray,
    pred: np.ndarray,
    update0: bool,
    update1: bool,
    floor: bool,
    prune: bool,
    predictive: bool,
    next_a: float,
    next_b: float,
) -> int:
    """One CFR pass over a public tree for the updating players; returns nodes touched.

    reach (N, 2, H) and cfv (N, 2, H) are scratch; live (N, 2) marks nodes where a player's reach
    is not all zero. Regret update (Zinkevich et al. 2007), per private state h at a node of i:
        R(I, a) += v_i(I.a) - v_i(I),  with v the counterfactual value (opponent and chance reach
        are inside v through the terminal amounts and the opponent reach vector).
    Strategy sum: S(I, a) += pi_i(I) * sigma(I, a).
    With ``predictive`` the strategy is regret matching on ``pred`` instead of the regrets, and
    each regret update also writes the prediction of the next pass (Farina et al. 2021; Xu et
    al. 2024): pred(I, a) = R(I, a) * d + r(I, a), with d = ``next_a`` where R > 0, ``next_b``
    elsewhere (the next iteration's discounts), floored at 0 with ``floor``.
    Nodes touched counts (public node, private state) pairs whose values were computed.
    """
    kind = t.kind
    num_nodes = kind.shape[0]
    num_h = t.private_cards.shape[0]
    cs = t.child_start
    ch = t.children
    update = (update0, update1)
    touched = 0

    public_regret_matching(t, pred if predictive else regrets, sigma, totals)

    # ---- top-down: reach probabilities and strategy sums ----
    for p in range(2):
        for h in range(num_h):
            reach[0, p, h] = t.root_reach[p, h]
        live[0, p] = True
    n = 0
    while n < num_nodes:
        if prune and not (live[n, 0] or live[n, 1]):
            for m in range(n + 1, t.subtree_end[n]):
                live[m, 0] = False
                live[m, 1] = False
            n = t.subtree_end[n]
            continue
        k = kind[n]
        if k == DECISION:
            p = t.player[n]
            q = 1 - p
            off = t.offset[n]
            na = cs[n + 1] - cs[n]
            upd = update[p]
            for a in range(na):
                c = ch[cs[n] + a]
                base = off + a * num_h
                any_p = False
                for h in range(num_h):
                    rc = reach[n, p, h] * sigma[base + h]
                    if upd:
                        strat_sum[base + h] += rc
                    reach[c, p, h] = rc
                    if rc != 0.0:
                        any_p = True
                    reach[c, q, h] = reach[n, q, h]
                live[c, p] = any_p
                live[c, q] = live[n, q]
        elif k == CHANCE_NODE:
            for e in range(cs[n], cs[n + 1]):
                c = ch[e]
                bc = t.board[c]
                for p in range(2):
                    any_p = False
                    for h in range(num_h):
                        r = reach[n, p, h] if t.valid[bc, h] else 0.0
                        reach[c, p, h] = r
                        if r != 0.0:
                            any_p = True
                    live[c, p] = any_p
        n += 1

    # ---- terminals, all at once ----
    for i in range(2):
        if update[i]:
            touched += terminal_values(t, i, reach, cfv, cards_sum, live, prune)

    # ---- bottom-up: counterfactual values and regrets ----
    for n in range(num_nodes - 1, -1, -1):
        k = kind[n]
        if k != DECISION and k != CHANCE_NODE:
            continue
        for i in range(2):
            if not update[i]:
                continue
            q = 1 - i
            if prune and not live[n, q]:
                for h in range(num_h):
                    cfv[n, i, h] = 0.0
                if predictive and k == DECISION and t.player[n] == i:
                    # r = 0 here (the opponent never arrives): the prediction is R * d alone
                    off = t.offset[n]
                    for j in range(off, off + (cs[n + 1] - cs[n]) * num_h):
                        r = regrets[j]
                        pv = r * next_a if r > 0.0 else r * next_b
                        pred[j] = 0.0 if (floor and pv < 0.0) else pv
                continue
            touched += t.num_valid[t.board[n]]
            if k == DECISION:
                first = cs[n]
                na = cs[n + 1] - first
                if t.player[n] == i:
                    off = t.offset[n]
                    for h in range(num_h):
                        cfv[n, i, h] = 0.0
                    for a in range(na):
                        c = ch[first + a]
                        base = off + a * num_h
                        for h in range(num_h):
                            cfv[n, i, h] += sigma[base + h] * cfv[c, i, h]
                    for a in range(na):
                        c = ch[first + a]
                        base = off + a * num_h
                        for h in range(num_h):
                            inst = cfv[c, i, h] - cfv[n, i, h]
                            r = regrets[base + h] + inst
                            if floor and r < 0.0:
                                r = 0.0
                            regrets[base + h] = r
                            if predictive:
                                pv = (r * next_a if r > 0.0 else r * next_b) + inst
                                pred[base + h] = 0.0 if (floor and pv < 0.0) else pv
                else:
                    for h in range(num_h):
                        cfv[n, i, h] = 0.0
                    for a in range(na):
                        c = ch[first + a]
                        for h in range(num_h):
                            cfv[n, i, h] += cfv[c, i, h]
            else:
                for h in range(num_h):
                    cfv[n, i, h] = 0.0
                for e in range(cs[n], cs[n + 1]):
                    c = ch[e]
                    for h in range(num_h):
                        cfv[n, i, h] += cfv[c, i, h]
    return touched


@njit(cache=True)
def public_cfr_run(
    t,
    regrets: np.ndarray,
    strat_sum: np.ndarray,
    sigma: np.ndarray,
    reach: np.ndarray,
    cfv: np.ndarray,
    live: np.ndarray,
    cards_sum: np.ndarray,
    totals: np.ndarray,
    pred: np.ndarray,
    ranges: np.ndarray,
    params: np.ndarray,
    first_iteration: int,
    iterations: int,
    alternating: bool,
    prune: bool,
) -> int:
    """Run ``iterations`` CFR iterations numbered from ``first_iteration``; returns nodes touched.

    ranges (2, 2): [start, stop) of each player's part of the solver arrays. pred: the
    predicted regrets (same layout as the regrets) when ``params`` asks for prediction, else
    unused (may be empty).
    """
    floor = params[3] != 0.0
    predictive = params[7] != 0.0
    touched = 0
    for it in range(iterations):
        tt = first_iteration + it
        a, b, g = discount_factors(params, tt)
        next_a, next_b, _ = discount_factors(params, tt + 1)
        # Alternating: one pass per player, each after its own discount. Simultaneous: one pass
        # for both players after both discounts.
        for group in range(2 if alternating else 1):
            for i in range(2):
                if not alternating or i == group:
                    discount_range(regrets, strat_sum, ranges[i, 0], ranges[i, 1], a, b, g)
            touched += public_cfr_pass(
                t,
                regrets,
                strat_sum,
                sigma,
                reach,
                cfv,
                live,
                cards_sum,
                totals,
                pred,
                not alternating or group == 0,
                not alternating or group == 1,
                floor,
                prune,
                predictive,
                next_a,
                next_b,
            )
    return touched


# ---------------------------------------------------------------------------------------------
# history tree (any number of players)

H_DECISION, H_CHANCE, H_TERMINAL = 0, 1, 2


@njit(cache=True)
def history_regret_matching(t, regrets: np.ndarray, sigma: np.ndarray) -> None:
    """Current strategy of every information set by regret matching."""
    off = t.info_offset
    for k in range(off.shape[0] - 1):
        regret_matching_block(regrets, sigma, off[k], off[k + 1] - off[k], 0, 1)


@njit(cache=True)
def history_cfr_pass(
    t,
    regrets: np.ndarray,
    strat_sum: np.ndarray,
    sigma: np.ndarray,
    inst: np.ndarray,
    reach: np.ndarray,
    chance_reach: np.ndarray,
    values: np.ndarray,
    update: np.ndarray,
    ranges: np.ndarray,
    pred: np.ndarray,
    floor: bool,
    prune: bool,
    predictive: bool,
    next_a: float,
    next_b: float,
) -> int:
    """One CFR pass over a history tree for the players with ``update[i]``; returns nodes touched.

    reach (N, P) own reach of each player, chance_reach (N,), values (N, P) expected utilities,
    inst (size,) instantaneous regrets. For history h of player i in infoset I:
        r(I, a) += pi_-i(h) * (v_i(h.a) - v_i(h)),    S(I, a) += pi_i(h) * sigma(I, a).
    (S grows by pi_i once per history of I; by perfect recall pi_i is the same for all of them,
    so the normalised average strategy is unchanged.)
    With ``predictive``, regret matching reads ``pred`` and the update writes
    pred(I, a) = R(I, a) * d + r(I, a) (d = ``next_a`` where R > 0, ``next_b`` elsewhere;
    floored at 0 with ``floor``), as in :func:`public_cfr_pass`.
    """
    kind = t.kind
    num_nodes = kind.shape[0]
    num_players = reach.shape[1]
    cs = t.child_start
    ch = t.children
    history_regret_matching(t, pred if predictive else regrets, sigma)

    for p in range(num_players):
        reach[0, p] = 1.0
    chance_reach[0] = 1.0
    for n in range(num_nodes):
        k = kind[n]
        if k == H_DECISION:
            p = t.player[n]
            off = t.info_offset[t.infoset[n]]
            for a in range(cs[n + 1] - cs[n]):
                c = ch[cs[n] + a]
                s = sigma[off + a]
                if update[p]:
                    strat_sum[off + a] += reach[n, p] * s
                for q in range(num_players):
                    reach[c, q] = reach[n, q]
                reach[c, p] = reach[n, p] * s
                chance_reach[c] = chance_reach[n]
        elif k == H_CHANCE:
            for e in range(cs[n], cs[n + 1]):
                c = ch[e]
                for q in range(num_players):
                    reach[c, q] = reach[n, q]
                chance_reach[c] = chance_reach[n] * t.chance_prob[c]

    touched = 0
    for n in range(num_nodes - 1, -1, -1):
        k = kind[n]
        for i in range(num_players):
            if not update[i]:
                continue
            others = chance_reach[n]
            for q in range(num_players):
                if q != i:
                    others *= reach[n, q]
            if prune and others == 0.0:
                values[n, i] = 0.0
                continue
            touched += 1
            if k == H_TERMINAL:
                values[n, i] = t.utility[n, i]
            elif k == H_CHANCE:
                v = 0.0
                for e in range(cs[n], cs[n + 1]):
                    c = ch[e]
                    v += t.chance_prob[c] * values[c, i]
                values[n, i] = v
            else:
                off = t.info_offset[t.infoset[n]]
                na = cs[n + 1] - cs[n]
                v = 0.0
                for a in range(na):
                    v += sigma[off + a] * values[ch[cs[n] + a], i]
                values[n, i] = v
                if t.player[n] == i:
                    for a in range(na):
                        inst[off + a] += others * (values[ch[cs[n] + a], i] - v)

    for i in range(num_players):
        if not update[i]:
            continue
        for j in range(ranges[i, 0], ranges[i, 1]):
            r = regrets[j] + inst[j]
            if floor and r < 0.0:
                r = 0.0
            regrets[j] = r
            if predictive:
                pv = (r * next_a if r > 0.0 else r * next_b) + inst[j]
                pred[j] = 0.0 if (floor and pv < 0.0) else pv
            inst[j] = 0.0
    return touched


@njit(cache=True)
def history_cfr_run(
    t,
    regrets: np.ndarray,
    strat_sum: np.ndarray,
    sigma: np.ndarray,
    inst: np.ndarray,
    reach: np.ndarray,
    chance_reach: np.ndarray,
    values: np.ndarray,
    pred: np.ndarray,
    ranges: np.ndarray,
    params: np.ndarray,
    first_iteration: int,
    iterations: int,
    alternating: bool,
    prune: bool,
) -> int:
    """Run ``iterations`` CFR iterations on a history tree; returns nodes touched (``pred`` as
    in :func:`public_cfr_run`)."""
    floor = params[3] != 0.0
    predictive = params[7] != 0.0
    num_players = reach.shape[1]
    update = np.zeros(num_players, dtype=np.bool_)
    touched = 0
    for it in range(iterations):
        tt = first_iteration + it
        a, b, g = discount_factors(params, tt)
        next_a, next_b, _ = discount_factors(params, tt + 1)
        for group in range(num_players if alternating else 1):
            for i in range(num_players):
                update[i] = not alternating or i == group
                if update[i]:
                    discount_range(regrets, strat_sum, ranges[i, 0], ranges[i, 1], a, b, g)
            touched += history_cfr_pass(
                t,
                regrets,
                strat_sum,
                sigma,
                inst,
                reach,
                chance_reach,
                values,
                update,
                ranges,
                pred,
                floor,
                prune,
                predictive,
                next_a,
                next_b,
            )
    return touched
