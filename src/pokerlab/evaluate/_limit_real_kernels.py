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
from numba import njit, prange

from pokerlab.tree._primitives import DECISION, FOLD_END, SHOWDOWN_END
from pokerlab.tree.betting._kernels import BettingArrays
from pokerlab.tree.betting._value_kernels import RiverProgram


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


class RiverHands(NamedTuple):
    """Every river card below one turn board (one per orbit of the board's suit symmetries):
    per card k the live hands' two cards, ``order`` (increasing strength), their abstract states
    and strengths in that order, how many are live, and the orbit: ``perm_count[k]`` hand
    permutations ``perms[k, g]``."""

    cards: np.ndarray
    order: np.ndarray
    states: np.ndarray
    strength: np.ndarray
    num_valid: np.ndarray
    perms: np.ndarray
    perm_count: np.ndarray


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


@njit(cache=True, parallel=True)
def river_values(
    deals: np.ndarray,
    program: RiverProgram,
    ns: np.int64,
    probs: np.ndarray,
    hands: RiverHands,
    best: bool,
    reach: np.ndarray,
    values: np.ndarray,
) -> None:
    """Every river card below one turn board at once: ``values[deals[i]]`` (H,) becomes the sum
    over the river cards of the responder's values at the river root below ``deals[i]``, from
    the opponent's reach ``reach[deals[i]]``.

    Each river subtree comes renumbered (``limit_real._river_program``): its decisions in
    preorder (local 0 is the root), then its folds, then its showdowns; decision ``e`` has
    ``dec_count`` children at ``child_local[i, dec_first[i, e]:]``, is the responder's when
    ``dec_mine``, and reads the strategy at ``dec_base`` (+ action * ns + state); a fold pays
    the responder ``fold_coef`` times the opponent's compatible reach, a showdown
    ``show_amount`` times (reach it beats - reach it loses to). Per river card k only the
    ``num_valid[k]`` hands that miss the board take part, in ``order[k]`` (increasing
    ``ordered_strength[k]``; ``ordered_states[k]``: their abstract state, for both players;
    ``ordered_cards[k]``: their two cards).
    River card k stands for ``perm_count[k]`` cards (its orbit under the board's suit
    symmetries): its value of hand h is added at hands ``perms[k, g, h]``, g < perm_count[k].

    The scratch is hand-major (live hands x subtree nodes, thread-local), so a river board
    touches kilobytes, and the terminal sweeps run over all folds / all showdowns of the
    subtree at once; a card at which the opponent reaches the subtree with no hand is skipped
    (its values are zero). ``prange`` over the deals (each writes only its own row). The
    arithmetic is that of ``round_top_down`` / ``round_bottom_up`` (multiplier 1) in another
    summation order.
    """
    num_dec, num_fold, num_show = program.num_dec, program.num_fold, program.num_show
    dec_first, dec_count, dec_mine = program.dec_first, program.dec_count, program.dec_mine
    dec_base, child_local = program.dec_base, program.child_local
    fold_coef, show_amount = program.fold_coef, program.show_amount
    ordered_cards, order, ordered_states = hands.cards, hands.order, hands.states
    ordered_strength, num_valid = hands.strength, hands.num_valid
    perms, perm_count = hands.perms, hands.perm_count

    num_deals = deals.size
    num_cards = order.shape[0]
    width = child_local.shape[1] + 1
    max_fold = 1
    max_show = 1
    for i in range(num_deals):
        max_fold = max(max_fold, num_fold[i])
        max_show = max(max_show, num_show[i])
    for i in prange(num_deals):
        d = deals[i]
        nd = num_dec[i]
        nf = num_fold[i]
        nq = num_show[i]
        rch = np.zeros((order.shape[1], width))
        val = np.zeros((order.shape[1], width))
        fold_sum = np.zeros((52, max_fold))
        fold_total = np.zeros(max_fold)
        show_sum = np.zeros((52, max_show))
        show_total = np.zeros(max_show)
        for h in range(values.shape[1]):
            values[d, h] = 0.0
        fc = dec_first[i]
        cnt = dec_count[i]
        mine = dec_mine[i]
        dbase = dec_base[i]
        cl = child_local[i]
        for k in range(num_cards):
            m = num_valid[k]
            cards_k = ordered_cards[k]
            states_k = ordered_states[k]
            any_reach = False
            for t in range(m):
                x = reach[d, order[k, t]]
                if x != 0.0:
                    any_reach = True
                    break
            if not any_reach:
                continue
            # opponent reach down the decisions (local preorder: parents before children)
            for t in range(m):
                s = states_k[t]
                rch[t, 0] = reach[d, order[k, t]]
                for e in range(nd):
                    x = rch[t, e]
                    first = fc[e]
                    if mine[e]:
                        for j in range(cnt[e]):
                            rch[t, cl[first + j]] = x
                    else:
                        base = dbase[e] + s
                        for j in range(cnt[e]):
                            rch[t, cl[first + j]] = x * probs[base + j * ns]
            # folds: the opponent's reach of the hands that share no card (inclusion-exclusion)
            for c in range(52):
                for f in range(nf):
                    fold_sum[c, f] = 0.0
            for f in range(nf):
                fold_total[f] = 0.0
            for t in range(m):
                a = cards_k[t, 0]
                b = cards_k[t, 1]
                for f in range(nf):
                    x = rch[t, nd + f]
                    fold_total[f] += x
                    fold_sum[a, f] += x
                    fold_sum[b, f] += x
            for t in range(m):
                a = cards_k[t, 0]
                b = cards_k[t, 1]
                for f in range(nf):
                    val[t, nd + f] = fold_coef[i, f] * (
                        fold_total[f] - fold_sum[a, f] - fold_sum[b, f] + rch[t, nd + f]
                    )
            # showdowns: sweep up (reach of weaker hands), then down (stronger), ties apart
            o = nd + nf
            for c in range(52):
                for q in range(nq):
                    show_sum[c, q] = 0.0
            for q in range(nq):
                show_total[q] = 0.0
            t = 0
            while t < m:
                u = t
                v = ordered_strength[k, t]
                while u < m and ordered_strength[k, u] == v:
                    u += 1
                for z in range(t, u):
                    a = cards_k[z, 0]
                    b = cards_k[z, 1]
                    for q in range(nq):
                        val[z, o + q] = show_amount[i, q] * (
                            show_total[q] - show_sum[a, q] - show_sum[b, q]
                        )
                for z in range(t, u):
                    a = cards_k[z, 0]
                    b = cards_k[z, 1]
                    for q in range(nq):
                        x = rch[z, o + q]
                        show_total[q] += x
                        show_sum[a, q] += x
                        show_sum[b, q] += x
                t = u
            for c in range(52):
                for q in range(nq):
                    show_sum[c, q] = 0.0
            for q in range(nq):
                show_total[q] = 0.0
            t = m - 1
            while t >= 0:
                u = t
                v = ordered_strength[k, t]
                while u >= 0 and ordered_strength[k, u] == v:
                    u -= 1
                for z in range(t, u, -1):
                    a = cards_k[z, 0]
                    b = cards_k[z, 1]
                    for q in range(nq):
                        val[z, o + q] -= show_amount[i, q] * (
                            show_total[q] - show_sum[a, q] - show_sum[b, q]
                        )
                for z in range(t, u, -1):
                    a = cards_k[z, 0]
                    b = cards_k[z, 1]
                    for q in range(nq):
                        x = rch[z, o + q]
                        show_total[q] += x
                        show_sum[a, q] += x
                        show_sum[b, q] += x
                t = u
            # decisions bottom-up: the responder maximises (or mixes), the opponent's sum
            for t in range(m):
                s = states_k[t]
                for e in range(nd - 1, -1, -1):
                    first = fc[e]
                    na = cnt[e]
                    if not mine[e]:
                        acc = 0.0
                        for j in range(na):
                            acc += val[t, cl[first + j]]
                    elif best:
                        acc = val[t, cl[first]]
                        for j in range(1, na):
                            x = val[t, cl[first + j]]
                            if x > acc:
                                acc = x
                    else:
                        base = dbase[e] + s
                        acc = 0.0
                        for j in range(na):
                            acc += probs[base + j * ns] * val[t, cl[first + j]]
                    val[t, e] = acc
            for g in range(perm_count[k]):
                for t in range(m):
                    values[d, perms[k, g, order[k, t]]] += val[t, 0]
