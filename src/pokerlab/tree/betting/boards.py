"""What the passes of public chance sampling on the betting tree are made of: the hand entries of
a batch of boards (:func:`board_entries`, a :class:`~pokerlab.tree.betting._kernels.BoardBatch`),
the subtrees of a split pass over the workers (:func:`split_subtrees`) and the scratch estimates
(:func:`path_bytes_per_entry`, :func:`full_chance_bytes`)."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Any

import numpy as np

from pokerlab.abstraction.buckets import bucket_sequence_ids
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.tree._primitives import DEAL
from pokerlab.tree.betting._kernels import BoardBatch
from pokerlab.tree.betting._subtree_kernels import tree_depth

__all__ = ["board_entries", "full_chance_bytes", "path_bytes_per_entry", "split_subtrees"]


def _ranked(
    cards: np.ndarray, order: np.ndarray, strength: np.ndarray, segments: np.ndarray
) -> np.ndarray:
    """:attr:`BoardBatch.ranked`: per sorted position, the entry's two cards and the end of its
    run of equal strength within its board."""
    ranked = np.empty((order.size, 3), dtype=np.int64)
    ranked[:, :2] = cards[order]
    s = strength[order]
    # a run ends where the strength changes or the board's segment ends
    ends = np.zeros(order.size, dtype=bool)
    ends[segments[1:] - 1] = True
    ends[:-1] |= s[1:] != s[:-1]
    stops = np.flatnonzero(ends) + 1
    ranked[:, 2] = stops[np.searchsorted(stops, np.arange(order.size), side="right")]
    return ranked


def path_bytes_per_entry(depth: int) -> int:
    """Bytes per hand entry of one worker's depth-first pass scratch (:func:`subtree_buffers`)."""
    return (2 * 4 + 3 * 8 + 3 * 4) * (depth + 1) + 3 * 8


def full_chance_bytes(
    tree: Any, num_cards: int, ranks: int, workers: int = 1, split_round: int = 0,
    board_chunk: int | None = None,
) -> int:  # fmt: skip
    """Bytes of scratch of a run with ``chance="full"`` on ``tree`` and a deck of ``num_cards``
    cards of ``ranks`` ranks besides its regrets and sums: every canonical board's hand entries
    (92 bytes each in a :class:`BoardBatch`, plus the root reach), each worker's depth-first
    pass buffers, and with several workers the reach and value rows at each subtree root."""
    boards = HandIndexer((3, 1, 1), ranks).size
    entries = comb(num_cards - 5, 2) * boards
    width = comb(num_cards - 5, 2) * min(boards, board_chunk or boards)
    depth = tree_depth(tree.child_start, tree.children)
    # every board's entries and root reach; per pass (a chunk's width) its own root, reach and
    # value rows (one row each), the workers' path buffers and the cut rows
    per_pass = 16 + workers * path_bytes_per_entry(depth)
    if workers > 1:
        per_pass += 3 * 4 * int(((tree.kind == DEAL) & (tree.round == split_round)).sum())
    return (92 + 8) * entries + per_pass * width


def board_entries(
    boards: np.ndarray,
    hands: np.ndarray,
    labels: Sequence[np.ndarray],
    counts: tuple[int, ...],
    recall: str,
    ranks: int,
) -> BoardBatch:
    """A pass's entries for a batch of boards ``(B, 5)`` (or one board): the hole-card pairs of
    ``hands`` that miss each board, with their private state per round (the abstraction's bucket
    ``labels`` per round, by hand-isomorphism index, combined by ``recall`` over the bucket
    ``counts``), their hand strengths and their order by strength (see :class:`BoardBatch`)."""
    boards = np.atleast_2d(np.asarray(boards, dtype=np.int64))
    parts: list[list[np.ndarray]] = [[] for _ in range(5)]
    segments = np.zeros(boards.shape[0] + 1, dtype=np.int64)
    for b, board in enumerate(boards):
        idx = np.flatnonzero(~np.isin(hands, board).any(axis=1))
        per_round = []
        for r, shown in enumerate((0, 3, 4, 5)):
            rows = np.concatenate(
                [hands[idx], np.broadcast_to(board[:shown], (idx.size, shown))], axis=1
            )
            per_round.append(labels[r][round_indexer(r, ranks).index(rows)])
        ids = bucket_sequence_ids(per_round, counts, recall)
        seven = np.concatenate([hands[idx], np.broadcast_to(board, (idx.size, 5))], axis=1)
        strength = evaluate_batch(seven.astype(np.uint8)).astype(np.int32)
        parts[0].append(np.stack([np.asarray(x, dtype=np.int64) for x in ids]))
        parts[1].append(segments[b] + np.argsort(strength, kind="stable"))
        parts[2].append(strength)
        parts[3].append(hands[idx])
        parts[4].append(idx)
        segments[b + 1] = segments[b] + idx.size
    states, order, strength, cards, hand = (np.concatenate(x, axis=-1 if i == 0 else 0)
                                            for i, x in enumerate(parts))  # fmt: skip
    order = order.astype(np.int64)
    cards = cards.astype(np.int64)
    ranked = _ranked(cards, order, strength, segments)
    return BoardBatch(states, order, strength, segments, cards, hand, ranked)


def split_subtrees(
    tree: Any, workers: int, split_round: int
) -> tuple[list[tuple[int, int, int]], np.ndarray, list[int]]:
    """The subtrees after ``split_round``'s betting (0, 1 or 2), each to the least loaded of
    ``workers`` by node count, largest first. Returns ``(subtrees, owner, load)``: (root, end,
    worker) of each subtree (its nodes ``root:end`` in preorder), each node's worker (-1 above
    the split) and each worker's node count."""
    end = np.arange(1, tree.num_nodes + 1, dtype=np.int64)
    for n in range(tree.num_nodes - 1, -1, -1):
        kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
        if kids.size:
            end[n] = max(end[n], int(end[kids].max()))
    if split_round not in (0, 1, 2):
        raise PokerlabError(f"split_round must be 0, 1 or 2, got {split_round}")
    deals = np.flatnonzero((tree.kind == DEAL) & (tree.round == split_round))
    roots = [int(tree.children[tree.child_start[d]]) for d in deals]
    owner = np.full(tree.num_nodes, -1, dtype=np.int64)
    subtrees: list[tuple[int, int, int]] = []
    load = [0] * workers
    for root in sorted(roots, key=lambda r: int(end[r]) - r, reverse=True):
        w = int(np.argmin(load))
        load[w] += int(end[root]) - root
        owner[root : end[root]] = w
        subtrees.append((root, int(end[root]), w))
    return subtrees, owner, load
