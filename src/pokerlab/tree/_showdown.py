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
#: :class:`~pokerlab.tree.vector.tree.SweepArrays`) and of ``SweepArrays.fm`` (a hand in list
#: order); global integers, so numba compiles them as constants
SD_HAND, SD_C0, SD_C1, SD_LO, SD_HI, SD_SLO0, SD_SLO1, SD_SHI0, SD_SHI1, SD_SAME = range(10)
SD_FIELDS = 10
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


@njit(cache=True, inline="always", error_model="numpy")
def showdown_values(win, lose, tie, ro, nv_t, nv_o, sd_t, sd_o, nh_t, cards_sum, snap, dst):
    """Showdown values from one upward sweep over the opponent's hands sorted by strength.

    With B, E, A the compatible opponent reach strictly below, equal to and strictly above a
    hand, and ALL = B + E + A, the value ``win B + tie E + lose A`` is
    ``(win - tie) B + (tie - lose) (B + E) + lose ALL``. The sweep adds the opponent's hands
    in order (per-card sums for the blockers) and records the running total after each in
    ``snap[:nv_o + 1]`` and its two cards' running sums in ``snap[H + 1 + 2 j]``,
    ``snap[H + 2 + 2 j]``; a second loop reads B (the first ``SD_LO`` opponent hands) and
    B + E (the first ``SD_HI``) for each hand through the snapshot slots of
    :class:`~pokerlab.tree.vector.tree.SweepArrays`, and ALL from the final sums
    (inclusion-exclusion: the identical combo, counted in B + E and ALL but subtracted twice
    there, is added back once per term, which is ``tie`` x its reach in all). Reading
    snapshots instead of emitting inside the sweep keeps the loads off the addresses the sweep
    is storing to. ``sd_t`` / ``sd_o``: the traverser's and the opponent's rows of
    ``SweepArrays.sd`` for the board (fields in the order ``SD_HAND``, ``SD_C0``, ``SD_C1``,
    ``SD_LO``, ``SD_HI``, ``SD_SLO0``, ``SD_SLO1``, ``SD_SHI0``, ``SD_SHI1``, ``SD_SAME``).
    """
    hh = sd_t.shape[0]
    tot = snap[: hh + 1]
    cs = snap[hh + 1 :]
    for c in range(52):
        cards_sum[c] = 0.0
    acc = 0.0
    tot[0] = 0.0
    for j in range(nv_o):
        o = sd_o[j]
        r = ro[o[SD_HAND]]
        acc += r
        x0 = cards_sum[o[SD_C0]] + r
        cards_sum[o[SD_C0]] = x0
        x1 = cards_sum[o[SD_C1]] + r
        cards_sum[o[SD_C1]] = x1
        tot[j + 1] = acc
        cs[2 * j] = x0
        cs[2 * j + 1] = x1
    cs[2 * hh] = 0.0
    for h in range(nh_t):
        dst[h] = 0.0
    cb = win - tie
    ce = tie - lose
    for k in range(nv_t):
        m = sd_t[k]
        h = m[SD_HAND]
        b = tot[m[SD_LO]] - cs[m[SD_SLO0]] - cs[m[SD_SLO1]]
        be = tot[m[SD_HI]] - cs[m[SD_SHI0]] - cs[m[SD_SHI1]]
        al = lose * (acc - cards_sum[m[SD_C0]] - cards_sum[m[SD_C1]]) + tie * ro[m[SD_SAME]]
        dst[h] = cb * b + ce * be + al
