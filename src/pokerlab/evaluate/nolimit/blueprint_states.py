"""A blueprint's private states: the bucket of a hand on a board in a round (or the bucket
sequence with perfect recall), for one hand, many hands on one board, or rows of hands and
boards at once; a node's action probabilities for a state; the per-board rows a projection
keeps (:func:`per_board_rows`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.strategy import BettingStrategy

__all__ = ["bucket_state", "bucket_states", "row_states", "node_probs", "per_board_rows"]


def bucket_state(strategy: BettingStrategy, abstraction: Any, rnd: int, cards: list[int]) -> int:
    """The private state of a seat holding ``cards`` (two hole cards, then the board shown in
    round ``rnd``) in ``strategy``'s layout: the round's bucket, or with perfect recall the
    bucket sequence of rounds 0..rnd (mixed radix of the requested counts)."""
    layout = strategy.layout
    shown = (0, 3, 4, 5)
    ranks = abstraction.ranks
    if layout.recall != "perfect":
        row = np.asarray([cards[: 2 + shown[rnd]]], dtype=np.int64)
        return int(abstraction.labels[rnd][round_indexer(rnd, ranks).index(row)[0]])
    s = 0
    for r in range(rnd + 1):
        row = np.asarray([cards[: 2 + shown[r]]], dtype=np.int64)
        b = int(abstraction.labels[r][round_indexer(r, ranks).index(row)[0]])
        s = s * layout.buckets[r] + b
    return s


def bucket_states(
    strategy: BettingStrategy, abstraction: Any, rnd: int, hands: np.ndarray, board: Sequence[int]
) -> np.ndarray:
    """:func:`bucket_state` of every row of ``hands`` (int ``(H, 2)``, none meeting ``board``,
    the board shown in round ``rnd``) at once, int64 ``(H,)``."""
    hands = np.asarray(hands, dtype=np.int64)
    board_row = np.asarray(list(board), dtype=np.int64)
    rows = np.concatenate([hands, np.broadcast_to(board_row, (len(hands), len(board_row)))], 1)
    return row_states(strategy, abstraction, rnd, rows)


def row_states(
    strategy: BettingStrategy, abstraction: Any, rnd: int, rows: np.ndarray
) -> np.ndarray:
    """:func:`bucket_state` of every row of ``rows`` (int ``(N, 2 + board)``: the hole cards,
    then the board shown in round ``rnd``; each row its own board), int64 ``(N,)``."""
    layout = strategy.layout
    shown = (0, 3, 4, 5)
    first = rnd if layout.recall != "perfect" else 0
    s = np.zeros(len(rows), dtype=np.int64)
    for r in range(first, rnd + 1):
        index = round_indexer(r, abstraction.ranks).index(rows[:, : 2 + shown[r]])
        s = s * int(layout.buckets[r]) + np.asarray(abstraction.labels[r])[index].astype(np.int64)
    return s


def node_probs(strategy: BettingStrategy, node: int, state: int) -> np.ndarray:
    """The action probabilities of decision ``node`` of ``strategy``'s tree for private state
    ``state`` (:func:`bucket_state`), in the order of the node's children (a new array)."""
    layout = strategy.layout
    tree = layout.tree
    na = int(tree.child_start[node + 1] - tree.child_start[node])
    ns = int(layout.num_states[int(tree.round[node])])
    return strategy.probs[int(layout.offset[node]) + np.arange(na) * ns + state]


def per_board_rows(
    memo: dict[Any, Any], tag: tuple[Any, ...], boards: list[tuple[int, ...]],
    make: Callable[[list[int]], np.ndarray],
) -> np.ndarray:  # fmt: skip
    """One row per board, ``(B, H)``: each board's row kept in ``memo`` under ``(*tag, board)``
    (``make(missing)``: the rows of the boards at those indices, at once), and the stack under
    ``(*tag, boards)`` (a projection reads the same boards for every line below a deal)."""
    whole = memo.get((*tag, tuple(boards)))
    if whole is None:
        got = [memo.get((*tag, b)) for b in boards]
        missing = [i for i, g in enumerate(got) if g is None]
        if missing:
            for i, row in zip(missing, make(missing), strict=True):
                memo[(*tag, boards[i])] = got[i] = row
        whole = memo[(*tag, tuple(boards))] = np.stack(got)
    return whole
