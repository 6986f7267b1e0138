"""The chance tables of the abstract game of limit hold'em (:mod:`pokerlab.evaluate.limit_abstract`
explains their use and cost): the joint bucket tables ``P`` and ``W`` over pairs of river bucket
sequences (:func:`joint_bucket_tables`, cached by :func:`cached_joint_bucket_tables`), and the
by-board path's data (:func:`board_tables`: the earlier rounds' marginal tables and every
suit-canonical river board's live hands by strength), with its memory estimate
(:func:`board_path_bytes`)."""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numba
import numpy as np
from numba import njit

from pokerlab.abstraction.buckets import CardAbstraction, bucket_sequence_ids
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.abstraction.store import cache_dir, load_tables, save_tables
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError

__all__ = [
    "MAX_BOARD_PATH_BYTES",
    "MAX_SEQUENCES",
    "BoardTables",
    "JointBucketTables",
    "board_path_bytes",
    "board_tables",
    "cached_joint_bucket_tables",
    "joint_bucket_tables",
]

#: Largest number of river bucket sequences the exact tables are built for.
MAX_SEQUENCES = 8192
#: Default memory limit (bytes) of the by-board path (:func:`board_path_bytes`).
MAX_BOARD_PATH_BYTES = 6 << 30


@dataclass
class JointBucketTables:
    """``P`` and ``W`` over river bucket-sequence pairs and the bucket counts."""

    counts: tuple[int, int, int, int]
    P: np.ndarray
    W: np.ndarray

    def marginal(self, rnd: int) -> np.ndarray:
        """P over pairs of sequences b_0..b_rnd."""
        s = math.prod(self.counts[: rnd + 1])
        tail = math.prod(self.counts[rnd + 1 :])
        return self.P.reshape(s, tail, s, tail).sum(axis=(1, 3))


@njit(cache=True)
def _accumulate(
    states: np.ndarray,
    strength: np.ndarray,
    hand_cards: np.ndarray,
    board_weight: np.ndarray,
    num_sequences: np.int64,
    P: np.ndarray,
    W: np.ndarray,
) -> float:
    """Add every ordered pair of compatible hands of each board (rows of ``states``: sequence
    id per hand, -1 when the hand meets the board) with the board's weight; returns the total.
    Each unordered pair is visited once and added in both orders."""
    total = 0.0
    nb, nh = states.shape
    live = np.empty(nh, np.int64)
    for b in range(nb):
        w = board_weight[b]
        m = 0
        for i in range(nh):
            if states[b, i] >= 0:
                live[m] = i
                m += 1
        for x in range(m):
            i = live[x]
            si = states[b, i]
            a0 = hand_cards[i, 0]
            a1 = hand_cards[i, 1]
            vi = strength[b, i]
            for y in range(x + 1, m):
                j = live[y]
                c0 = hand_cards[j, 0]
                c1 = hand_cards[j, 1]
                if c0 == a0 or c0 == a1 or c1 == a0 or c1 == a1:
                    continue
                sj = states[b, j]
                P[si, sj] += w
                P[sj, si] += w
                d = vi - strength[b, j]
                if d > 0:
                    W[si, sj] += w
                    W[sj, si] -= w
                elif d < 0:
                    W[si, sj] -= w
                    W[sj, si] += w
                total += 2.0 * w
    return total


def joint_bucket_tables(abstraction: CardAbstraction, batch: int = 256) -> JointBucketTables:
    """The abstract game's chance tables for perfect-recall bucket sequences of
    ``abstraction`` (exact: every ordered board, up to suit isomorphism, and every hand pair)."""
    counts = tuple(int(b) for b in abstraction.buckets)
    s = math.prod(counts)
    if s > MAX_SEQUENCES:
        raise PokerlabError(
            f"{s} river bucket sequences: the exact abstract best response handles at most "
            f"{MAX_SEQUENCES}"
        )
    ranks = abstraction.ranks
    deck = np.arange(52 - 4 * ranks, 52, dtype=np.int64)
    hands = np.array([(a, b) for i, a in enumerate(deck) for b in deck[i + 1 :]], dtype=np.int64)
    boards = HandIndexer((3, 1, 1), ranks)
    P = np.zeros((s, s), dtype=np.float64)
    W = np.zeros((s, s), dtype=np.float64)
    total = 0.0
    nh = len(hands)
    for start in range(0, boards.size, batch):
        ids = np.arange(start, min(boards.size, start + batch))
        cards, weight = boards.unindex(ids)
        nb = len(ids)
        valid = ~(hands[None, :, :, None] == cards[:, None, None, :]).any(axis=(2, 3))
        labels = []
        for r, shown in enumerate((0, 3, 4, 5)):
            rows = np.concatenate(
                [
                    np.broadcast_to(hands[None], (nb, nh, 2)),
                    np.broadcast_to(cards[:, None, :shown], (nb, nh, shown)),
                ],
                axis=2,
            ).reshape(nb * nh, 2 + shown)
            lab = np.zeros(nb * nh, dtype=np.int64)
            ok = valid.reshape(-1)
            lab[ok] = abstraction.labels[r][round_indexer(r, ranks).index(rows[ok])]
            labels.append(lab)
        seq = bucket_sequence_ids(labels, counts, "perfect")[3].reshape(nb, nh)
        seq[~valid] = -1
        seven = np.concatenate(
            [
                np.broadcast_to(hands[None], (nb, nh, 2)),
                np.broadcast_to(cards[:, None, :], (nb, nh, 5)),
            ],
            axis=2,
        ).reshape(nb * nh, 7)
        strength = np.zeros(nb * nh, dtype=np.int32)
        ok = valid.reshape(-1)
        strength[ok] = evaluate_batch(seven[ok].astype(np.uint8))
        total += _accumulate(
            seq, strength.reshape(nb, nh), hands, weight.astype(np.float64), np.int64(s), P, W
        )
    P /= total
    W /= total
    return JointBucketTables(counts, P, W)  # type: ignore[arg-type]


def cached_joint_bucket_tables(
    abstraction: CardAbstraction, cache: bool | str | os.PathLike[str] = True
) -> JointBucketTables:
    """:func:`joint_bucket_tables`, read from or written to the abstraction cache
    (:mod:`pokerlab.abstraction.store`), keyed by a digest of the bucket labels."""
    if not cache:
        return joint_bucket_tables(abstraction)
    digest = hashlib.sha256()
    for lab in abstraction.labels:
        digest.update(np.ascontiguousarray(lab, dtype=np.int32).tobytes())
    key = digest.hexdigest()[:16]
    folder = cache_dir() if cache is True else Path(cache)
    path = folder / f"joint-r{abstraction.ranks}-{key}.npz"
    params = {"kind": "joint", "labels": key, "buckets": list(abstraction.buckets)}
    saved = load_tables(path, **params)
    if saved is not None:
        return JointBucketTables(tuple(abstraction.buckets), saved["P"], saved["W"])  # type: ignore[arg-type]
    tables = joint_bucket_tables(abstraction)
    save_tables(path, {"P": tables.P, "W": tables.W}, **params)
    return tables


@dataclass
class BoardTables:
    """The chance data of the by-board path (:func:`abstract_value_by_board`).

    ``marginals[r]`` (r = 0, 1, 2): probability of each pair of bucket sequences b_0..b_r
    (player 0's, player 1's), built from that round's own boards. River: every suit-canonical
    ordered board (flop as a set, turn, river; :class:`HandIndexer` ``(3, 1, 1)``) with its live
    hands in increasing strength, as flat rows ``board_start[b]:board_start[b + 1]`` of
    ``cards`` (two cards), ``seq`` (perfect-recall river sequence) and ``strength``;
    ``board_weight[b]``: probability of each ordered pair of compatible hands on board b
    (the board's class size over every deal)."""

    counts: tuple[int, int, int, int]
    marginals: list[np.ndarray]
    board_start: np.ndarray
    board_weight: np.ndarray
    cards: np.ndarray
    seq: np.ndarray
    strength: np.ndarray

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays."""
        arrays = [self.board_start, self.board_weight, self.cards, self.seq, self.strength]
        return int(sum(a.nbytes for a in arrays + list(self.marginals)))


def _deck_hands(ranks: int) -> np.ndarray:
    deck = np.arange(52 - 4 * ranks, 52, dtype=np.int64)
    return np.array([(a, b) for i, a in enumerate(deck) for b in deck[i + 1 :]], dtype=np.int64)


def _board_sequences(
    abstraction: CardAbstraction, hands: np.ndarray, cards: np.ndarray, rnd: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per board (rows of ``cards``, its first (0, 3, 4, 5)[rnd] cards shown) and hand: whether
    the hand misses the board, and its perfect-recall bucket sequence b_0..b_rnd (-1: meets)."""
    ranks = abstraction.ranks
    counts = tuple(int(b) for b in abstraction.buckets)
    nb, nh = len(cards), len(hands)
    shown_now = (0, 3, 4, 5)[rnd]
    valid = ~(hands[None, :, :, None] == cards[:, None, None, :shown_now]).any(axis=(2, 3))
    ok = valid.reshape(-1)
    labels = []
    for r in range(rnd + 1):
        shown = (0, 3, 4, 5)[r]
        rows = np.concatenate(
            [
                np.broadcast_to(hands[None], (nb, nh, 2)),
                np.broadcast_to(cards[:, None, :shown], (nb, nh, shown)),
            ],
            axis=2,
        ).reshape(nb * nh, 2 + shown)
        lab = np.zeros(nb * nh, dtype=np.int64)
        lab[ok] = abstraction.labels[r][round_indexer(r, ranks).index(rows[ok])]
        labels.append(lab)
    seq = bucket_sequence_ids(labels, counts, "perfect")[rnd].reshape(nb, nh)
    seq[~valid] = -1
    return valid, seq


def _marginal_table(abstraction: CardAbstraction, rnd: int, hands: np.ndarray) -> np.ndarray:
    """P over pairs of perfect-recall sequences b_0..b_rnd (rnd < 3), from every suit-canonical
    board of that round (none preflop; the flop as a set; then the turn card) and every ordered
    pair of compatible hands."""
    counts = tuple(int(b) for b in abstraction.buckets)
    s = math.prod(counts[: rnd + 1])
    if rnd == 0:
        cards, weight = np.zeros((1, 0), dtype=np.int64), np.ones(1, dtype=np.int64)
    else:
        indexer = HandIndexer((3,) if rnd == 1 else (3, 1), abstraction.ranks)
        cards, weight = indexer.unindex(np.arange(indexer.size))
    _, seq = _board_sequences(abstraction, hands, cards, rnd)
    P = np.zeros((s, s), dtype=np.float64)
    unused = np.zeros((s, s), dtype=np.float64)  # _accumulate's signed table: all ties here
    strength = np.zeros(seq.shape, dtype=np.int32)
    total = _accumulate(seq, strength, hands, weight.astype(np.float64), np.int64(s), P, unused)
    return P / total


def board_tables(
    abstraction: CardAbstraction, batch: int = 512, max_bytes: int = MAX_BOARD_PATH_BYTES
) -> BoardTables:
    """The by-board path's chance data for ``abstraction`` (see :class:`BoardTables`): the
    marginal tables of the preflop, flop and turn, and per suit-canonical river board its live
    hands sorted by strength with their river bucket sequences. Exact (every board class,
    weighted by its size). Refused by name when :func:`board_path_bytes` exceeds ``max_bytes``.

    Cost on the 24-card deck: 41,460 river boards x 171 live hands (about 85 MB), built in
    about 10-20 s (one canonical index per hand, board and round, and one evaluation)."""
    counts = tuple(int(b) for b in abstraction.buckets)
    need = board_path_bytes(counts, abstraction.ranks)
    if need > max_bytes:
        raise PokerlabError(
            f"{math.prod(counts):,} river bucket sequences: the by-board abstract best "
            f"response needs about {need / 2**30:.1f} GiB, over the limit of "
            f"{max_bytes / 2**30:.1f} GiB"
        )
    ranks = abstraction.ranks
    hands = _deck_hands(ranks)
    marginals = [_marginal_table(abstraction, r, hands) for r in range(3)]
    boards = HandIndexer((3, 1, 1), ranks)
    live = comb(4 * ranks - 5, 2)  # every five-card board leaves the same number of hands
    nb_all = boards.size
    cards_out = np.empty((nb_all, live, 2), dtype=np.int32)
    seq_out = np.empty((nb_all, live), dtype=np.int32)
    strength_out = np.empty((nb_all, live), dtype=np.int32)
    weights = np.empty(nb_all, dtype=np.float64)
    # boards with the same flop and turn next to each other: their hands' river sequences then
    # stay within a few rows of the kernel's per-sequence arrays (cache locality)
    all_cards, all_weights = boards.unindex(np.arange(nb_all))
    by_turn = np.lexsort(all_cards[:, 3::-1].T)
    all_cards, all_weights = all_cards[by_turn], all_weights[by_turn]
    for start in range(0, nb_all, batch):
        cards = all_cards[start : start + batch]
        weight = all_weights[start : start + batch]
        nb = len(cards)
        valid, seq = _board_sequences(abstraction, hands, cards, 3)
        seven = np.concatenate(
            [
                np.broadcast_to(hands[None], (nb, len(hands), 2)),
                np.broadcast_to(cards[:, None, :], (nb, len(hands), 5)),
            ],
            axis=2,
        )
        idx = np.flatnonzero(valid.reshape(-1))
        if idx.size != nb * live:
            raise PokerlabError("every river board must leave the same number of hands")
        strength = evaluate_batch(seven.reshape(-1, 7)[idx].astype(np.uint8)).reshape(nb, live)
        rows = idx.reshape(nb, live) % len(hands)  # hand of each live slot
        order = np.argsort(strength, axis=1, kind="stable")
        rows = np.take_along_axis(rows, order, 1)
        cards_out[start : start + nb] = hands[rows]
        seq_out[start : start + nb] = np.take_along_axis(seq, rows, 1)
        strength_out[start : start + nb] = np.take_along_axis(strength, order, 1)
        weights[start : start + nb] = weight
    pairs = comb(4 * ranks - 5, 2) * comb(4 * ranks - 7, 2)  # ordered compatible hand pairs
    return BoardTables(
        counts,  # type: ignore[arg-type]
        marginals,
        np.arange(nb_all + 1, dtype=np.int64) * live,
        weights / (weights.sum() * pairs),
        cards_out.reshape(-1, 2),
        seq_out.reshape(-1),
        strength_out.reshape(-1),
    )


def board_path_bytes(
    counts: tuple[int, ...],
    ranks: int,
    river_subtrees: int = 567,
    threads: int | None = None,
    group: int = 16,
) -> int:
    """Bytes the by-board path needs (an upper estimate for the ACPC caps): the board data (16
    bytes per live hand and board), the marginal tables (two float64 tables per round while
    building), the reach and value of every pre-river node per sequence, the river subtrees'
    root reach and values (``river_subtrees`` x S x 16) and per thread the terminals' reach and
    the accumulator of one group of ``group`` subtrees of 17 terminals (S x 17 x group x 16).
    The strategy's own arrays are not counted. 12 buckets per round on the 24-card deck
    (S = 20,736): about 0.6 GB with two threads."""
    counts = tuple(int(c) for c in counts)
    seqs = [math.prod(counts[: r + 1]) for r in range(4)]
    boards = HandIndexer((3, 1, 1), ranks).size
    live = comb(4 * ranks - 5, 2)
    threads = numba.config.NUMBA_NUM_THREADS if threads is None else int(threads)
    board_data = boards * live * 16 + boards * 16
    marginals = sum(2 * 8 * s * s for s in seqs[:3])
    pre_river = 1912 * seqs[2] * 16
    river = river_subtrees * seqs[3] * 16
    scratch = threads * seqs[3] * 17 * group * 16
    return int(board_data + marginals + pre_river + river + scratch)
