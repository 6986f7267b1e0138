"""The subgame-solving loop of real-time search in one compiled call (issue 25): CFR on the
subtree below a public state for a searching player, with the opponent's gadget decision
learned beside it (see :mod:`pokerlab.solvers.search.gadgets` for the gadgets and the papers).

Per iteration: the gadget's strategy gives the opponent's root row, the searcher's CFR pass runs
from it, the opponent's CFR pass returns its counterfactual values at the root, and the gadget's
regrets (regret matching+, Tammelin 2014) learn from them. Python's loop of the same steps spent
about 0.1 ms an iteration on dispatch and small numpy operations, several times a river
subtree's own pass.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from pokerlab.tree._primitives import discount_factors
from pokerlab.tree.vector._kernels import (
    MODE_CFR,
    SPLIT_NONE,
    Discounts,
    Items,
    RootRows,
    Storage,
    traverse,
)

__all__ = ["GADGET_CODES", "SubgameRows", "gadget_iterations"]

#: gadget names to the kernel's codes
GADGET_CODES = {"unsafe": 0, "resolve": 1, "maxmargin": 2}


class SubgameRows(NamedTuple):
    """A subgame's inputs (float64, each ``(H,)``): the searcher's own reach at the root
    (``reach_p``), the same with chance folded in (``reach_pc``, what the opponent's pass reads),
    the opponent's Bayes row for the unsafe gadget (``reach_oc``) and its own reach
    (``reach_o``), its CBVs against the blueprint (``cbv``), 1 for the hands it can hold
    (``possible``), and the searcher's compatible reach of each of its hands (``others``,
    maxmargin's normaliser)."""

    reach_p: np.ndarray
    reach_pc: np.ndarray
    reach_oc: np.ndarray
    reach_o: np.ndarray
    cbv: np.ndarray
    possible: np.ndarray
    others: np.ndarray


@njit(cache=True, nogil=True, error_model="numpy")
def gadget_iterations(
    t,
    hands,
    sw,
    node,
    player,
    gadget,
    iterations,
    params,
    floor,
    store: Storage,
    rows: SubgameRows,
    sc,
    items: Items,
    out,
):
    """``iterations`` CFR iterations of the subtree below ``node`` for searcher ``player`` with
    gadget code ``gadget`` (:data:`GADGET_CODES`), discounts from the schedule ``params``
    (``floor``: CFR+). Returns the nodes visited."""
    h = rows.cbv.shape[0]
    opp = 1 - player
    row = np.zeros(h)
    v = np.zeros(h)
    reg_a = np.zeros(h)  # resolve: enter; maxmargin: pick this hand
    reg_b = np.zeros(h)  # resolve: take the alternative
    enter = np.ones(h)
    live = np.zeros(h)
    n_live = 0.0
    for i in range(h):
        if rows.possible[i] > 0 and rows.others[i] > 0:
            live[i] = 1.0
            n_live += 1.0
    visited = 0
    for it in range(1, iterations + 1):
        fa, fb, fg = discount_factors(params, it)
        disc = Discounts(fa, fb, fg, floor, 1.0, 1.0)
        if gadget == 0:
            for i in range(h):
                row[i] = rows.reach_oc[i]
        elif gadget == 1:
            for i in range(h):
                tot = reg_a[i] + reg_b[i]
                enter[i] = reg_a[i] / tot if tot > 0 else 1.0
                row[i] = rows.possible[i] * enter[i]
        else:
            tot = 0.0
            for i in range(h):
                tot += reg_a[i]
            for i in range(h):
                if live[i] > 0:
                    q = reg_a[i] / tot if tot > 0 else 1.0 / n_live
                    row[i] = q / rows.others[i]
                else:
                    row[i] = 0.0
        visited += traverse(
            t, hands, sw, node, player, MODE_CFR, SPLIT_NONE, store, disc,
            RootRows(row, rows.reach_p, out), sc, items, -1, items.val,
        )  # fmt: skip
        own = rows.reach_o if gadget == 0 else row
        visited += traverse(
            t, hands, sw, node, opp, MODE_CFR, SPLIT_NONE, store, disc,
            RootRows(rows.reach_pc, own, out), sc, items, -1, items.val,
        )  # fmt: skip
        for i in range(h):
            v[i] = out[i]
        if gadget == 1:
            for i in range(h):
                if rows.possible[i] > 0:
                    value = enter[i] * v[i] + (1.0 - enter[i]) * rows.cbv[i]
                    reg_a[i] = max(reg_a[i] + v[i] - value, 0.0)
                    reg_b[i] = max(reg_b[i] + rows.cbv[i] - value, 0.0)
        elif gadget == 2:
            mean = 0.0
            for i in range(h):
                if live[i] > 0:
                    v[i] = (v[i] - rows.cbv[i]) / rows.others[i]
                    mean += row[i] * rows.others[i] * v[i]
            for i in range(h):
                if live[i] > 0:
                    reg_a[i] = max(reg_a[i] + v[i] - mean, 0.0)
    return visited
