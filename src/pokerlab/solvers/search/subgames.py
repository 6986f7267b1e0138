"""Subgames of a vector tree for real-time search: where they start, the ranges that reach them,
and the opponent's counterfactual best-response values there (issue 25).

A subgame here is the part of a postflop spot's public tree below one public state at the start
of a betting round (the node a dealt card leads to): Pluribus and Libratus root their searches
at the start of the current round (Brown and Sandholm, Science 2018 and 2019). Its inputs are
read from the blueprint by two expected-value passes of the whole tree (:meth:`Passes.record
<pokerlab.tree.vector.passes.Passes.record>`): each player's reach there (Bayes' rule over the
line under the blueprint, range weights and card removal included) and, from the other side,
the same reach with the chance probabilities folded in, the form the passes carry the
opponent's reach in. The opponent's counterfactual best-response values against the blueprint
(CBV; Burch, Johanson and Bowling 2014) come from one best-response pass of the subtree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector.passes import Passes
from pokerlab.tree.vector.tree import CHANCE, DECISION, VectorTree

__all__ = ["SubgameRanges", "round_roots", "subtree_blocks", "record_ranges", "compatible"]

#: board cards at the start of each street that a search can start
STREET_CARDS = {"turn": 4, "river": 5}


def round_roots(
    parent: np.ndarray, node_board: np.ndarray, tree: VectorTree, street: str
) -> list[int]:
    """The stored nodes that start ``street`` ("turn" or "river"): children of chance nodes
    whose board has that many cards (isomorphic cards reuse a stored sibling's subtree, and a
    search there is that search with the suits swapped)."""
    if street not in STREET_CARDS:
        raise PokerlabError(f"search starts at the turn or the river, not {street!r}")
    cards = STREET_CARDS[street]
    kind = tree.arrays.kind
    n_cards = np.sum(node_board >= 0, axis=1)
    roots = [
        n
        for n in range(tree.num_nodes)
        if parent[n] >= 0 and kind[parent[n]] == CHANCE and n_cards[n] == cards
    ]
    return roots


def subtree_blocks(tree: VectorTree, node: int) -> tuple[int, list[tuple[int, int, int]]]:
    """(end, blocks) of the subtree below ``node``: the preorder arena holds it in
    ``node .. end - 1``, and each of its decision nodes owns ``(player, start, stop)`` of the
    solver arrays."""
    a = tree.arrays
    last = int(node)
    while a.child_start[last + 1] > a.child_start[last]:
        last = int(a.children[a.child_start[last + 1] - 1])
    blocks = []
    for m in range(int(node), last + 1):
        if a.kind[m] == DECISION:
            p = int(a.player[m])
            width = int(a.child_start[m + 1] - a.child_start[m]) * int(tree.hands.num[p])
            blocks.append((p, int(a.offset[m]), int(a.offset[m]) + width))
    return last + 1, blocks


def compatible(tree: VectorTree) -> np.ndarray:
    """(H, H) float64: 1 where hand i of OOP's list and hand j of IP's share no card."""
    hd = tree.hands
    h = hd.cards.shape[1]
    c0, c1 = hd.cards[0], hd.cards[1]
    clash = (
        (c0[:, None, 0] == c1[None, :, 0])
        | (c0[:, None, 0] == c1[None, :, 1])
        | (c0[:, None, 1] == c1[None, :, 0])
        | (c0[:, None, 1] == c1[None, :, 1])
    )
    out = (~clash).astype(np.float64)
    out[int(hd.num[0]) :, :] = 0.0
    out[:, int(hd.num[1]) :] = 0.0
    assert out.shape == (h, h)
    return out


@dataclass
class SubgameRanges:
    """What a search at ``node`` knows from the blueprint, for each player ``p``:

    - ``reach[p]``: p's own reach at the node (its range weight times its blueprint actions);
    - ``reach_c[p]``: the same with the chance probabilities of the dealt cards folded in (the
      row a pass of the other player reads as its opponent's reach);
    - ``cbv[p]``: p's counterfactual best-response values at the node against the other's
      blueprint (the passes' units: chips times the opponent's reach, before the deal's
      normaliser);
    - ``possible[p]``: hands p can hold there (in its range, no card on the board).
    """

    node: int
    reach: np.ndarray  # (2, H)
    reach_c: np.ndarray  # (2, H)
    cbv: np.ndarray  # (2, H)
    possible: np.ndarray  # (2, H) bool


def record_ranges(
    passes: Passes, node: int, blueprint: np.ndarray, board: np.ndarray
) -> SubgameRanges:
    """Read a subgame's :class:`SubgameRanges` from the blueprint's probabilities (float32,
    the tree's layout): two expected-value passes of the whole tree and two best-response passes
    of the subtree."""
    tree = passes.tree
    h = tree.hands.cards.shape[1]
    zeros = np.zeros(tree.size, dtype=np.float32)
    reach = np.zeros((2, h))
    reach_c = np.zeros((2, h))
    for trav in (0, 1):
        rec = passes.record(node, trav, zeros, blueprint)
        reach[trav] = rec[1]
        reach_c[1 - trav] = rec[0, :h]
    cbv = np.zeros((2, h))
    for p in (0, 1):
        cbv[p] = passes.pass_at(node, p, K.MODE_BR, zeros, blueprint, reach_c[1 - p], reach[p])
    possible = np.zeros((2, h), dtype=bool)
    on_board = set(int(c) for c in board if c >= 0)
    for p in (0, 1):
        n = int(tree.hands.num[p])
        cards = tree.hands.cards[p, :n]
        blocked = np.array([int(a) in on_board or int(b) in on_board for a, b in cards])
        possible[p, :n] = (tree.hands.weight[p, :n] > 0) & ~blocked
    return SubgameRanges(int(node), reach, reach_c, cbv, possible)
