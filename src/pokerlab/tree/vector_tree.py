"""The vector tree: a public tree with a hand list per player and depth-first passes.

Game-neutral storage for two-player games whose private states are two-card hands dealt from a
52-card deck and whose public events are bets and dealt board cards (no-limit postflop spots
today, bucket-free limit hold'em subtrees later). A game describes its tree with the arrays of
:class:`VectorArrays` and :class:`HandArrays` (see :mod:`pokerlab.games.postflop.expand`); this
module owns the solver memory (float32 regrets and strategy sums, one ``actions x hands`` block
per decision node, the hands being the acting player's list) and the passes over it
(:mod:`pokerlab.tree._vector_kernels`): a CFR iteration, best response, expected values.

Chance nodes whose ancestors hold no chance node are *split points*: every dealt card below
them is a work item that the parallel pass hands to a thread (the subtree seam the distributed
design builds on: given reach vectors at a subtree's root, return its value vectors, updating
its regrets).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np

from pokerlab.tree import _vector_kernels as K

__all__ = ["VectorArrays", "HandArrays", "VectorTree", "CHANCE", "DECISION", "FOLD", "SHOWDOWN"]

DECISION, CHANCE, FOLD, SHOWDOWN = K.DECISION, K.CHANCE, K.FOLD, K.SHOWDOWN


class VectorArrays(NamedTuple):
    """Node arena in depth-first preorder (N nodes, E edges, I isomorphic cards)."""

    kind: np.ndarray  # int8 (N,)
    player: np.ndarray  # int8 (N,): actor, folder at FOLD, -1 otherwise
    child_start: np.ndarray  # int64 (N+1,)
    children: np.ndarray  # int64 (E,)
    edge_card: np.ndarray  # int64 (E,): card dealt on a chance edge, -1 on action edges
    chance_weight: np.ndarray  # float64 (N,): 1 / cards that can come at a chance node
    iso_start: np.ndarray  # int64 (N+1,)
    iso_child: np.ndarray  # int64 (I,): child slot whose values an isomorphic card reuses
    iso_card: np.ndarray  # int64 (I,): the isomorphic card
    iso_swap: np.ndarray  # int64 (I,): suit swap id (0..5) mapping it to the source card
    offset: np.ndarray  # int64 (N,): block start in the solver arrays, -1 if none
    board: np.ndarray  # int64 (N,): final-board id at showdowns, -1 otherwise
    win: np.ndarray  # float64 (N,): net chips of the winner (or of the non-folder)
    lose: np.ndarray  # float64 (N,): net chips of the loser (or of the folder)
    tie: np.ndarray  # float64 (N,): net chips of each player on a tie
    item_first: np.ndarray  # int64 (N,): first work item of a split chance node, -1 otherwise
    item_node: np.ndarray  # int64 (items,): the child node of each work item


class HandArrays(NamedTuple):
    """Each player's hand list (padded to the longer one) and showdown orders per final board."""

    num: np.ndarray  # int64 (2,)
    cards: np.ndarray  # int64 (2, H, 2)
    weight: np.ndarray  # float64 (2, H): range weights (0 beyond num)
    same: np.ndarray  # int64 (2, H): index of the same combo in the other list, -1 if absent
    perm: np.ndarray  # int64 (2, 6, H): index of the hand after each suit swap
    order: np.ndarray  # int64 (2, B, H): valid hands by increasing strength
    num_valid: np.ndarray  # int64 (2, B)
    strength: np.ndarray  # int64 (2, B, H)


SUIT_PAIRS = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


@dataclass(eq=False)
class VectorTree:
    """A vector tree with its solver layout.

    ``block_player[k]`` etc. are not stored: a decision node's block is
    ``regrets[offset : offset + actions * hands(actor)]``, action-major.
    """

    arrays: VectorArrays
    hands: HandArrays
    size: int
    depth: int
    max_children: int
    norm: float  # sum over compatible hand pairs of weight products (the deal's normaliser)
    kind: str = "vector"
    num_players: int = 2

    @property
    def num_nodes(self) -> int:
        return int(self.arrays.kind.shape[0])

    @property
    def num_items(self) -> int:
        return int(self.arrays.item_node.shape[0])

    def node_counts(self) -> dict[str, int]:
        k = self.arrays.kind
        return {
            "decision": int(np.sum(k == DECISION)),
            "chance": int(np.sum(k == CHANCE)),
            "terminal": int(np.sum((k == FOLD) | (k == SHOWDOWN))),
        }

    def memory_bytes(self, bytes_per_number: int = 4) -> int:
        """Bytes of regrets plus strategy sums at ``bytes_per_number`` each."""
        return 2 * self.size * bytes_per_number

    # --- scratch --------------------------------------------------------------------------
    def scratch(self, threads: int) -> tuple[np.ndarray, ...]:
        """Per-thread depth-first scratch: (threads, depth, ...) arrays (see the kernels)."""
        d = self.depth + 2
        h = int(self.hands.cards.shape[1])
        k = self.max_children
        return (
            np.zeros((threads, d, h)),
            np.zeros((threads, d, h)),
            np.zeros((threads, d, k, h)),
            np.zeros((threads, d, k, h)),
            np.zeros((threads, d), dtype=np.int64),
            np.zeros((threads, d), dtype=np.int64),
            np.zeros((threads, d), dtype=np.int64),
            np.zeros((threads, d), dtype=np.int64),
            np.zeros((threads, d), dtype=np.int64),
            np.zeros((threads, 52)),
            np.zeros((threads, h)),
        )

    def scratch_bytes(self, threads: int) -> int:
        d = self.depth + 2
        h = int(self.hands.cards.shape[1])
        k = self.max_children
        items = self.num_items
        return 8 * (threads * (2 * d * h + 2 * d * k * h + 5 * d + 52) + 3 * items * h)


class Passes:
    """Scratch and entry points of the passes over one vector tree (reused across calls)."""

    def __init__(self, tree: VectorTree, threads: int = 1) -> None:
        self.tree = tree
        self.set_threads(threads)
        h = int(tree.hands.cards.shape[1])
        n_items = tree.num_items
        self.items_ro = np.zeros((n_items, h))
        self.items_rp = np.zeros((n_items, h))
        self.items_val = np.zeros((n_items, h))
        self.out = np.zeros(h)
        self.no_lock = np.zeros(0, dtype=np.float32)

    def set_threads(self, threads: int) -> None:
        threads = max(1, int(threads))
        self.threads = min(threads, K.thread_ids_available())
        self.scratch_all = self.tree.scratch(self.threads)
        self.scratch_one = tuple(a[0] for a in self.scratch_all)

    def pass_(
        self,
        trav: int,
        mode: int,
        regrets: np.ndarray,
        strat: np.ndarray,
        fa: float = 1.0,
        fb: float = 1.0,
        fg: float = 1.0,
        floor: bool = False,
        lock_probs: np.ndarray | None = None,
    ) -> tuple[np.ndarray, int]:
        """One pass for traverser ``trav``: its root value vector (unnormalised), nodes visited.

        Trees with split chance nodes run in three steps: the top part records the reaches
        entering every dealt card's subtree, the subtrees run as parallel work items, and the
        top part runs again reading their values.
        """
        t = self.tree
        lock = self.no_lock if lock_probs is None else lock_probs
        args = (regrets, strat, fa, fb, fg, floor)

        def root(split: int) -> int:
            return K.traverse(
                t.arrays, t.hands, 0, trav, mode, split, *args,
                t.hands.weight[1 - trav], t.hands.weight[trav], self.out, self.scratch_one,
                self.items_ro, self.items_rp, self.items_val, lock, -1, self.items_val,
            )  # fmt: skip

        if t.num_items == 0:
            return self.out, root(K.SPLIT_NONE)
        visited = root(K.SPLIT_COLLECT)
        prev = numba.get_num_threads()
        numba.set_num_threads(self.threads)
        try:
            visited += K.traverse_items(
                t.arrays, t.hands, trav, mode, *args, self.scratch_all, self.items_ro,
                self.items_rp, self.items_val, lock,
            )  # fmt: skip
        finally:
            numba.set_num_threads(prev)
        visited += root(K.SPLIT_USE)
        return self.out, visited

    def record(self, node: int, trav: int, regrets: np.ndarray, strat: np.ndarray) -> np.ndarray:
        """Under the average strategy: (3, H) = the opponent's reach, the traverser's root
        weights and the traverser's counterfactual values at ``node`` (one serial pass)."""
        t = self.tree
        a, hd = t.arrays, t.hands
        rec = np.zeros((3, hd.cards.shape[1]))
        K.traverse(
            a,
            hd,
            0,
            trav,
            K.MODE_EV,
            K.SPLIT_NONE,
            regrets,
            strat,
            1.0,
            1.0,
            1.0,
            False,
            hd.weight[1 - trav],
            hd.weight[trav],
            self.out,
            self.scratch_one,
            self.items_ro,
            self.items_rp,
            self.items_val,
            self.no_lock,
            node,
            rec,
        )
        return rec

    def root_value(self, trav: int, values: np.ndarray) -> float:
        """Expected value of ``trav`` from its root counterfactual values (chips)."""
        hd = self.tree.hands
        n = int(hd.num[trav])
        return float(np.dot(hd.weight[trav, :n], values[:n]) / self.tree.norm)
