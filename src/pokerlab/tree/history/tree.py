"""The history tree: any game of the history interface compiled into flat arrays.

:func:`compile_history_tree` expands every history of a
:class:`~pokerlab.tree.history_interface.HistoryGame` once, in preorder, and records per node its
kind, player, information set, children and chance probabilities, and per terminal the utilities
of all players. Information sets get contiguous
slots in the solver arrays (one number per action), player by player. The same CFR, best-response
and expected-value kernels then run on it as on public trees, for any number of players.

This is the general path; poker games also have a public tree (vectors over private states), which
is much smaller and faster. Use this one for small or unusual games: the tree is fully expanded, so
its size is the number of histories.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.tree._cfr_state import FlatCFRState
from pokerlab.tree._layout_kernels import normalise_history
from pokerlab.tree._primitives import H_CHANCE, H_DECISION, H_TERMINAL, RunArrays
from pokerlab.tree.history import _kernels
from pokerlab.tree.history_interface import History, HistoryGame
from pokerlab.tree.index import InfosetIndex

__all__ = [
    "H_DECISION",
    "H_CHANCE",
    "H_TERMINAL",
    "HistoryArrays",
    "HistoryTree",
    "HistoryCFRState",
    "compile_history_tree",
]


#: Refuse to expand games larger than this many histories (memory and time guard).
MAX_HISTORIES = 20_000_000


class HistoryArrays(NamedTuple):
    """Arrays read by the numba kernels. N nodes, E edges, I information sets, P players."""

    kind: np.ndarray  # int8 (N,)
    player: np.ndarray  # int8 (N,), -1 at chance and terminal nodes
    child_start: np.ndarray  # int32 (N+1,)
    children: np.ndarray  # int32 (E,)
    chance_prob: np.ndarray  # float64 (N,): probability of the chance edge into n (1 otherwise)
    infoset: np.ndarray  # int32 (N,), -1 off decision nodes
    utility: np.ndarray  # float64 (N, P): payoffs at terminals, 0 elsewhere
    level: np.ndarray  # int32 (N,): decisions of the acting player above n (best-response order)
    info_offset: np.ndarray  # int64 (I+1,): actions of infoset k at [info_offset[k], ...[k+1])
    info_player: np.ndarray  # int8 (I,)
    prunable: np.ndarray  # int8 (N,): 1 where regret-based pruning may skip the action into n


@dataclass
class HistoryTree:
    """A compiled game: arrays plus the readable keys and action labels of its information sets."""

    name: str
    arrays: HistoryArrays
    info_keys: list[str]
    action_labels: list[tuple[str, ...]]
    num_players: int
    size: int
    player_ranges: list[tuple[int, int]]
    #: Backend kind (:class:`~pokerlab.tree.backend.TreeBackend`).
    kind: str = field(default="history", init=False)
    _eval: _EvalScratch | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def num_nodes(self) -> int:
        return int(self.arrays.kind.shape[0])

    @property
    def num_infosets(self) -> int:
        return len(self.info_keys)

    # --- the TreeBackend interface (pokerlab.tree.backend) -------------------------------------
    @cached_property
    def index(self) -> InfosetIndex:
        """One entry per information set; its actions are contiguous (stride 1)."""
        off = self.arrays.info_offset
        return InfosetIndex(
            offset=off[:-1].copy(),
            stride=np.ones(self.num_infosets, dtype=np.int64),
            num_actions=np.diff(off),
            player=self.arrays.info_player.astype(np.int64),
            keys=list(self.info_keys),
            labels=list(self.action_labels),
        )

    def uniform(self) -> np.ndarray:
        """Flat array of the uniform strategy (1 / actions at every information set)."""
        return self.index.uniform(self.size)

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        """Per-information-set normalisation of non-negative sums (uniform where they are 0)."""
        out = np.zeros(self.size, dtype=np.float64)
        sums = np.ascontiguousarray(sums, dtype=np.float64)
        normalise_history(sums, out, self.arrays.info_offset)
        return out

    def cfr_state(self, params: np.ndarray, alternating: bool, prune: bool) -> HistoryCFRState:
        """A fresh full-width CFR run on this tree (see :class:`HistoryCFRState`)."""
        return HistoryCFRState(self, params, alternating, prune)

    def _scratch(self) -> _EvalScratch:
        if self._eval is None:
            self._eval = _EvalScratch(self)
        return self._eval

    def value(self, probs: np.ndarray, player: int, best: bool) -> float:
        """Exact expected payoff of ``player`` under ``probs``, or of its best response
        (decided level by level, see :func:`pokerlab.tree.history._kernels.history_value`)."""
        s = self._scratch()
        probs = np.ascontiguousarray(probs, dtype=np.float64)
        return float(
            _kernels.history_value(
                self.arrays, probs, player, best, s.others, s.values, s.q_values, s.choice
            )
        )

    def best_response_probs(self, probs: np.ndarray, player: int) -> tuple[np.ndarray, float]:
        """A pure best response of ``player`` (the action chosen at each of its information
        sets by the level-by-level pass) and its value; the others' part equals ``probs``."""
        value = self.value(probs, player, True)
        choice = self._scratch().choice
        out = np.array(probs, dtype=np.float64, copy=True)
        t = self.arrays
        for info in np.flatnonzero(t.info_player == player):
            lo, hi = t.info_offset[info], t.info_offset[info + 1]
            out[lo:hi] = 0.0
            out[lo + max(int(choice[info]), 0)] = 1.0
        return out, value


class _EvalScratch:
    """Work arrays of the expected-value and best-response pass (one set per tree)."""

    def __init__(self, tree: HistoryTree) -> None:
        n = tree.num_nodes
        self.others = np.zeros(n)
        self.values = np.zeros(n)
        self.q_values = np.zeros(tree.size)
        self.choice = np.zeros(tree.num_infosets, dtype=np.int64)


class HistoryCFRState(FlatCFRState):
    """Regrets, strategy sums and scratch of one full-width CFR run on a :class:`HistoryTree`.

    Scratch is per node (reach of every player, chance reach, values of every player) plus one
    instantaneous-regret slot per action; the passes are
    :func:`pokerlab.tree.history._kernels.history_cfr_run`. A predictive schedule (PCFR+, PDCFR+)
    adds the predicted regrets, same layout as the regrets, to the state.
    """

    def __init__(self, tree: HistoryTree, params: np.ndarray, alternating: bool, prune: bool):
        super().__init__(tree, params, alternating, prune)
        self._kernels: Any = _kernels
        size, n, p = tree.size, tree.num_nodes, tree.num_players
        self._inst = np.zeros(size)
        self._reach = np.zeros((n, p))
        self._chance = np.zeros(n)
        self._values = np.zeros((n, p))

    def run(self, first_iteration: int, iterations: int) -> int:
        """Run ``iterations`` iterations numbered from ``first_iteration``; nodes touched."""
        return int(
            self._kernels.history_cfr_run(
                self.tree.arrays,
                RunArrays(self._regrets, self._sums, self._pred),
                _kernels.HistoryScratch(
                    self._sigma, self._inst, self._reach, self._chance, self._values
                ),
                self._ranges,
                self.params,
                first_iteration,
                iterations,
                self.alternating,
                self.prune,
            )
        )


def compile_history_tree(game: HistoryGame) -> HistoryTree:
    """Expand ``game`` into a :class:`HistoryTree`.

    Raises :class:`~pokerlab.errors.PokerlabError` when the game breaks the interface's contract
    (an information set whose histories disagree on the actions, chance probabilities that do not
    sum to 1, more than :data:`MAX_HISTORIES` histories).
    """
    num_players = game.num_players
    kind: list[int] = []
    player: list[int] = []
    chance_prob: list[float] = []
    infoset: list[int] = []
    level: list[int] = []
    prunable: list[int] = []
    utilities: dict[int, list[float]] = {}
    children: list[list[int]] = []
    key_index: dict[str, int] = {}
    key_list: list[str] = []
    info_actions: list[tuple[int, ...]] = []
    info_labels: list[tuple[str, ...]] = []
    info_player: list[int] = []

    def add(h: History, prob: float, depth: tuple[int, ...]) -> int:
        n = len(kind)
        if n >= MAX_HISTORIES:
            raise PokerlabError(
                f"game {game.name!r} has more than {MAX_HISTORIES} histories; too large to expand"
            )
        kind.append(H_TERMINAL)
        player.append(-1)
        chance_prob.append(prob)
        infoset.append(-1)
        level.append(0)
        prunable.append(0)
        children.append([])
        if h.is_terminal():
            utilities[n] = [float(h.terminal_utility(p)) for p in range(num_players)]
            if not all(math.isfinite(u) for u in utilities[n]):
                raise PokerlabError(
                    f"terminal utilities {utilities[n]} of {game.name!r} are not all finite"
                )
            return n
        if h.is_chance():
            kind[n] = H_CHANCE
            outcomes = list(h.chance_outcomes())
            if not all(math.isfinite(p) and p >= 0 for _, p in outcomes):
                bad = [p for _, p in outcomes if not (math.isfinite(p) and p >= 0)]
                raise PokerlabError(
                    f"chance probability {bad[0]} at a chance node of {game.name!r} is not a "
                    "number >= 0"
                )
            total = sum(p for _, p in outcomes)
            if abs(total - 1.0) > 1e-9:
                raise PokerlabError(
                    f"chance probabilities sum to {total} at a chance node of {game.name!r}"
                )
            children[n] = [add(h.child(o), float(p), depth) for o, p in outcomes]
            return n
        p = h.current_player()
        if not 0 <= p < num_players:
            raise PokerlabError(f"current_player() returned {p} in {game.name!r}")
        key = h.info_set_key()
        actions = tuple(int(a) for a in h.legal_actions())
        if not actions:
            raise PokerlabError(f"no legal actions at information set {key!r}")
        if len(set(actions)) != len(actions):
            raise PokerlabError(f"legal actions {list(actions)} repeat an action at {key!r}")
        k = key_index.get(key)
        if k is None:
            k = len(key_list)
            key_index[key] = k
            key_list.append(key)
            info_actions.append(actions)
            info_labels.append(tuple(h.action_label(a) for a in actions))
            info_player.append(p)
        elif info_actions[k] != actions or info_player[k] != p:
            raise PokerlabError(
                f"information set {key!r} has histories with different actions or players"
            )
        kind[n] = H_DECISION
        player[n] = p
        infoset[n] = k
        level[n] = depth[p]
        deeper = depth[:p] + (depth[p] + 1,) + depth[p + 1 :]
        children[n] = [add(h.child(a), 1.0, deeper) for a in actions]
        if h.regret_pruning_allowed():
            for c in children[n]:
                prunable[c] = int(kind[c] != H_TERMINAL)
        return n

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        add(game.initial_history(), 1.0, (0,) * num_players)
    finally:
        sys.setrecursionlimit(limit)

    num_nodes = len(kind)
    child_start = np.zeros(num_nodes + 1, dtype=np.int32)
    for n, kids in enumerate(children):
        child_start[n + 1] = child_start[n] + len(kids)
    utility = np.zeros((num_nodes, num_players), dtype=np.float64)
    for n, u in utilities.items():
        utility[n] = u

    # Infosets renumbered player by player so each player's solver slots are contiguous.
    order = sorted(range(len(key_list)), key=lambda k: (info_player[k], k))
    new_id = np.empty(len(key_list), dtype=np.int32)
    for new, old in enumerate(order):
        new_id[old] = new
    info_offset = np.zeros(len(key_list) + 1, dtype=np.int64)
    ranges: list[tuple[int, int]] = []
    for new, old in enumerate(order):
        info_offset[new + 1] = info_offset[new] + len(info_actions[old])
    for p in range(num_players):
        ks = [new for new, old in enumerate(order) if info_player[old] == p]
        ranges.append((int(info_offset[ks[0]]), int(info_offset[ks[-1] + 1])) if ks else (0, 0))
    infoset_arr = np.array(infoset, dtype=np.int32)
    mask = infoset_arr >= 0
    infoset_arr[mask] = new_id[infoset_arr[mask]]

    arrays = HistoryArrays(
        kind=np.array(kind, dtype=np.int8),
        player=np.array(player, dtype=np.int8),
        child_start=child_start,
        children=np.array([k for kids in children for k in kids], dtype=np.int32),
        chance_prob=np.array(chance_prob, dtype=np.float64),
        infoset=infoset_arr,
        utility=utility,
        level=np.array(level, dtype=np.int32),
        info_offset=info_offset,
        info_player=np.array([info_player[old] for old in order], dtype=np.int8),
        prunable=np.array(prunable, dtype=np.int8),
    )
    return HistoryTree(
        name=game.name,
        arrays=arrays,
        info_keys=[key_list[old] for old in order],
        action_labels=[info_labels[old] for old in order],
        num_players=num_players,
        size=int(info_offset[-1]),
        player_ranges=ranges,
    )
