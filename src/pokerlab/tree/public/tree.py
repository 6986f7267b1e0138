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
at once from the board's strength ordering (:mod:`pokerlab.tree.public._terminal`).

Both players share one list of private states (card combinations); ``private_cards`` holds the
cards of each (padded with -1) so that card removal is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from pokerlab.tree._cfr_state import FlatCFRState
from pokerlab.tree._layout_kernels import normalise_public
from pokerlab.tree._primitives import CHANCE, DECISION, FOLD, SHOWDOWN, RunArrays
from pokerlab.tree.index import InfosetIndex
from pokerlab.tree.public import _kernels

__all__ = [
    "DECISION",
    "CHANCE_NODE",
    "FOLD",
    "SHOWDOWN",
    "DENSE_LIMIT",
    "TreeArrays",
    "PublicTree",
    "PublicCFRState",
    "card_slots",
    "dense_terminal_tables",
    "ranked_table",
]

CHANCE_NODE = CHANCE

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


def ranked_table(
    order: np.ndarray, num_valid: np.ndarray, strength: np.ndarray, private_cards: np.ndarray,
    num_cards: int,
) -> np.ndarray:  # fmt: skip
    """:attr:`TreeArrays.ranked`: per board and position of the strength order, the state's
    two card slots (one-card states: ``num_cards + h`` as the second) and the position after
    its group of equal strength."""
    num_boards, num_h = order.shape
    ranked = np.zeros((num_boards, num_h, 3), dtype=np.int32)
    for b in range(num_boards):
        n = int(num_valid[b])
        hands = order[b, :n]
        first = private_cards[hands, 0]
        second = private_cards[hands, 1]
        ranked[b, :n, 0] = first
        ranked[b, :n, 1] = np.where(second >= 0, second, num_cards + hands)
        s = strength[b, hands]
        # the position after each group: the first position whose strength is larger
        ranked[b, :n, 2] = np.searchsorted(s, s, side="right")
    return ranked


def card_slots(arrays: TreeArrays) -> int:
    """Length of the terminal evaluation's per-card scratch: the fold's per-card sums (C) and
    the showdown's two halves (totals and running sums) over C cards and one slot per
    one-card state."""
    return 2 * (int(arrays.num_cards) + int(arrays.private_cards.shape[0]))


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
    # int32 (B, H, 3): at each position of ``order``, the state's two card slots (a one-card
    # state's second slot is C + h, its own) and the position after its group of equal
    # strength (the one-sweep showdown's input, :func:`pokerlab.tree._showdown.one_list_showdown`)
    ranked: np.ndarray
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
    #: Backend kind (:class:`~pokerlab.tree.backend.TreeBackend`).
    kind: str = field(default="public", init=False)
    _eval: _EvalScratch | None = field(default=None, init=False, repr=False, compare=False)

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

    # --- the TreeBackend interface (pokerlab.tree.backend) -------------------------------------
    @cached_property
    def index(self) -> InfosetIndex:
        """One information set per (decision node, private state valid on the node's board)."""
        a = self.arrays
        num_h = self.num_private
        offsets, counts, players, keys, labels = [], [], [], [], []
        for n in np.flatnonzero(a.kind == DECISION):
            na = self.num_actions(int(n))
            for h in np.flatnonzero(a.valid[a.board[n]]):
                offsets.append(int(a.offset[n]) + int(h))
                counts.append(na)
                players.append(int(a.player[n]))
                keys.append(self.info_key(int(n), int(h)))
                labels.append(self.action_labels[n])
        return InfosetIndex(
            offset=np.array(offsets, dtype=np.int64),
            stride=np.full(len(offsets), num_h, dtype=np.int64),
            num_actions=np.array(counts, dtype=np.int64),
            player=np.array(players, dtype=np.int64),
            keys=keys,
            labels=labels,
        )

    def uniform(self) -> np.ndarray:
        """Flat array of the uniform strategy (1 / actions at every information set)."""
        return self.index.uniform(self.size)

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        """Per-(node, private state) normalisation of non-negative sums (uniform where 0)."""
        out = np.zeros(self.size, dtype=np.float64)
        sums = np.ascontiguousarray(sums, dtype=np.float64)
        a = self.arrays
        normalise_public(sums, out, a.decisions, a.offset, a.child_start, self.num_private)
        return out

    def cfr_state(self, params: np.ndarray, alternating: bool, prune: bool) -> PublicCFRState:
        """A fresh full-width CFR run on this tree (see :class:`PublicCFRState`)."""
        return PublicCFRState(self, params, alternating, prune)

    def _scratch(self) -> _EvalScratch:
        if self._eval is None:
            self._eval = _EvalScratch(self)
        return self._eval

    def value(self, probs: np.ndarray, player: int, best: bool) -> float:
        """Exact expected payoff of ``player`` under ``probs``, or of its best response (one
        top-down reach pass and one bottom-up value pass, maximising per private state at the
        player's own nodes: in a public tree each (node, private state) is an information set)."""
        s = self._scratch()
        probs = np.ascontiguousarray(probs, dtype=np.float64)
        return float(
            _kernels.public_value(self.arrays, probs, player, best, s.reach, s.cfv, s.cards, s.live)
        )

    def best_response_probs(self, probs: np.ndarray, player: int) -> tuple[np.ndarray, float]:
        """A pure best response of ``player`` (argmax of the counterfactual values per private
        state at each of its nodes) and its value; the other player's part equals ``probs``."""
        value = self.value(probs, player, True)
        cfv = self._scratch().cfv
        out = np.array(probs, dtype=np.float64, copy=True)
        a = self.arrays
        num_h = self.num_private
        for n in a.decisions[a.player[a.decisions] == player]:
            kids = a.children[a.child_start[n] : a.child_start[n + 1]]
            best = np.argmax(cfv[kids, player, :], axis=0)
            block = np.zeros((len(kids), num_h))
            block[best, np.arange(num_h)] = 1.0
            out[a.offset[n] : a.offset[n] + len(kids) * num_h] = block.ravel()
        return out, value


class _EvalScratch:
    """Work arrays of the expected-value and best-response pass (one set per tree)."""

    def __init__(self, tree: PublicTree) -> None:
        n, h = tree.num_nodes, tree.num_private
        self.reach = np.zeros((n, 2, h))
        self.cfv = np.zeros((n, 2, h))
        self.cards = np.zeros(card_slots(tree.arrays))
        self.live = np.ones((n, 2), dtype=np.bool_)


class PublicCFRState(FlatCFRState):
    """Regrets, strategy sums and scratch of one full-width CFR run on a :class:`PublicTree`.

    Scratch today is per node: reach and counterfactual values ``(N, 2, H)`` float64, zero-reach
    flags ``(N, 2)``, a per-card sum for card removal and one regret-matching total per private
    state. The passes are :func:`pokerlab.tree.public._kernels.public_cfr_run` (CFR with a discount
    schedule, alternating or simultaneous updates, zero-reach pruning). A predictive schedule
    (PCFR+, PDCFR+) adds the predicted regrets, same layout as the regrets, to the state.
    """

    def __init__(self, tree: PublicTree, params: np.ndarray, alternating: bool, prune: bool):
        super().__init__(tree, params, alternating, prune)
        self._kernels: Any = _kernels
        n, h = tree.num_nodes, tree.num_private
        self._reach = np.zeros((n, 2, h))
        self._cfv = np.zeros((n, 2, h))
        self._live = np.zeros((n, 2), dtype=np.bool_)
        self._cards = np.zeros(card_slots(tree.arrays))
        self._totals = np.zeros(h)

    def run(self, first_iteration: int, iterations: int) -> int:
        """Run ``iterations`` iterations numbered from ``first_iteration``; nodes touched."""
        return int(
            self._kernels.public_cfr_run(
                self.tree.arrays,
                RunArrays(self._regrets, self._sums, self._pred),
                _kernels.PublicScratch(
                    self._sigma, self._reach, self._cfv, self._live, self._cards, self._totals
                ),
                self._ranges,
                self.params,
                first_iteration,
                iterations,
                self.alternating,
                self.prune,
            )
        )
