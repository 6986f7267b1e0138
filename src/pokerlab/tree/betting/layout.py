"""The storage layout of the betting tree and its information-set index (issue 23).

A strategy, regret or strategy-sum table on the betting tree is one flat array: per decision
node, in preorder, an ``actions x states`` block (states: the round's card buckets with
imperfect recall, the bucket sequences so far with perfect recall). :class:`BettingLayout`
holds that layout (``offset[n]`` where node ``n``'s block starts, ``num_states[r]`` per round)
and gives the part of the :class:`~pokerlab.tree.backend.TreeBackend` protocol that a
:class:`~pokerlab.strategy.Strategy` and the strategy files use: ``kind`` (``"bucketed"``),
``size``, ``index``, ``normalise`` and ``uniform``. The passes over the tree stay with the
limit solvers (:mod:`pokerlab.solvers.limit_holdem`) for now.

:class:`BettingIndex` names the information sets (decision node, state) lazily, as the viewer
always has: ``"flop:rc/cr:3"`` is state 3 on the flop after preflop raise-call and flop
check-raise; with perfect recall the state is the dash-separated bucket of each round so far
(``"turn:rc/crc/cr:1-0-2"``). Keys come in layout order (nodes in preorder, states ascending).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from pokerlab.tree._primitives import DECISION
from pokerlab.tree.betting.tree import BettingTree

__all__ = ["ROUND_NAMES", "BettingIndex", "BettingLayout", "state_counts"]

#: Names of the betting rounds in information-set keys.
ROUND_NAMES = ("preflop", "flop", "turn", "river")
#: The tree's action ids (``BettingTree.action``): fold, call (check), raise (bet).
_FOLD, _CALL = 0, 1


def state_counts(buckets: Sequence[int], recall: str) -> tuple[int, ...]:
    """Private states per round from the buckets each round uses, as Python integers: with
    imperfect recall the buckets themselves, with perfect recall the bucket sequences so far
    (the running product, the mixed radix of
    :func:`pokerlab.abstraction.buckets.bucket_sequence_ids`)."""
    if recall == "imperfect":
        return tuple(int(b) for b in buckets)
    out = []
    product = 1
    for b in buckets:
        product *= int(b)
        out.append(product)
    return tuple(out)


class _Column(Sequence[Any]):
    """A lazy column of :class:`BettingIndex`: ``fn(node position, state)`` per information set."""

    def __init__(self, index: BettingIndex, fn: Callable[[int, int], Any]) -> None:
        self._index = index
        self._fn = fn

    def __len__(self) -> int:
        return len(self._index)

    def __getitem__(self, k: Any) -> Any:  # type: ignore[override]
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        return self._fn(*self._index.locate(int(k)))

    def __iter__(self) -> Iterator[Any]:
        index = self._index
        for i in range(index.nodes.size):
            for s in range(int(index.states[i])):
                yield self._fn(i, s)


class BettingIndex:
    """The lazy information-set index of a :class:`BettingLayout` (module docstring): satisfies
    :class:`~pokerlab.tree.backend.InfosetIndexLike` without storing one key per information set
    (B8's layout has about 100 million)."""

    def __init__(self, layout: BettingLayout) -> None:
        tree = layout.tree
        self.layout = layout
        #: decision nodes in preorder (layout order), their round, actor and states
        self.nodes = np.flatnonzero(tree.kind == DECISION).astype(np.int64)
        self.rounds = tree.round[self.nodes].astype(np.int64)
        self.actor = tree.player[self.nodes].astype(np.int64)
        self.states = layout.num_states[self.rounds].astype(np.int64)
        #: number of the first information set of each node (and the total at the end)
        self.first = np.concatenate(([0], np.cumsum(self.states))).astype(np.int64)
        self.node_labels = [_action_labels(tree, int(n)) for n in self.nodes]
        self.node_keys = [
            f"{ROUND_NAMES[int(tree.round[n])]}:{tree.history[n]}:" for n in self.nodes.tolist()
        ]
        self._position = {int(n): i for i, n in enumerate(self.nodes)}

    def __len__(self) -> int:
        return int(self.first[-1])

    def locate(self, k: int) -> tuple[int, int]:
        """(node position in :attr:`nodes`, state) of information set ``k``."""
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        i = int(np.searchsorted(self.first, k, side="right")) - 1
        return i, k - int(self.first[i])

    def state_name(self, rnd: int, s: int) -> str:
        """A state's key part: its bucket (imperfect recall) or each round's bucket so far,
        dash separated (perfect recall)."""
        layout = self.layout
        if layout.recall != "perfect":
            return str(s)
        parts = []
        for r in range(rnd, -1, -1):
            s, b = divmod(s, layout.buckets[r])
            parts.append(str(b))
        return "-".join(reversed(parts))

    def _key(self, i: int, s: int) -> str:
        return self.node_keys[i] + self.state_name(int(self.rounds[i]), s)

    @property
    def keys(self) -> Sequence[str]:
        return _Column(self, self._key)

    @property
    def labels(self) -> Sequence[tuple[str, ...]]:
        return _Column(self, lambda i, s: self.node_labels[i])

    @property
    def num_actions(self) -> Sequence[int]:
        return _Column(self, lambda i, s: len(self.node_labels[i]))

    @property
    def player(self) -> Sequence[int]:
        return _Column(self, lambda i, s: int(self.actor[i]))

    def node_position(self, node: int) -> int:
        """Position in :attr:`nodes` of decision node ``node`` (KeyError if not a decision)."""
        return self._position[int(node)]

    def find(self, key: str) -> int:
        """The information set of ``key`` (``"round:betting:state"``); KeyError naming the key
        when the round, the betting line or the state does not exist."""
        head, sep, state = key.rpartition(":")
        name, sep2, history = head.partition(":")
        try:
            if not (sep and sep2):
                raise KeyError(key)
            i = self._position[self.layout.tree.find(history)]
            rnd = int(self.rounds[i])
            if ROUND_NAMES[rnd] != name:
                raise KeyError(key)
            s = self._parse_state(rnd, state)
        except (KeyError, ValueError):
            raise KeyError(f"unknown information set {key!r}") from None
        return int(self.first[i]) + s

    def _parse_state(self, rnd: int, text: str) -> int:
        layout = self.layout
        if layout.recall != "perfect":
            s = int(text)
            if text != str(s):
                raise ValueError(text)
        else:
            digits = [int(d) for d in text.split("-")]
            if len(digits) != rnd + 1 or any(
                not 0 <= d < layout.buckets[r] for r, d in enumerate(digits)
            ):
                raise ValueError(text)
            s = 0
            for r, d in enumerate(digits):
                s = s * layout.buckets[r] + d
        if not 0 <= s < int(layout.num_states[rnd]):
            raise ValueError(text)
        return s

    def positions(self, k: int) -> np.ndarray:
        """Flat positions of information set ``k``'s actions: ``offset[n] + a * states + s``."""
        i, s = self.locate(int(k))
        n = int(self.nodes[i])
        ns = int(self.states[i])
        na = len(self.node_labels[i])
        return int(self.layout.offset[n]) + np.arange(na, dtype=np.int64) * ns + s


def _action_labels(tree: BettingTree, n: int) -> tuple[str, ...]:
    """Labels of decision ``n``'s actions in child order: the tree's own tokens where it has
    them (no-limit: ``f``, ``c``, ``r<amount>``), else fold, check or call, bet or raise."""
    kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
    if tree.labels is not None:
        return tuple(tree.labels[int(k)] for k in kids)
    facing = tree.contrib[n].max() > tree.contrib[n, tree.player[n]]
    out = []
    for a in tree.actions(n):
        if a == _FOLD:
            out.append("fold")
        elif a == _CALL:
            out.append("call" if facing else "check")
        else:
            out.append("raise" if facing else "bet")
    return tuple(out)


@dataclass(eq=False)
class BettingLayout:
    """The flat ``actions x states`` layout of a table on ``tree`` (module docstring).

    ``buckets``: the buckets each round was asked for (the abstraction's counts; they name the
    perfect-recall states); ``num_states``: the states per round the layout holds (with
    imperfect recall a round may use fewer buckets than asked); ``recall``: ``"perfect"`` or
    ``"imperfect"``. ``offset`` and ``size`` follow from them.
    """

    tree: BettingTree
    buckets: tuple[int, ...]
    num_states: np.ndarray
    recall: str
    offset: np.ndarray = field(init=False)
    size: int = field(init=False)

    kind = "bucketed"

    @property
    def num_players(self) -> int:
        """Players of the tree (2 for limit hold'em, 2 to 6 for no-limit)."""
        return self.tree.num_players

    def __post_init__(self) -> None:
        tree = self.tree
        self.buckets = tuple(int(b) for b in self.buckets)
        self.num_states = np.asarray(self.num_states, dtype=np.int64)
        decisions = np.flatnonzero(tree.kind == DECISION)
        widths = np.diff(tree.child_start)[decisions] * self.num_states[tree.round[decisions]]
        offset = np.full(tree.num_nodes, -1, dtype=np.int64)
        offset[decisions] = np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)
        self.offset = offset
        self.size = int(widths.sum())

    @classmethod
    def of_buckets(cls, tree: BettingTree, buckets: Sequence[int], recall: str) -> BettingLayout:
        """The layout when every round uses all the buckets asked for."""
        return cls(tree, tuple(buckets), np.array(state_counts(buckets, recall)), recall)

    @cached_property
    def index(self) -> BettingIndex:
        return BettingIndex(self)

    def identity(self) -> dict[str, Any]:
        """The JSON fields that rebuild this layout with the same tree (files' metadata)."""
        return {
            "buckets": list(self.buckets),
            "num_states": [int(s) for s in self.num_states],
            "recall": self.recall,
        }

    def blocks(self) -> Iterator[tuple[int, int, int]]:
        """(start, actions, states) of every decision node's block, in layout order."""
        index = self.index
        for i, n in enumerate(index.nodes.tolist()):
            yield int(self.offset[n]), len(index.node_labels[i]), int(index.states[i])

    def normalise(self, sums: np.ndarray) -> np.ndarray:
        """Each (node, state) column of non-negative ``sums`` normalised over its actions
        (float64; uniform where the column sums to 0): the average strategy."""
        out = np.empty(self.size, dtype=np.float64)
        for lo, na, ns in self.blocks():
            block = sums[lo : lo + na * ns].reshape(na, ns)
            total = block.sum(axis=0, dtype=np.float64)
            probs = np.where(total > 0, block / np.where(total > 0, total, 1), 1.0 / na)
            out[lo : lo + na * ns] = probs.reshape(-1)
        return out

    def uniform(self) -> np.ndarray:
        """The uniform strategy: 1 / actions everywhere."""
        out = np.empty(self.size, dtype=np.float64)
        for lo, na, ns in self.blocks():
            out[lo : lo + na * ns] = 1.0 / na
        return out
