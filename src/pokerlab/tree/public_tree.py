"""The public tree: what both players see, with vectors over private states at every node.

Poker is a small tree of public events (bets, board cards) with large private vectors (hole cards).
A :class:`PublicTree` stores the public tree as flat arrays in preorder (a parent's id is smaller
than its children's), so that solvers walk it with two loops, top-down for reach probabilities and
bottom-up for counterfactual values, each node working on a whole vector indexed by private state.

Node kinds: ``DECISION`` (a player acts; its ``actions x private states`` block of the solver
arrays starts at ``offset``), ``CHANCE`` (public cards are dealt: one child per board),
``FOLD`` and ``SHOWDOWN`` terminals. Terminal payoffs are not stored per private state: a terminal
keeps one scalar ``amount`` (the loser's contribution, already multiplied by the probability of the
chance events above it and by the deal normalisation) and the showdown is evaluated for all hands
at once from the board's strength ordering (:mod:`pokerlab.tree._terminal`).

Both players share one list of private states (card combinations); ``private_cards`` holds the
cards of each (padded with -1) so that card removal is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

__all__ = [
    "DECISION",
    "CHANCE_NODE",
    "FOLD",
    "SHOWDOWN",
    "DENSE_LIMIT",
    "TreeArrays",
    "PublicTree",
    "dense_terminal_tables",
]

DECISION, CHANCE_NODE, FOLD, SHOWDOWN = 0, 1, 2, 3

#: Trees with at most this many private states evaluate terminals with dense (H x H) tables:
#: for a handful of states a small matrix-vector product beats the sorted sweep.
DENSE_LIMIT = 48


def dense_terminal_tables(
    valid: np.ndarray, strength: np.ndarray, private_cards: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per-board compatibility and win/lose sign matrices, or empty arrays for large H."""
    num_boards, num_h = valid.shape
    if num_h > DENSE_LIMIT:
        empty = np.zeros((0, 0, 0))
        return empty, empty
    cards = [set(int(c) for c in row if c >= 0) for row in private_cards]
    share = np.array([[bool(cards[a] & cards[b]) for b in range(num_h)] for a in range(num_h)])
    compat = np.zeros((num_boards, num_h, num_h))
    sign = np.zeros((num_boards, num_h, num_h))
    for b in range(num_boards):
        ok = valid[b][:, None] & valid[b][None, :] & ~share
        compat[b] = ok
        sign[b] = ok * np.sign(strength[b][:, None] - strength[b][None, :])
    return compat, sign


class TreeArrays(NamedTuple):
    """The arrays the numba kernels read (one namedtuple so kernels take one argument).

    Shapes: N nodes, E child edges, B boards, H private states, C cards in the deck.
    """

    kind: np.ndarray  # int8 (N,)
    player: np.ndarray  # int8 (N,): acting player, or the folder at FOLD nodes, -1 otherwise
    child_start: np.ndarray  # int32 (N+1,): children of n are children[child_start[n]:...[n+1]]
    children: np.ndarray  # int32 (E,)
    subtree_end: np.ndarray  # int32 (N,): the subtree of n is the id range [n, subtree_end[n])
    decisions: np.ndarray  # int32: ids of the decision nodes
    terminals: np.ndarray  # int32: ids of the terminal nodes
    board: np.ndarray  # int32 (N,): board id of the node
    offset: np.ndarray  # int64 (N,): start of the node's block in the solver arrays, -1 if none
    amount: np.ndarray  # float64 (N,): terminal stake, chance- and deal-weighted
    valid: np.ndarray  # bool (B, H): private state possible on the board
    strength: np.ndarray  # int32 (B, H): showdown strength, higher wins
    order: np.ndarray  # int32 (B, H): valid private states by increasing strength, then -1
    num_valid: np.ndarray  # int32 (B,)
    private_cards: np.ndarray  # int32 (H, 2): cards of each private state, -1 padded
    # Dense terminal tables, used instead of the card sweep when present (shape (0, 0, 0) if not):
    dense_compat: np.ndarray  # float64 (B, H, H): weight of the pair (h, h') at fold terminals
    dense_sign: np.ndarray  # float64 (B, H, H): payoff sign/share of h against h' at showdowns
    root_reach: np.ndarray  # float64 (2, H): each player's initial reach (range weights)
    num_cards: int  # C


@dataclass
class PublicTree:
    """A two-player public tree with its solver-array layout and readable names.

    Attributes
    ----------
    arrays:
        The flat arrays (see :class:`TreeArrays`).
    private_names:
        Readable name of each private state (``"K"``, ``"Qs"``, ``"AsKd"``).
    board_names:
        Readable board of each board id (``""`` for none).
    history:
        Public action sequence of each node as written in information-set keys.
    action_labels:
        Labels of each decision node's actions.
    size:
        Length of the solver arrays (sum over decision nodes of actions x private states).
    player_ranges:
        ``[(start, stop), (start, stop)]``: the part of the solver arrays owned by each player.
    """

    name: str
    arrays: TreeArrays
    private_names: list[str]
    board_names: list[str]
    history: list[str]
    action_labels: list[tuple[str, ...]]
    size: int
    player_ranges: list[tuple[int, int]]
    key_format: Callable[[str, str, str], str] = field(repr=False, default=None)  # type: ignore[assignment]

    num_players: int = 2

    @property
    def num_nodes(self) -> int:
        return int(self.arrays.kind.shape[0])

    @property
    def num_private(self) -> int:
        return int(self.arrays.private_cards.shape[0])

    def decision_nodes(self) -> np.ndarray:
        """Ids of the decision nodes, in preorder."""
        return np.flatnonzero(self.arrays.kind == DECISION)

    def num_actions(self, node: int) -> int:
        a = self.arrays
        return int(a.child_start[node + 1] - a.child_start[node])

    def info_key(self, node: int, private: int) -> str:
        """Readable information-set key of ``private`` at decision ``node``."""
        board = self.board_names[int(self.arrays.board[node])]
        return self.key_format(self.private_names[private], board, self.history[node])

    def memory_bytes(self, dtype_bytes: int = 8) -> int:
        """Bytes of regrets plus strategy sums for this tree at ``dtype_bytes`` per number."""
        return 2 * self.size * dtype_bytes
