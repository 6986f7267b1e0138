"""Subgames of a vector tree for real-time search: where they start, the ranges that reach them,
and the opponent's counterfactual best-response values there (issue 25).

A subgame here is the part of a postflop spot's public tree below one public state at the start
of a betting round (the node a dealt card leads to): Pluribus and Libratus root their searches
at the start of the current round (Brown and Sandholm, Science 2018 and 2019). Its inputs are
read from the blueprint, for every subgame of a street at once, by one expected-value pass of the
whole tree per player that stops at the street's deals (:meth:`Passes.collect_reaches
<pokerlab.tree.vector.passes.Passes.collect_reaches>`): each player's reach there (Bayes'
rule over the line under the blueprint, range weights and card removal included) and, from the
other side, the same reach with the chance probabilities folded in, the form the passes carry
the opponent's reach in. The opponent's counterfactual best-response values against the blueprint
(CBV; Burch, Johanson and Bowling 2014) come from one best-response pass of the subtree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector._node_kernels import sigma_block
from pokerlab.tree.vector.passes import Passes
from pokerlab.tree.vector.tree import CHANCE, DECISION, VectorTree

__all__ = [
    "SubgameRanges",
    "round_roots",
    "round_leaves",
    "subtree_blocks",
    "street_ranges",
    "faced_reach",
    "path_reach",
    "ancestors",
    "last_decision",
]

#: board cards at the start of each street that a search can start
STREET_CARDS = {"flop": 3, "turn": 4, "river": 5}


def round_roots(
    parent: np.ndarray, node_board: np.ndarray, tree: VectorTree, street: str
) -> list[int]:
    """The stored nodes that start ``street`` ("flop", "turn" or "river"): the spot's root when
    it starts on that street, else the children of chance nodes whose board has that many cards
    (isomorphic cards reuse a stored sibling's subtree, and a search there is that search with
    the suits swapped)."""
    if street not in STREET_CARDS:
        raise PokerlabError(f"search starts at the flop, turn or river, not {street!r}")
    cards = STREET_CARDS[street]
    kind = tree.arrays.kind
    n_cards = np.sum(node_board >= 0, axis=1)
    if n_cards[0] == cards:
        return [0]
    roots = [
        n
        for n in range(tree.num_nodes)
        if parent[n] >= 0 and kind[parent[n]] == CHANCE and n_cards[n] == cards
    ]
    return roots


def subtree_blocks(
    tree: VectorTree, node: int, round_only: bool = False
) -> tuple[int, list[tuple[int, int, int]]]:
    """(end, blocks) of the subtree below ``node``: the preorder arena holds it in
    ``node .. end - 1``, and each of its decision nodes owns ``(player, start, stop)`` of the
    solver arrays (``round_only``: only those above the subtree's chance nodes, the round's)."""
    a = tree.arrays
    end = subtree_end(tree, node)
    blocks = []
    m = int(node)
    while m < end:
        if round_only and a.kind[m] == CHANCE:
            m = subtree_end(tree, m)
            continue
        if a.kind[m] == DECISION:
            p = int(a.player[m])
            width = int(a.child_start[m + 1] - a.child_start[m]) * int(tree.hands.num[p])
            blocks.append((p, int(a.offset[m]), int(a.offset[m]) + width))
        m += 1
    return end, blocks


def subtree_end(tree: VectorTree, node: int) -> int:
    """One past the last node of ``node``'s subtree (the preorder arena holds a subtree
    contiguously; its last node is reached by following last children)."""
    a = tree.arrays
    last = int(node)
    while a.child_start[last + 1] > a.child_start[last]:
        last = int(a.children[a.child_start[last + 1] - 1])
    return last + 1


def round_leaves(tree: VectorTree, node: int) -> list[int]:
    """The chance nodes that end the round below ``node`` (the first on each path), in
    preorder."""
    a = tree.arrays
    end = subtree_end(tree, node)
    out = []
    m = int(node)
    while m < end:
        if a.kind[m] == CHANCE:
            out.append(m)
            m = subtree_end(tree, m)
        else:
            m += 1
    return out


def faced_reach(tree: VectorTree, player: int, reach: np.ndarray) -> np.ndarray:
    """For each hand of ``player``, the other player's ``reach`` (one entry per hand of its
    padded list) summed over the hands it can face (no card shared), by inclusion-exclusion
    over the cards (a hand sharing a card is subtracted once per card shared; only an equal
    hand shares two, so it is added back)."""
    hd = tree.hands
    other = 1 - player
    n_o, n_p = int(hd.num[other]), int(hd.num[player])
    cards_o = hd.cards[other, :n_o].astype(np.int64)
    r = np.asarray(reach, dtype=np.float64)[:n_o]
    per_card = np.bincount(cards_o.ravel(), np.repeat(r, 2), minlength=52)
    same = np.zeros(52 * 52)
    same[cards_o.min(axis=1) * 52 + cards_o.max(axis=1)] = r
    mine = hd.cards[player, :n_p].astype(np.int64)
    out = np.zeros(hd.cards.shape[1])
    out[:n_p] = (
        r.sum()
        - per_card[mine[:, 0]]
        - per_card[mine[:, 1]]
        + same[mine.min(axis=1) * 52 + mine.max(axis=1)]
    )
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


def street_ranges(
    passes: Passes, roots: list[int], blueprint: np.ndarray, node_board: np.ndarray
) -> dict[int, SubgameRanges]:
    """The :class:`SubgameRanges` of every node in ``roots`` (children of chance nodes: the
    public states that start a street) under the blueprint's probabilities (float32, the tree's
    layout): one expected-value pass of the whole tree per player, stopping at the chance nodes
    above the roots (:meth:`Passes.collect_reaches
    <pokerlab.tree.vector.passes.Passes.collect_reaches>`), and one best-response pass of each
    subtree per player for the CBVs."""
    tree = passes.tree
    a = tree.arrays
    h = tree.hands.cards.shape[1]
    wanted = set(int(r) for r in roots)
    if wanted == {0}:
        # the spot's root: the ranges as dealt, no chance above
        item_node = [0]
        reach = tree.hands.weight[:, None, :].copy()
        reach_c = reach.copy()
    else:
        parents = sorted({int(p) for p in _parents(tree, wanted)})
        item_first = np.full(tree.num_nodes, -1, dtype=np.int64)
        item_node = []
        for c in parents:
            item_first[c] = len(item_node)
            item_node.extend(int(x) for x in a.children[a.child_start[c] : a.child_start[c + 1]])
        arrays = a._replace(item_first=item_first, item_node=np.array(item_node, dtype=np.int64))
        n = len(item_node)
        items = K.Items(np.zeros((n, h + 1)), np.zeros((n, h)), np.zeros((n, h)))
        reach = np.zeros((2, n, h))
        reach_c = np.zeros((2, n, h))
        for trav in (0, 1):
            passes.collect_reaches(arrays, trav, blueprint, items)
            reach[trav] = items.rp
            reach_c[1 - trav] = items.ro[:, :h]
    zeros = passes.no_regrets  # the BR passes below do not read regrets
    out = {}
    for i, node in enumerate(item_node):
        if node not in wanted:
            continue
        cbv = np.zeros((2, h))
        for p in (0, 1):
            cbv[p] = passes.pass_at(
                node, p, K.MODE_BR, zeros, blueprint, reach_c[1 - p, i], reach[p, i]
            )
        possible = _possible(tree, node_board[node])
        out[node] = SubgameRanges(node, reach[:, i].copy(), reach_c[:, i].copy(), cbv, possible)
    return out


def _parents(tree: VectorTree, nodes: set[int]) -> list[int]:
    a = tree.arrays
    out = []
    for c in np.flatnonzero(a.kind == CHANCE):
        kids = a.children[a.child_start[c] : a.child_start[c + 1]]
        if any(int(k) in nodes for k in kids):
            out.append(int(c))
    return out


def _possible(tree: VectorTree, board: np.ndarray) -> np.ndarray:
    """(2, H) bool: the hands each player can hold with ``board`` dealt (in its range, no card
    on the board)."""
    h = tree.hands.cards.shape[1]
    possible = np.zeros((2, h), dtype=bool)
    on_board = np.array([int(c) for c in board if c >= 0], dtype=np.int64)
    for p in (0, 1):
        n = int(tree.hands.num[p])
        cards = tree.hands.cards[p, :n]
        blocked = np.isin(cards, on_board).any(axis=1)
        possible[p, :n] = (tree.hands.weight[p, :n] > 0) & ~blocked
    return possible


def last_decision(tree: VectorTree, parent: np.ndarray, node: int, player: int) -> tuple[int, int]:
    """The last decision of ``player`` strictly above ``node`` (``parent``: each node's parent,
    -1 at the root) and its child on the way to ``node``; ``(-1, root)`` when there is none."""
    a = tree.arrays
    child, up = int(node), int(parent[node])
    while up >= 0 and not (a.kind[up] == DECISION and a.player[up] == player):
        child, up = up, int(parent[up])
    return up, child


def ancestors(parent: np.ndarray, node: int) -> list[tuple[int, int]]:
    """Every node above ``node`` with its child on the way down to ``node``, the nearest first
    (``parent``: each node's parent, -1 at the root)."""
    out = []
    child, up = int(node), int(parent[node])
    while up >= 0:
        out.append((up, child))
        child, up = up, int(parent[up])
    return out


def path_reach(
    passes: Passes, parent: np.ndarray, node: int, trav: int, profile: np.ndarray
) -> np.ndarray:
    """The reach of ``trav``'s opponent at ``node`` under ``profile`` (float64 ``(H,)``, its
    range weights times its probabilities down the path), what a pass records there: read
    down the path alone when it deals no card (each node's probabilities by the pass's own
    helper, :func:`~pokerlab.tree.vector._node_kernels.sigma_block`), else by
    :meth:`~pokerlab.tree.vector.passes.Passes.record` over the whole tree."""
    tree = passes.tree
    a, hd = tree.arrays, tree.hands
    h = hd.cards.shape[1]
    path = ancestors(parent, node)[::-1]  # (node, child) from the root down
    if any(a.kind[up] == CHANCE for up, _ in path):
        return passes.record(node, trav, passes.no_regrets, profile)[0, :h]
    opp = 1 - trav
    reach = np.array(hd.weight[opp], dtype=np.float64)
    n = int(hd.num[opp])
    sig = np.zeros((1, tree.max_children, h))
    tot, uni = np.zeros(h), np.zeros(h)
    for up, child in path:
        if int(a.player[up]) != opp:
            continue
        kids = a.children[a.child_start[up] : a.child_start[up + 1]]
        sigma_block(profile, int(a.offset[up]), kids.shape[0], n, sig, 0, passes.no_lock, tot, uni)
        reach[:n] = reach[:n] * sig[0, int(np.flatnonzero(kids == child)[0]), :n]
    return reach


def reach_gifts(
    passes: Passes,
    parent: np.ndarray,
    roots: list[int],
    blueprint: np.ndarray,
    opponent: int,
) -> dict[int, np.ndarray]:
    """The gifts of Reach subgame solving (Brown and Sandholm, NIPS 2017, sec. 5), per root and
    opponent hand, per unit of the others' reach: how much more the opponent may win in the
    subgame than its CBV without doing better than it could have against the blueprint.

    At the opponent's last decision ``I`` above a subgame, its hand ``h`` took the action ``a``
    toward the subgame although another action was worth up to ``g(h) = max_b CBV(I, b, h) -
    CBV(I, a, h)`` more against the blueprint. The CBV of ``(I, a)`` is the sum of the
    opponent's counterfactual values over the subgames (and the leaves) below ``a``; if each
    subgame ``S`` below lets them rise by at most ``g(h) x d_S(h) / d_I(h)`` (``d``: the reach
    of everyone but the opponent that hand ``h`` faces, chance folded in; the subgames' ``d_S``
    sum to at most ``d_I``), the value of ``(I, a)`` stays at most that of the best action and
    nothing above ``I`` changes. The returned vector is ``g / d_I`` (0 where the root has no
    opponent decision above it or ``d_I`` is 0); a subgame adds it times its own ``d_S``.
    Using only the last decision is the conservative choice: the gifts of earlier ones are
    left unused."""
    tree = passes.tree
    a = tree.arrays
    h = tree.hands.cards.shape[1]
    zeros = passes.no_regrets  # the EV and BR passes below do not read regrets
    per_decision: dict[tuple[int, int], np.ndarray] = {}
    out = {}
    for root in roots:
        node, child = last_decision(tree, parent, int(root), opponent)
        if node < 0:
            out[int(root)] = np.zeros(h)
            continue
        key = (node, child)
        if key not in per_decision:
            others_reach = path_reach(passes, parent, node, opponent, blueprint)
            kids = a.children[a.child_start[node] : a.child_start[node + 1]]
            cbv = np.array(
                [
                    passes.pass_at(
                        int(k), opponent, K.MODE_BR, zeros, blueprint, others_reach,
                        tree.hands.weight[opponent],
                    )
                    for k in kids
                ]
            )  # fmt: skip
            taken = int(np.flatnonzero(kids == child)[0])
            gift = np.maximum(cbv.max(axis=0) - cbv[taken], 0.0)
            # below a millionth of a millionth of the reach the others' total is what the
            # inclusion-exclusion leaves of a sum that cancels: no hand left to face
            d = faced_reach(tree, opponent, others_reach)
            some = d > 1e-12 * others_reach.sum()
            per_decision[key] = np.where(some, gift / np.where(some, d, 1.0), 0.0)
        out[int(root)] = per_decision[key]
    return out
