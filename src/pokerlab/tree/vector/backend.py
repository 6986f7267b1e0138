"""The vector tree behind the engine's tree-backend seam (:mod:`pokerlab.tree.backend`).

:class:`VectorBackend` makes a :class:`~pokerlab.tree.vector.tree.VectorTree` (a postflop spot
today) a :class:`~pokerlab.tree.backend.TreeBackend` of kind ``"postflop"``, so the generic
engine runs on it unchanged: :func:`pokerlab.compile_game` returns it for a postflop game,
:class:`~pokerlab.strategy.Strategy` reads and writes strategies by information-set key,
:func:`pokerlab.exploitability` and the best-response functions evaluate them with the vector
tree's own passes, and :class:`~pokerlab.solvers.cfr.CFRSolver` runs CFR on it through
:meth:`VectorBackend.cfr_state`.

Layout: the tree's solver arrays (one ``actions x hands(actor)`` block per decision node, OOP's
blocks first, then IP's: ``player_ranges``). Information set ``k`` is (decision node, hand of
the acting player), numbered block by block in array order and hand by hand within a block;
its positions are ``offset + a * hands + h``. The index is lazy: a flop spot has tens of
millions of information sets, so keys are formatted on demand and :meth:`VectorIndex.find`
parses a key instead of looking it up.

Names come from the game (games describe, trees store): a :class:`VectorNaming` gives hand
names, each decision node's key suffix and action labels, and the node a line of actions and
dealt cards leads to, with the suit swaps of the isomorphic cards on the way (a hand of that
line is the stored hand after those swaps, through ``HandArrays.perm``).

Values are in the game's units: the tree's passes give chips won from the pot minus chips put
in; ``value_shift`` (from the game) is added so that they equal the history form's utilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.tree._layout_kernels import normalise_public
from pokerlab.tree._primitives import PARAMS_LAYOUT
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector._lock_kernels import improve_policy
from pokerlab.tree.vector.passes import Passes
from pokerlab.tree.vector.tree import DECISION, VectorTree

__all__ = ["VectorNaming", "VectorIndex", "VectorBackend", "VectorCFRState"]


class VectorNaming(Protocol):
    """What a game tells the vector backend about names."""

    def hand_names(self, player: int) -> list[str]:
        """Names of ``player``'s hand list, in list order (the key's first part)."""
        ...

    def node_key(self, node: int) -> str:
        """The part of a decision node's information-set keys after ``"|"``."""
        ...

    def action_labels(self, node: int) -> tuple[str, ...]:
        """Labels of a decision node's actions, in child order."""
        ...

    def locate_swaps(self, line: str) -> tuple[int, tuple[str, ...], tuple[int, ...]]:
        """(node, tokens, suit swap ids in order) of a line (comma-separated tokens)."""
        ...


class _Column(Sequence[Any]):
    """A lazy column of the index: ``fn(k)`` for ``k < length``."""

    def __init__(self, length: int, fn: Any) -> None:
        self._length = length
        self._fn = fn

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, k: Any) -> Any:  # type: ignore[override]
        if isinstance(k, slice):
            return [self._fn(i) for i in range(*k.indices(self._length))]
        k = int(k)
        if k < 0:
            k += self._length
        if not 0 <= k < self._length:
            raise IndexError(k)
        return self._fn(k)


class VectorIndex:
    """The lazy information-set index of a vector tree (see the module docstring)."""

    def __init__(self, tree: VectorTree, naming: VectorNaming) -> None:
        a = tree.arrays
        self._tree = tree
        self._naming = naming
        decisions = np.flatnonzero(a.kind == DECISION)
        order = np.argsort(a.offset[decisions], kind="stable")
        #: decision nodes in array order, their actor, hand count and action count
        self.nodes = decisions[order].astype(np.int64)
        self.actor = a.player[self.nodes].astype(np.int64)
        self.hands = tree.hands.num[self.actor].astype(np.int64)
        self.actions = (a.child_start[self.nodes + 1] - a.child_start[self.nodes]).astype(np.int64)
        #: number of the first information set of each node
        self.first = np.concatenate(([0], np.cumsum(self.hands))).astype(np.int64)
        self._names: list[list[str]] | None = None
        self._rows: list[dict[str, int]] | None = None
        self._node_pos = {int(n): i for i, n in enumerate(self.nodes)}
        n = int(self.first[-1])
        self.num_actions = _Column(n, lambda k: int(self.actions[self._block(k)]))
        self.player = _Column(n, lambda k: int(self.actor[self._block(k)]))

    def _block(self, k: int) -> int:
        return int(np.searchsorted(self.first, k, side="right")) - 1

    def _hand_names(self) -> list[list[str]]:
        if self._names is None:
            self._names = [self._naming.hand_names(p) for p in (0, 1)]
            self._rows = [{name: h for h, name in enumerate(ns)} for ns in self._names]
        return self._names

    def __len__(self) -> int:
        return int(self.first[-1])

    def _key(self, k: int) -> str:
        i = self._block(k)
        name = self._hand_names()[int(self.actor[i])][k - int(self.first[i])]
        return f"{name}|{self._naming.node_key(int(self.nodes[i]))}"

    @property
    def keys(self) -> Sequence[str]:
        """Keys ``"AhKh|Td9d6hQc:check,bet 50"`` in layout order (formatted on demand)."""
        return _Column(len(self), self._key)

    @property
    def labels(self) -> Sequence[tuple[str, ...]]:
        """Action labels of every information set (its node's)."""
        return _Column(len(self), lambda k: self._naming.action_labels(self.node_of(k)))

    def node_of(self, k: int) -> int:
        """The decision node of information set ``k``."""
        return int(self.nodes[self._block(k)])

    def find(self, key: str) -> int:
        """Information set of ``key`` (hand, board, line), reading a line through isomorphic
        cards as the stored one; KeyError naming the key when there is none."""
        try:
            hand, rest = key.split("|", 1)
            _, line = rest.split(":", 1)
            node, _, swaps = self._naming.locate_swaps(line)
        except (ValueError, PokerlabError):
            raise KeyError(f"no information set {key!r}") from None
        i = self._node_pos.get(node)
        if i is None:
            raise KeyError(f"no information set {key!r} (its line ends at no decision)")
        self._hand_names()
        assert self._rows is not None
        p = int(self.actor[i])
        h = self._rows[p].get(hand)
        if h is None:
            raise KeyError(f"no information set {key!r} (hand {hand!r} is not in the range)")
        for s in swaps:
            h = int(self._tree.hands.perm[p, s, h])
        return int(self.first[i]) + h

    def positions(self, k: int) -> np.ndarray:
        """Flat positions ``offset + a * hands + h`` of information set ``k``'s actions."""
        i = self._block(k)
        off = int(self._tree.arrays.offset[self.nodes[i]])
        h = k - int(self.first[i])
        return off + np.arange(int(self.actions[i]), dtype=np.int64) * int(self.hands[i]) + h


class VectorBackend:
    """A vector tree as a :class:`~pokerlab.tree.backend.TreeBackend` (kind ``"postflop"``).

    Parameters
    ----------
    tree:
        The vector tree (:func:`pokerlab.games.postflop.expand.expand_spot`).
    naming:
        The game's names of hands, nodes and lines (:class:`VectorNaming`).
    value_shift:
        Added to the passes' values (chips won minus chips put in) to give the game's utilities.
    threads:
        Threads of the passes below the first dealt card (results do not depend on it).
    """

    kind = "postflop"
    num_players = 2

    def __init__(
        self, tree: VectorTree, naming: VectorNaming, value_shift: float = 0.0, threads: int = 1
    ) -> None:
        self.tree = tree
        self.naming = naming
        self.value_shift = float(value_shift)
        self.size = int(tree.size)
        self.player_ranges = [(int(a), int(b)) for a, b in tree.player_ranges]
        self._threads = threads
        self._passes: Passes | None = None
        self._index: VectorIndex | None = None
        self._zeros: np.ndarray | None = None

    @property
    def passes(self) -> Passes:
        """The evaluation passes' scratch (built on first use)."""
        if self._passes is None:
            self._passes = Passes(self.tree, self._threads)
        return self._passes

    @property
    def index(self) -> VectorIndex:
        if self._index is None:
            self._index = VectorIndex(self.tree, self.naming)
        return self._index

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        """Per (decision node, hand) normalisation of non-negative sums (uniform where 0)."""
        out = np.zeros(self.size, dtype=np.float64)
        sums = np.ascontiguousarray(sums, dtype=np.float64)
        a = self.tree.arrays
        for p in (0, 1):
            mine = np.flatnonzero((a.kind == DECISION) & (a.player == p)).astype(np.int64)
            normalise_public(sums, out, mine, a.offset, a.child_start, int(self.tree.hands.num[p]))
        return out

    def uniform(self) -> np.ndarray:
        """The uniform strategy, flat (1 / actions everywhere; float64). The decision blocks
        tile the layout in offset order, so it is each block's 1 / actions repeated (what
        :meth:`normalise` of zeros gives, without its pass)."""
        a = self.tree.arrays
        dec = np.flatnonzero(a.kind == DECISION)
        dec = dec[np.argsort(a.offset[dec], kind="stable")]
        na = (a.child_start[dec + 1] - a.child_start[dec]).astype(np.int64)
        width = na * self.tree.hands.num[a.player[dec]].astype(np.int64)
        ends = a.offset[dec].astype(np.int64) + width
        if dec.size and (a.offset[dec[0]] != 0 or ends[-1] != self.size or
                         np.any(a.offset[dec[1:]] != ends[:-1])):  # fmt: skip
            return self.normalise(np.zeros(self.size))  # pragma: no cover - not tiled
        # repeated as 64-bit integers: numpy 2.4's float64 repeat of a few large counts runs
        # 20 times slower than the same bytes as int64 (42 against 1.9 ms for 3 M numbers)
        values = 1.0 / np.maximum(na, 1)
        return np.repeat(values.view(np.int64), width).view(np.float64)

    def cfr_state(self, params: np.ndarray, alternating: bool, prune: bool) -> VectorCFRState:
        """A fresh CFR run (float32 regrets and sums). Updates alternate (OOP, then IP):
        ``alternating=False`` is refused. ``prune`` is accepted either way: the passes skip
        subtrees no hand reaches themselves, which changes no number."""
        if not alternating:
            raise PokerlabError(
                "the postflop vector tree runs alternating updates only (alternating=False)"
            )
        return VectorCFRState(self, params)

    def _strategy_array(self, probs: np.ndarray) -> np.ndarray:
        if probs.shape != (self.size,):
            raise PokerlabError(f"a profile of {probs.shape} for a tree of {self.size} numbers")
        return np.ascontiguousarray(probs, dtype=np.float32)

    def _no_regrets(self) -> np.ndarray:
        if self._zeros is None:
            self._zeros = np.zeros(self.size, dtype=np.float32)
        return self._zeros

    def value(self, probs: np.ndarray, player: int, best: bool) -> float:
        """Expected value of ``player`` under the flat profile (read as float32 probabilities),
        or of its best response: one pass of the tree (``MODE_EV`` / ``MODE_BR``)."""
        strat = self._strategy_array(probs)
        mode = K.MODE_BR if best else K.MODE_EV
        out, _ = self.passes.pass_(player, mode, self._no_regrets(), strat)
        return self.passes.root_value(player, out) + self.value_shift

    def best_response_probs(self, probs: np.ndarray, player: int) -> tuple[np.ndarray, float]:
        """A pure best response of ``player`` to the other's part of ``probs`` and its value,
        by policy iteration on the tree's passes (:func:`policy_best_response`)."""
        strat = self._strategy_array(probs)
        reg, value = policy_best_response(self.passes, strat, player)
        out = np.array(probs, dtype=np.float64, copy=True)
        lo, hi = self.player_ranges[player]
        out[lo:hi] = reg[lo:hi]
        return out, value + self.value_shift


def policy_best_response(
    passes: Passes,
    profile: np.ndarray,
    trav: int,
    lock_probs: np.ndarray | None = None,
) -> tuple[np.ndarray, float]:
    """A pure best response of ``trav`` against the other player's part of ``profile`` (float32
    probabilities or strategy sums), by policy iteration; ``(its one-hot policy in trav's
    entries and the profile elsewhere, its value)``, the value in the passes' chips.

    The traverser's pure strategy is written as one-hot "regrets" into a copy of ``profile``
    (the opponent's entries stay: regret matching turns them into its strategy), and CFR passes
    with every discount 0 evaluate it (``lock_probs`` override locked hands) and leave each
    action's value less the node's value in the copy; the policy switches to the best action
    where one is strictly better. A switch only raises values, and after k passes every node
    with fewer than k of the traverser's decisions below it is optimal, so it settles within the
    tree's depth; the last pass, with no switch, gives the value. Hands locked at a node keep
    the lock.
    """
    tree = passes.tree
    a = tree.arrays
    reg = np.array(profile, dtype=np.float32, copy=True)
    sums = np.zeros(tree.size, dtype=np.float32)
    mine = np.flatnonzero((a.kind == DECISION) & (a.player == trav))
    offsets = a.offset[mine].astype(np.int64)
    nactions = (a.child_start[mine + 1] - a.child_start[mine]).astype(np.int64)
    nh = int(tree.hands.num[trav])
    policy = np.zeros((mine.shape[0], nh), dtype=np.int16)
    lock = np.zeros(0, dtype=np.float32) if lock_probs is None else lock_probs
    improve_policy(reg, offsets, nactions, nh, policy, lock, True)
    for _ in range(tree.depth + 3):
        np.copyto(sums, 0.0)
        out, _ = passes.pass_(
            trav, K.MODE_CFR, reg, sums, 0.0, 0.0, 0.0, False, lock_probs, wide=True
        )
        value = passes.root_value(trav, out)
        if improve_policy(reg, offsets, nactions, nh, policy, lock, False) == 0:
            return reg, value
    raise RuntimeError("the best response did not settle")  # pragma: no cover


class VectorCFRState:
    """A full-width CFR run on a :class:`VectorBackend` (see
    :class:`~pokerlab.tree.backend.CFRState`): float32 regrets and strategy sums, and the
    prediction of a predictive schedule."""

    def __init__(self, backend: VectorBackend, params: np.ndarray) -> None:
        self.backend = backend
        self.params = np.asarray(params, dtype=np.float64)
        self.floor = bool(self.params[PARAMS_LAYOUT["floor"]])
        self.predictive = bool(self.params[PARAMS_LAYOUT["predictive"]])
        size = backend.size
        self._regrets = np.zeros(size, dtype=np.float32)
        self._sums = np.zeros(size, dtype=np.float32)
        self._prediction = np.zeros(size, dtype=np.float32) if self.predictive else None
        self.passes = Passes(backend.tree, backend._threads)

    def run(self, first_iteration: int, iterations: int) -> int:
        """CFR iterations numbered from ``first_iteration`` (1-based); the nodes visited."""
        return self.passes.run_cfr(
            first_iteration - 1, iterations, self.params, self.predictive, self.floor,
            self._regrets, self._sums, None, self._prediction,
        )  # fmt: skip

    def strategy_sum(self) -> np.ndarray:
        return self._sums

    def regrets(self) -> np.ndarray:
        return self._regrets

    def arrays(self) -> dict[str, np.ndarray]:
        out = {"regrets": self._regrets, "strategy_sum": self._sums}
        if self._prediction is not None:
            out["prediction"] = self._prediction
        return out
