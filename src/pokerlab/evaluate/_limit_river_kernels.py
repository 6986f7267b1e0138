"""numba kernel of the real-game best response's river (see ``limit_real.py``): every river card
below one turn board in one parallel call (:func:`river_values`), with the river hands of each
card in a :class:`RiverHands` bundle."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from pokerlab.tree.betting._value_kernels import RiverProgram

__all__ = ["RiverHands", "river_values"]


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
