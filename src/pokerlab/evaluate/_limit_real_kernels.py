"""numba kernels of the real-game best response of limit hold'em (see ``limit_real.py``).

Both work on the nodes of one betting round for one board prefix, with vectors over every hole
card pair: ``round_top_down`` carries the opponent's reach from the round's roots through its
decisions (the opponent plays its abstract strategy by bucket state); ``round_bottom_up`` puts
fold and showdown values at the round's terminals and takes values up to the roots, maximising at
the best responder's decisions (or mixing by its own strategy when ``best`` is False). Deal nodes
of the round hold values placed by the caller (the sum over the next cards).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.tree._primitives import DECISION, FOLD_END, SHOWDOWN_END
from pokerlab.tree.betting._kernels import BettingArrays


class RoundHands(NamedTuple):
    """The responder's hole-card pairs in one round on one board: each one's abstract state
    (-1: meets the board), its two cards, whether it misses the board, and the first
    ``num_valid`` live ones by increasing showdown ``strength`` (river only)."""

    states: np.ndarray
    cards: np.ndarray
    live: np.ndarray
    order: np.ndarray
    strength: np.ndarray
    num_valid: np.int64


@njit(cache=True)
def _sigma(probs: np.ndarray, base: np.int64, ns: np.int64, j: np.int64, s: np.int64) -> float:
    return probs[base + j * ns + s]


@njit(cache=True)
def round_top_down(
    r: np.int64,
    bt: BettingArrays,
    probs: np.ndarray,
    opp_states: np.ndarray,
    responder: np.int64,
    reach: np.ndarray,
) -> None:
    """Opponent reach (``reach`` (N, H)) down the decisions of round ``r`` (roots already set);
    ``opp_states``: the opponent's state of each hand in round r (-1: meets the board)."""
    kind, player, rnd, child_start, children = (
        bt.kind, bt.player, bt.rnd, bt.child_start, bt.children
    )
    offset, num_states = bt.offset, bt.num_states

    num_nodes = kind.size
    num_hands = reach.shape[1]
    for n in range(num_nodes):
        if rnd[n] != r or kind[n] != DECISION:
            continue
        first = child_start[n]
        na = child_start[n + 1] - first
        if player[n] == responder:
            for j in range(na):
                c = children[first + j]
                for h in range(num_hands):
                    reach[c, h] = reach[n, h]
            continue
        base = offset[n]
        ns = num_states[r]
        for h in range(num_hands):
            s = opp_states[h]
            x = reach[n, h]
            for j in range(na):
                c = children[first + j]
                if s < 0 or x == 0.0:
                    reach[c, h] = 0.0
                else:
                    reach[c, h] = x * _sigma(probs, base, ns, j, s)


@njit(cache=True)
def round_bottom_up(
    r: np.int64,
    bt: BettingArrays,
    probs: np.ndarray,
    hands: RoundHands,
    multiplier: float,
    responder: np.int64,
    best: bool,
    reach: np.ndarray,
    values: np.ndarray,
    card_sum: np.ndarray,
) -> None:
    """Values (``values`` (N, H)) of the responder's hands at the nodes of round ``r``:
    terminals times ``multiplier`` (the number of ways the board can still be completed),
    then decisions bottom-up. ``live``: the responder's hands not meeting the board; ``order``:
    the first ``num_valid`` live hands by increasing ``strength`` (showdowns; river only)."""
    kind, player, rnd, child_start, children = (
        bt.kind, bt.player, bt.rnd, bt.child_start, bt.children
    )
    payoff_id, payoff_table, offset, num_states = (
        bt.payoff_id, bt.payoff_table, bt.offset, bt.num_states
    )
    own_states, hand_cards, live = hands.states, hands.cards, hands.live
    order, strength, num_valid = hands.order, hands.strength, hands.num_valid

    num_nodes = kind.size
    num_hands = reach.shape[1]
    p = responder
    for n in range(num_nodes):
        k = kind[n]
        if rnd[n] != r or (k != FOLD_END and k != SHOWDOWN_END):
            continue
        amount = payoff_table[payoff_id[n]] * multiplier
        for c in range(52):
            card_sum[c] = 0.0
        if k == FOLD_END:
            total = 0.0
            for h in range(num_hands):
                x = reach[n, h]
                if x != 0.0:
                    total += x
                    card_sum[hand_cards[h, 0]] += x
                    card_sum[hand_cards[h, 1]] += x
            sign = -amount if player[n] == p else amount
            for h in range(num_hands):
                if not live[h]:
                    values[n, h] = 0.0
                    continue
                a = hand_cards[h, 0]
                b = hand_cards[h, 1]
                values[n, h] = sign * (total - card_sum[a] - card_sum[b] + reach[n, h])
            continue
        for h in range(num_hands):
            values[n, h] = 0.0
        below = 0.0
        i = 0
        while i < num_valid:
            j = i
            v = strength[order[i]]
            while j < num_valid and strength[order[j]] == v:
                j += 1
            for t in range(i, j):
                h = order[t]
                values[n, h] += amount * (
                    below - card_sum[hand_cards[h, 0]] - card_sum[hand_cards[h, 1]]
                )
            for t in range(i, j):
                h = order[t]
                x = reach[n, h]
                below += x
                card_sum[hand_cards[h, 0]] += x
                card_sum[hand_cards[h, 1]] += x
            i = j
        for c in range(52):
            card_sum[c] = 0.0
        above = 0.0
        i = num_valid - 1
        while i >= 0:
            j = i
            v = strength[order[i]]
            while j >= 0 and strength[order[j]] == v:
                j -= 1
            for t in range(i, j, -1):
                h = order[t]
                values[n, h] -= amount * (
                    above - card_sum[hand_cards[h, 0]] - card_sum[hand_cards[h, 1]]
                )
            for t in range(i, j, -1):
                h = order[t]
                x = reach[n, h]
                above += x
                card_sum[hand_cards[h, 0]] += x
                card_sum[hand_cards[h, 1]] += x
            i = j
    for n in range(num_nodes - 1, -1, -1):
        if rnd[n] != r or kind[n] != DECISION:
            continue
        first = child_start[n]
        na = child_start[n + 1] - first
        if player[n] != p:
            for h in range(num_hands):
                acc = 0.0
                for j in range(na):
                    acc += values[children[first + j], h]
                values[n, h] = acc
            continue
        base = offset[n]
        ns = num_states[r]
        for h in range(num_hands):
            if not live[h]:
                values[n, h] = 0.0
                continue
            if best:
                m = values[children[first], h]
                for j in range(1, na):
                    x = values[children[first + j], h]
                    if x > m:
                        m = x
                values[n, h] = m
            else:
                s = own_states[h]
                acc = 0.0
                for j in range(na):
                    acc += _sigma(probs, base, ns, j, s) * values[children[first + j], h]
                values[n, h] = acc
