"""numba kernels of the exact hand-strength features (see :mod:`pokerlab.abstraction.strength`).

Everything takes plain arrays; the isomorphism tables are passed through as
``HandIndexer.kernel_tables()`` (eight arrays) and hands are indexed with
:func:`pokerlab.abstraction._iso_kernels.index_hands`, one call per board (a batch), not per hand.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.abstraction._iso_kernels import index_hands, unindex_hands
from pokerlab.cards._eval_kernels import evaluate7_batch


@njit(cache=True)
def river_strength_boards(
    boards: np.ndarray, deck: np.ndarray, ev: tuple, river: tuple, hs: np.ndarray
) -> None:
    """Hand strength on the river of every hand on each board of ``boards`` (n, 5): the share of
    the opponent's possible hands (uniform over the cards left) it beats, ties counting half,
    written to ``hs[river class]``.

    One board costs one evaluation per hand, a sort and a sweep: hands below in the strength
    order are counted, and those sharing a card with the hand are removed by per-card counts
    (inclusion-exclusion; a hand sharing both cards is the hand itself). ``ev``: the
    evaluator's tables (card keys, card bits, flush table, displacements, values); ``river``:
    the river indexer's :meth:`~pokerlab.abstraction.isomorphism.HandIndexer.kernel_tables`.
    """
    card_key, card_bit, flush, disp, values = ev
    sizes, rank_base, num_ranks, binom, config_keys, config_offset, config_space, config_run = (
        river
    )
    num_deck = deck.size
    rest = np.empty(num_deck, np.int64)
    n_rest = num_deck - 5
    num_hands = n_rest * (n_rest - 1) // 2
    rows = np.empty((num_hands, 7), np.uint8)
    rows64 = np.empty((num_hands, 7), np.int64)
    vals = np.empty(num_hands, np.int32)
    idx = np.empty(num_hands, np.int64)
    lower_card = np.zeros(52, np.int64)
    tie_card = np.zeros(52, np.int64)
    strength = np.empty(num_hands, np.float64)
    opponents = (n_rest - 2) * (n_rest - 3) // 2
    for b in range(boards.shape[0]):
        k = 0
        for c in deck:
            used = False
            for j in range(5):
                if boards[b, j] == c:
                    used = True
            if not used:
                rest[k] = c
                k += 1
        h = 0
        for i in range(n_rest):
            for j in range(i + 1, n_rest):
                rows[h, 0] = rest[i]
                rows[h, 1] = rest[j]
                for t in range(5):
                    rows[h, 2 + t] = boards[b, t]
                h += 1
        evaluate7_batch(rows, card_key, card_bit, flush, disp, values, vals)
        order = np.argsort(vals, kind="mergesort")
        lower_card[:] = 0
        lower_total = 0
        start = 0
        while start < num_hands:
            end = start
            v = vals[order[start]]
            while end < num_hands and vals[order[end]] == v:
                end += 1
            for t in range(start, end):
                hh = order[t]
                tie_card[rows[hh, 0]] += 1
                tie_card[rows[hh, 1]] += 1
            group = end - start
            for t in range(start, end):
                hh = order[t]
                a = rows[hh, 0]
                c = rows[hh, 1]
                below = lower_total - lower_card[a] - lower_card[c]
                ties = group - tie_card[a] - tie_card[c] + 1
                strength[hh] = (below + 0.5 * ties) / opponents
            for t in range(start, end):
                hh = order[t]
                tie_card[rows[hh, 0]] = 0
                tie_card[rows[hh, 1]] = 0
                lower_card[rows[hh, 0]] += 1
                lower_card[rows[hh, 1]] += 1
            lower_total += group
            start = end
        for t in range(num_hands):
            for j in range(7):
                rows64[t, j] = rows[t, j]
        index_hands(
            rows64,
            sizes,
            rank_base,
            num_ranks,
            binom,
            config_keys,
            config_offset,
            config_space,
            config_run,
            idx,
        )
        for t in range(num_hands):
            hs[idx[t]] = strength[t]


@njit(cache=True)
def roll_back(
    classes: np.ndarray,
    deck: np.ndarray,
    board_cards: np.int64,
    src_tables: tuple,
    dst_tables: tuple,
    next_value: np.ndarray,
    next_square: np.ndarray,
    next_label: np.ndarray,
    num_labels: np.int64,
    mean: np.ndarray,
    square: np.ndarray,
    hist: np.ndarray,
) -> None:
    """Features of each class in ``classes`` of a round from the next round: for every card
    that can come, the next round's class; ``mean`` and ``square`` are the averages of
    ``next_value`` and ``next_square`` over those cards, and ``hist[row]`` counts the cards by
    ``next_label`` (0..num_labels-1; skipped when num_labels is 0).

    ``src_tables`` / ``dst_tables``: the kernel tables of this round's and the next round's
    indexers (hole cards, then ``board_cards`` board cards; the next round has one more).
    """
    n = classes.size
    num_deck = deck.size
    hand = np.empty((1, 2 + board_cards), np.int64)
    weight = np.empty(1, np.int64)
    one = np.empty(1, np.int64)
    rows = np.empty((num_deck, 3 + board_cards), np.int64)
    nxt = np.empty(num_deck, np.int64)
    for row in range(n):
        one[0] = classes[row]
        unindex_hands(
            one,
            src_tables[0],
            src_tables[1],
            src_tables[2],
            src_tables[3],
            src_tables[4],
            src_tables[5],
            src_tables[6],
            src_tables[7],
            hand,
            weight,
        )
        k = 0
        for c in deck:
            used = False
            for j in range(2 + board_cards):
                if hand[0, j] == c:
                    used = True
            if used:
                continue
            for j in range(2 + board_cards):
                rows[k, j] = hand[0, j]
            rows[k, 2 + board_cards] = c
            k += 1
        index_hands(
            rows[:k],
            dst_tables[0],
            dst_tables[1],
            dst_tables[2],
            dst_tables[3],
            dst_tables[4],
            dst_tables[5],
            dst_tables[6],
            dst_tables[7],
            nxt[:k],
        )
        s1 = 0.0
        s2 = 0.0
        for t in range(k):
            s1 += next_value[nxt[t]]
            s2 += next_square[nxt[t]]
            if num_labels > 0:
                hist[row, next_label[nxt[t]]] += 1
        mean[row] = s1 / k
        square[row] = s2 / k
