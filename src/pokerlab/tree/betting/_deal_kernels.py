"""numba kernels of one deal of the betting-tree MCCFR pass
(:mod:`pokerlab.tree.betting._mccfr_kernels`): the cards, each seat's private state per round and
its showdown value.

A deal draws every seat's hole cards and the board of the last round played, without replacement
(card removal is exact), maps each seat's cards to its private state per round (bucket, or bucket
sequence with perfect recall, through the abstraction's canonical index,
:func:`pokerlab.abstraction._iso_kernels.index_hands`) and evaluates each seat's showdown hand
once (:mod:`pokerlab.cards._eval_kernels`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab._rng import below
from pokerlab.abstraction._iso_kernels import index_hands
from pokerlab.cards._eval_kernels import evaluate7_batch, evaluate_batch

#: Cards shown on the board during each round.
SHOWN = (0, 3, 4, 5)


class DealTables(NamedTuple):
    """What a deal needs besides the tree: the deck (int64), each round's canonical hand
    indexer tables (:meth:`~pokerlab.abstraction.isomorphism.HandIndexer.kernel_tables`, all
    four rounds), each round's bucket labels by canonical index, the bucket counts per round,
    whether states are bucket sequences (perfect recall), the hand evaluator's tables, the
    players dealt in and the betting rounds played (the board of the last one is dealt; its
    decisions are never pruned)."""

    deck: np.ndarray
    idx_tables: tuple
    labels: tuple
    counts: np.ndarray
    perfect: bool
    eval_tables: tuple
    players: int
    rounds: int


@njit(cache=True)
def deal(
    deck: np.ndarray,
    rng: np.ndarray,
    cards: np.ndarray,
    scratch_deck: np.ndarray,
) -> None:
    """``cards.size`` distinct cards of ``deck`` into ``cards`` (hole cards of seat 0, 1, ...,
    then the board): a partial Fisher-Yates shuffle of a fresh copy of the deck, one draw per
    card (limit hold'em: 9)."""
    m = deck.size
    for i in range(m):
        scratch_deck[i] = deck[i]
    for i in range(cards.size):
        j = i + below(rng, m - i)
        x = scratch_deck[j]
        scratch_deck[j] = scratch_deck[i]
        scratch_deck[i] = x
        cards[i] = x


@njit(cache=True)
def deal_states(
    cards: np.ndarray,
    idx_tables,
    labels,
    counts: np.ndarray,
    perfect: bool,
    eval_tables,
    rounds: int,
    rows,
    index_out: np.ndarray,
    hands: np.ndarray,
    strength: np.ndarray,
    states: np.ndarray,
) -> None:
    """Private state of each seat per round played into ``states`` (P, 4) and each seat's
    showdown value into ``strength`` (P,) int32 (higher wins). ``rows[r]`` (P, 2 + shown)
    int64, ``index_out`` (P,) int64 and ``hands`` (P, 2 + the last round's board) uint8 are
    scratch; the board starts at ``cards[2 * P]``."""
    players = states.shape[0]
    hole = 2 * players
    for r in range(rounds):
        rr = rows[r]
        shown = rr.shape[1] - 2
        for q in range(players):
            rr[q, 0] = cards[2 * q]
            rr[q, 1] = cards[2 * q + 1]
            for k in range(shown):
                rr[q, 2 + k] = cards[hole + k]
        t = idx_tables[r]
        index_hands(rr, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], index_out)
        lab = labels[r]
        for q in range(players):
            b = np.int64(lab[index_out[q]])
            if perfect and r > 0:
                states[q, r] = states[q, r - 1] * counts[r] + b
            else:
                states[q, r] = b
    board = hands.shape[1] - 2
    for q in range(players):
        hands[q, 0] = cards[2 * q]
        hands[q, 1] = cards[2 * q + 1]
        for k in range(board):
            hands[q, 2 + k] = cards[hole + k]
    e = eval_tables
    if board == 5:
        evaluate7_batch(hands, e[0], e[1], e[2], e[3], e[4], strength)
    else:
        evaluate_batch(hands, e[0], e[1], e[2], e[3], e[4], strength)
