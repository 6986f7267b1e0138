"""Numba kernels of Monte Carlo CFR on a vector tree: one sampled deal per traversal.

Lanctot, Waugh, Zinkevich & Bowling (2009), "Monte Carlo Sampling for Regret Minimization in
Extensive Games": chance sampling and external sampling, on the float32 regret and strategy-sum
arrays of a :class:`~pokerlab.tree.vector.tree.VectorTree` (one ``actions x hands(actor)`` block
per decision node, the layout of the full-width solver, so its exact best-response and
expected-value passes measure the result). Regret-based pruning as in Pluribus (Brown & Sandholm
2019, Science; Brown, Kroer & Sandholm 2017).

The kernels live by job: ``_deal_kernels.py`` draws the deals, ``_mccfr_traversal.py`` walks the
tree on one deal (the traversal and its scratch, re-exported here), and this module runs the
iterations (with block discounting) and the exact expectation over every deal that the tests of
unbiasedness use.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab._rng import uniform
from pokerlab.tree._primitives import RegretPruning, RunArrays
from pokerlab.tree.vector._deal_kernels import sample_deal, sample_deals
from pokerlab.tree.vector._mccfr_traversal import VectorSampledScratch, traversal

__all__ = [
    "CHANCE_SAMPLING",
    "EXTERNAL_SAMPLING",
    "BlockDiscounts",
    "VectorSampledScratch",
    "discount",
    "expected_update",
    "run",
    "sample_deal",
    "sample_deals",
    "traversal",
]

CHANCE_SAMPLING, EXTERNAL_SAMPLING = 0, 1


class BlockDiscounts(NamedTuple):
    """Discounting in blocks of ``every`` iterations (0: none): ``factors[j - first_block]`` =
    (a, b, g) of block j, computed by the caller."""

    every: int
    factors: np.ndarray
    first_block: int


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
def discount(regrets: np.ndarray, strat: np.ndarray, a: float, b: float, g: float) -> None:
    """Scale regrets (``a`` where positive, ``b`` elsewhere) and strategy sums (``g``)."""
    if a != 1.0 or b != 1.0:
        for k in range(regrets.shape[0]):
            r = float(regrets[k])
            regrets[k] = np.float32(r * a if r > 0.0 else r * b)
    if g != 1.0:
        for k in range(strat.shape[0]):
            strat[k] = np.float32(float(strat[k]) * g)
