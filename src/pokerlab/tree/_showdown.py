"""The one-sweep showdown, the terminal evaluation of every tree with vectors of private hands
(the public, vector and betting trees): for each of a player's hands, the payoff against the
opponent's reach of the hands compatible with it (no shared card), in O(H) per terminal instead
of O(H^2): hands sorted by strength per final board, per-card blocker sums by
inclusion-exclusion (a hand sharing a card with h is subtracted through that card; the
identical combo, subtracted through both, is added back once), and one upward sweep over the
strength order (the method of the fast postflop solvers; postflop-solver's
``evaluate_showdown``).

Two forms, by how the players' hands are listed:

- :func:`one_list_showdown`: both players index one list (the public tree's private states,
  the betting tree's board entries); the sweep goes through it group of equal strength by
  group.
- :func:`showdown_values` and :func:`fold_values`: each player has its own list (the vector
  tree's ranges); the sweep over the opponent's list records its running sums, and the
  traverser's hands read them through precomputed slots
  (:class:`~pokerlab.tree.vector.tree.SweepArrays`).

All are inlined into their callers (``inline="always"``); an edit here recompiles them
(:mod:`pokerlab._kernel_cache`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: fields of a row of ``SweepArrays.sd`` (a hand on a final board; see
#: :class:`~pokerlab.tree.vector.tree.SweepArrays`), 16 bits each, four to a 64-bit word: the
#: showdown loads a row in three words and shifts the fields out (:func:`field`); and of
#: ``SweepArrays.fm`` (a hand in list order); global integers, so numba compiles them as
#: constants
SD_HAND, SD_LO, SD_HI, SD_SAME = range(4)  # word 0
SD_SLO0, SD_SLO1, SD_SHI0, SD_SHI1 = range(4, 8)  # word 1
SD_SALL0, SD_SALL1, SD_PREV0, SD_PREV1 = range(8, 12)  # word 2
SD_FIELDS = 12
SD_WORDS = 3
FM_C0, FM_C1, FM_SAME = 0, 1, 2


@njit(cache=True, inline="always")
def one_list_showdown(order, ranked, first, end, reach, amount, card_sum, half, out):
    """Showdown values ``out[order[t]]`` for the hands at positions ``first .. end - 1`` of a
    strength order shared by both players, from the opponent's ``reach`` (indexed like
    ``out``); the other entries of ``out`` are left alone.

    ``order[t]``: the hand at position t (by increasing strength); ``ranked[t]``: its two card
    slots and the position after its group of equal strength. A hand of one card gets a slot of
    its own as its second card, so the two-card arithmetic holds (its only incompatible hand is
    itself). ``card_sum`` (``2 * half`` float64, ``half`` above every slot): scratch.

    With W the compatible reach strictly below a hand, L the compatible reach at or below it
    (its own tie group included) and T all compatible reach, the hand wins W and loses T - L:
    its value is ``amount * (W + L - T)``. T comes from the per-slot totals (the first half of
    ``card_sum``), W and L from the running sums (the second half) before and after its group
    is added: one sweep instead of an ascending (winning) and a descending (losing) one.
    """
    for c in range(2 * half):
        card_sum[c] = 0.0
    total = 0.0
    for t in range(first, end):
        x = np.float64(reach[order[t]])
        total += x
        card_sum[ranked[t, 0]] += x
        card_sum[ranked[t, 1]] += x
    # from here card_sum[half + c]: reach of the hands swept so far that hold card c
    below = 0.0
    i = first
    while i < end:
        j = ranked[i, 2]
        if j == i + 1:  # a group of one (W and L differ by the hand's own reach only)
            h = order[i]
            c0 = ranked[i, 0]
            c1 = ranked[i, 1]
            x = np.float64(reach[h])
            win = below - card_sum[half + c0] - card_sum[half + c1]
            out[h] = amount * (2.0 * win - x - total + card_sum[c0] + card_sum[c1])
            below += x
            card_sum[half + c0] += x
            card_sum[half + c1] += x
        else:
            for t in range(i, j):
                c0 = ranked[t, 0]
                c1 = ranked[t, 1]
                out[order[t]] = (
                    below - card_sum[half + c0] - card_sum[half + c1]
                    - total + card_sum[c0] + card_sum[c1]
                )  # fmt: skip
            for t in range(i, j):
                x = np.float64(reach[order[t]])
                below += x
                card_sum[half + ranked[t, 0]] += x
                card_sum[half + ranked[t, 1]] += x
            for t in range(i, j):
                h = order[t]
                le = below - card_sum[half + ranked[t, 0]] - card_sum[half + ranked[t, 1]]
                out[h] = amount * (out[h] + le)
        i = j


@njit(cache=True, inline="always", error_model="numpy")
def any_reach(ro, n):
    """Whether ``ro[:n]`` holds an entry other than +0.0: an OR over its bytes, which
    vectorises for float32 and float64 rows alike (a float comparison chain does not). A
    terminal whose opponent reach is all zero is worth 0 to every hand; regret matching gives
    whole lines zero probability (on the river spot 10 of the 42 showdown evaluations of
    iteration 60), so the passes skip their sweeps."""
    b = ro[:n].view(np.uint8)
    acc = np.uint8(0)
    for i in range(b.shape[0]):
        acc |= b[i]
    return acc != 0


@njit(cache=True, inline="always", error_model="numpy")
def fold_values(pay, ro, nh_o, nh_t, fm_o, fm_t, cards_sum, dst):
    """dst[h] = pay x (opponent reach compatible with hand h): blocker sums by card, the
    identical combo added back (``fm_t[h, FM_SAME]`` points at a zero slot of ``ro`` when absent).
    ``fm_o`` / ``fm_t``: the opponent's and the traverser's rows of ``SweepArrays.fm``
    (unsigned: no negative-index wraparound on the loads through them).

    The sums are bound by their dependency chains, not by their loads: a hand list comes
    ordered by its first card, so neighbours add to the same ``cards_sum`` slot one after the
    other (a store-to-load chain through memory), and the float64 total is one chain of adds.
    A run of hands sharing their first card is summed in a register and stored once, and the
    total alternates between two accumulators (0.27 against 0.34 us on the river spot's 240
    hands; the sums' rounding order changes, float64)."""
    for c in range(52):
        cards_sum[c] = 0.0
    even = 0.0
    odd = 0.0
    first = fm_o[0, FM_C0]
    run = 0.0
    for g in range(nh_o):
        r = np.float64(ro[g])
        c0 = fm_o[g, FM_C0]
        if c0 != first:
            cards_sum[first] += run
            run = 0.0
            first = c0
        run += r
        cards_sum[fm_o[g, FM_C1]] += r
        if g & 1:
            odd += r
        else:
            even += r
    cards_sum[first] += run
    fold_from_sums(pay, even + odd, ro, nh_t, fm_t, cards_sum, dst)


@njit(cache=True, inline="always", error_model="numpy")
def fold_from_sums(pay, total, ro, nh_t, fm_t, cards_sum, dst):
    """The fold values of :func:`fold_values` from the opponent's total reach and per-card
    sums already made (``cards_sum``, 52 entries), as a showdown's sweep leaves them."""
    if total == 0.0:
        for h in range(nh_t):
            dst[h] = 0.0
        return
    for h in range(nh_t):
        f = fm_t[h]
        dst[h] = pay * (total - cards_sum[f[FM_C0]] - cards_sum[f[FM_C1]] + ro[f[FM_SAME]])


@njit(cache=True, inline="always")
def field(word, i):
    """Field ``i`` (an ``SD_*`` number) of a ``SweepArrays.sd`` row, from the row's 64-bit word
    ``i // 4`` (four 16-bit fields, little-endian)."""
    return (word >> (16 * (i & 3))) & 0xFFFF


@njit(cache=True, inline="always", error_model="numpy")
def showdown_values(win, lose, tie, ro, nv_t, nv_o, sd_t, sd_o, nh_t, snap, dst):
    """Showdown values from one upward sweep over the opponent's hands sorted by strength.

    With B, E, A the compatible opponent reach strictly below, equal to and strictly above a
    hand, and ALL = B + E + A, the value ``win B + tie E + lose A`` is
    ``(win - tie) B + (tie - lose) (B + E) + lose ALL``. The sweep adds the opponent's hands
    in order and records the running total after the j-th in ``snap[j + 1]`` (``tot``), and
    the running sums of its two cards at ``cs[2 j]`` and ``cs[2 j + 1]`` (``cs = snap[H +
    1:]``; slot ``2 H`` holds 0), each the card's previous slot (``SD_PREV0`` / ``SD_PREV1``,
    static) plus the hand's reach: three stores a hand, where per-card running sums kept apart
    took five and were half the sweep's time. A second loop reads, for each of the traverser's
    hands, B (the first ``SD_LO`` opponent hands), B + E (the first ``SD_HI``) and ALL through
    the snapshot slots of :class:`~pokerlab.tree.vector.tree.SweepArrays`
    (inclusion-exclusion: the identical combo, counted in B + E and ALL but subtracted twice
    there, is added back once per term, which is ``tie`` x its reach in all). ``sd_t`` /
    ``sd_o``: the traverser's and the opponent's rows of ``SweepArrays.sd`` for the board, three
    64-bit words a hand (fields ``SD_*``). Reading snapshots instead of emitting inside the
    sweep keeps the loads off the addresses the sweep is storing to. The sums are float64, in
    the sweep's order: the same numbers as separate per-card sums.
    """
    hh = sd_t.shape[0]
    tot = snap[: hh + 1]
    cs = snap[hh + 1 :]
    cs[2 * hh] = 0.0
    acc = 0.0
    tot[0] = 0.0
    for j in range(nv_o):
        w0 = sd_o[j, 0]
        w2 = sd_o[j, 2]
        r = np.float64(ro[field(w0, SD_HAND)])
        acc += r
        tot[j + 1] = acc
        cs[2 * j] = cs[field(w2, SD_PREV0)] + r
        cs[2 * j + 1] = cs[field(w2, SD_PREV1)] + r
    for h in range(nh_t):
        dst[h] = 0.0
    cb = win - tie
    ce = tie - lose
    for k in range(nv_t):
        w0 = sd_t[k, 0]
        w1 = sd_t[k, 1]
        w2 = sd_t[k, 2]
        b = tot[field(w0, SD_LO)] - cs[field(w1, SD_SLO0)] - cs[field(w1, SD_SLO1)]
        be = tot[field(w0, SD_HI)] - cs[field(w1, SD_SHI0)] - cs[field(w1, SD_SHI1)]
        al = lose * (acc - cs[field(w2, SD_SALL0)] - cs[field(w2, SD_SALL1)])
        al += tie * ro[field(w0, SD_SAME)]
        dst[field(w0, SD_HAND)] = cb * b + ce * be + al


@njit(cache=True, inline="always", error_model="numpy")
def snapshot_card_sums(last_o, snap, hh, cards_sum):
    """``cards_sum[c]``: the opponent reach on card c that the last :func:`showdown_values`
    sweep added up, read from the snapshot of the last opponent hand holding c (``last_o[c]``,
    ``SweepArrays.last``; the zero slot when none), for the fold values beside the showdown
    (:func:`fold_from_sums`)."""
    cs = snap[hh + 1 :]
    for c in range(52):
        cards_sum[c] = cs[last_o[c]]
