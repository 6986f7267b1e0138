"""numba kernels of CFR with public chance sampling on limit hold'em's betting tree.

One pass walks the betting tree (preorder arrays, no recursion) for one traversing player with
whole vectors over the real hole-card pairs of the sampled board: reach top-down, terminal values
(fold: opponent reach compatible with the hand, by per-card sums and inclusion-exclusion;
showdown: one sweep over the hands sorted by strength), then values and regret updates
bottom-up. A hand's regrets and strategy sums live in the slot of its private state (bucket or
bucket sequence) of the node's round, so hands of the same bucket share them.

Storage is float32 (regrets, strategy sums and, for predictive schedules, the predicted
regrets); vectors and accumulations are float64.

Predictive schedules (PCFR+, PDCFR+; :mod:`pokerlab.solvers.schedule`): regret matching reads
the prediction P instead of R, and the traverser's update of a node rewrites P for every state
of the node: P = R d + r, with r the state's instantaneous regret of this pass (the sum over the
hands of that state; 0 for a state no hand of the sampled board has) and d the next iteration's
discount (``next_a`` where R > 0, ``next_b`` elsewhere), floored at 0 with the regret floor, as
the public and history tree kernels do (Farina, Kroer and Sandholm 2021; Xu et al. 2024).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pokerlab.tree._primitives import DEAL, DECISION, FOLD_END, SHOWDOWN_END


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
    n: np.int64,
    k: np.int64,
    player: np.ndarray,
    payoff_id: np.ndarray,
    payoff_table: np.ndarray,
    states: np.ndarray,
    hand_cards: np.ndarray,
    order: np.ndarray,
    ranked: np.ndarray,
    segments: np.ndarray,
    scale: float,
    p: np.int64,
    opp_reach: np.ndarray,
    out: np.ndarray,
    card_sum: np.ndarray,
) -> None:
    """A fold or showdown's value for every entry into ``out`` (float32), from the opponent's
    reach row, board segment by board segment.

    Folds: the opponent's reach compatible with each hand, by per-card sums and
    inclusion-exclusion. Showdowns: one ascending sweep over the entries sorted by strength
    (``ranked``, see :class:`~pokerlab.solvers.limit_holdem.BoardBatch`), group of equal
    strength by group. With W the compatible reach strictly below a hand, L the compatible
    reach at or below it (its own tie group included) and T all compatible reach, the hand wins
    W and loses T - L, so its value is ``amount * (W + L - T)``: T comes from the per-card
    totals (the first half of ``card_sum``, length 104), W and L from the running sums (the
    second half) before and after the group is added: one sweep instead of an ascending
    (winning) and a descending (losing) one, about a quarter less time per showdown."""
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
        first = segments[b]
        end = segments[b + 1]
        for c in range(104):
            card_sum[c] = 0.0
        total = 0.0
        for t in range(first, end):
            x = np.float64(opp_reach[order[t]])
            total += x
            card_sum[ranked[t, 0]] += x
            card_sum[ranked[t, 1]] += x
        # from here card_sum[52 + c]: reach of the hands swept so far that hold card c
        below = 0.0
        i = first
        while i < end:
            j = ranked[i, 2]
            if j == i + 1:  # a group of one (W and L differ by the hand's own reach only)
                h = order[i]
                c0 = ranked[i, 0]
                c1 = ranked[i, 1]
                x = np.float64(opp_reach[h])
                win = below - card_sum[52 + c0] - card_sum[52 + c1]
                out[h] = amount * (2.0 * win - x - total + card_sum[c0] + card_sum[c1])
                below += x
                card_sum[52 + c0] += x
                card_sum[52 + c1] += x
            else:
                for t in range(i, j):
                    c0 = ranked[t, 0]
                    c1 = ranked[t, 1]
                    out[order[t]] = (
                        below - card_sum[52 + c0] - card_sum[52 + c1]
                        - total + card_sum[c0] + card_sum[c1]
                    )  # fmt: skip
                for t in range(i, j):
                    x = np.float64(opp_reach[order[t]])
                    below += x
                    card_sum[52 + ranked[t, 0]] += x
                    card_sum[52 + ranked[t, 1]] += x
                for t in range(i, j):
                    h = order[t]
                    le = below - card_sum[52 + ranked[t, 0]] - card_sum[52 + ranked[t, 1]]
                    out[h] = amount * (out[h] + le)
            i = j


@njit(cache=True, nogil=True)
def pcs_pass(
    kind: np.ndarray,
    player: np.ndarray,
    rnd: np.ndarray,
    child_start: np.ndarray,
    children: np.ndarray,
    payoff_id: np.ndarray,
    payoff_table: np.ndarray,
    offset: np.ndarray,
    num_states: np.ndarray,
    states: np.ndarray,
    hand_cards: np.ndarray,
    order: np.ndarray,
    ranked: np.ndarray,
    segments: np.ndarray,
    scale: float,
    traverser: np.int64,
    regrets: np.ndarray,
    sums: np.ndarray,
    regret_floor: bool,
    update: bool,
    reach: np.ndarray,
    values: np.ndarray,
    card_sum: np.ndarray,
    row: np.ndarray,
    owner: np.ndarray,
    me: np.int64,
    lo: np.int64,
    hi: np.int64,
    phases: np.int64,
    pred: np.ndarray,
    predictive: bool,
    next_a: float,
    next_b: float,
    sum_weight: float,
    regret_weight: float,
) -> float:
    """One pass for ``traverser``; returns its root value summed over its hands.

    A batch of B boards (the seed's board batch) is one pass with vectors B times as long:
    entry ``b * H + i`` is hole-card pair ``i`` on board ``b`` (``hand_cards`` repeats the H
    pairs B times). ``states`` (4, B H): private state of each entry per round (-1: the hand
    meets its board); ``segments`` (B + 1,): board ``b``'s valid entries are
    ``order[segments[b]:segments[b + 1]]``, by increasing strength (``ranked``: each sorted
    position's two cards and the end of its tie group). Folds and showdowns
    compare entries of the same board only; the regret update of a (node, state) sums over
    every board's hands, so the batch's boards share one current strategy and one update.
    ``reach`` (2, N, >= B H), ``values`` (N, >= B H), ``card_sum`` (104,), ``row`` (2, N)
    int64: scratch.

    The subtree seam: only nodes ``n`` in ``[lo, hi)`` with ``owner[n] == me`` are processed,
    and ``phases`` selects the steps (1: top-down, 2: terminals, 4: bottom-up; 7: all). A split
    run lets the head (owner -1: the preflop nodes) go top-down, each worker run all three steps
    on its subtrees after the preflop (their root reach rows set by the head), then the head
    finish terminals and bottom-up; nodes, regrets and scratch rows of different owners are
    disjoint, so workers may run at once (``nogil``), each with its own ``card_sum``.
    ``update``: accumulate regrets and (traverser-reach-weighted) strategy sums, the additions
    times ``regret_weight`` and ``sum_weight`` (the solver's lazy discounts,
    :class:`~pokerlab.solvers.schedule.LazyScale`; 1 for the plain rule).
    ``pred`` (same layout as the regrets): the predicted regrets that regret matching reads when
    ``predictive`` (the update writes the next ones; see the module docstring).
    """
    match = pred if predictive else regrets
    num_hands = hand_cards.shape[0]
    p = traverser
    o = 1 - p
    # --- top-down: reach probabilities and strategy sums ---------------------------------
    # Only the acting player's reach changes at a decision: a child stores that player's row
    # and points at its parent's row for the other player (``row``), halving the writes.
    do_top = (phases & 1) != 0
    do_terminals = (phases & 2) != 0
    do_bottom = (phases & 4) != 0
    if do_top and owner[0] == me and lo == 0:
        for h in range(num_hands):
            live = 1.0 if states[0, h] >= 0 else 0.0
            reach[0, 0, h] = live
            reach[1, 0, h] = live
        row[0, 0] = 0
        row[1, 0] = 0
    for n in range(lo, hi if do_top else lo):
        if owner[n] != me:
            continue
        k = kind[n]
        first = child_start[n]
        last = child_start[n + 1]
        if k == DEAL:
            c = children[first]
            row[0, c] = row[0, n]
            row[1, c] = row[1, n]
            continue
        if k != DECISION:
            continue
        q = player[n]
        r = rnd[n]
        ns = num_states[r]
        base = offset[n]
        na = last - first
        own_row = row[q, n]
        for j in range(na):
            c = children[first + j]
            row[q, c] = c
            row[1 - q, c] = row[1 - q, n]
        for h in range(num_hands):
            s = states[r, h]
            own = reach[q, own_row, h]
            if s < 0 or own == 0.0:
                for j in range(na):
                    reach[q, children[first + j], h] = 0.0
                continue
            total = 0.0
            for j in range(na):
                x = match[base + j * ns + s]
                if x > 0:
                    total += x
            for j in range(na):
                if total > 0:
                    x = match[base + j * ns + s]
                    sigma = x / total if x > 0 else 0.0
                else:
                    sigma = 1.0 / na
                reach[q, children[first + j], h] = own * sigma
                if update and q == p:
                    sums[base + j * ns + s] += own * sigma * sum_weight
    # --- terminals ---------------------------------------------------------------------------
    for n in range(lo, hi if do_terminals else lo):
        if owner[n] != me:
            continue
        k = kind[n]
        if k == FOLD_END or k == SHOWDOWN_END:
            terminal_values(
                n, k, player, payoff_id, payoff_table, states, hand_cards, order, ranked,
                segments, scale, p, reach[o, row[o, n]], values[n], card_sum,
            )  # fmt: skip
    # --- bottom-up: values and regrets -------------------------------------------------------
    for n in range(hi - 1 if do_bottom else lo - 1, lo - 1, -1):
        if owner[n] != me:
            continue
        k = kind[n]
        first = child_start[n]
        last = child_start[n + 1]
        if k == DEAL:
            c = children[first]
            for h in range(num_hands):
                values[n, h] = values[c, h]
            continue
        if k != DECISION:
            continue
        q = player[n]
        na = last - first
        if q != p:
            for h in range(num_hands):
                acc = 0.0
                for j in range(na):
                    acc += values[children[first + j], h]
                values[n, h] = acc
            continue
        r = rnd[n]
        ns = num_states[r]
        base = offset[n]
        # values first (every hand with the regrets before this node's update) ...
        for h in range(num_hands):
            s = states[r, h]
            if s < 0:
                values[n, h] = 0.0
                continue
            total = 0.0
            for j in range(na):
                x = match[base + j * ns + s]
                if x > 0:
                    total += x
            acc = 0.0
            for j in range(na):
                if total > 0:
                    x = match[base + j * ns + s]
                    sigma = x / total if x > 0 else 0.0
                else:
                    sigma = 1.0 / na
                acc += sigma * values[children[first + j], h]
            values[n, h] = acc
        if not update:
            continue
        # ... then the regrets of every hand's state
        if predictive:
            # the block's instantaneous regrets gathered in ``pred`` first, then R and P
            for i in range(base, base + na * ns):
                pred[i] = 0.0
            for h in range(num_hands):
                s = states[r, h]
                if s < 0:
                    continue
                for j in range(na):
                    pred[base + j * ns + s] += values[children[first + j], h] - values[n, h]
            for i in range(base, base + na * ns):
                inst = pred[i] * regret_weight
                x = regrets[i] + inst
                if regret_floor and x < 0:
                    x = 0.0
                regrets[i] = x
                pv = (x * next_a if x > 0 else x * next_b) + inst
                pred[i] = 0.0 if (regret_floor and pv < 0) else pv
            continue
        for h in range(num_hands):
            s = states[r, h]
            if s < 0:
                continue
            for j in range(na):
                regrets[base + j * ns + s] += (
                    values[children[first + j], h] - values[n, h]
                ) * regret_weight
        if regret_floor:
            for h in range(num_hands):
                s = states[r, h]
                if s < 0:
                    continue
                for j in range(na):
                    if regrets[base + j * ns + s] < 0:
                        regrets[base + j * ns + s] = 0.0
    root = 0.0
    for h in range(num_hands):
        root += values[lo, h]
    return root
