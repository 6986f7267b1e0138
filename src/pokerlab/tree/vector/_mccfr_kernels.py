"""Numba kernels of Monte Carlo CFR on a vector tree: one sampled deal per traversal.

Lanctot, Waugh, Zinkevich & Bowling (2009), "Monte Carlo Sampling for Regret Minimization in
Extensive Games": chance sampling and external sampling, on the float32 regret and strategy-sum
arrays of a :class:`~pokerlab.tree.vector.tree.VectorTree` (one ``actions x hands(actor)`` block
per decision node, the layout of the full-width solver, so its exact best-response and
expected-value passes measure the result). Regret-based pruning as in Pluribus (Brown & Sandholm
2019, Science; Brown, Kroer & Sandholm 2017).

A traversal fixes a **deal**: one hand per player, drawn from the weighted ranges with card
removal (each hand from its range, a pair sharing a card rejected: the accepted pairs follow the
joint distribution ``w0(h0) w1(h1) / norm`` over compatible pairs exactly), and the cards of
the streets still to come, drawn uniformly from the cards left (``deal = [h0, h1, card of chance
level 0, card of chance level 1]``, -1 where a level does not exist). On that deal the public
tree is walked with scalars instead of vectors: the actor's hand selects one column of a block.

Suit isomorphism: a dealt card that the tree folded onto a source card (``iso_*`` arrays) is not
a child; the walk descends into the source child with the whole deal mapped through that suit
swap (both hands through ``hands.perm[p, swap]``, the later cards by swapping their suits), as
the swapped deal is equally likely and the tree below the source is the swapped tree. A source
subtree so collects the samples of every card of its class: its regrets and strategy sums grow by
a constant factor (the class size) in expectation, which regret matching and the per-node
normalisation of the average ignore.

No recursion (numba's on-disk cache cannot hold recursive functions) and no allocation per node:
a traversal is a top-down walk with an explicit stack that records the visited nodes, then one
bottom-up loop over that record (children come after their parent in it) computing sampled
values and updating regrets. Each (node, hand) information set is visited at most once per
traversal (the deal is fixed), so the current strategy read top-down is the one the update uses.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab._rng import below, uniform
from pokerlab.tree._primitives import (
    CHANCE,
    FOLD,
    SHOWDOWN,
    RegretPruning,
    RunArrays,
    sample_action,
)

CHANCE_SAMPLING, EXTERNAL_SAMPLING = 0, 1


class VectorSampledScratch(NamedTuple):
    """Scratch of the sampled passes on a vector tree (N nodes, E edges): the deal (hand of OOP,
    hand of IP, later cards), the explicit stack with its visit state and picked actions (int64
    (N,)), the deal as mapped at each node (int64 (N, 4)), reach and values (float64 (N,)),
    explored flags (int8 (N,)) and the current strategy (float64 (E,))."""

    deal: np.ndarray
    stack: np.ndarray
    visit: np.ndarray
    world: np.ndarray
    reach: np.ndarray
    values: np.ndarray
    explored: np.ndarray
    pick: np.ndarray
    sig: np.ndarray


class BlockDiscounts(NamedTuple):
    """Discounting in blocks of ``every`` iterations (0: none): ``factors[j - first_block]`` =
    (a, b, g) of block j, computed by the caller."""

    every: int
    factors: np.ndarray
    first_block: int


@njit(cache=True, inline="always")
def _swap_card(card: int, s1: int, s2: int) -> int:
    suit = card & 3
    if suit == s1:
        return (card & ~3) | s2
    if suit == s2:
        return (card & ~3) | s1
    return card


@njit(cache=True, inline="always")
def _draw(rng: np.ndarray, cdf: np.ndarray, n: int) -> int:
    """Index i in [0, n) with probability (cdf[i] - cdf[i-1]) / cdf[n-1] (binary search)."""
    u = uniform(rng) * cdf[n - 1]
    lo = 0
    hi = n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def sample_deal(
    rng: np.ndarray,
    cdf: np.ndarray,
    num: np.ndarray,
    hand_cards: np.ndarray,
    board_mask: np.ndarray,
    levels: int,
    deal: np.ndarray,
) -> None:
    """Fill ``deal`` = [h0, h1, card, card] (-1 for missing levels) for one traversal.

    Each hand is drawn from its player's weights (``cdf[p, :num[p]]``, cumulative); a pair
    sharing a card is rejected and both are drawn again, so an accepted pair (h0, h1) has
    probability ``w0(h0) w1(h1) / sum over compatible pairs``. Then ``levels`` cards are drawn
    uniformly, without replacement, from the cards neither on the board (``board_mask``) nor in a
    hand: the chance probabilities ``1 / cards left`` of the tree.
    """
    while True:
        h0 = _draw(rng, cdf[0], num[0])
        h1 = _draw(rng, cdf[1], num[1])
        a0 = hand_cards[0, h0, 0]
        b0 = hand_cards[0, h0, 1]
        a1 = hand_cards[1, h1, 0]
        b1 = hand_cards[1, h1, 1]
        if a0 != a1 and a0 != b1 and b0 != a1 and b0 != b1:
            break
    deal[0] = h0
    deal[1] = h1
    deal[2] = -1
    deal[3] = -1
    for k in range(levels):
        while True:
            c = below(rng, 52)
            if board_mask[c] or c == a0 or c == b0 or c == a1 or c == b1:
                continue
            if k == 1 and c == deal[2]:
                continue
            break
        deal[2 + k] = c


@njit(cache=True)
def traversal(
    t,
    hands,
    s,
    external: bool,
    trav: int,
    regrets: np.ndarray,
    strat: np.ndarray,
    out: RunArrays,
    scale: float,
    rng: np.ndarray,
    scratch: VectorSampledScratch,
    prune_now: bool,
    pruning: RegretPruning,
    floor: bool,
) -> int:
    """One chance-sampling or external-sampling traversal for ``trav`` on ``deal``; returns the
    nodes visited (Lanctot et al. 2009, sections 3.1 and 3.3).

    ``t``: :class:`VectorArrays`; ``hands``: :class:`HandArrays`; ``s``: the sampling tables
    (:class:`pokerlab.solvers.postflop_sampling.SampleTables`); ``rng``: the xoshiro256** state
    (:mod:`pokerlab._rng`) for external sampling's opponent actions. The current
    strategy sigma is regret matching on ``regrets``; updates go to ``reg_out`` and
    ``strat_out``, each multiplied by ``scale`` (a run passes the same arrays and 1; the exact
    expectation over deals passes copies and the deal's probability).

    Chance nodes: the deal's card of the node's level (through the isomorphism, see the module
    docstring). Traverser's nodes: every action explored (with ``prune_now``, actions into
    ``prunable`` nodes whose regret is below ``threshold`` are skipped where some regret is
    positive: Pluribus' regret-based pruning; the skipped actions then have sigma 0 and the value
    is exact). The opponent's nodes: external sampling samples one action from sigma; chance
    sampling explores every action of positive probability (zero-reach pruning). With
    v~(h) = sum over explored a of sigma(a) v~(h.a) and v~(z) = the traverser's payoff,

        R(I, a) += w (v~(h.a) - v~(h)),    w = 1 (external) or pi_opp(h) (chance sampling),

    the chance and (external) opponent probabilities cancelling the sampling probability
    (Lanctot et al. eq. 4 and 5). Average strategy at the opponent's nodes (OpenSpiel's "simple"
    averaging): S(I, a) += sigma(a) (external: the sampling weights it by the opponent's reach)
    or pi_opp(h) sigma(a) (chance sampling). Regrets are floored at 0 with ``floor`` (CFR+) and
    at ``min_regret``.

    ``out`` holds the arrays the updates go to (``pred`` unused); ``pruning`` the threshold
    and the regret floor; ``scratch``: :class:`VectorSampledScratch`.
    """
    reg_out, strat_out = out.regrets, out.strat_sum
    deal, stack, visit, world = scratch.deal, scratch.stack, scratch.visit, scratch.world
    reach, values, explored = scratch.reach, scratch.values, scratch.explored
    pick, sig = scratch.pick, scratch.sig
    threshold, min_regret = pruning.threshold, pruning.min_regret

    kind = t.kind
    cs = t.child_start
    ch = t.children
    perm = hands.perm
    for j in range(4):
        world[0, j] = deal[j]
    reach[0] = 1.0
    stack[0] = 0
    top = 1
    nv = 0
    # ---- top-down: strategies, samples, record of the visits ----
    while top > 0:
        top -= 1
        n = stack[top]
        visit[nv] = n
        nv += 1
        k = kind[n]
        if k == FOLD or k == SHOWDOWN:
            continue
        first = cs[n]
        last = cs[n + 1]
        if k == CHANCE:
            ci = s.chance_index[n]
            card = world[n, 2 + s.level[n]]
            slot = s.card_slot[ci, card]
            sw = s.card_swap[ci, card]
            c = ch[first + slot]
            pick[n] = c
            if sw < 0:
                for j in range(4):
                    world[c, j] = world[n, j]
            else:
                s1 = s.suit_pairs[sw, 0]
                s2 = s.suit_pairs[sw, 1]
                world[c, 0] = perm[0, sw, world[n, 0]]
                world[c, 1] = perm[1, sw, world[n, 1]]
                for j in range(2, 4):
                    x = world[n, j]
                    world[c, j] = _swap_card(x, s1, s2) if x >= 0 else x
            reach[c] = reach[n]
            stack[top] = c
            top += 1
            continue
        p = t.player[n]
        h = world[n, p]
        nh = hands.num[p]
        off = t.offset[n]
        na = last - first
        # regret matching: sigma(a) = R+(a) / sum_b R+(b), uniform when no regret is positive
        total = 0.0
        for a in range(na):
            r = float(regrets[off + a * nh + h])
            if r > 0.0:
                total += r
        if total > 0.0:
            for a in range(na):
                r = float(regrets[off + a * nh + h])
                sig[first + a] = r / total if r > 0.0 else 0.0
        else:
            for a in range(na):
                sig[first + a] = 1.0 / na
        if p == trav:
            prune_here = prune_now and total > 0.0
            for a in range(na - 1, -1, -1):  # pushed in reverse: action 0 is walked first
                c = ch[first + a]
                if prune_here and s.prunable[c] != 0 and regrets[off + a * nh + h] < threshold:
                    explored[c] = 0
                    continue
                explored[c] = 1
                for j in range(4):
                    world[c, j] = world[n, j]
                reach[c] = reach[n]
                stack[top] = c
                top += 1
        elif external:
            for a in range(na):
                q = off + a * nh + h
                strat_out[q] = np.float32(strat_out[q] + scale * sig[first + a])
            sel = sample_action(sig, first, na, uniform(rng))
            c = ch[first + sel]
            pick[n] = c
            for j in range(4):
                world[c, j] = world[n, j]
            stack[top] = c
            top += 1
        else:
            own = reach[n]
            for a in range(na):
                q = off + a * nh + h
                strat_out[q] = np.float32(strat_out[q] + scale * own * sig[first + a])
            for a in range(na - 1, -1, -1):
                c = ch[first + a]
                x = sig[first + a]
                if x == 0.0:  # zero reach below: nothing to update there
                    explored[c] = 0
                    continue
                explored[c] = 1
                for j in range(4):
                    world[c, j] = world[n, j]
                reach[c] = own * x
                stack[top] = c
                top += 1

    # ---- bottom-up: sampled values and regret updates ----
    opp = 1 - trav
    for idx in range(nv - 1, -1, -1):
        n = visit[idx]
        k = kind[n]
        if k == FOLD:
            values[n] = t.lose[n] if t.player[n] == trav else t.win[n]
            continue
        if k == SHOWDOWN:
            b = t.board[n]
            mine = hands.strength[trav, b, world[n, trav]]
            theirs = hands.strength[opp, b, world[n, opp]]
            if mine > theirs:
                values[n] = t.win[n]
            elif mine < theirs:
                values[n] = t.lose[n]
            else:
                values[n] = t.tie[n]
            continue
        if k == CHANCE:
            values[n] = values[pick[n]]
            continue
        p = t.player[n]
        if p != trav and external:
            values[n] = values[pick[n]]
            continue
        first = cs[n]
        na = cs[n + 1] - first
        v = 0.0
        for a in range(na):
            c = ch[first + a]
            if explored[c] != 0:
                v += sig[first + a] * values[c]
        values[n] = v
        if p != trav:
            continue
        w = scale if external else scale * reach[n]
        h = world[n, p]
        nh = hands.num[p]
        off = t.offset[n]
        for a in range(na):
            c = ch[first + a]
            if explored[c] == 0:
                continue
            q = off + a * nh + h
            r = float(reg_out[q]) + w * (values[c] - v)
            if floor and r < 0.0:
                r = 0.0
            if r < min_regret:
                r = min_regret
            reg_out[q] = np.float32(r)
    return nv


@njit(cache=True)
def run(
    t,
    hands,
    s,
    variant: int,
    regrets: np.ndarray,
    strat: np.ndarray,
    first_iteration: int,
    iterations: int,
    blocks: BlockDiscounts,
    rng: np.ndarray,
    scratch: VectorSampledScratch,
    pruning: RegretPruning,
    floor: bool,
    only_player: int,
) -> int:
    """Iterations ``first_iteration`` .. ``first_iteration + iterations - 1`` (1-based), each
    one traversal per player (OOP then IP, alternating updates), every traversal on its own
    sampled deal; returns the nodes visited.

    Discounting in blocks of ``discount_every`` iterations (0: none), as
    :func:`pokerlab.tree.history._mccfr_kernels.mccfr_run` does: before the first iteration of block
    j >= 2, regrets and strategy sums are scaled by ``factors[j - first_block]`` = (a, b, g),
    the schedule's factors for "iteration" j, computed by the caller. With ``prune``, each
    traversal first draws whether it prunes (probability ``prune_probability``). With
    ``only_player >= 0``: one traversal for that player and nothing else (no discount, no
    pruning), for tests of unbiasedness.
    """
    discount_every, factors, first_block = blocks
    prune, prune_probability = pruning.enabled, pruning.probability
    deal = scratch.deal
    out = RunArrays(regrets, strat, regrets[:0])

    external = variant == EXTERNAL_SAMPLING
    touched = 0
    if only_player >= 0:
        sample_deal(rng, s.cdf, hands.num, hands.cards, s.board_mask, s.levels, deal)
        return traversal(
            t, hands, s, external, only_player, regrets, strat, out, 1.0, rng, scratch, False,
            pruning, floor,
        )  # fmt: skip
    for it in range(iterations):
        tt = first_iteration + it
        if discount_every > 0 and tt > 1 and (tt - 1) % discount_every == 0:
            j = (tt - 1) // discount_every + 1 - first_block
            discount(regrets, strat, factors[j, 0], factors[j, 1], factors[j, 2])
        for trav in range(2):
            prune_now = False
            if prune:
                prune_now = uniform(rng) < prune_probability
            sample_deal(rng, s.cdf, hands.num, hands.cards, s.board_mask, s.levels, deal)
            touched += traversal(
                t, hands, s, external, trav, regrets, strat, out, 1.0, rng, scratch, prune_now,
                pruning, floor,
            )  # fmt: skip
    return touched


@njit(cache=True)
def expected_update(
    t,
    hands,
    s,
    trav: int,
    regrets: np.ndarray,
    strat: np.ndarray,
    reg_out: np.ndarray,
    strat_out: np.ndarray,
    rng: np.ndarray,
    scratch: VectorSampledScratch,
) -> float:
    """The exact expectation of one chance-sampling traversal's update, over every deal.

    Every compatible hand pair and every ordered run of later cards is traversed once with its
    probability as ``scale``, the strategy read from ``regrets`` and the updates added to
    ``reg_out`` / ``strat_out`` (zero them first; ``rng`` is not drawn from). For tiny spots
    (tests of unbiasedness: the expectation equals the full-width CFR update up to the
    per-hand factor w(h) / norm).
    Returns the total probability enumerated (1 up to rounding).
    """
    deal = scratch.deal
    out = RunArrays(reg_out, strat_out, reg_out[:0])
    no_pruning = RegretPruning(False, 0.0, 0.0, -np.inf)

    nh0 = hands.num[0]
    nh1 = hands.num[1]
    total_w = 0.0
    for h0 in range(nh0):
        for h1 in range(nh1):
            a0 = hands.cards[0, h0, 0]
            b0 = hands.cards[0, h0, 1]
            a1 = hands.cards[1, h1, 0]
            b1 = hands.cards[1, h1, 1]
            if a0 == a1 or a0 == b1 or b0 == a1 or b0 == b1:
                continue
            total_w += hands.weight[0, h0] * hands.weight[1, h1]
    left = 0
    for c in range(52):
        if not s.board_mask[c]:
            left += 1
    left -= 4
    enumerated = 0.0
    for h0 in range(nh0):
        for h1 in range(nh1):
            a0 = hands.cards[0, h0, 0]
            b0 = hands.cards[0, h0, 1]
            a1 = hands.cards[1, h1, 0]
            b1 = hands.cards[1, h1, 1]
            if a0 == a1 or a0 == b1 or b0 == a1 or b0 == b1:
                continue
            pw = hands.weight[0, h0] * hands.weight[1, h1] / total_w
            deal[0] = h0
            deal[1] = h1
            n1 = 52 if s.levels >= 1 else 1
            n2 = 52 if s.levels >= 2 else 1
            for c1 in range(n1):
                if s.levels >= 1:
                    if s.board_mask[c1] or c1 == a0 or c1 == b0 or c1 == a1 or c1 == b1:
                        continue
                    deal[2] = c1
                else:
                    deal[2] = -1
                for c2 in range(n2):
                    p = pw
                    if s.levels >= 1:
                        p /= left
                    if s.levels >= 2:
                        if s.board_mask[c2] or c2 == a0 or c2 == b0 or c2 == a1 or c2 == b1:
                            continue
                        if c2 == c1:
                            continue
                        deal[3] = c2
                        p /= left - 1
                    else:
                        deal[3] = -1
                    enumerated += p
                    traversal(
                        t, hands, s, False, trav, regrets, strat, out, p, rng, scratch, False,
                        no_pruning, False,
                    )  # fmt: skip
    return enumerated


@njit(cache=True)
def sample_deals(
    rng: np.ndarray,
    cdf: np.ndarray,
    num: np.ndarray,
    hand_cards: np.ndarray,
    board_mask: np.ndarray,
    levels: int,
    count: int,
) -> np.ndarray:
    """``count`` deals from :func:`sample_deal` as a (count, 4) array (for tests)."""
    out = np.empty((count, 4), dtype=np.int64)
    deal = np.empty(4, dtype=np.int64)
    for i in range(count):
        sample_deal(rng, cdf, num, hand_cards, board_mask, levels, deal)
        for j in range(4):
            out[i, j] = deal[j]
    return out


@njit(cache=True)
def discount(regrets: np.ndarray, strat: np.ndarray, a: float, b: float, g: float) -> None:
    """Scale regrets (``a`` where positive, ``b`` elsewhere) and strategy sums (``g``)."""
    if a != 1.0 or b != 1.0:
        for k in range(regrets.shape[0]):
            r = float(regrets[k])
            regrets[k] = np.float32(r * a if r > 0.0 else r * b)
    if g != 1.0:
        for k in range(strat.shape[0]):
            strat[k] = np.float32(float(strat[k]) * g)
