"""The game-neutral public-tree builder API: games describe their tree, this module stores it.

A game builds its public tree in preorder through a :class:`NodeList` (decision nodes with their
action labels, chance nodes dealing public cards, fold and showdown terminals with their amounts,
the children of each node), describes its private states and boards with :func:`private_tables`
(which private state is possible on which board, showdown strength, the cards of each state for
exact card removal, the initial reach of each player), and calls :func:`assemble_public_tree`,
which lays the solver arrays out: player 0's decision blocks first, then player 1's, each block
``actions x private states`` (action-major, so one action's row over all hands is contiguous).

Nothing here knows a game's rules; the limit-poker builder lives in :mod:`pokerlab.games.leduc`
and the push/fold builder in :mod:`pokerlab.games.pushfold`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from pokerlab.tree.public.tree import (
    CHANCE_NODE,
    DECISION,
    FOLD,
    SHOWDOWN,
    PublicTree,
    TreeArrays,
    dense_terminal_tables,
    ranked_table,
)

__all__ = [
    "NodeList",
    "PrivateTables",
    "assemble_public_tree",
    "private_tables",
]


@dataclass
class NodeList:
    """Growing node lists of a public tree under construction (preorder: add a node before its
    children).

    ``amount`` of a terminal is its stake in the game's units, already multiplied by the
    probability of the chance events above it and by the deal normalisation (see
    :mod:`pokerlab.tree.public.tree`): at a fold, what the folding player loses; at a showdown,
    what each player has in the pot.
    """

    kind: list[int] = field(default_factory=list)
    player: list[int] = field(default_factory=list)
    board: list[int] = field(default_factory=list)
    amount: list[float] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    labels: list[tuple[str, ...]] = field(default_factory=list)

    def add(self, kind: int, player: int, board: int, amount: float, history: str) -> int:
        """Append a node of any kind; returns its id."""
        self.kind.append(kind)
        self.player.append(player)
        self.board.append(board)
        self.amount.append(amount)
        self.children.append([])
        self.history.append(history)
        self.labels.append(())
        return len(self.kind) - 1

    def decision(self, player: int, board: int, history: str, labels: Sequence[str]) -> int:
        """A decision of ``player`` (0 or 1) on board id ``board`` with the given action labels;
        its children (one per label, in order) are set later with :meth:`link`."""
        n = self.add(DECISION, player, board, 0.0, history)
        self.labels[n] = tuple(labels)
        return n

    def chance(self, board: int, history: str) -> int:
        """A chance node dealing public cards; each child is on its own (larger) board."""
        return self.add(CHANCE_NODE, -1, board, 0.0, history)

    def fold(self, folder: int, board: int, amount: float, history: str) -> int:
        """A terminal where ``folder`` gave up; ``amount`` is what it loses (weighted)."""
        return self.add(FOLD, folder, board, amount, history)

    def showdown(self, board: int, amount: float, history: str) -> int:
        """A showdown terminal; ``amount`` is each player's stake in the pot (weighted)."""
        return self.add(SHOWDOWN, -1, board, amount, history)

    def link(self, node: int, children: Sequence[int]) -> None:
        """Set the children of ``node`` (decision: one per action label, in label order)."""
        if self.kind[node] == DECISION and len(children) != len(self.labels[node]):
            raise ValueError(
                f"decision node {node} has {len(self.labels[node])} actions, "
                f"got {len(children)} children"
            )
        self.children[node] = list(children)


@dataclass
class PrivateTables:
    """Per-board private-state tables of a public tree (see :class:`TreeArrays`)."""

    valid: np.ndarray
    strength: np.ndarray
    order: np.ndarray
    num_valid: np.ndarray
    private_cards: np.ndarray
    dense_compat: np.ndarray
    dense_sign: np.ndarray
    root_reach: np.ndarray


def assemble_public_tree(
    name: str,
    nodes: NodeList,
    tables: PrivateTables,
    private_names: list[str],
    board_names: list[str],
    key_format: Callable[[str, str, str], str],
    num_cards: int = 52,
) -> PublicTree:
    """Lay out a public tree built in preorder: child ranges, subtree ends, solver offsets
    (player 0's blocks, then player 1's; ``actions x private states`` each), flat arrays."""
    num_nodes = len(nodes.kind)
    num_private = tables.private_cards.shape[0]
    child_start = np.zeros(num_nodes + 1, dtype=np.int32)
    for n, kids in enumerate(nodes.children):
        child_start[n + 1] = child_start[n] + len(kids)
    children = np.array([k for kids in nodes.children for k in kids], dtype=np.int32)
    subtree_end = np.arange(1, num_nodes + 1, dtype=np.int32)
    for n in range(num_nodes - 1, -1, -1):
        for k in nodes.children[n]:
            subtree_end[n] = max(subtree_end[n], subtree_end[k])

    kind = np.array(nodes.kind, dtype=np.int8)
    player = np.array(nodes.player, dtype=np.int8)
    offset = np.full(num_nodes, -1, dtype=np.int64)
    ranges = []
    cursor = 0
    for p in (0, 1):
        start = cursor
        for n in range(num_nodes):
            if kind[n] == DECISION and player[n] == p:
                offset[n] = cursor
                cursor += len(nodes.children[n]) * num_private
        ranges.append((start, cursor))

    arrays = TreeArrays(
        kind=kind,
        player=player,
        child_start=child_start,
        children=children,
        subtree_end=subtree_end,
        decisions=np.flatnonzero(kind == DECISION).astype(np.int32),
        terminals=np.flatnonzero(kind >= FOLD).astype(np.int32),
        board=np.array(nodes.board, dtype=np.int32),
        offset=offset,
        amount=np.array(nodes.amount, dtype=np.float64),
        valid=tables.valid,
        strength=tables.strength,
        order=tables.order,
        num_valid=tables.num_valid,
        ranked=ranked_table(
            tables.order, tables.num_valid, tables.strength, tables.private_cards, num_cards
        ),
        private_cards=tables.private_cards,
        dense_compat=tables.dense_compat,
        dense_sign=tables.dense_sign,
        root_reach=tables.root_reach,
        num_cards=num_cards,
    )
    return PublicTree(
        name=name,
        arrays=arrays,
        private_names=private_names,
        board_names=board_names,
        history=nodes.history,
        action_labels=nodes.labels,
        size=cursor,
        player_ranges=ranges,
        key_format=key_format,
    )


def private_tables(
    valid: np.ndarray,
    strength: np.ndarray,
    private_cards: np.ndarray,
    root_reach: np.ndarray | None = None,
    dense_compat: np.ndarray | None = None,
    dense_sign: np.ndarray | None = None,
) -> PrivateTables:
    """The private-state tables of a public tree from what a game knows about its hands.

    ``valid`` (boards x H, bool): private state possible on the board (no shared card);
    ``strength`` (boards x H, int): showdown strength, higher wins, equal splits;
    ``private_cards`` (H x 2, int, -1 padded): cards of each private state, for exact card
    removal between the players; ``root_reach`` (2 x H): each player's initial reach (range
    weights; default 1). The strength order per board is computed here, and for small H the dense
    ``H x H`` terminal tables (:func:`~pokerlab.tree.public.tree.dense_terminal_tables`) unless
    the game passes its own ``dense_compat`` / ``dense_sign``.
    """
    valid = np.ascontiguousarray(valid, dtype=np.bool_)
    strength = np.ascontiguousarray(strength, dtype=np.int32)
    private_cards = np.ascontiguousarray(private_cards, dtype=np.int32)
    num_boards, num_h = valid.shape
    order = np.full((num_boards, num_h), -1, dtype=np.int32)
    num_valid = np.zeros(num_boards, dtype=np.int32)
    for b in range(num_boards):
        hands = np.flatnonzero(valid[b])
        ranked = hands[np.argsort(strength[b, hands], kind="stable")]
        order[b, : ranked.size] = ranked
        num_valid[b] = ranked.size
    if dense_compat is None or dense_sign is None:
        compat, sign = dense_terminal_tables(valid, strength, private_cards)
        dense_compat = compat if dense_compat is None else dense_compat
        dense_sign = sign if dense_sign is None else dense_sign
    reach = np.ones((2, num_h)) if root_reach is None else np.asarray(root_reach, np.float64)
    return PrivateTables(
        valid, strength, order, num_valid, private_cards, dense_compat, dense_sign, reach
    )
