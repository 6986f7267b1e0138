"""Blueprints to search from on a postflop spot: the spot's game solved with the river's cards
bucketed (issue 25, testbed T2 of BLUEPRINT.md 3.1).

Real-time search pays off where the blueprint had to abstract; Brown and Sandholm measure it on
games whose last rounds are bucketed (NIPS 2017, tables 1-3), Libratus on its coarse river. Here
the turn is played losslessly and every river decision node's hands are pooled into ``buckets``
classes by river hand strength: the probability of beating a hand of the opponent's range there
(ties half), in equal-width bins. Solving the game with those classes is CFR on an
imperfect-recall abstraction: after each pass the regrets and strategy sums of the hands of a
class at a node (per action) are replaced by their mean, so the class acts as one information
set (its regret is the sum of its hands' counterfactual regrets, up to a factor per class that
regret matching ignores). The solve runs the spot's own CFR pass loop (:meth:`Passes.run_cfr
<pokerlab.tree.vector.passes.Passes.run_cfr>`); only the pooling is added between passes.
"""

from __future__ import annotations

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.solvers.postflop import PostflopSolver, postflop_schedule
from pokerlab.tree._primitives import PARAMS_LAYOUT
from pokerlab.tree.vector.passes import Passes
from pokerlab.tree.vector.tree import DECISION

__all__ = ["RiverBuckets", "river_buckets", "bucketed_blueprint", "lossless_blueprint"]


class RiverBuckets:
    """The pooling of a tree's river decision entries: ``entries`` (positions in the solver
    arrays) and ``group`` (one id per node, action and class) with each group's ``count``."""

    def __init__(self, entries: np.ndarray, group: np.ndarray, buckets: int) -> None:
        self.entries = entries
        self.group = group
        self.count = np.bincount(group).astype(np.float64)
        self.buckets = buckets

    def pool(self, values: np.ndarray) -> None:
        """Replace each river entry of ``values`` by the mean of its group (in place)."""
        if self.entries.size == 0:
            return
        totals = np.bincount(self.group, weights=values[self.entries].astype(np.float64))
        mean = totals / np.maximum(self.count, 1.0)
        values[self.entries] = mean[self.group].astype(values.dtype)


def _strength_classes(game, board_id: int, player: int, buckets: int) -> np.ndarray:
    """Each hand of ``player``'s list: its class on final board ``board_id`` (``buckets`` for a
    hand the board blocks)."""
    hd = game.expanded.tree.hands
    nh = int(hd.num[player])
    o = 1 - player
    mine = hd.order[player, board_id, : hd.num_valid[player, board_id]]
    theirs = hd.order[o, board_id, : hd.num_valid[o, board_id]]
    s_mine = hd.strength[player, board_id, mine]
    s_theirs = hd.strength[o, board_id, theirs]
    w = hd.weight[o, theirs]
    order = np.argsort(s_theirs, kind="stable")
    s_sorted = s_theirs[order]
    cum = np.concatenate([[0.0], np.cumsum(w[order])])
    lo = np.searchsorted(s_sorted, s_mine, side="left")
    hi = np.searchsorted(s_sorted, s_mine, side="right")
    total = max(cum[-1], 1e-300)
    hs = (cum[lo] + 0.5 * (cum[hi] - cum[lo])) / total
    out = np.full(nh, buckets, dtype=np.int64)
    out[mine] = np.minimum((hs * buckets).astype(np.int64), buckets - 1)
    return out


def river_buckets(game, buckets: int) -> RiverBuckets:
    """The river pooling of a postflop spot's tree with ``buckets`` classes a node."""
    if not isinstance(buckets, int) or buckets < 1:
        raise PokerlabError(f"buckets must be a positive integer, got {buckets!r}")
    spot = game.expanded
    tree = spot.tree
    a = tree.arrays
    board_ids = {tuple(sorted(int(c) for c in b)): i for i, b in enumerate(spot.boards)}
    classes: dict[tuple[int, int], np.ndarray] = {}
    entries, groups = [], []
    next_group = 0
    for m in np.flatnonzero(a.kind == DECISION):
        board = spot.node_board[m]
        if np.sum(board >= 0) != 5:
            continue
        b = board_ids[tuple(sorted(int(c) for c in board))]
        p = int(a.player[m])
        key = (b, p)
        if key not in classes:
            classes[key] = _strength_classes(game, b, p, buckets)
        cls = classes[key]
        nh = int(tree.hands.num[p])
        na = int(a.child_start[m + 1] - a.child_start[m])
        pos = int(a.offset[m]) + np.arange(na * nh)
        act = np.repeat(np.arange(na), nh)
        entries.append(pos)
        groups.append(next_group + act * (buckets + 1) + np.tile(cls, na))
        next_group += na * (buckets + 1)
    if not entries:
        raise PokerlabError("this spot has no river decision to bucket")
    return RiverBuckets(np.concatenate(entries), np.concatenate(groups), buckets)


def bucketed_blueprint(
    game, buckets: int, iterations: int, algorithm: str = "dcfr"
) -> tuple[np.ndarray, RiverBuckets]:
    """Solve the spot ``game`` with its river bucketed (``buckets`` classes a node) for
    ``iterations`` iterations of ``algorithm`` (a non-predictive schedule, alternating updates);
    returns the average profile (probabilities, the tree's layout: every hand of a class plays
    the class's strategy) and the pooling."""
    if not isinstance(iterations, int) or iterations < 1:
        raise PokerlabError(f"iterations must be a positive integer, got {iterations!r}")
    params = postflop_schedule(algorithm)
    if params[PARAMS_LAYOUT["predictive"]]:
        raise PokerlabError(
            f"the bucketed blueprint runs non-predictive schedules, not {algorithm!r}"
        )
    floor = bool(params[PARAMS_LAYOUT["floor"]])
    pools = river_buckets(game, buckets)
    tree = game.expanded.tree
    passes = Passes(tree, 1)
    regrets = np.zeros(tree.size, dtype=np.float32)
    sums = np.zeros(tree.size, dtype=np.float32)

    def pool(_player: int) -> None:
        pools.pool(regrets)
        pools.pool(sums)

    passes.run_cfr(0, iterations, params, False, floor, regrets, sums, after_pass=pool)
    return game.public_tree().normalise(sums), pools


def lossless_blueprint(game, iterations: int, algorithm: str = "dcfr") -> tuple[np.ndarray, float]:
    """The spot ``game`` solved without abstraction by the postflop solver for ``iterations``
    iterations of ``algorithm``: (its average profile, probabilities in the tree's layout; its
    exploitability, chips)."""
    solver = PostflopSolver(game, algorithm)
    solver.step(iterations)
    return game.public_tree().normalise(solver.strat_sum), solver.exploitability()
