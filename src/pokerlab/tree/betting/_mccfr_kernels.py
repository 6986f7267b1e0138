"""numba kernels of external-sampling MCCFR on limit hold'em's betting tree with card buckets.

External sampling (Lanctot, Waugh, Zinkevich and Bowling 2009, "Monte Carlo Sampling for Regret
Minimization in Extensive Games", section 3.1): an iteration deals both players' hole cards and
the five board cards (without replacement, so card removal is exact), maps each player's cards
to its private state per round (bucket, or bucket sequence with perfect recall; the abstraction's
canonical index, :func:`pokerlab.abstraction._iso_kernels.index_hands`), evaluates the two seven
card hands once, and walks the betting tree once per player in turn. The traverser explores
every action; the opponent samples one action from its current strategy (regret matching on the
regrets as they are when the traversal reaches the node); the deal nodes have one child (the
cards are dealt in advance). Sampled counterfactual regret at the traverser's node (eq. 4 and 5
of the paper; the chance and opponent probabilities cancel the sampling probability):

    R(I, a) += v~(h.a) - v~(h),      v~(h) = sum over explored a of sigma(I, a) v~(h.a)

and the average strategy adds sigma(I, .) at the opponent's visited nodes (the sampling already
weights it by the opponent's reach; OpenSpiel's "simple" averaging, as
:mod:`pokerlab.tree.history._mccfr_kernels`). Values are in big blinds; regrets and strategy sums
are stored in float32 in the layout of :class:`pokerlab.solvers.limit_holdem.LimitPCSSolver`
(node block ``offset[n] + action * num_states[round] + state``), arithmetic is float64.

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

from pokerlab._rng import below, uniform
from pokerlab.abstraction._iso_kernels import index_hands
from pokerlab.cards._eval_kernels import evaluate7_batch
from pokerlab.tree._primitives import (
    DEAL,
    FOLD_END,
    SHOWDOWN_END,
    RegretPruning,
    discount_factors,
    discount_range,
    sample_action,
)
from pokerlab.tree.betting._kernels import BettingArrays

#: Cards shown on the board during each round.
SHOWN = (0, 3, 4, 5)
#: The last betting round (the river): its decisions are never pruned.
LAST_ROUND = 3


class DealTables(NamedTuple):
    """What a deal needs besides the tree: the deck (int64), each round's canonical hand
    indexer tables (:meth:`~pokerlab.abstraction.isomorphism.HandIndexer.kernel_tables`), each
    round's bucket labels by canonical index, the bucket counts per round, whether states are
    bucket sequences (perfect recall), and the seven-card evaluator's tables."""

    deck: np.ndarray
    idx_tables: tuple
    labels: tuple
    counts: np.ndarray
    perfect: bool
    eval_tables: tuple


class TraversalScratch(NamedTuple):
    """Per-node scratch of :func:`es_traversal`, every entry written before it is read: the
    stack, the record of visits and the opponent's sampled child (int64), whether each child
    was explored (int8), each node's strategy (N, 3) and sampled value (N,) float64."""

    stack: np.ndarray
    visit: np.ndarray
    pick: np.ndarray
    explored: np.ndarray
    sigma: np.ndarray
    values: np.ndarray


@njit(cache=True)
def deal(
    deck: np.ndarray,
    rng: np.ndarray,
    cards: np.ndarray,
    scratch_deck: np.ndarray,
) -> None:
    """Nine distinct cards of ``deck`` into ``cards`` (hole cards of seat 0, of seat 1, board):
    a partial Fisher-Yates shuffle of a fresh copy of the deck, exactly 9 draws."""
    m = deck.size
    for i in range(m):
        scratch_deck[i] = deck[i]
    for i in range(9):
        j = i + below(rng, m - i)
        x = scratch_deck[j]
        scratch_deck[j] = scratch_deck[i]
        scratch_deck[i] = x
        cards[i] = x


@njit(cache=True)
def deal_states(
    cards: np.ndarray,
    idx_tables,
    labels,
    counts: np.ndarray,
    perfect: bool,
    eval_tables,
    rows,
    index_out: np.ndarray,
    seven: np.ndarray,
    strength: np.ndarray,
    states: np.ndarray,
) -> int:
    """Private state of each seat per round into ``states`` (2, 4); returns seat 0's showdown
    sign (+1 wins, -1 loses, 0 splits). ``rows[r]`` (2, 2 + shown) int64, ``index_out`` (2,)
    int64, ``seven`` (2, 7) uint8 and ``strength`` (2,) int32 are scratch."""
    for r in range(4):
        rr = rows[r]
        shown = rr.shape[1] - 2
        for q in range(2):
            rr[q, 0] = cards[2 * q]
            rr[q, 1] = cards[2 * q + 1]
            for k in range(shown):
                rr[q, 2 + k] = cards[4 + k]
        t = idx_tables[r]
        index_hands(rr, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], index_out)
        lab = labels[r]
        for q in range(2):
            b = np.int64(lab[index_out[q]])
            if perfect and r > 0:
                states[q, r] = states[q, r - 1] * counts[r] + b
            else:
                states[q, r] = b
    for q in range(2):
        seven[q, 0] = cards[2 * q]
        seven[q, 1] = cards[2 * q + 1]
        for k in range(5):
            seven[q, 2 + k] = cards[4 + k]
    e = eval_tables
    evaluate7_batch(seven, e[0], e[1], e[2], e[3], e[4], strength)
    if strength[0] > strength[1]:
        return 1
    if strength[0] < strength[1]:
        return -1
    return 0


@njit(cache=True)
def es_traversal(
    tree: BettingArrays,
    states: np.ndarray,
    sign0: int,
    traverser: int,
    regrets: np.ndarray,
    sums: np.ndarray,
    rng: np.ndarray,
    update: bool,
    prune_now: bool,
    pruning: RegretPruning,
    regret_floor: bool,
    scratch: TraversalScratch,
) -> tuple[float, int]:
    """One external-sampling traversal for ``traverser`` of one deal (``states`` (2, 4),
    ``sign0``: seat 0's showdown sign). Returns (the sampled root value in big blinds, nodes
    visited). With ``update`` false nothing is written to ``regrets`` or ``sums`` (the sampled
    value alone, for tests of unbiasedness). ``prune_now``: this traversal prunes (with
    ``pruning``'s threshold; its floor ``min_regret`` bounds every update)."""
    kind, player, rnd, child_start, children, payoff_id, payoff_table, offset, num_states = tree
    threshold = pruning.threshold
    min_regret = pruning.min_regret
    last_round = LAST_ROUND
    stack, visit, pick, explored, sigma, values = scratch
    p = traverser
    sign = sign0 if p == 0 else -sign0
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
        if update:
            for j in range(na):
                sums[base + j * ns] += sigma[n, j]
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
            amount = payoff_table[payoff_id[n]]
            values[n] = -amount if player[n] == p else amount
            continue
        if k == SHOWDOWN_END:
            values[n] = payoff_table[payoff_id[n]] * sign
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
            regrets[base + j * ns] = x
    return values[0], nv


@njit(cache=True)
def es_run(
    tree: BettingArrays,
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
) -> None:
    """Run ``iterations`` iterations numbered from ``first_iteration``: each deals once (9
    draws of ``rng``) and traverses once per player, seat 0 first (alternating updates).

    Discounting as :func:`pokerlab.tree.history._mccfr_kernels.mccfr_run`: iterations come in
    blocks of ``discount_every``; before the first iteration of block j >= 2 every regret and
    strategy sum is scaled by the schedule's factors for "iteration" j (``params`` from
    :meth:`DiscountSchedule.as_array`, ``linear_until`` counted in blocks); 0 turns it off.
    Pruning: before each traversal one uniform draw decides it (only when ``pruning.enabled``;
    the traversal prunes with probability ``pruning.probability``).

    ``only_player >= 0``: ``iterations`` deals, each with one traversal of that player and no
    update, discount or pruning (the sampled root values, for tests). ``stats`` (3,) float64
    accumulates [nodes visited, sum of sampled root values, sum of their squares].
    """
    deck, idx_tables, labels, counts, perfect, eval_tables = tables
    prune = pruning.enabled
    prune_probability = pruning.probability
    num_nodes = tree.kind.shape[0]
    # scratch, every entry written before it is read (about 60 bytes per node)
    scratch = TraversalScratch(
        np.empty(num_nodes, dtype=np.int64),
        np.empty(num_nodes, dtype=np.int64),
        np.empty(num_nodes, dtype=np.int64),
        np.empty(num_nodes, dtype=np.int8),
        np.empty((num_nodes, 3), dtype=np.float64),
        np.empty(num_nodes, dtype=np.float64),
    )
    cards = np.zeros(9, dtype=np.int64)
    scratch_deck = np.zeros(deck.size, dtype=np.int64)
    rows = (
        np.zeros((2, 2), dtype=np.int64),
        np.zeros((2, 5), dtype=np.int64),
        np.zeros((2, 6), dtype=np.int64),
        np.zeros((2, 7), dtype=np.int64),
    )
    index_out = np.zeros(2, dtype=np.int64)
    seven = np.zeros((2, 7), dtype=np.uint8)
    strength = np.zeros(2, dtype=np.int32)
    states = np.zeros((2, 4), dtype=np.int64)
    floor = params[3] != 0.0
    size = regrets.shape[0]
    for it in range(iterations):
        tt = first_iteration + it
        if only_player < 0 and discount_every > 0 and tt > 1 and (tt - 1) % discount_every == 0:
            block = (tt - 1) // discount_every + 1
            a, b, g = discount_factors(params, block)
            discount_range(regrets, sums, 0, size, a, b, g)
        deal(deck, rng, cards, scratch_deck)
        sign0 = deal_states(
            cards, idx_tables, labels, counts, perfect, eval_tables, rows, index_out, seven,
            strength, states,
        )  # fmt: skip
        for p in range(2):
            if only_player >= 0 and p != only_player:
                continue
            prune_now = False
            if prune and only_player < 0:
                prune_now = uniform(rng) < prune_probability
            v, nv = es_traversal(
                tree, states, sign0, p, regrets, sums, rng, only_player < 0, prune_now, pruning,
                floor, scratch,
            )  # fmt: skip
            stats[0] += nv
            stats[1] += v
            stats[2] += v * v
