"""Numba helper of node locking on postflop spots: the locked game's best response.

:meth:`PostflopSolver._locked_best_response <pokerlab.solvers.postflop.PostflopSolver>` finds a
best response that plays the lock at the traverser's locked nodes by policy iteration: the
traverser's pure strategy is written as one-hot "regrets" and evaluated by the vector tree's CFR
pass (all discounts 0), which leaves each action's value less the node's value in place of the
regrets; :func:`improve_policy` then switches each (node, hand) to a strictly better action.

``reg`` is a float32 array in the solver layout (a decision node's block is
``reg[offset : offset + actions * hands]``, action-major); ``offsets`` / ``nactions``: the
traverser's decision nodes; ``policy``: int16 (nodes, hands), the current action of each hand;
``lock``: the lock array (negative = unlocked), whose locked hands are left alone.
"""

from __future__ import annotations

from numba import njit

__all__ = ["improve_policy"]


@njit(cache=True)
def improve_policy(reg, offsets, nactions, nh, policy, lock, first):
    """One greedy step of policy iteration over the traverser's nodes.

    ``first``: start from the action with the largest strategy sum. Otherwise ``reg`` holds each
    action's value less the node's value under ``policy``: switch to the first best action
    where it is strictly better. Writes the one-hot policy into ``reg``; returns the number of
    switches (hands locked at a node are skipped).
    """
    changed = 0
    for i in range(offsets.shape[0]):
        off = offsets[i]
        na = nactions[i]
        for h in range(nh):
            if lock.shape[0] > 0 and lock[off + h] >= 0.0:
                continue
            best = 0 if first else policy[i, h]
            best_v = reg[off + best * nh + h]
            for a in range(na):
                v = reg[off + a * nh + h]
                if v > best_v:
                    best = a
                    best_v = v
            if not first and best != policy[i, h]:
                changed += 1
            policy[i, h] = best
            for a in range(na):
                reg[off + a * nh + h] = 1.0 if a == best else 0.0
    return changed
