"""Numba kernels of the history tree (:mod:`pokerlab.tree.history.tree`, any number of players):
full-width CFR passes and the expected-value / best-response pass that evaluates any strategy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.tree._primitives import (
    H_CHANCE,
    H_DECISION,
    H_TERMINAL,
    RunArrays,
    discount_factors,
    discount_range,
    regret_matching_block,
)


class HistoryScratch(NamedTuple):
    """Scratch of a CFR pass on a history tree: the current strategy and the instantaneous
    regrets (tree layout), each player's reach ``(N, P)``, chance reach ``(N,)`` and each
    player's expected utility ``(N, P)``."""

    sigma: np.ndarray
    inst: np.ndarray
    reach: np.ndarray
    chance_reach: np.ndarray
    values: np.ndarray


@njit(cache=True)
def history_regret_matching(t, regrets: np.ndarray, sigma: np.ndarray) -> None:
    """Current strategy of every information set by regret matching."""
    off = t.info_offset
    for k in range(off.shape[0] - 1):
        regret_matching_block(regrets, sigma, off[k], off[k + 1] - off[k], 0, 1)


@njit(cache=True)
def history_cfr_pass(
    t,
    run: RunArrays,
    scratch: HistoryScratch,
    update: np.ndarray,
    ranges: np.ndarray,
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
    regrets, strat_sum, pred = run
    sigma, inst, reach, chance_reach, values = scratch

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
    run: RunArrays,
    scratch: HistoryScratch,
    ranges: np.ndarray,
    params: np.ndarray,
    first_iteration: int,
    iterations: int,
    alternating: bool,
    prune: bool,
) -> int:
    """Run ``iterations`` CFR iterations on a history tree; returns nodes touched (``pred`` as
    in :func:`public_cfr_run`)."""
    regrets, strat_sum = run.regrets, run.strat_sum
    reach = scratch.reach

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
                run,
                scratch,
                update,
                ranges,
                floor,
                prune,
                predictive,
                next_a,
                next_b,
            )
    return touched


@njit(cache=True)
def history_value(
    t,
    probs: np.ndarray,
    player: int,
    best_response: bool,
    others_reach: np.ndarray,
    values: np.ndarray,
    q_values: np.ndarray,
    choice: np.ndarray,
) -> float:
    """Expected payoff of ``player`` on a history tree, following ``probs`` or best-responding.

    The best response is computed level by level (Johanson et al. 2011 describe the general
    problem): information sets of the responder with the most own decisions above them are decided
    first, from Q(I, a) = sum over h in I of pi_-i(h) * v(h.a); perfect recall guarantees that
    every information set below a history of level L has a level above L. Scratch: others_reach
    (N,), values (N,), q_values (size,), choice (I,).
    """
    kind = t.kind
    num_nodes = kind.shape[0]
    cs = t.child_start
    ch = t.children
    others_reach[0] = 1.0
    for n in range(num_nodes):
        k = kind[n]
        if k == H_DECISION:
            off = t.info_offset[t.infoset[n]]
            for a in range(cs[n + 1] - cs[n]):
                c = ch[cs[n] + a]
                if t.player[n] == player:
                    others_reach[c] = others_reach[n]
                else:
                    others_reach[c] = others_reach[n] * probs[off + a]
        elif k == H_CHANCE:
            for e in range(cs[n], cs[n + 1]):
                c = ch[e]
                others_reach[c] = others_reach[n] * t.chance_prob[c]
    max_level = 0
    if best_response:
        for n in range(num_nodes):
            if kind[n] == H_DECISION and t.player[n] == player and t.level[n] > max_level:
                max_level = t.level[n]
    choice[:] = -1
    info_level = np.full(choice.shape[0], -1, dtype=np.int64)
    for n in range(num_nodes):
        if kind[n] == H_DECISION:
            info_level[t.infoset[n]] = t.level[n]
    levels = max_level + 1 if best_response else 0
    for sweep in range(levels + 1):
        deciding = max_level - sweep  # -1 in the final sweep: every choice is known
        q_values[:] = 0.0
        for n in range(num_nodes - 1, -1, -1):
            k = kind[n]
            if k == H_TERMINAL:
                values[n] = t.utility[n, player]
            elif k == H_CHANCE:
                v = 0.0
                for e in range(cs[n], cs[n + 1]):
                    c = ch[e]
                    v += t.chance_prob[c] * values[c]
                values[n] = v
            else:
                info = t.infoset[n]
                off = t.info_offset[info]
                na = cs[n + 1] - cs[n]
                if t.player[n] == player and best_response:
                    if t.level[n] == deciding:
                        for a in range(na):
                            q_values[off + a] += others_reach[n] * values[ch[cs[n] + a]]
                        values[n] = 0.0
                    elif choice[info] >= 0:
                        values[n] = values[ch[cs[n] + choice[info]]]
                    else:
                        values[n] = 0.0  # above the level being decided: recomputed later
                else:
                    v = 0.0
                    for a in range(na):
                        v += probs[off + a] * values[ch[cs[n] + a]]
                    values[n] = v
        if deciding >= 0:
            for info in range(choice.shape[0]):
                if t.info_player[info] != player or choice[info] >= 0:
                    continue
                if info_level[info] != deciding:
                    continue
                off = t.info_offset[info]
                best = 0
                best_q = q_values[off]
                for a in range(1, t.info_offset[info + 1] - off):
                    if q_values[off + a] > best_q:
                        best_q = q_values[off + a]
                        best = a
                choice[info] = best
    return values[0]
