"""Numba kernels of the public tree (:mod:`pokerlab.tree.public.tree`): full-width CFR passes, and
the expected-value / best-response pass that evaluates any strategy.

One CFR iteration is two loops over nodes in preorder: top-down, the current strategy by regret
matching and the reach probabilities (with the strategy-sum update of the updating players);
bottom-up, counterfactual values and the regret update. The value pass reads a strategy's
probabilities and the tree, nothing of a solver. No Python objects, no allocation per node.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.tree._primitives import (
    CHANCE,
    DECISION,
    RunArrays,
    discount_factors,
    discount_range,
    unowned,
)
from pokerlab.tree.public._terminal import terminal_values

CHANCE_NODE = CHANCE


class PublicScratch(NamedTuple):
    """Scratch of a CFR pass on a public tree: the current strategy (tree layout), reach and
    counterfactual values ``(N, 2, H)``, zero-reach flags ``(N, 2)``, a per-card sum for card
    removal and one regret-matching total per private state."""

    sigma: np.ndarray
    reach: np.ndarray
    cfv: np.ndarray
    live: np.ndarray
    cards_sum: np.ndarray
    totals: np.ndarray


@njit(cache=True)
def public_regret_matching(t, regrets: np.ndarray, sigma: np.ndarray, totals: np.ndarray) -> None:
    """Current strategy of every (decision node, private state) by regret matching.

    Works on whole ``actions x H`` blocks so the inner loops run over contiguous private states.
    ``totals`` (H,) is scratch.
    """
    num_h = totals.shape[0]
    totals = unowned(totals)  # its per-node slice: no atomic reference count (unowned)
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
    run: RunArrays,
    scratch: PublicScratch,
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
    regrets, strat_sum, pred = run
    sigma, reach, cfv, live, cards_sum, totals = scratch

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
    run: RunArrays,
    scratch: PublicScratch,
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
    regrets, strat_sum = run.regrets, run.strat_sum

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
                run,
                scratch,
                not alternating or group == 0,
                not alternating or group == 1,
                floor,
                prune,
                predictive,
                next_a,
                next_b,
            )
    return touched


@njit(cache=True)
def public_value(
    t,
    probs: np.ndarray,
    player: int,
    best_response: bool,
    reach: np.ndarray,
    cfv: np.ndarray,
    cards_sum: np.ndarray,
    live: np.ndarray,
) -> float:
    """Expected payoff of ``player`` on a public tree.

    With ``best_response`` the player maximises per private state at its own nodes (the best
    response to the opponent's strategy in ``probs``: in a public tree each (node, private state)
    is exactly one information set); otherwise it follows ``probs``. reach (N, 2, H) and
    cfv (N, 2, H) are scratch; only the opponent's reach row and the player's value row are used.
    """
    kind = t.kind
    num_nodes = kind.shape[0]
    num_h = t.private_cards.shape[0]
    cs = t.child_start
    ch = t.children
    q = 1 - player
    for h in range(num_h):
        reach[0, q, h] = t.root_reach[q, h]
    for n in range(num_nodes):
        k = kind[n]
        if k == DECISION:
            off = t.offset[n]
            for a in range(cs[n + 1] - cs[n]):
                c = ch[cs[n] + a]
                if t.player[n] == q:
                    for h in range(num_h):
                        reach[c, q, h] = reach[n, q, h] * probs[off + a * num_h + h]
                else:
                    for h in range(num_h):
                        reach[c, q, h] = reach[n, q, h]
        elif k == CHANCE_NODE:
            for e in range(cs[n], cs[n + 1]):
                c = ch[e]
                bc = t.board[c]
                for h in range(num_h):
                    reach[c, q, h] = reach[n, q, h] if t.valid[bc, h] else 0.0
    terminal_values(t, player, reach, cfv, cards_sum, live, False)
    for n in range(num_nodes - 1, -1, -1):
        k = kind[n]
        if k == DECISION:
            na = cs[n + 1] - cs[n]
            off = t.offset[n]
            own = t.player[n] == player
            for h in range(num_h):
                if own and best_response:
                    v = -np.inf
                    for a in range(na):
                        x = cfv[ch[cs[n] + a], player, h]
                        if x > v:
                            v = x
                elif own:
                    v = 0.0
                    for a in range(na):
                        v += probs[off + a * num_h + h] * cfv[ch[cs[n] + a], player, h]
                else:
                    v = 0.0
                    for a in range(na):
                        v += cfv[ch[cs[n] + a], player, h]
                cfv[n, player, h] = v
        elif k == CHANCE_NODE:
            for h in range(num_h):
                v = 0.0
                for e in range(cs[n], cs[n + 1]):
                    v += cfv[ch[e], player, h]
                cfv[n, player, h] = v
    total = 0.0
    for h in range(num_h):
        total += t.root_reach[player, h] * cfv[0, player, h]
    return total
