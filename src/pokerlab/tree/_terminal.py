"""Numba kernels: counterfactual values of all private states at a terminal node at once.

For player i holding private state h at terminal z, the counterfactual value is

    cfv_i(z, h) = amount(z) * sum over opponent states h' compatible with h and the board
                  of reach_opp(h') * sign_i(h, h')

where sign is +1 when i wins, -1 when i loses, 0 on a tie (``amount`` already carries the chance
probabilities). Compatibility (no card held twice) is handled by inclusion-exclusion over cards:
the reach of opponent states sharing a card with h is the sum of per-card reach totals, minus the
reach of h itself when states hold two cards (it was subtracted twice). The showdown sweeps the
board's strength order once upward (wins against weaker hands) and once downward (losses against
stronger ones), so a terminal costs O(H + C) instead of O(H^2) (the method of the fast postflop
solvers; see postflop-solver's ``evaluate_showdown``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree.public_tree import FOLD


@njit(cache=True)
def _blocked(cards_sum: np.ndarray, private_cards: np.ndarray, h: int, own: float) -> float:
    """Opponent reach that shares a card with private state ``h`` (inclusion-exclusion)."""
    c1 = private_cards[h, 0]
    c2 = private_cards[h, 1]
    total = cards_sum[c1]
    if c2 >= 0:
        total += cards_sum[c2] - own  # the identical combo was counted for both cards
    return total


@njit(cache=True)
def terminal_values(
    t, node: int, player: int, opp_reach: np.ndarray, out: np.ndarray, cards_sum: np.ndarray
) -> None:
    """Write ``player``'s counterfactual value of every private state at terminal ``node``.

    ``t`` is a :class:`~pokerlab.tree.public_tree.TreeArrays`; ``opp_reach`` (H,) is the
    opponent's reach (zero on states impossible on the board); ``out`` (H,) receives the values;
    ``cards_sum`` (C,) is scratch space.
    """
    b = t.board[node]
    amount = t.amount[node]
    pc = t.private_cards
    order = t.order[b]
    n_valid = t.num_valid[b]
    cards_sum[:] = 0.0
    out[:] = 0.0
    if t.kind[node] == FOLD:
        sign = -amount if t.player[node] == player else amount
        total = 0.0
        for k in range(n_valid):
            h = order[k]
            r = opp_reach[h]
            total += r
            cards_sum[pc[h, 0]] += r
            if pc[h, 1] >= 0:
                cards_sum[pc[h, 1]] += r
        for k in range(n_valid):
            h = order[k]
            out[h] = sign * (total - _blocked(cards_sum, pc, h, opp_reach[h]))
        return
    # Showdown: wins against strictly weaker compatible hands, in increasing strength order.
    strength = t.strength[b]
    total = 0.0
    j = 0
    while j < n_valid:
        s = strength[order[j]]
        k = j
        while k < n_valid and strength[order[k]] == s:
            h = order[k]
            out[h] = total - _blocked(cards_sum, pc, h, 0.0)
            k += 1
        for m in range(j, k):
            h = order[m]
            r = opp_reach[h]
            total += r
            cards_sum[pc[h, 0]] += r
            if pc[h, 1] >= 0:
                cards_sum[pc[h, 1]] += r
        j = k
    # Losses against strictly stronger compatible hands, in decreasing order.
    cards_sum[:] = 0.0
    total = 0.0
    j = n_valid - 1
    while j >= 0:
        s = strength[order[j]]
        k = j
        while k >= 0 and strength[order[k]] == s:
            h = order[k]
            out[h] = amount * (out[h] - (total - _blocked(cards_sum, pc, h, 0.0)))
            k -= 1
        for m in range(j, k, -1):
            h = order[m]
            r = opp_reach[h]
            total += r
            cards_sum[pc[h, 0]] += r
            if pc[h, 1] >= 0:
                cards_sum[pc[h, 1]] += r
        j = k
