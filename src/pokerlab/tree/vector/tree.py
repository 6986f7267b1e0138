"""The vector tree: a public tree with a hand list per player and depth-first passes.

Game-neutral storage for two-player games whose private states are two-card hands dealt from a
52-card deck and whose public events are bets and dealt board cards (no-limit postflop spots
today, bucket-free limit hold'em subtrees later). A game describes its tree with the arrays of
:class:`VectorArrays` and :class:`HandArrays` (see :mod:`pokerlab.games.postflop.expand`); this
module owns the solver memory (float32 regrets and strategy sums, one ``actions x hands`` block
per decision node, the hands being the acting player's list) and the passes over it
(:mod:`pokerlab.tree.vector._kernels`): a CFR iteration, best response, expected values.

Chance nodes whose ancestors hold no chance node are *split points*: every dealt card below
them is a work item that the parallel pass hands to a thread (the subtree seam the distributed
design builds on: given reach vectors at a subtree's root, return its value vectors, updating
its regrets).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from pokerlab.tree._primitives import CHANCE, DECISION, FOLD, SHOWDOWN
from pokerlab.tree._showdown import (
    FM_C0,
    FM_C1,
    FM_SAME,
    SD_SLO0,
    SD_WORDS,
)
from pokerlab.tree.executors import thread_rows
from pokerlab.tree.vector._sweep_kernels import fill_sweep_rows

# numba's OpenMP threading layer (GNU libgomp, read when it first loads) lets idle threads spin
# at the end of a parallel launch; on a machine whose cores other processes share, the spinning
# thread takes the core the working one needs: the turn spot on 2 threads took 69 ms an
# iteration against 31 ms with passive waiting (load average 4.5 on 2 cores). Unless the user
# set it, threads wait passively; each launch is milliseconds, so waking costs nothing here.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__all__ = [
    "VectorArrays",
    "HandArrays",
    "SweepArrays",
    "VectorTree",
    "fold_twins",
    "sweep_arrays",
    "CHANCE",
    "DECISION",
    "FOLD",
    "SHOWDOWN",
]


class VectorArrays(NamedTuple):
    """Node arena in depth-first preorder (N nodes, E edges, I isomorphic cards)."""

    kind: np.ndarray  # int8 (N,)
    player: np.ndarray  # int8 (N,): actor, folder at FOLD, -1 otherwise
    child_start: np.ndarray  # int64 (N+1,)
    children: np.ndarray  # int64 (E,)
    edge_card: np.ndarray  # int64 (E,): card dealt on a chance edge, -1 on action edges
    chance_weight: np.ndarray  # float64 (N,): 1 / (cards left - 4) at a chance node (< 0: sampled)
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
    #: int64 (N,): at a decision's FOLD child, its SHOWDOWN sibling (the call), and at that
    #: showdown the fold; -1 elsewhere (a pass shares the opponent's blocker sums between them)
    twin: np.ndarray


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


class SweepArrays(NamedTuple):
    """Tables derived from :class:`HandArrays` that the passes read (built once per tree).

    ``sd[p, b, k]`` describes player p's k-th valid hand on final board b by increasing
    strength, in the fields ``SD_HAND`` (its index in p's list), ``SD_LO`` / ``SD_HI`` (how
    many of the opponent's valid hands are strictly weaker / weaker or equal, so a showdown
    sweep knows where to stop without comparing strengths), ``SD_SAME`` (the hand's
    ``FM_SAME``) and the snapshot slots below. ``fm[p, h]`` holds hand h's cards (``FM_C0``,
    ``FM_C1``) and ``FM_SAME``, the identical combo in the other list or the zero pad slot ``H``
    of a reach vector. ``card_hands[p, card_start[p, c]:card_start[p, c + 1]]`` are the hands
    of p holding card c (removed from the reaches when c is dealt).

    The showdown sweep over the opponent's sorted hands records, after adding the j-th, the
    running per-card sums of its two cards at ``2 j`` and ``2 j + 1`` of a snapshot vector
    (slot ``2 H`` stays 0). ``SD_PREV0`` / ``SD_PREV1`` are the slots of the same card's sum
    before the hand (the previous hand of the list holding it; ``2 H`` if none), so the sweep
    adds to them instead of keeping per-card sums apart; ``last[p, b, c]`` is the slot of
    card c's last hand in p's list (the card's total). ``SD_SLO0`` is the slot holding the
    opponent's reach on the k-th hand's first card among the first ``SD_LO`` opponent hands (the
    last of them holding that card; ``2 H`` if none), ``SD_SLO1`` the same for its second card,
    ``SD_SHI0`` / ``SD_SHI1`` the same among the first ``SD_HI``, ``SD_SALL0`` / ``SD_SALL1``
    among all (the opponent's ``last`` of the card).

    The index tables are unsigned and 16-bit: numba adds a negative-index wraparound to every
    load through a signed index, and 16 bits keep a board's rows of both players in the
    first-level cache (about 10% of a turn iteration against 32 bits; the largest index, the
    snapshot slot ``2 H`` of 1,326 hands, fits). A row is packed in three 64-bit words (four
    fields each, :func:`~pokerlab.tree._showdown.field`): three loads instead of twelve,
    and the loop's addresses stay in registers (separate arrays spilled them; together they
    were half of a turn spot's iteration, measured with ``perf``). ``sd.view(np.uint16)``
    shows the fields.
    """

    sd: np.ndarray  # uint64 (2, B, H, SD_WORDS): uint16 (2, B, H, SD_FIELDS) in words
    fm: np.ndarray  # uint16 (2, H, 3)
    card_start: np.ndarray  # int64 (2, 53)
    card_hands: np.ndarray  # uint16 (2, 2H)
    last: np.ndarray  # uint16 (2, B, 52)


def fold_twins(
    kind: np.ndarray, player: np.ndarray, child_start: np.ndarray, children: np.ndarray
) -> np.ndarray:
    """:attr:`VectorArrays.twin` of a node arena: at a decision with one fold by its actor and
    one showdown (the call), each points at the other; -1 elsewhere. When the folder is the
    traverser the two share the opponent's reach, so one sweep's blocker sums serve both."""
    n = kind.shape[0]
    twin = np.full(n, -1, dtype=np.int64)
    up = np.repeat(np.arange(n), np.diff(child_start))  # each edge's parent
    at_decision = kind[up] == DECISION
    fold = at_decision & (kind[children] == FOLD) & (player[children] == player[up])
    show = at_decision & (kind[children] == SHOWDOWN)
    pairs = (np.bincount(up[fold], minlength=n) == 1) & (np.bincount(up[show], minlength=n) == 1)
    fold_of = np.full(n, -1, dtype=np.int64)
    show_of = np.full(n, -1, dtype=np.int64)
    fold_of[up[fold]] = children[fold]
    show_of[up[show]] = children[show]
    both = np.flatnonzero(pairs)
    twin[fold_of[both]] = show_of[both]
    twin[show_of[both]] = fold_of[both]
    return twin


def sweep_arrays(hands: HandArrays) -> SweepArrays:
    """Build the :class:`SweepArrays` of a hand list (one compiled call for the showdown rows,
    :func:`~pokerlab.tree.vector._sweep_kernels.fill_sweep_rows`)."""
    num = hands.num
    h = int(hands.cards.shape[1])
    nb = int(hands.order.shape[1])
    assert 2 * h < 1 << 16, "hand lists longer than the 16-bit sweep tables hold"
    # the rows' words are little-endian fields (every platform numba supports; checked)
    assert sys.byteorder == "little", "the sweep tables' packed rows need a little-endian CPU"
    sd = np.zeros((2, nb, h, SD_WORDS), dtype=np.uint64)
    fields = sd.view(np.uint16)  # (2, nb, h, SD_FIELDS)
    fields[:, :, :, SD_SLO0:] = 2 * h
    last = np.zeros((2, nb, 52), dtype=np.uint16)
    same1 = np.where(hands.same >= 0, hands.same, h)
    fill_sweep_rows(hands.cards, hands.order, hands.num_valid, hands.strength, same1, fields, last)
    fm = np.zeros((2, h, 3), dtype=np.uint16)
    fm[:, :, FM_C0] = hands.cards[:, :, 0]
    fm[:, :, FM_C1] = hands.cards[:, :, 1]
    fm[:, :, FM_SAME] = same1
    card_start = np.zeros((2, 53), dtype=np.int64)
    card_hands = np.zeros((2, 2 * h), dtype=np.uint16)
    for p in (0, 1):
        n = int(num[p])
        cards = hands.cards[p, :n]
        flat = np.concatenate([cards[:, 0], cards[:, 1]])
        who = np.concatenate([np.arange(n), np.arange(n)])
        order = np.lexsort((who, flat))
        card_hands[p, : 2 * n] = who[order]
        card_start[p, 1:] = np.cumsum(np.bincount(flat, minlength=52))
    return SweepArrays(sd, fm, card_start, card_hands, last)


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
    player_ranges: list[tuple[int, int]]  # each player's slice of the solver arrays
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

    @property
    def sweep(self) -> SweepArrays:
        """The sweep tables of the hand lists (built on first use)."""
        sw = self.__dict__.get("_sweep")
        if sw is None:
            sw = sweep_arrays(self.hands)
            self.__dict__["_sweep"] = sw
        return sw

    # --- scratch --------------------------------------------------------------------------
    def scratch(self, threads: int, dtype: type = np.float64) -> tuple[np.ndarray, ...]:
        """Per-thread depth-first scratch: (threads, depth, ...) arrays (see the kernels).

        Opponent-reach rows have one extra slot, always 0, that the ``FM_SAME`` field of
        ``SweepArrays.fm`` points at for hands whose combo the other player does not hold.
        ``dtype`` is the type of the reach, strategy and value vectors (float32 for the CFR
        passes, as postflop-solver's); the showdown and blocker sums stay float64.
        """
        d = self.depth + 2
        h = int(self.hands.cards.shape[1])
        k = self.max_children
        rows = (
            ((d, h + 1), dtype),
            ((d, h), dtype),
            ((d, k, h), dtype),
            ((d, k, h), dtype),
            ((d,), np.int64),
            ((d,), np.int64),
            ((d,), np.int64),
            ((d,), np.int64),
            ((d,), np.int64),
            ((52,), np.float64),
            ((h,), dtype),
            ((h,), dtype),
            ((3 * h + 2,), np.float64),
        )
        # each thread's rows on cache lines of their own (no false sharing between threads)
        return tuple(thread_rows(threads, shape, dt) for shape, dt in rows)

    def scratch_bytes(self, threads: int) -> int:
        d = self.depth + 2
        h = int(self.hands.cards.shape[1])
        k = self.max_children
        items = self.num_items
        per_thread = 2 * d * (h + 1) + 2 * d * k * h + 5 * d + 52 + 2 * h + 3 * h + 2
        return 8 * (threads * per_thread + 3 * items * (h + 1))
