"""Numba kernels of Monte Carlo CFR on the history tree (chance, external, outcome sampling).

Lanctot, Waugh, Zinkevich & Bowling (2009), "Monte Carlo Sampling for Regret Minimization in
Extensive Games"; regret-based pruning as in Pluribus (Brown & Sandholm 2019, Science; Brown,
Kroer & Sandholm 2017, "Dynamic thresholding and pruning for regret minimization").

The arrays are the engine's: regrets and strategy sums in the flat solver layout of the history
tree (information set k owns slots ``info_offset[k] .. info_offset[k+1]``), the tree arrays of
:class:`pokerlab.tree.history.tree.HistoryArrays`, and a ``uint64[4]`` xoshiro256** state
(:mod:`pokerlab._rng`). No recursion and no allocation per node: a traversal is a
top-down walk with an explicit stack that records the visited nodes, then one bottom-up loop over
that record (children always come after their parent in it) that computes sampled values and
updates regrets. The current strategy sigma of every visited information set is computed top-down
from the regrets as they were when the traversal started, so every visit of an information set in
one traversal sees the same sigma.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab._rng import uniform
from pokerlab.tree._primitives import (
    H_CHANCE,
    H_TERMINAL,
    RegretPruning,
    discount_factors,
    discount_range,
    sample_action,
    unowned,
)
from pokerlab.tree.history._outcome_kernels import outcome_episode

CHANCE_SAMPLING, EXTERNAL_SAMPLING, OUTCOME_SAMPLING = 0, 1, 2


class SampledScratch(NamedTuple):
    """Scratch of the sampled passes on a history tree: the current strategy (tree layout), the
    explicit stack of a traversal and its per-entry visit state, picked and explored actions,
    reach and values per node and player, and outcome sampling's path weights."""

    sigma: np.ndarray
    stack: np.ndarray
    visit: np.ndarray
    pick: np.ndarray
    explored: np.ndarray
    reach: np.ndarray
    values: np.ndarray
    path_weight: np.ndarray


@njit(cache=True)
def tree_depth(t) -> int:
    """Largest number of edges from the root to a node (the history tree is in preorder)."""
    n_nodes = t.kind.shape[0]
    depth = np.zeros(n_nodes, dtype=np.int32)
    best = 0
    for n in range(n_nodes):
        for e in range(t.child_start[n], t.child_start[n + 1]):
            c = t.children[e]
            depth[c] = depth[n] + 1
            if depth[c] > best:
                best = depth[c]
    return best


@njit(cache=True)
def sampled_traversal(
    t,
    external: bool,
    traverser: int,
    regrets: np.ndarray,
    strat_sum: np.ndarray,
    rng: np.ndarray,
    scratch: SampledScratch,
    prune_now: bool,
    threshold: float,
    floor: bool,
    min_regret: float,
) -> int:
    """One chance-sampling or external-sampling traversal for ``traverser``; returns nodes touched.

    Chance nodes: one outcome sampled with its probability. Traverser's nodes: every action
    explored (but with ``prune_now``, actions into ``prunable`` nodes whose regret is below
    ``threshold`` are skipped: Pluribus' regret-based pruning; only at information sets with
    some positive regret, where skipped actions have probability 0 and the value is exact).
    Other players' nodes: external sampling samples one action from sigma; chance sampling
    explores every action with positive probability (zero-reach pruning). Sampled counterfactual
    regret at the traverser's history h of information set I (the chance probabilities and, in
    external sampling, the opponents' probabilities cancel the sampling probability; Lanctot et
    al. 2009, eq. 4 and 5):

        R(I, a) += w(h) * (v~(h.a) - v~(h)),    v~(h) = sum over explored a of sigma(I, a) v~(h.a),

    with w(h) = 1 in external sampling and w(h) = pi_-i(h) without chance (the other players'
    reach) in chance sampling. Average strategy (as OpenSpiel's "simple" averaging): at the nodes
    of player (traverser + 1) mod P, S(I, a) += sigma(I, a) in external sampling (the sampling
    already weights it by that player's reach) and S(I, a) += pi_j(h) sigma(I, a) in chance
    sampling. Regrets are then floored at 0 with ``floor`` (CFR+) and at ``min_regret``.

    Scratch (N = nodes, P = players): stack, visit, pick int32 (N,), explored int8 (N,),
    reach (N, P), values (N,).
    """
    sigma, stack, visit, pick = scratch.sigma, scratch.stack, scratch.visit, scratch.pick
    explored, reach, values = scratch.explored, scratch.reach, scratch.values

    kind = t.kind
    cs = t.child_start
    ch = t.children
    io = t.info_offset
    num_players = reach.shape[1]
    avg_player = (traverser + 1) % num_players
    for p in range(num_players):
        reach[0, p] = 1.0
    stack[0] = 0
    top = 1
    nv = 0
    # ---- top-down: sample, compute sigma, record visits ----
    while top > 0:
        top -= 1
        n = stack[top]
        visit[nv] = n
        nv += 1
        k = kind[n]
        if k == H_TERMINAL:
            continue
        first = cs[n]
        last = cs[n + 1]
        if k == H_CHANCE:
            u = uniform(rng)
            acc = 0.0
            c = ch[last - 1]
            for e in range(first, last):
                acc += t.chance_prob[ch[e]]
                if u < acc:
                    c = ch[e]
                    break
            pick[n] = c
            if not external:
                for p in range(num_players):
                    reach[c, p] = reach[n, p]
            stack[top] = c
            top += 1
            continue
        p = t.player[n]
        off = io[t.infoset[n]]
        na = last - first
        # regret matching written out: through regret_matching_block B2 took 15% longer
        total = 0.0
        for a in range(na):
            r = regrets[off + a]
            if r > 0.0:
                total += r
        if total > 0.0:
            for a in range(na):
                r = regrets[off + a]
                sigma[off + a] = r / total if r > 0.0 else 0.0
        else:
            for a in range(na):
                sigma[off + a] = 1.0 / na
        if p == traverser:
            # Prune only where some regret is positive: then the pruned actions (regret below a
            # negative threshold) have sigma = 0 and v~(h) is exact without them.
            prune_here = prune_now and total > 0.0
            for a in range(na - 1, -1, -1):  # pushed in reverse: action 0 is walked first
                c = ch[first + a]
                if prune_here and t.prunable[c] != 0 and regrets[off + a] < threshold:
                    explored[c] = 0
                    continue
                explored[c] = 1
                if not external:
                    for q in range(num_players):
                        reach[c, q] = reach[n, q]
                    reach[c, p] = reach[n, p] * sigma[off + a]
                stack[top] = c
                top += 1
        elif external:
            if p == avg_player:
                for a in range(na):
                    strat_sum[off + a] += sigma[off + a]
            sel = sample_action(sigma, off, na, uniform(rng))
            c = ch[first + sel]
            pick[n] = c
            stack[top] = c
            top += 1
        else:
            if p == avg_player:
                own = reach[n, p]
                for a in range(na):
                    strat_sum[off + a] += own * sigma[off + a]
            for a in range(na - 1, -1, -1):
                c = ch[first + a]
                s = sigma[off + a]
                if s == 0.0:  # zero reach below: nothing to update there
                    explored[c] = 0
                    continue
                explored[c] = 1
                for q in range(num_players):
                    reach[c, q] = reach[n, q]
                reach[c, p] = reach[n, p] * s
                stack[top] = c
                top += 1

    # ---- bottom-up: sampled values and regret updates ----
    for idx in range(nv - 1, -1, -1):
        n = visit[idx]
        k = kind[n]
        if k == H_TERMINAL:
            values[n] = t.utility[n, traverser]
            continue
        if k == H_CHANCE:
            values[n] = values[pick[n]]
            continue
        p = t.player[n]
        first = cs[n]
        na = cs[n + 1] - first
        if p != traverser and external:
            values[n] = values[pick[n]]
            continue
        off = io[t.infoset[n]]
        v = 0.0
        for a in range(na):
            c = ch[first + a]
            if explored[c] != 0:
                v += sigma[off + a] * values[c]
        values[n] = v
        if p != traverser:
            continue
        w = 1.0
        if not external:
            for q in range(num_players):
                if q != traverser:
                    w *= reach[n, q]
        for a in range(na):
            c = ch[first + a]
            if explored[c] == 0:
                continue
            r = regrets[off + a] + w * (values[c] - v)
            if floor and r < 0.0:
                r = 0.0
            if r < min_regret:
                r = min_regret
            regrets[off + a] = r
    return nv


@njit(cache=True)
def mccfr_run(
    t,
    variant: int,
    regrets: np.ndarray,
    strat_sum: np.ndarray,
    rng: np.ndarray,
    scratch: SampledScratch,
    params: np.ndarray,
    discount_every: int,
    first_iteration: int,
    iterations: int,
    only_player: int,
    epsilon: float,
    pruning: RegretPruning,
) -> int:
    """Run ``iterations`` MCCFR iterations numbered from ``first_iteration``; return nodes touched.

    An iteration is one traversal (outcome sampling: one episode) per player, players in turn
    (alternating updates), as OpenSpiel's ``run_iteration``, so iteration counts compare.

    Discounting (``params`` as :meth:`DiscountSchedule.as_array`, with ``linear_until`` counted in
    blocks): iterations come in blocks of ``discount_every``; before the first iteration of block
    j >= 2 every regret and strategy sum is scaled by the schedule's factors for "iteration" j, as
    Pluribus discounted every 10 minutes instead of every iteration. ``discount_every = 1`` is
    the per-iteration discounting of full-width CFR; 0 turns discounting off.

    With ``only_player >= 0`` one traversal (or episode) for that player runs and nothing else
    (no discounting, no pruning): the single sampled update, for tests of unbiasedness.
    ``stack``/``visit``/``pick`` (as path_node/path_action in outcome sampling) are scratch.
    """
    # no atomic reference count per array of the per-traversal calls (unowned)
    t, regrets, strat_sum, rng, scratch = unowned((t, regrets, strat_sum, rng, scratch))
    sigma, stack, visit = scratch.sigma, scratch.stack, scratch.visit
    reach, path_weight = scratch.reach, scratch.path_weight
    prune, prune_probability, threshold, min_regret = pruning

    floor = params[3] != 0.0
    num_players = reach.shape[1]
    external = variant == EXTERNAL_SAMPLING
    touched = 0
    if only_player >= 0:
        if variant == OUTCOME_SAMPLING:
            return outcome_episode(
                t,
                only_player,
                regrets,
                strat_sum,
                sigma,
                rng,
                stack,
                visit,
                path_weight,
                epsilon,
                floor,
                min_regret,
            )
        return sampled_traversal(
            t,
            external,
            only_player,
            regrets,
            strat_sum,
            rng,
            scratch,
            False,
            threshold,
            floor,
            min_regret,
        )
    size = regrets.shape[0]
    for it in range(iterations):
        tt = first_iteration + it
        if discount_every > 0 and tt > 1 and (tt - 1) % discount_every == 0:
            block = (tt - 1) // discount_every + 1
            a, b, g = discount_factors(params, block)
            discount_range(regrets, strat_sum, 0, size, a, b, g)
        for i in range(num_players):
            if variant == OUTCOME_SAMPLING:
                touched += outcome_episode(
                    t,
                    i,
                    regrets,
                    strat_sum,
                    sigma,
                    rng,
                    stack,
                    visit,
                    path_weight,
                    epsilon,
                    floor,
                    min_regret,
                )
                continue
            prune_now = False
            if prune:
                prune_now = uniform(rng) < prune_probability
            touched += sampled_traversal(
                t,
                external,
                i,
                regrets,
                strat_sum,
                rng,
                scratch,
                prune_now,
                threshold,
                floor,
                min_regret,
            )
    return touched
