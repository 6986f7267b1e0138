"""What a sampled traversal of a postflop spot draws from: the tables of
:class:`SampleTables` (range weights, hands per deal, the cards each chance node may deal) and
the default regret-pruning threshold of :class:`~pokerlab.solvers.postflop_mccfr.PostflopMCCFR`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from pokerlab.games.postflop.expand import ExpandedSpot
from pokerlab.tree.vector.tree import CHANCE, DECISION, SUIT_PAIRS

__all__ = ["SampleTables", "default_prune_threshold", "sample_tables"]


class SampleTables(NamedTuple):
    """What the sampling kernels need beyond the tree and hand arrays (N nodes, C chance nodes).

    ``card_slot[c, card]`` is the child slot the card goes to at chance node ``c`` (its own
    child, or the source child of an isomorphic card), -1 where it cannot come;
    ``card_swap[c, card]`` the suit-swap id of an isomorphic card (-1 for its own child).
    """

    chance_index: np.ndarray  # int64 (N,): row of a chance node in the card tables, -1 elsewhere
    card_slot: np.ndarray  # int64 (C, 52)
    card_swap: np.ndarray  # int64 (C, 52)
    level: np.ndarray  # int64 (N,): chance nodes above the node (which later card it deals)
    prunable: np.ndarray  # int8 (N,): regret pruning may skip the action into this node
    suit_pairs: np.ndarray  # int64 (6, 2): the suits each swap id exchanges
    cdf: np.ndarray  # float64 (2, H): cumulative range weights of each hand list
    board_mask: np.ndarray  # bool (52,): cards that never come: the starting board, off the deck
    levels: int  # cards still to come (river spot 0, turn 1, flop 2)


def sample_tables(spot: ExpandedSpot) -> SampleTables:
    """The sampling tables of a dealt spot (built once per solver, in Python)."""
    tree = spot.tree
    a = tree.arrays
    n = tree.num_nodes
    kind = a.kind
    chance_nodes = np.flatnonzero(kind == CHANCE)
    chance_index = np.full(n, -1, dtype=np.int64)
    chance_index[chance_nodes] = np.arange(chance_nodes.size)
    c = max(int(chance_nodes.size), 1)
    card_slot = np.full((c, 52), -1, dtype=np.int64)
    card_swap = np.full((c, 52), -1, dtype=np.int64)
    for i, node in enumerate(chance_nodes.tolist()):
        lo, hi = int(a.child_start[node]), int(a.child_start[node + 1])
        card_slot[i, a.edge_card[lo:hi]] = np.arange(hi - lo)
        for q in range(int(a.iso_start[node]), int(a.iso_start[node + 1])):
            card_slot[i, a.iso_card[q]] = a.iso_child[q]
            card_swap[i, a.iso_card[q]] = a.iso_swap[q]
    level = np.zeros(n, dtype=np.int64)
    for node in range(1, n):  # preorder: parents first
        par = int(spot.parent[node])
        level[node] = level[par] + (1 if kind[par] == CHANCE else 0)
    on_river = (spot.node_board >= 0).sum(axis=1) >= 5
    prunable = (((kind == DECISION) | (kind == CHANCE)) & ~on_river).astype(np.int8)
    hd = tree.hands
    cdf = np.zeros(hd.weight.shape)
    for p in range(2):
        k = int(hd.num[p])
        cdf[p, :k] = np.cumsum(hd.weight[p, :k])
        cdf[p, k:] = cdf[p, k - 1] if k else 0.0
    board = spot.node_board[0]
    board_mask = np.ones(52, dtype=np.bool_)
    board_mask[list(spot.deck)] = False  # a small deck's missing cards are dead like the board
    board_mask[board[board >= 0]] = True
    return SampleTables(
        chance_index=chance_index,
        card_slot=card_slot,
        card_swap=card_swap,
        level=level,
        prunable=prunable,
        suit_pairs=np.array(SUIT_PAIRS, dtype=np.int64),
        cdf=cdf,
        board_mask=board_mask,
        levels=int(5 - int((board >= 0).sum())),
    )


def default_prune_threshold(spot: ExpandedSpot) -> float:
    """-25 times the largest payoff of the spot in chips (as
    :func:`pokerlab.solvers.mccfr.default_prune_threshold` on history trees)."""
    a = spot.tree.arrays
    top = max(float(np.max(np.abs(x))) if x.size else 0.0 for x in (a.win, a.lose, a.tie))
    return -25.0 * top
