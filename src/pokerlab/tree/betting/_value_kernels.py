"""numba kernel of the by-board abstract best response of limit hold'em (``limit_abstract.py``).

``river_sequence_values`` gives, for every river subtree of the betting tree, the best
responder's value at its root per own river bucket sequence, from the opponent's reach at the
root per opponent river bucket sequence. The responder does not see the board, so its maximum
comes after the sum over boards: per subtree the terminal values are first summed over every
board into one (sequences x terminals) accumulator, then the subtree is walked bottom-up once per
sequence. Card removal is exact, by per-card sums (folds: inclusion-exclusion; showdowns: one
sweep up and one down the hands sorted by strength), as in the public-tree best response of
Johanson, Waugh, Bowling and Zinkevich, "Accelerating Best Response Calculation in Large
Extensive Games" (IJCAI 2011).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange


class RiverProgram(NamedTuple):
    """The river subtrees renumbered for :func:`river_sequence_values` (built by
    ``pokerlab.evaluate.limit_real._river_program``), one row per subtree: its numbers of
    decisions, folds and showdowns; per decision (in preorder, the root first) where its children
    start in ``child_local`` and how many, whether the responder acts there, and where its
    strategy block starts; the children as local numbers (decisions, then folds, then
    showdowns); the folds' stakes signed for the responder and the showdowns' stakes (big
    blinds)."""

    num_dec: np.ndarray
    num_fold: np.ndarray
    num_show: np.ndarray
    dec_first: np.ndarray
    dec_count: np.ndarray
    dec_mine: np.ndarray
    dec_base: np.ndarray
    child_local: np.ndarray
    fold_coef: np.ndarray
    show_amount: np.ndarray


class RiverBoards(NamedTuple):
    """Every river board's live hands, as :func:`board_sums` reads them: board ``b``'s rows
    are ``board_start[b]:board_start[b + 1]`` of ``cards`` (hole cards), ``seq`` (the hand's
    river bucket sequence) and ``strength`` (increasing), and ``board_weight[b]`` its chance
    weight."""

    board_start: np.ndarray
    board_weight: np.ndarray
    cards: np.ndarray
    seq: np.ndarray
    strength: np.ndarray


@njit(cache=True)
def board_sums(
    term: np.ndarray,
    num_fold_columns: np.int64,
    board_start: np.ndarray,
    board_weight: np.ndarray,
    cards: np.ndarray,
    seq: np.ndarray,
    strength: np.ndarray,
    acc: np.ndarray,
) -> None:
    """Add to ``acc[s, col]`` the sum over every board and every live hand with river sequence
    s of the board's weight times: for a fold column, the opponent's reach of the compatible
    hands (``term[t, col]`` per opponent sequence t); for a showdown column, the reach of the
    weaker compatible hands minus that of the stronger ones. Columns ``< num_fold_columns`` are
    folds, the rest showdowns. Boards: rows ``board_start[b]:board_start[b + 1]`` of ``cards``,
    ``seq`` and ``strength``, live hands in increasing strength.

    Card removal by per-card sums: compatible = all - those holding either card + the hand
    itself (it holds both). One sweep up the hands by strength, ties as a group: per hand, the
    compatible reach of the weaker hands (before its group is added) plus that of the hands at
    most as strong (after), then, once the sums are complete, minus all compatible reach: weaker
    - stronger. Rows of ``term`` and ``acc`` are touched per hand; the columns are contiguous
    (several subtrees' terminals side by side), so the inner loops are long enough to
    vectorise."""
    nc = term.shape[1]
    cf = num_fold_columns
    lo_card = 52
    for i in range(cards.shape[0]):
        lo_card = min(lo_card, cards[i, 0], cards[i, 1])
    max_live = 1
    for b in range(board_weight.size):
        max_live = max(max_live, board_start[b + 1] - board_start[b])
    up = np.zeros((53, nc))  # per card, row 52 the total
    weaker = np.zeros((max_live, nc))  # per hand of a tie group
    up_all = up[52]
    for b in range(board_weight.size):
        lo = board_start[b]
        m = board_start[b + 1] - lo
        w = board_weight[b]
        for c in range(lo_card, 53):
            row = up[c]
            for f in range(nc):
                row[f] = 0.0
        z = 0
        while z < m:
            u = z
            sv = strength[lo + z]
            while u < m and strength[lo + u] == sv:
                u += 1
            for k in range(z, u):
                ua = up[cards[lo + k, 0]]
                uc = up[cards[lo + k, 1]]
                vk = weaker[k - z]
                for f in range(cf, nc):
                    vk[f] = up_all[f] - ua[f] - uc[f]
            for k in range(z, u):
                tr = term[seq[lo + k]]
                ua = up[cards[lo + k, 0]]
                uc = up[cards[lo + k, 1]]
                for f in range(nc):
                    up_all[f] += tr[f]
                for f in range(nc):
                    ua[f] += tr[f]
                for f in range(nc):
                    uc[f] += tr[f]
            for k in range(z, u):
                t = seq[lo + k]
                tr = term[t]
                ak = acc[t]
                vk = weaker[k - z]
                ua = up[cards[lo + k, 0]]
                uc = up[cards[lo + k, 1]]
                for f in range(cf, nc):
                    ak[f] += w * (vk[f] + up_all[f] - ua[f] - uc[f] + tr[f])
            z = u
        for k in range(m):
            t = seq[lo + k]
            tr = term[t]
            ak = acc[t]
            ua = up[cards[lo + k, 0]]
            uc = up[cards[lo + k, 1]]
            for f in range(cf):
                ak[f] += w * (up_all[f] - ua[f] - uc[f] + tr[f])
            for f in range(cf, nc):
                ak[f] -= w * (up_all[f] - ua[f] - uc[f] + tr[f])


@njit(cache=True, parallel=True)
def river_sequence_values(
    todo: np.ndarray,
    group: np.int64,
    root_reach: np.ndarray,
    program: RiverProgram,
    ns: np.int64,
    state_of_seq: np.ndarray,
    probs: np.ndarray,
    boards: RiverBoards,
    best: bool,
    out: np.ndarray,
) -> None:
    """``out[i, s]`` (big blinds x probability) for each river subtree i in ``todo``: the
    responder's value at the subtree's root for its river bucket sequence s, given
    ``root_reach[i, t]``, the opponent's reach of that root with river sequence t (its chance
    probability not included: the board weights bring it). Rows of ``out`` not in ``todo`` are
    left alone.

    The subtrees come renumbered (:class:`RiverProgram`: decisions in preorder, the root
    first, then folds, then showdowns; ``fold_coef`` and ``show_amount`` in big blinds, folds
    signed for the responder). Either player's strategy at a decision is
    ``probs[dec_base + action * ns + state_of_seq[sequence]]``. ``best``: the responder
    maximises (else it plays ``probs`` too). ``boards``: :class:`RiverBoards`.

    ``prange`` over groups of ``group`` subtrees: per group, the opponent's reach of every
    terminal per its sequence (top-down, no cards), then :func:`board_sums` over every board
    with the group's terminals as columns (two sequences x columns float64 arrays per thread),
    then per subtree and own sequence the walk up its decisions (the responder's maximum comes
    after the sum over boards: it does not see the board).
    """
    (
        num_dec, num_fold, num_show, dec_first, dec_count, dec_mine, dec_base, child_local,
        fold_coef, show_amount,
    ) = program  # fmt: skip
    board_start, board_weight, cards, seq, strength = boards
    num_seq = root_reach.shape[1]
    width = child_local.shape[1] + 1
    num_groups = (todo.size + group - 1) // group
    for g in prange(num_groups):
        lo_i = g * group
        hi_i = min(todo.size, lo_i + group)
        cf = 0
        cq = 0
        for x in range(lo_i, hi_i):
            cf += num_fold[todo[x]]
            cq += num_show[todo[x]]
        nc = cf + cq
        fold_col = np.zeros(hi_i - lo_i, dtype=np.int64)
        show_col = np.zeros(hi_i - lo_i, dtype=np.int64)
        a = 0
        c = cf
        for x in range(lo_i, hi_i):
            fold_col[x - lo_i] = a
            show_col[x - lo_i] = c
            a += num_fold[todo[x]]
            c += num_show[todo[x]]
        # the opponent's reach of every terminal, per its river sequence
        term = np.zeros((num_seq, nc))
        rch = np.zeros(width)
        for x in range(lo_i, hi_i):
            i = todo[x]
            nd = num_dec[i]
            nf = num_fold[i]
            fc = dec_first[i]
            cnt = dec_count[i]
            mine = dec_mine[i]
            dbase = dec_base[i]
            cl = child_local[i]
            for t in range(num_seq):
                x0 = root_reach[i, t]
                if x0 == 0.0:
                    continue
                st = state_of_seq[t]
                rch[0] = x0
                for e in range(nd):
                    y = rch[e]
                    first = fc[e]
                    if mine[e]:
                        for j in range(cnt[e]):
                            rch[cl[first + j]] = y
                    else:
                        base = dbase[e] + st
                        for j in range(cnt[e]):
                            rch[cl[first + j]] = y * probs[base + j * ns]
                for f in range(nf):
                    term[t, fold_col[x - lo_i] + f] = rch[nd + f]
                for q in range(num_show[i]):
                    term[t, show_col[x - lo_i] + q] = rch[nd + nf + q]
        acc = np.zeros((num_seq, nc))
        board_sums(term, cf, board_start, board_weight, cards, seq, strength, acc)
        # per subtree and own sequence: up its decisions
        val = np.zeros(width)
        for x in range(lo_i, hi_i):
            i = todo[x]
            nd = num_dec[i]
            nf = num_fold[i]
            fc = dec_first[i]
            cnt = dec_count[i]
            mine = dec_mine[i]
            dbase = dec_base[i]
            cl = child_local[i]
            for s in range(num_seq):
                for f in range(nf):
                    val[nd + f] = fold_coef[i, f] * acc[s, fold_col[x - lo_i] + f]
                for q in range(num_show[i]):
                    val[nd + nf + q] = show_amount[i, q] * acc[s, show_col[x - lo_i] + q]
                st = state_of_seq[s]
                for e in range(nd - 1, -1, -1):
                    first = fc[e]
                    na = cnt[e]
                    if not mine[e]:
                        y = 0.0
                        for j in range(na):
                            y += val[cl[first + j]]
                    elif best:
                        y = val[cl[first]]
                        for j in range(1, na):
                            if val[cl[first + j]] > y:
                                y = val[cl[first + j]]
                    else:
                        base = dbase[e] + st
                        y = 0.0
                        for j in range(na):
                            y += probs[base + j * ns] * val[cl[first + j]]
                    val[e] = y
                out[i, s] = val[0]
