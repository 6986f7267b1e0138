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
from pokerlab.tree._showdown import one_list_showdown

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
    inclusion-exclusion. Showdowns: the one-sweep showdown over each board's entries sorted by
    strength (:func:`pokerlab.tree._showdown.one_list_showdown`; ``ranked``, see
    :class:`BoardBatch`), about a quarter less time per showdown than an ascending and a
    descending sweep."""
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
        one_list_showdown(
            order, ranked, segments[b], segments[b + 1], opp_reach, amount, card_sum, 52, out
        )
