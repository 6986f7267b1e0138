"""Depth limits for search: the leaves where a subgame stops at the end of its round, and the
continuation profiles the opponent picks among there (Brown, Sandholm and Amos, NeurIPS 2018;
Pluribus, Science 2019).

At a leaf the rest of the game is played by fixed profiles: the searcher keeps its blueprint;
the opponent picks, per hand, one of ``k`` continuations. ``k = 1``: the blueprint. ``k = 4``:
the blueprint and three versions of the opponent's blueprint biased toward folding, toward
checking or calling, and toward betting or raising: at each of its decision nodes the actions of
the class have their probabilities multiplied by ``bias`` (5 in Pluribus; Modicum's notes give
10) and the node is renormalised. The leaf values are exact: each pick's value is an
expected-value pass of the vector tree below the leaf every iteration (no rollouts), as
BLUEPRINT.md 3.3 proposes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.actions import action_label
from pokerlab.solvers.search.subgames import round_leaves, subtree_blocks, subtree_end
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector._kernels import Items
from pokerlab.tree.vector._lock_kernels import improve_policy
from pokerlab.tree.vector._search_kernels import Leaves, bias_blocks
from pokerlab.tree.vector.passes import Passes
from pokerlab.tree.vector.tree import DECISION

__all__ = [
    "CONTINUATIONS",
    "action_classes",
    "continuation_profiles",
    "depth_limit",
    "no_limit",
    "subgame_best_response",
]

#: the continuation sets: 1 (the blueprint), 4 (and biased toward fold, call, raise), or
#: "self" (self-generative: the blueprint, then the opponent's best responses to the search)
CONTINUATIONS = (1, 4, "self")


def action_classes(label: str) -> int:
    """0 for a fold, 1 for a check or a call, 2 for a bet, raise or all-in (by the spot's
    action labels)."""
    word = label.split()[0]
    if word == "fold":
        return 0
    if word in ("check", "call"):
        return 1
    if word in ("bet", "raise", "allin"):
        return 2
    raise PokerlabError(f"action {label!r} has no continuation class")


def continuation_profiles(
    game: Any, blueprint: np.ndarray, player: int, k: int, bias: float = 5.0
) -> np.ndarray:
    """(k, size) float32: the blueprint, then (``k = 4``) the blueprint with ``player``'s
    actions of class 0, 1, 2 (:func:`action_classes`) weighted by ``bias`` at every one of its
    decision nodes, renormalised."""
    if k not in CONTINUATIONS:
        raise PokerlabError(f"continuations must be 1, 4 or 'self', got {k!r}")
    if k == "self":
        k = 1
    if not bias > 1.0:
        raise PokerlabError(f"the continuation bias must be above 1, got {bias!r}")
    tree = game.expanded.tree
    a = tree.arrays
    out = np.empty((k, tree.size), dtype=np.float32)
    out[:] = blueprint  # cast on assignment: no temporary copy of the tree
    if k == 1:
        return out
    nh = int(tree.hands.num[player])
    nodes = np.flatnonzero((a.kind == DECISION) & (a.player == player))
    # a node's classes are its action-tree node's: found once per action node
    anodes = game.expanded.action_node
    by_action: dict[int, int] = {}
    rows: list[list[int]] = []
    which = np.empty(nodes.size, dtype=np.int64)
    for i, m in enumerate(nodes.tolist()):
        n = anodes[m]
        r = by_action.get(id(n))
        if r is None:
            r = by_action[id(n)] = len(rows)
            rows.append([action_classes(action_label(kind, amt)) for kind, amt in n.actions])
        which[i] = r
    width = max((len(r) for r in rows), default=1)
    table = np.full((max(len(rows), 1), width), -1, dtype=np.int8)
    for r, cls in enumerate(rows):
        table[r, : len(cls)] = cls
    bias_blocks(out, blueprint.astype(np.float32, copy=False), a.offset[nodes], table[which], nh,
                float(bias))  # fmt: skip
    return out


def subgame_best_response(
    passes: Passes,
    node: int,
    profile: np.ndarray,
    trav: int,
    ro: np.ndarray,
    rp: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """A pure best response of ``trav`` in the subtree below ``node`` against the other
    player's part of ``profile`` (float32 probabilities), the root rows ``ro`` / ``rp`` as in
    :meth:`Passes.pass_at <pokerlab.tree.vector.passes.Passes.pass_at>`: ``(profile with trav's
    entries in the subtree one-hot, trav's counterfactual values at node)``. Policy iteration
    as :func:`pokerlab.tree.vector.backend.policy_best_response`, on the subtree only."""
    tree = passes.tree
    a = tree.arrays
    _, blocks = subtree_blocks(tree, node)
    mine = np.array(
        [m for m in range(int(node), subtree_end(tree, node))
         if a.kind[m] == DECISION and a.player[m] == trav],
        dtype=np.int64,
    )  # fmt: skip
    reg = np.array(profile, dtype=np.float32, copy=True)
    sums = np.zeros(tree.size, dtype=np.float32)
    offsets = a.offset[mine].astype(np.int64)
    nactions = (a.child_start[mine + 1] - a.child_start[mine]).astype(np.int64)
    nh = int(tree.hands.num[trav])
    policy = np.zeros((mine.shape[0], nh), dtype=np.int16)
    lock = np.zeros(0, dtype=np.float32)
    improve_policy(reg, offsets, nactions, nh, policy, lock, True)
    for _ in range(tree.depth + 3):
        values = passes.pass_at(node, trav, K.MODE_CFR, reg, sums, ro, rp, 0.0, 0.0, 0.0)
        if improve_policy(reg, offsets, nactions, nh, policy, lock, False) == 0:
            out = np.array(profile, dtype=np.float32, copy=True)
            for owner, lo, hi in blocks:
                if owner == trav:
                    out[lo:hi] = reg[lo:hi]
            return out, values
    raise RuntimeError("the best response did not settle")  # pragma: no cover


def no_limit(passes: Passes) -> Leaves:
    """The :class:`Leaves` of a subgame played to the end of the game (no item)."""
    h = passes.tree.hands.cards.shape[1]
    empty = np.zeros(0, dtype=np.float32)
    return Leaves(
        passes.tree.arrays, np.zeros(0, dtype=np.int64), np.zeros((1, 0), dtype=np.float32),
        np.zeros((0, h, 1)), np.zeros((0, h, 1)), np.zeros((0, h, 1)), passes.items32, empty,
        empty, np.zeros(h, dtype=np.float32), np.zeros(h, dtype=np.float32),
    )  # fmt: skip


def depth_limit(passes: Passes, node: int, profiles: np.ndarray) -> Leaves:
    """The :class:`Leaves` of the subgame at ``node`` stopped at the end of its round, the
    opponent picking among ``profiles`` there (uniformly at first)."""
    tree = passes.tree
    a = tree.arrays
    leaves = round_leaves(tree, node)
    if not leaves:
        raise PokerlabError("this subgame's round ends the game: there is no depth limit to set")
    item_first = np.full(tree.num_nodes, -1, dtype=np.int64)
    item_node, item_leaf = [], []
    for i, c in enumerate(leaves):
        item_first[c] = len(item_node)
        for e in range(int(a.child_start[c]), int(a.child_start[c + 1])):
            item_node.append(int(a.children[e]))
            item_leaf.append(i)
    arrays = a._replace(item_first=item_first, item_node=np.array(item_node, dtype=np.int64))
    h = tree.hands.cards.shape[1]
    n = len(item_node)
    k = profiles.shape[0]
    items = Items(
        np.zeros((n, h + 1), dtype=np.float32),
        np.zeros((n, h), dtype=np.float32),
        np.zeros((n, h), dtype=np.float32),
    )
    return Leaves(
        arrays, np.array(item_leaf, dtype=np.int64), profiles,
        np.zeros((len(leaves), h, k)), np.full((len(leaves), h, k), 1.0 / k),
        np.zeros((len(leaves), h, k)), items, np.zeros(tree.size, dtype=np.float32),
        np.zeros(0, dtype=np.float32), np.zeros(h, dtype=np.float32),
        np.zeros(h, dtype=np.float32),
    )  # fmt: skip
