"""numba kernels of external-sampling MCCFR on a betting tree with card buckets: limit hold'em
(two players, fold / call / raise) and no-limit hold'em (2 to 6 players, the action
abstraction's sizes) run the same pass.

External sampling (Lanctot, Waugh, Zinkevich and Bowling 2009, "Monte Carlo Sampling for Regret
Minimization in Extensive Games", section 3.1): an iteration deals every player's hole cards and
the board of the last round (without replacement, so card removal is exact), maps each player's
cards to its private state per round (bucket, or bucket sequence with perfect recall; the
abstraction's canonical index, :func:`pokerlab.abstraction._iso_kernels.index_hands`), evaluates
each player's showdown hand once (the deal: :mod:`pokerlab.tree.betting._deal_kernels`), and
walks the betting tree once per player in turn. The
traverser explores every action; every other player samples one action from its current
strategy (regret matching on the regrets as they are when the traversal reaches the node); the
deal nodes have one child (the cards are dealt in advance). Sampled counterfactual regret at the
traverser's node (eq. 4 and 5 of the paper; the chance and opponent probabilities cancel the
sampling probability):

    R(I, a) += v~(h.a) - v~(h),      v~(h) = sum over explored a of sigma(I, a) v~(h.a)

and the average strategy adds sigma(I, .) at the other players' visited nodes (the sampling
already weights it by their reach; OpenSpiel's "simple" averaging, as
:mod:`pokerlab.tree.history._mccfr_kernels`), at the nodes whose ``sum_offset`` is not -1 (a
blueprint may keep averages for the preflop only, as Pluribus did). Values are in the unit of
the tree's stakes (big blinds; the blueprint's int32 regrets: 1/scale of a chip,
:mod:`pokerlab.solvers.blueprint`); strategy sums are stored in float32 and regrets in float32
or int32 (:func:`~pokerlab.tree._primitives.store_regret`: rounded, saturated; numba compiles
the kernels once per regret dtype) in the layout of
:class:`pokerlab.solvers.limit_holdem.LimitPCSSolver` (node block ``offset[n] + action *
num_states[round] + state``), arithmetic is float64.

Terminal values (:class:`Stakes`: each node's contributions and who is still in, in big
blinds): at a ``FOLD_END`` the one player left wins the pot; at a showdown the main and side
pots go to the best hands that reached them (:mod:`pokerlab.tree.betting._pot_kernels`). A
player's value is what it wins minus what it put in. Heads-up terminals with a shared payoff
(``payoff_id`` >= 0: a fold, or a showdown of equal stakes; every limit terminal) read the
amount from the tree's payoff table and the deal's showdown sign, as the two-player kernel
always did: the same values (the general rule alone cost limit hold'em 11-23%, measured
in paired runs).

No recursion, no allocation per node: a traversal is a top-down walk with an explicit stack that
records the visited nodes, then one bottom-up loop over that record (children come after their
parent in it). A node of the betting tree is visited at most once per traversal, so its sigma
lives in a per-node scratch row.

Regret-based pruning (Brown and Sandholm 2015; Pluribus, Brown and Sandholm 2019): in a traversal
chosen with probability ``prune_probability``, the traverser's actions with regret below
``threshold`` are not explored, except actions into terminals and the last round's decisions,
and only at nodes where some regret is positive (so the skipped actions have sigma = 0 and the
sampled value is exact).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab._rng import uniform
from pokerlab.tree._primitives import (
    DEAL,
    FOLD_END,
    SHOWDOWN_END,
    RegretPruning,
    discount_factors,
    discount_range,
    sample_action,
    store_regret,
    unowned,
)
from pokerlab.tree.betting._deal_kernels import SHOWN, DealTables, deal, deal_states
from pokerlab.tree.betting._kernels import BettingArrays
from pokerlab.tree.betting._pot_kernels import pot_share, side_pot_value


class Stakes(NamedTuple):
    """What the terminal values read, per node of the tree: ``contrib`` (N, P) float64 each seat's
    chips in the pot, in big blinds (int32 regrets: their unit), ``mask`` (N,) int64 the players
    still in (bit q: seat q), ``pot`` (N,) float64, and ``simple`` (N,) int8: a showdown without
    side pots (every player still in put in the most), settled by one comparison of the players in;
    ``sum_offset`` (N,) int64: where a decision's block of strategy sums starts (-1: no average kept
    at that node); ``last_round``: the tree's last betting round (its decisions are never
    pruned)."""

    contrib: np.ndarray
    mask: np.ndarray
    pot: np.ndarray
    simple: np.ndarray
    sum_offset: np.ndarray
    last_round: int


class LazyRows(NamedTuple):
    """Rows allocated on first reach (Pluribus' blueprint, Brown and Sandholm 2019, supplement:
    memory for an action sequence is allocated when a traversal first reaches it;
    :mod:`pokerlab.solvers.lazy_rows`). ``enabled`` false: the dense layout (``offset[n] +
    action * num_states + state``) and nothing here is read. Enabled: ``index`` (int32 or int64,
    one entry per (decision node, state), ``slot_offset[n] + state``; -1 = no row yet) holds
    where the row of the node's ``na`` actions starts in the regret pool (actions contiguous); the
    pool's first entries (as many as the most actions of a node) are a row of zeros that the
    reads of an unallocated row use when nothing is written (no update). ``head`` (int64):
    [entries used, capacity, iterations done by the last call, entries one iteration may claim
    at most, the largest pool]. With
    ``sums_in_rows`` the strategy sums live in a pool of the same rows (averages on every
    round); otherwise in their own dense layout (``Stakes.sum_offset``)."""

    enabled: bool
    sums_in_rows: bool
    index: np.ndarray
    slot_offset: np.ndarray
    head: np.ndarray


class TraversalScratch(NamedTuple):
    """Per-node scratch of :func:`es_traversal`, every entry written before it is read: the
    stack, the record of visits and the sampled child of the other players' nodes (int64),
    whether each child was explored (int8), each node's strategy (N, most actions) and sampled
    value (N,) float64; and :func:`~pokerlab.tree.betting._pot_kernels.pot_share`'s table per
    set of players in (2**P float64, with the traversal that wrote each entry, int64); ``rows``:
    the lazy rows (:class:`LazyRows`; disabled: the dense layout)."""

    stack: np.ndarray
    visit: np.ndarray
    pick: np.ndarray
    explored: np.ndarray
    sigma: np.ndarray
    values: np.ndarray
    share: np.ndarray
    stamp: np.ndarray
    rows: LazyRows


@njit(cache=True)
def es_traversal(
    tree: BettingArrays,
    stakes: Stakes,
    states: np.ndarray,
    strength: np.ndarray,
    traverser: int,
    regrets: np.ndarray,
    sums: np.ndarray,
    rng: np.ndarray,
    update: bool,
    prune_now: bool,
    pruning: RegretPruning,
    regret_floor: bool,
    scratch: TraversalScratch,
    now: int,
) -> tuple[float, int]:
    """One external-sampling traversal for ``traverser`` of one deal (``states`` (P, 4),
    ``strength`` (P,): each seat's showdown value). Returns (the sampled root value in the stakes'
    unit, nodes visited). With ``update`` false nothing is written to ``regrets`` or ``sums`` (the
    sampled value alone, for tests of unbiasedness). ``prune_now``: this traversal prunes (with
    ``pruning``'s threshold; its floor ``min_regret`` bounds every update); decisions of the last
    round are never pruned. ``now``: a number no earlier traversal with this scratch used (it marks
    the traversal's entries of :func:`pot_share`'s table). With lazy rows (``scratch.rows``) a
    decision reached with ``update`` claims its row if it has none (:class:`LazyRows`)."""
    kind, player, rnd, child_start, children, payoff_id, payoff_table, offset, num_states = tree
    contrib, mask, pot, simple, sum_offset, last_round = stakes
    threshold = pruning.threshold
    min_regret = pruning.min_regret
    stack, visit, pick, explored, sigma, values, share, stamp, rows = scratch
    lazy = rows.enabled
    sums_in_rows = rows.sums_in_rows
    index = rows.index
    slot_offset = rows.slot_offset
    head = rows.head
    p = traverser
    sign = 0.0  # heads-up: +1 when the traverser's hand is better, -1 worse, 0 equal
    if strength.shape[0] == 2:
        if strength[p] > strength[1 - p]:
            sign = 1.0
        elif strength[p] < strength[1 - p]:
            sign = -1.0
    stack[0] = 0
    top = 1
    nv = 0
    # ---- top-down: sigma, sampling, the record of visits ----
    while top > 0:
        top -= 1
        n = stack[top]
        visit[nv] = n
        nv += 1
        k = kind[n]
        if k == FOLD_END or k == SHOWDOWN_END:
            continue
        first = child_start[n]
        if k == DEAL:
            stack[top] = children[first]
            top += 1
            continue
        na = child_start[n + 1] - first
        q = player[n]
        r = rnd[n]
        if lazy:  # the row of (n, state), claimed on first reach; actions contiguous
            slot = slot_offset[n] + states[q, r]
            base = index[slot]
            if base < 0:
                if update:
                    base = head[0]
                    head[0] = base + na
                    index[slot] = base
                else:
                    base = 0  # the pool's row of zeros, never written
            ns = 1
        else:
            ns = num_states[r]
            base = offset[n] + states[q, r]
        total = 0.0
        for j in range(na):
            x = np.float64(regrets[base + j * ns])
            if x > 0.0:
                total += x
        for j in range(na):
            if total > 0.0:
                x = np.float64(regrets[base + j * ns])
                sigma[n, j] = x / total if x > 0.0 else 0.0
            else:
                sigma[n, j] = 1.0 / na
        if q == p:
            prune_here = prune_now and total > 0.0 and r < last_round
            for j in range(na - 1, -1, -1):  # pushed in reverse: action 0 is walked first
                c = children[first + j]
                if (
                    prune_here
                    and kind[c] != FOLD_END
                    and kind[c] != SHOWDOWN_END
                    and regrets[base + j * ns] < threshold
                ):
                    explored[c] = 0
                    continue
                explored[c] = 1
                stack[top] = c
                top += 1
            continue
        if update and sum_offset[n] >= 0:
            if sums_in_rows:  # the sums' pool has the regrets' rows
                for j in range(na):
                    sums[base + j] += sigma[n, j]
            else:
                sns = num_states[r]
                sbase = sum_offset[n] + states[q, r]
                for j in range(na):
                    sums[sbase + j * sns] += sigma[n, j]
        sel = sample_action(sigma[n], 0, na, uniform(rng))
        c = children[first + sel]
        pick[n] = c
        stack[top] = c
        top += 1
    # ---- bottom-up: sampled values and regret updates ----
    for i in range(nv - 1, -1, -1):
        n = visit[i]
        k = kind[n]
        if k == FOLD_END:
            pid = payoff_id[n]
            if pid >= 0:  # two players: the folder loses the table's amount
                amount = payoff_table[pid]
                values[n] = -amount if player[n] == p else amount
            else:
                values[n] = (pot[n] if (mask[n] >> p) & 1 else 0.0) - contrib[n, p]
            continue
        if k == SHOWDOWN_END:
            pid = payoff_id[n]
            if pid >= 0:  # two players in with equal stakes: the table's amount, won or lost
                values[n] = payoff_table[pid] * sign
            elif simple[n] != 0:
                m = mask[n]
                if stamp[m] != now:
                    pot_share(m, p, strength, share, stamp, now)
                values[n] = share[m] * pot[n] - contrib[n, p]
            else:
                values[n] = side_pot_value(n, p, contrib, mask[n], strength)
            continue
        first = child_start[n]
        if k == DEAL:
            values[n] = values[children[first]]
            continue
        q = player[n]
        if q != p:
            values[n] = values[pick[n]]
            continue
        na = child_start[n + 1] - first
        v = 0.0
        for j in range(na):
            c = children[first + j]
            if explored[c] != 0:
                v += sigma[n, j] * values[c]
        values[n] = v
        if not update:
            continue
        r = rnd[n]
        if lazy:  # claimed in the top-down walk
            ns = 1
            base = index[slot_offset[n] + states[q, r]]
        else:
            ns = num_states[r]
            base = offset[n] + states[q, r]
        for j in range(na):
            c = children[first + j]
            if explored[c] == 0:
                continue
            x = np.float64(regrets[base + j * ns]) + (values[c] - v)
            if regret_floor and x < 0.0:
                x = 0.0
            if x < min_regret:
                x = min_regret
            store_regret(regrets, base + j * ns, x)
    return values[0], nv


@njit(cache=True, nogil=True)
def es_run(
    tree: BettingArrays,
    stakes: Stakes,
    tables: DealTables,
    regrets: np.ndarray,
    sums: np.ndarray,
    rng: np.ndarray,
    params: np.ndarray,
    discount_every: int,
    first_iteration: int,
    iterations: int,
    only_player: int,
    pruning: RegretPruning,
    stats: np.ndarray,
    lazy_rows: LazyRows,
) -> None:
    """Run ``iterations`` iterations numbered from ``first_iteration``: each deals once (one
    draw of ``rng`` per card: 2P hole cards and the last round's board) and traverses once per
    player, seat 0 first (alternating updates).

    Discounting as :func:`pokerlab.tree.history._mccfr_kernels.mccfr_run`: iterations come in
    blocks of ``discount_every``; before the first iteration of block j >= 2 every regret and
    strategy sum is scaled by the schedule's factors for "iteration" j (``params`` from
    :meth:`DiscountSchedule.as_array`, ``linear_until`` counted in blocks); 0 turns it off.
    Pruning: before each traversal one uniform draw decides it (only when ``pruning.enabled``;
    the traversal prunes with probability ``pruning.probability``).

    ``only_player >= 0``: ``iterations`` deals, each with one traversal of that player and no
    update, discount or pruning (the sampled root values, for tests). ``stats`` (3,) float64
    accumulates [nodes visited, sum of sampled root values, sum of their squares].

    Lazy rows (``lazy_rows.enabled``, :class:`LazyRows`): before each iteration (before its
    discount) the call stops when the pool has less room than one iteration may claim
    (``head[3]``) and is not already the largest (``head[4]``); ``head[2]`` says how many
    iterations ran (all of them when it did not stop), so the caller grows the pool and
    continues from there: the same arithmetic as one call. The discounts scale the used part of
    the pools only (the rest is 0).
    """
    # no atomic reference count per array of the per-deal and per-traversal calls (unowned)
    args = unowned((tree, stakes, tables, lazy_rows, regrets, sums, rng, stats))
    tree, stakes, tables, lazy_rows, regrets, sums, rng, stats = args
    deck, idx_tables, labels, counts, perfect, eval_tables, players, rounds = tables
    prune = pruning.enabled
    prune_probability = pruning.probability
    num_nodes = tree.kind.shape[0]
    width = 1
    for n in range(num_nodes):
        width = max(width, tree.child_start[n + 1] - tree.child_start[n])
    # scratch, every entry written before it is read (about 60 bytes per node)
    scratch = TraversalScratch(
        np.empty(num_nodes, dtype=np.int64),
        np.empty(num_nodes, dtype=np.int64),
        np.empty(num_nodes, dtype=np.int64),
        np.empty(num_nodes, dtype=np.int8),
        np.empty((num_nodes, width), dtype=np.float64),
        np.empty(num_nodes, dtype=np.float64),
        np.zeros(1 << players, dtype=np.float64),
        np.zeros(1 << players, dtype=np.int64),
        lazy_rows,
    )
    board = SHOWN[rounds - 1]
    cards = np.zeros(2 * players + board, dtype=np.int64)
    scratch_deck = np.zeros(deck.size, dtype=np.int64)
    rows = (
        np.zeros((players, 2), dtype=np.int64),
        np.zeros((players, 5), dtype=np.int64),
        np.zeros((players, 6), dtype=np.int64),
        np.zeros((players, 7), dtype=np.int64),
    )
    index_out = np.zeros(players, dtype=np.int64)
    hands = np.zeros((players, 2 + board), dtype=np.uint8)
    strength = np.zeros(players, dtype=np.int32)
    states = np.zeros((players, 4), dtype=np.int64)
    now = 0
    floor = params[3] != 0.0
    lazy = lazy_rows.enabled
    head = lazy_rows.head
    sums_in_rows = lazy_rows.sums_in_rows
    size = regrets.shape[0]
    sum_size = sums.shape[0]
    for it in range(iterations):
        tt = first_iteration + it
        if lazy:
            if head[0] + head[3] > head[1] and head[1] < head[4]:
                head[2] = it  # the pool needs room: the caller grows it and goes on from here
                return
            size = head[0]
            if sums_in_rows:
                sum_size = head[0]
        if only_player < 0 and discount_every > 0 and tt > 1 and (tt - 1) % discount_every == 0:
            block = (tt - 1) // discount_every + 1
            a, b, g = discount_factors(params, block)
            discount_range(regrets, sums, 0, size, a, b, 1.0)
            discount_range(regrets, sums, 0, sum_size, 1.0, 1.0, g)
        deal(deck, rng, cards, scratch_deck)
        deal_states(
            cards, idx_tables, labels, counts, perfect, eval_tables, rounds, rows, index_out,
            hands, strength, states,
        )  # fmt: skip
        for p in range(players):
            if only_player >= 0 and p != only_player:
                continue
            prune_now = False
            if prune and only_player < 0:
                prune_now = uniform(rng) < prune_probability
            now += 1
            v, nv = es_traversal(
                tree, stakes, states, strength, p, regrets, sums, rng, only_player < 0,
                prune_now, pruning, floor, scratch, now,
            )  # fmt: skip
            stats[0] += nv
            stats[1] += v
            stats[2] += v * v
    if lazy:
        head[2] = iterations
