"""What the kernels on limit hold'em's betting tree share: their argument bundles, the discount
of the stored arrays, and the terminal values of a pass over a batch of boards.

The pass itself (public chance sampling, one depth-first walk with whole vectors over the hands
of the sampled boards) is :func:`pokerlab.tree.betting._subtree_kernels.pcs_subtree`.

Kernel arguments travel in named bundles (``NamedTuple``, unpacked once at the top of a kernel,
so the arithmetic reads the same arrays as before): :class:`BettingArrays` (the tree and the
storage layout), :class:`BoardBatch` (a pass's hand entries), :class:`Discounts` (how a pass
updates), and :class:`~pokerlab.tree._primitives.RunArrays` (regrets, strategy sums,
predictions).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.tree._primitives import DEAL, DECISION, FOLD_END, SHOWDOWN_END

__all__ = [
    "DEAL",
    "DECISION",
    "FOLD_END",
    "SHOWDOWN_END",
    "BettingArrays",
    "BoardBatch",
    "Discounts",
    "betting_arrays",
    "discount",
    "terminal_values",
]


class BettingArrays(NamedTuple):
    """The betting tree's preorder arrays (:class:`~pokerlab.tree.betting.tree.BettingTree`:
    kinds, acting player, round, children, payoff ids and the payoff table in big blinds) and
    the storage layout of the arrays a kernel updates: ``offset[n]``, where decision ``n``'s
    ``actions x states`` block starts (-1 elsewhere), and ``num_states[r]``, the private states
    of round ``r``."""

    kind: np.ndarray
    player: np.ndarray
    rnd: np.ndarray
    child_start: np.ndarray
    children: np.ndarray
    payoff_id: np.ndarray
    payoff_table: np.ndarray
    offset: np.ndarray
    num_states: np.ndarray


def betting_arrays(tree, offset: np.ndarray, num_states: np.ndarray) -> BettingArrays:
    """:class:`BettingArrays` of a :class:`~pokerlab.tree.betting.tree.BettingTree` (its arrays
    as they are, not copied) with a storage layout."""
    return BettingArrays(
        tree.kind, tree.player, tree.round, tree.child_start, tree.children, tree.payoff_id,
        tree.payoff_table, offset, num_states,
    )  # fmt: skip


class BoardBatch(NamedTuple):
    """The entries of one pass over a batch of B boards: every hole-card pair that misses its
    board (``live`` of them per board, the same number on every board), board by board.

    ``states`` (4, B live): each entry's private state per round; ``order``: each board's entries
    by increasing ``strength`` (board b's at ``segments[b]:segments[b + 1]``); ``cards`` (B live,
    2): the entry's hole cards; ``hand``: its index in the solver's ``hands``; ``ranked`` (B
    live, 3) int64, by sorted position ``t`` (the showdown's sweep reads it in order): the
    cards of entry ``order[t]`` and the end (exclusive) of its group of equal strength."""

    states: np.ndarray
    order: np.ndarray
    strength: np.ndarray
    segments: np.ndarray
    cards: np.ndarray
    hand: np.ndarray
    ranked: np.ndarray


class Discounts(NamedTuple):
    """How a pass updates the run arrays: the regret floor (CFR+), whether regret matching reads
    the predictions (predictive schedules), the next iteration's regret discounts that the
    prediction anticipates (``next_a`` where R > 0, ``next_b`` elsewhere), and the weights of
    this iteration's additions to the strategy sums and the regrets (the solver's lazy
    discounts, :class:`~pokerlab.solvers.schedule.LazyScale`; 1 for the plain rule)."""

    floor: bool
    predictive: bool
    next_a: float
    next_b: float
    sum_weight: float
    regret_weight: float


@njit(cache=True)
def discount(regrets: np.ndarray, sums: np.ndarray, a: float, b: float, g: float) -> None:
    """R <- R a where R > 0, R b elsewhere; S <- S g (skipped when the factors are 1)."""
    if a != 1.0 or b != 1.0:
        for i in range(regrets.size):
            r = regrets[i]
            regrets[i] = r * a if r > 0 else r * b
    if g != 1.0:
        for i in range(sums.size):
            sums[i] *= g


@njit(cache=True, nogil=True)
def terminal_values(
    tree: BettingArrays,
    entries: BoardBatch,
    n: np.int64,
    k: np.int64,
    scale: float,
    p: np.int64,
    opp_reach: np.ndarray,
    out: np.ndarray,
    card_sum: np.ndarray,
) -> None:
    """Node ``n``'s (a fold or showdown, ``k`` its kind) value for every entry into ``out``
    (float32), for player ``p`` from the opponent's reach row, board segment by board segment;
    ``scale``: the chance weight; ``card_sum`` (104,) float64: scratch.

    Folds: the opponent's reach compatible with each hand, by per-card sums and
    inclusion-exclusion. Showdowns: one ascending sweep over the entries sorted by strength
    (``ranked``, see :class:`BoardBatch`), group of equal strength by group. With W the
    compatible reach strictly below a hand, L the compatible reach at or below it (its own tie
    group included) and T all compatible reach, the hand wins W and loses T - L, so its value is
    ``amount * (W + L - T)``: T comes from the per-card totals (the first half of ``card_sum``,
    length 104), W and L from the running sums (the second half) before and after the group is
    added: one sweep instead of an ascending (winning) and a descending (losing) one, about a
    quarter less time per showdown."""
    player, payoff_id, payoff_table = tree.player, tree.payoff_id, tree.payoff_table
    states, order, _, segments, hand_cards, _, ranked = entries
    num_hands = hand_cards.shape[0]
    num_boards = segments.size - 1
    per_board = num_hands // num_boards
    amount = payoff_table[payoff_id[n]] * scale
    if k == FOLD_END:
        sign = -amount if player[n] == p else amount
        for b in range(num_boards):
            h0 = b * per_board
            for c in range(52):
                card_sum[c] = 0.0
            total = 0.0
            for h in range(h0, h0 + per_board):
                x = opp_reach[h]
                if x != 0.0:
                    total += x
                    card_sum[hand_cards[h, 0]] += x
                    card_sum[hand_cards[h, 1]] += x
            for h in range(h0, h0 + per_board):
                if states[0, h] < 0:
                    out[h] = 0.0
                    continue
                compat = (
                    total - card_sum[hand_cards[h, 0]] - card_sum[hand_cards[h, 1]] + opp_reach[h]
                )
                out[h] = sign * compat
        return
    for h in range(num_hands):
        out[h] = 0.0
    for b in range(num_boards):
        first = segments[b]
        end = segments[b + 1]
        for c in range(104):
            card_sum[c] = 0.0
        total = 0.0
        for t in range(first, end):
            x = np.float64(opp_reach[order[t]])
            total += x
            card_sum[ranked[t, 0]] += x
            card_sum[ranked[t, 1]] += x
        # from here card_sum[52 + c]: reach of the hands swept so far that hold card c
        below = 0.0
        i = first
        while i < end:
            j = ranked[i, 2]
            if j == i + 1:  # a group of one (W and L differ by the hand's own reach only)
                h = order[i]
                c0 = ranked[i, 0]
                c1 = ranked[i, 1]
                x = np.float64(opp_reach[h])
                win = below - card_sum[52 + c0] - card_sum[52 + c1]
                out[h] = amount * (2.0 * win - x - total + card_sum[c0] + card_sum[c1])
                below += x
                card_sum[52 + c0] += x
                card_sum[52 + c1] += x
            else:
                for t in range(i, j):
                    c0 = ranked[t, 0]
                    c1 = ranked[t, 1]
                    out[order[t]] = (
                        below - card_sum[52 + c0] - card_sum[52 + c1]
                        - total + card_sum[c0] + card_sum[c1]
                    )  # fmt: skip
                for t in range(i, j):
                    x = np.float64(opp_reach[order[t]])
                    below += x
                    card_sum[52 + ranked[t, 0]] += x
                    card_sum[52 + ranked[t, 1]] += x
                for t in range(i, j):
                    h = order[t]
                    le = below - card_sum[52 + ranked[t, 0]] - card_sum[52 + ranked[t, 1]]
                    out[h] = amount * (out[h] + le)
            i = j
