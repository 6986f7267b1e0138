"""Numba kernels of strategy evaluation: expected values and best responses on flat trees.

Independent of the solvers: they read a strategy's probabilities and the tree, nothing else.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree._terminal import terminal_values
from pokerlab.tree.public_tree import CHANCE_NODE, DECISION

H_DECISION, H_CHANCE, H_TERMINAL = 0, 1, 2


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
