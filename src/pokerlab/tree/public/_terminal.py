"""Numba kernels: counterfactual values of all private states at a terminal node at once.

For player i holding private state h at terminal z, the counterfactual value is

    cfv_i(z, h) = amount(z) * sum over opponent states h' compatible with h and the board
                  of reach_opp(h') * sign_i(h, h')

where sign is +1 when i wins, -1 when i loses, 0 on a tie (``amount`` already carries the chance
probabilities). Compatibility (no card held twice) is handled by inclusion-exclusion over cards:
the reach of opponent states sharing a card with h is the sum of per-card reach totals, minus the
reach of h itself when states hold two cards (it was subtracted twice). The showdown is the
one-sweep showdown of :mod:`pokerlab.tree._showdown` over the board's strength order, so a
terminal costs O(H + C) instead of O(H^2).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree._primitives import FOLD, unowned
from pokerlab.tree._showdown import one_list_showdown


@njit(cache=True)
def terminal_values(
    t,
    player: int,
    reach: np.ndarray,
    cfv: np.ndarray,
    cards_sum: np.ndarray,
    live: np.ndarray,
    prune: bool,
) -> int:
    """Write ``player``'s counterfactual values at every terminal node; return the count done.

        ``t`` is a :class:`~pokerlab.tree.public.tree.TreeArrays`; ``reach`` (N, 2, H) holds reach
        probabilities (the opponent's row is read; it is zero on states impossible on the board);
        ``cfv[node, player, :]`` receives the values; ``cards_sum`` is scratch
    (:func:`~pokerlab.tree.public.tree.card_slots` long). With ``prune``,
        terminals where ``live[node, opponent]`` is False get zeros without work.

        All terminals are done in one call, and the per-node code is written out here rather than in
        helpers: numba function calls that take arrays cost more than a small terminal's arithmetic.
    """
    q = 1 - player
    num_h = cfv.shape[2]
    # views of these without owner records: no atomic reference count per terminal (unowned)
    t, reach, cfv, cards_sum = unowned((t, reach, cfv, cards_sum))
    pc = t.private_cards
    half = cards_sum.shape[0] // 2
    dense_fold = t.dense_compat.shape[0] > 0
    dense_showdown = t.dense_sign.shape[0] > 0
    done = 0
    for idx in range(t.terminals.shape[0]):
        node = t.terminals[idx]
        if prune and not live[node, q]:
            for h in range(num_h):
                cfv[node, player, h] = 0.0
            continue
        done += t.num_valid[t.board[node]]
        b = t.board[node]
        amount = t.amount[node]
        is_fold = t.kind[node] == FOLD
        if (is_fold and dense_fold) or (not is_fold and dense_showdown):
            # Dense tables: cfv = scale * M @ reach_opp, M the board's compat or sign matrix.
            if is_fold:
                m = t.dense_compat[b]
                scale = -amount if t.player[node] == player else amount
            else:
                m = t.dense_sign[b]
                scale = amount
            for h in range(num_h):
                v = 0.0
                for g in range(num_h):
                    v += m[h, g] * reach[node, q, g]
                cfv[node, player, h] = scale * v
            continue
        n_valid = t.num_valid[b]
        cards_sum[:] = 0.0
        for h in range(num_h):
            cfv[node, player, h] = 0.0
        if is_fold:
            sign = -amount if t.player[node] == player else amount
            total = 0.0
            for k in range(n_valid):
                h = t.order[b, k]
                r = reach[node, q, h]
                total += r
                cards_sum[pc[h, 0]] += r
                if pc[h, 1] >= 0:
                    cards_sum[pc[h, 1]] += r
            for k in range(n_valid):
                h = t.order[b, k]
                # reach sharing a card with h; the identical combo was counted for both cards
                blocked = cards_sum[pc[h, 0]]
                if pc[h, 1] >= 0:
                    blocked += cards_sum[pc[h, 1]] - reach[node, q, h]
                cfv[node, player, h] = sign * (total - blocked)
            continue
        # Showdown: the one-sweep showdown over the board's strength order
        one_list_showdown(
            t.order[b], t.ranked[b], 0, n_valid, reach[node, q], amount, cards_sum, half,
            cfv[node, player],
        )  # fmt: skip
    return done
