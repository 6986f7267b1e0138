"""Numba kernels of local best response in limit hold'em (:mod:`pokerlab.evaluate.limit_lbr`):
playing the deals (:func:`play_lbr`), the agent by its table and LBR by its one-step rule. The
equities LBR reads are :mod:`pokerlab.evaluate._limit_equity_kernels`' (re-exported here)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.evaluate._limit_equity_kernels import (
    EvalArrays,
    RangeHands,
    hand_equities,
    preflop_equity_table,
)

__all__ = [
    "AgentTree",
    "DealBlock",
    "EvalArrays",
    "RangeHands",
    "hand_equities",
    "play_lbr",
    "preflop_equity_table",
]

#: Node kinds and actions of :mod:`pokerlab.games.limit_holdem` (repeated: kernels read ints).
_DECISION, _DEAL, _FOLD_END = 0, 1, 2
_FOLD, _CALL, _RAISE = 0, 1, 2


class AgentTree(NamedTuple):
    """The agent: the betting tree's arrays (:class:`~pokerlab.tree.betting.tree.BettingTree`),
    the action into each node and the chips each player has put in, the storage layout of its
    strategy (``offset``, ``num_states``) and the strategy itself. Flat, not a
    ``BettingArrays`` inside: numba's parallel loops take no tuple nested in a tuple."""

    kind: np.ndarray
    player: np.ndarray
    rnd: np.ndarray
    child_start: np.ndarray
    children: np.ndarray
    action: np.ndarray
    contrib: np.ndarray
    payoff_id: np.ndarray
    payoff_table: np.ndarray
    offset: np.ndarray
    num_states: np.ndarray
    probs: np.ndarray


class DealBlock(NamedTuple):
    """A block of deals (see :func:`play_lbr`): seat 0's and seat 1's hole cards and the board,
    the agent's state per hand and round, each seat's hand index and showdown strength, and the
    uniform numbers of the agent's decisions."""

    deals: np.ndarray
    hand_states: np.ndarray
    seat_hand: np.ndarray
    strength: np.ndarray
    uniforms: np.ndarray


@njit(cache=True, parallel=True)
def play_lbr(agent, rh, block, ev, exact_limit, rollouts, rng_states, out, counts):
    """Play LBR against the agent on every deal of the block, twice: game ``2i`` seats LBR in
    seat 0, game ``2i + 1`` in seat 1; the cards stay with the seats (``deals[i]``: seat 0's
    hole cards, seat 1's, the board). ``hand_states[i, h, r]``: the agent's private state in
    round ``r`` holding ``hands[h]`` on deal ``i``'s board (-1: meets the board so far);
    ``seat_hand[i, seat]``: the index of that seat's hole cards in ``hands``; ``strength[i,
    seat]``: their value at the showdown. The agent's ``k``-th decision of a hand uses
    ``uniforms[i, k]``; LBR's sampled boards on deal ``i`` draw from the xoshiro state
    ``rng_states[i]`` (both games of the pair, in order). ``out[g]``: LBR's result in big
    blinds; ``counts[i]`` (4,) += LBR's folds, calls and raises on deal ``i``, and in ``[3]``
    the rounds whose equities were sampled.

    Deals are independent (each has its own generator and scratch), so they run in parallel
    (``prange``) and the results do not depend on the number of threads."""
    for i in prange(block.deals.shape[0]):
        _play_pair(agent, rh, block, ev, exact_limit, rollouts, rng_states[i], out, counts[i], i)


@njit(cache=True)
def _play_pair(agent, rh, block, ev, exact_limit, rollouts, state, out, counts, i):
    """The two games of deal ``i`` (see :func:`play_lbr`), with generator ``state`` and
    ``counts`` (4,) of this deal."""
    kind, player, rnd, child_start, children = (
        agent.kind, agent.player, agent.rnd, agent.child_start, agent.children
    )
    payoff_id, payoff_table, offset, num_states = (
        agent.payoff_id, agent.payoff_table, agent.offset, agent.num_states
    )
    action, contrib, probs = agent.action, agent.contrib, agent.probs
    hands, hand_mask, preflop = rh.hands, rh.hand_mask, rh.preflop
    deals, hand_states, seat_hand = block.deals, block.hand_states, block.seat_hand
    strength, uniforms = block.strength, block.uniforms
    h_count = hands.shape[0]
    weights = np.empty(h_count)
    eq = np.empty(h_count)
    cnt = np.empty(h_count)
    live = np.empty(h_count, np.int64)
    shown_of = (0, 3, 4, 5)
    for me in range(2):
        g = 2 * i + me
        c0 = deals[i, 2 * me]
        c1 = deals[i, 2 * me + 1]
        mine_mask = (np.uint64(1) << np.uint64(c0)) | (np.uint64(1) << np.uint64(c1))
        for h in range(h_count):
            weights[h] = 0.0 if hand_mask[h] & mine_mask else 1.0
        board = deals[i, 4:9]
        shown = 0
        eq_round = -1
        n = 0
        k = 0
        while kind[n] < 2:
            if kind[n] == _DEAL:
                n = children[child_start[n]]
                new = shown_of[rnd[n]]
                bits = np.uint64(0)
                for j in range(shown, new):
                    bits |= np.uint64(1) << np.uint64(board[j])
                shown = new
                for h in range(h_count):
                    if hand_mask[h] & bits:
                        weights[h] = 0.0
                continue
            r = rnd[n]
            ns = num_states[r]
            lo = child_start[n]
            na = child_start[n + 1] - lo
            if player[n] != me:  # the agent: sample its action, then Bayes on the range
                s = hand_states[i, seat_hand[i, 1 - me], r]
                u = uniforms[i, k]
                k += 1
                pick = na - 1
                acc_p = 0.0
                for a in range(na):
                    acc_p += probs[offset[n] + a * ns + s]
                    if u < acc_p:
                        pick = a
                        break
                base = offset[n] + pick * ns
                tot = 0.0
                for h in range(h_count):
                    if weights[h] > 0.0:
                        tot += weights[h] * probs[base + hand_states[i, h, r]]
                if tot > 0.0:
                    for h in range(h_count):
                        if weights[h] > 0.0:
                            weights[h] *= probs[base + hand_states[i, h, r]] / tot
                n = children[lo + pick]
                continue
            # LBR's decision
            pot = contrib[n, 0] + contrib[n, 1]
            asked = contrib[n, 1 - me] - contrib[n, me]
            if eq_round != r:  # LBR's equity against each hand, once per round
                if shown == 0:
                    hid = seat_hand[i, me]
                    for h in range(h_count):
                        eq[h] = preflop[hid, h]
                elif hand_equities(
                    c0, c1, board, shown, weights, rh, ev, exact_limit, rollouts, state, eq, cnt,
                    live,
                ):  # fmt: skip
                    counts[3] += 1
                eq_round = r
            num = 0.0
            den = 0.0
            for h in range(h_count):
                if weights[h] > 0.0 and eq[h] >= 0.0:
                    num += weights[h] * eq[h]
                    den += weights[h]
            wp = num / den if den > 0.0 else 0.5
            u_call = wp * pot - (1.0 - wp) * asked
            fold_at = -1
            call_at = -1
            raise_at = -1
            for a in range(na):
                act = action[children[lo + a]]
                if act == _FOLD:
                    fold_at = a
                elif act == _CALL:
                    call_at = a
                else:
                    raise_at = a
            choice = call_at
            best = u_call
            if raise_at >= 0:
                c = children[lo + raise_at]
                b = contrib[c, me] - contrib[n, 1 - me]  # the raise over the call
                cs = child_start[c]
                f_at = -1
                for a in range(child_start[c + 1] - cs):
                    if action[children[cs + a]] == _FOLD:
                        f_at = a
                # hand by hand: h folds with its probability f_h, else the hand is checked down
                # (LBR's equity against the hands that call, not against the whole range)
                base = offset[c] + f_at * ns
                won = pot + asked + 2.0 * b  # the pot after the agent calls
                num = 0.0
                den = 0.0
                for h in range(h_count):
                    if weights[h] > 0.0 and eq[h] >= 0.0:
                        f = probs[base + hand_states[i, h, r]] if f_at >= 0 else 0.0
                        num += weights[h] * (f * pot + (1.0 - f) * (eq[h] * won - asked - b))
                        den += weights[h]
                u_raise = num / den if den > 0.0 else wp * won - asked - b
                if u_raise > best:
                    best = u_raise
                    choice = raise_at
            if best <= 0.0 and fold_at >= 0:
                choice = fold_at
            counts[action[children[lo + choice]]] += 1
            n = children[lo + choice]
        amount = payoff_table[payoff_id[n]]
        if kind[n] == _FOLD_END:
            out[g] = -amount if player[n] == me else amount
        else:
            a_me = strength[i, me]
            a_op = strength[i, 1 - me]
            out[g] = amount if a_me > a_op else (-amount if a_me < a_op else 0.0)
