"""Exact best response and exploitability in the abstract game of limit hold'em (issue 10).

The abstract game is limit hold'em where each player knows only its buckets: chance deals both
players a bucket sequence (b_0..b_3) with the joint probability of the real deals that produce it
(card removal between the two hands included), the betting is public, and a showdown pays the
expected real-card result given the two sequences. Its two tables, over pairs of river bucket
sequences (player 0's, player 1's), are built once by :func:`joint_bucket_tables`:

- ``P[s, t]``: probability of the pair;
- ``W[s, t]``: probability of the pair times the sign of the showdown (+1 player 0 wins).

Earlier rounds use their marginals (sequence ids are mixed radix, later buckets last). A best
response walks the betting tree once: the opponent's reach over its sequences top-down, terminal
values as one matrix product per round and kind (fold: ``P_r``; showdown: ``W``), then the best
responder's values bottom-up, maximising per (node, own sequence). The best responder remembers
its bucket sequence (perfect recall) whatever the strategy's recall: for an imperfect-recall
strategy this is the abstract game's perfect-recall best response, at least as strong as any
imperfect-recall one.

Cost: the tables need one pass over the suit-canonical ordered boards (flop, turn, river) with
all pairs of hands; memory is 2 x S^2 float64 for S river sequences (8 buckets per round:
S = 4096, 268 MB), so they stop at :data:`MAX_SEQUENCES`.

Beyond them, the by-board path (:func:`board_tables`, :func:`abstract_value_by_board`) keeps no
S x S table: the opponent's reach per (node, its sequence) comes top-down from the strategy
alone; preflop, flop and turn folds use marginal tables built from each round's own boards
(1,728^2 for the turn at 12 buckets); the river, per group of river subtrees and per canonical
board, turns each live hand's opponent reach (gathered by its sequence) into fold and showdown
values with card removal, summed per (responder sequence, terminal); the responder's maximum
comes after that sum (it does not see the board). The two paths agree to 1e-9 (tested).

Estimate for B8's abstraction, made before building it: 12 E[HS] buckets per round, perfect
recall, the 24-card deck with the ACPC caps (S = 20,736 river sequences; 567 river subtrees of
17 terminals, 41,460 canonical river boards of 171 live hands).

- The tables would be 2 x S^2 x 8 = 6.9 GB, and a best response 9,639 river terminals x S^2 x 2
  = 8.3 TFLOP of matrix products per seat.
- By board, memory: board data 41,460 x 171 x 16 bytes = 113 MB, marginal tables 24 MB, the
  river roots' reach and values 567 x S x 16 = 188 MB, per thread a group's reach and
  accumulator (S x 272 x 16 = 90 MB): about 0.6 GB (:func:`board_path_bytes`), plus the float64
  average strategy the caller makes (308.5 M information-set actions, 2.5 GB).
- By board, time: 567 x 41,460 x 171 x 17 = 6.8e10 (hand, terminal) steps per seat, a dozen
  flops each, whatever the bucket counts; at the measured 2.7-3.5 ns per step on one core of
  this machine, about 200-240 s of CPU per seat, so one exploitability (two seats) is about
  7-8 CPU minutes, 4 minutes of wall on two idle cores (measured: docs/limit-holdem.md, B8).
"""

from __future__ import annotations

import hashlib
import math
import os
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba import njit

from pokerlab.abstraction.buckets import CardAbstraction, bucket_sequence_ids
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.abstraction.store import cache_dir, load_tables, save_tables
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.limit_strategy import as_betting_strategy, strategy_abstraction
from pokerlab.games.limit_holdem import DEAL, FOLD_END, BettingTree
from pokerlab.strategy import BettingStrategy
from pokerlab.tree.betting import _value_kernels as BK

__all__ = [
    "JointBucketTables",
    "joint_bucket_tables",
    "cached_joint_bucket_tables",
    "abstract_value",
    "BoardTables",
    "board_tables",
    "board_path_bytes",
    "abstract_value_by_board",
    "abstract_exploitability_mbb",
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


def _strategy_block(
    probs: np.ndarray,
    offset: np.ndarray,
    num_states: np.ndarray,
    n: int,
    na: int,
    rnd: int,
    counts: tuple[int, ...],
    recall: str,
) -> np.ndarray:
    """(actions, perfect-recall sequences of round rnd) strategy at node n."""
    ns = int(num_states[rnd])
    block = probs[offset[n] : offset[n] + na * ns].reshape(na, ns)
    if recall == "perfect":
        return block
    seqs = math.prod(counts[: rnd + 1])
    # an imperfect-recall solver has a state per bucket *used* (ns may be below counts[rnd]);
    # sequences ending in an unused bucket have probability 0 in the tables, any row will do
    return block[:, np.minimum(np.arange(seqs) % counts[rnd], ns - 1)]


def abstract_value(
    tree: BettingTree,
    tables: JointBucketTables,
    probs: np.ndarray,
    offset: np.ndarray,
    num_states: np.ndarray,
    recall: str,
    player: int,
    best: bool = True,
) -> float:
    """Value (big blinds per game) for ``player`` of a best response (``best``) or of its own
    strategy against the other's, both given by ``probs`` laid out like the solver's arrays."""
    counts = tables.counts
    seqs = [math.prod(counts[: r + 1]) for r in range(4)]
    fold_tables = [tables.marginal(r) for r in range(3)] + [tables.P]
    showdown = tables.W if player == 0 else -tables.W.T
    opp = 1 - player
    kind, rnd_of = tree.kind, tree.round
    # top-down: the opponent's reach; terminal reaches gathered per round
    reach: dict[int, np.ndarray] = {0: np.ones(seqs[0])}
    term_rows: dict[int, np.ndarray] = {}
    for n in range(tree.num_nodes):
        r_n = reach.pop(n)
        k = kind[n]
        kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
        if k >= FOLD_END:
            term_rows[n] = r_n
        elif k == DEAL:
            reach[int(kids[0])] = np.repeat(r_n, counts[rnd_of[n] + 1])
        elif tree.player[n] == opp:
            sigma = _strategy_block(
                probs, offset, num_states, n, len(kids), int(rnd_of[n]), counts, recall
            )
            for j, c in enumerate(kids):
                reach[int(c)] = r_n * sigma[j]
        else:
            for c in kids:
                reach[int(c)] = r_n
    # terminal values: one matrix product per round and kind
    values: dict[int, np.ndarray] = {}
    for r in range(4):
        for is_fold in (True, False):
            nodes = [n for n in term_rows if rnd_of[n] == r and (kind[n] == FOLD_END) == is_fold]
            if not nodes:
                continue
            mat = fold_tables[r] if is_fold else showdown
            reaches = np.stack([term_rows[n] for n in nodes])
            prod = reaches @ mat.T  # row n: M @ reach_n
            for i, n in enumerate(nodes):
                amount = tree.payoff_table[tree.payoff_id[n]]
                if is_fold:
                    amount = -amount if tree.player[n] == player else amount
                values[n] = amount * prod[i]
    # bottom-up
    _values_upward(tree, values, probs, offset, num_states, counts, recall, opp, best, 3)
    return float(values[0].sum())


def _values_upward(
    tree: BettingTree,
    values: dict[int, np.ndarray],
    probs: np.ndarray,
    offset: np.ndarray,
    num_states: np.ndarray,
    counts: tuple[int, ...],
    recall: str,
    opp: int,
    best: bool,
    last_round: int,
) -> None:
    """The responder's values per own sequence, bottom-up over the decisions and deals of rounds
    up to ``last_round`` (``values`` holds the terminals' rows, and the rows of the first nodes
    of later rounds; consumed rows are removed): the sum over the opponent's actions, the
    maximum (``best``) or the strategy's mean over the responder's; a deal sums the next
    round's bucket digit out."""
    kind, rnd_of = tree.kind, tree.round
    for n in range(tree.num_nodes - 1, -1, -1):
        k = kind[n]
        if rnd_of[n] > last_round or k >= FOLD_END:
            continue
        kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
        if k == DEAL:
            child = values.pop(int(kids[0]))
            values[n] = child.reshape(-1, counts[rnd_of[n] + 1]).sum(axis=1)
            continue
        child_values = np.stack([values.pop(int(c)) for c in kids])
        if tree.player[n] == opp:
            values[n] = child_values.sum(axis=0)
        elif best:
            values[n] = child_values.max(axis=0)
        else:
            sigma = _strategy_block(
                probs, offset, num_states, n, len(kids), int(rnd_of[n]), counts, recall
            )
            values[n] = (sigma * child_values).sum(axis=0)


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


def _state_of_sequence(
    counts: tuple[int, ...], num_states: np.ndarray, recall: str, rnd: int
) -> np.ndarray:
    """The strategy's state (column of its blocks) for each perfect-recall sequence of round
    ``rnd``: the sequence itself, or with imperfect recall its last bucket (capped at the
    states the solver has; sequences ending in an unused bucket have probability 0)."""
    seqs = math.prod(counts[: rnd + 1])
    if recall == "perfect":
        return np.arange(seqs, dtype=np.int64)
    ns = int(num_states[rnd])
    return np.minimum(np.arange(seqs, dtype=np.int64) % counts[rnd], ns - 1)


def abstract_value_by_board(
    tree: BettingTree,
    tables: BoardTables,
    probs: np.ndarray,
    offset: np.ndarray,
    num_states: np.ndarray,
    recall: str,
    player: int,
    best: bool = True,
    threads: int | None = None,
    group: int = 16,
) -> float:
    """:func:`abstract_value` without S x S tables (big blinds per game): the same best
    response (perfect recall of the responder's bucket sequence; ``best=False``: the strategy's
    own value), for any number S of river sequences that :func:`board_path_bytes` allows.

    Top-down, the opponent's reach per (node, opponent sequence) from the strategy alone (no
    cards). Preflop, flop and turn folds: one matrix product with the round's marginal table
    per round. The river, where S is large: per river subtree (567 with the ACPC caps,
    ``prange`` over them, ``threads`` numba threads, default every core) and per suit-canonical
    river board, each live hand's opponent reach at the subtree's terminals (gathered by its
    sequence) gives every terminal's value per responder hand with card removal (fold:
    per-card sums and inclusion-exclusion; showdown: a sweep over the hands sorted by strength,
    up then down), added into a (sequence x terminal) accumulator; the responder's maximum is
    taken after the sum over boards, since it does not see the board. Then one bottom-up pass
    per (decision, own sequence).

    Cost: (river subtrees x boards x live hands x terminals) = 567 x 41,460 x 171 x 17, about
    6.8e10 hand-terminal steps on the 24-card deck whatever the bucket counts; memory
    :func:`board_path_bytes`."""
    counts = tables.counts
    seqs = [math.prod(counts[: r + 1]) for r in range(4)]
    opp = 1 - player
    kind, rnd_of = tree.kind, tree.round
    probs = np.ascontiguousarray(probs, dtype=np.float64)
    cs, ch = tree.child_start, tree.children
    deals = np.flatnonzero((kind == DEAL) & (rnd_of == 2))
    roots = ch[cs[deals]]
    deal_row = {int(d): i for i, d in enumerate(deals)}
    root_reach = np.zeros((deals.size, seqs[3]))
    # top-down before the river: the opponent's reach per sequence
    reach: dict[int, np.ndarray] = {0: np.ones(seqs[0])}
    term_rows: dict[int, np.ndarray] = {}
    for n in range(tree.num_nodes):
        if rnd_of[n] == 3:
            continue
        r_n = reach.pop(n)
        k = kind[n]
        kids = ch[cs[n] : cs[n + 1]]
        if k >= FOLD_END:
            if k != FOLD_END:
                raise PokerlabError("a showdown before the river: the by-board path needs four")
            term_rows[n] = r_n
        elif k == DEAL:
            grown = np.repeat(r_n, counts[rnd_of[n] + 1])
            if rnd_of[n] == 2:
                root_reach[deal_row[n]] = grown
            else:
                reach[int(kids[0])] = grown
        elif tree.player[n] == opp:
            sigma = _strategy_block(
                probs, offset, num_states, n, len(kids), int(rnd_of[n]), counts, recall
            )
            for j, c in enumerate(kids):
                reach[int(c)] = r_n * sigma[j]
        else:
            for c in kids:
                reach[int(c)] = r_n
    # the river: per subtree and board (numba)
    from pokerlab.evaluate.limit_real import _river_program

    program = _river_program(tree, roots, offset, player)
    river = np.zeros((deals.size, seqs[3]))
    prev = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if threads is None else int(threads))
    try:
        BK.river_sequence_values(
            np.flatnonzero(root_reach.any(axis=1)).astype(np.int64),
            np.int64(group),
            root_reach,
            program,
            np.int64(num_states[3]),
            _state_of_sequence(counts, num_states, recall, 3),
            probs,
            BK.RiverBoards(
                tables.board_start, tables.board_weight, tables.cards, tables.seq, tables.strength
            ),
            bool(best),
            river,
        )
    finally:
        numba.set_num_threads(prev)
    # earlier folds: one matrix product per round
    values: dict[int, np.ndarray] = {}
    for r in range(3):
        nodes = [n for n in term_rows if rnd_of[n] == r]
        if not nodes:
            continue
        prod = np.stack([term_rows[n] for n in nodes]) @ tables.marginals[r].T
        for i, n in enumerate(nodes):
            amount = tree.payoff_table[tree.payoff_id[n]]
            values[n] = (-amount if tree.player[n] == player else amount) * prod[i]
    # bottom-up before the river: each river subtree's root row from the board pass
    for n in np.flatnonzero((kind == DEAL) & (rnd_of == 2)):
        values[int(ch[cs[n]])] = river[deal_row[int(n)]]
    _values_upward(tree, values, probs, offset, num_states, counts, recall, opp, best, 2)
    return float(values[0].sum())


def abstract_exploitability_mbb(
    strategy: BettingStrategy | Any,
    tables: JointBucketTables | BoardTables | None = None,
    *,
    abstraction: CardAbstraction | None = None,
    max_bytes: int = MAX_BOARD_PATH_BYTES,
    threads: int | None = None,
) -> float:
    """Exploitability of ``strategy`` (a :class:`~pokerlab.strategy.BettingStrategy`; a solver
    is still read through its ``average_strategy()``, deprecated) in the abstract game of
    ``abstraction`` (default: the strategy's own), in milli big blinds per game: the mean of the
    two best-response values (the game is zero-sum).

    ``tables``: :class:`JointBucketTables` (the S x S path, :func:`abstract_value`) or
    :class:`BoardTables` (the by-board path, :func:`abstract_value_by_board`); by default the
    tables up to :data:`MAX_SEQUENCES` river sequences, the by-board path beyond (refused by
    name when :func:`board_path_bytes` exceeds ``max_bytes``). Both are exact and agree to
    1e-9 (tested). ``threads``: numba threads of the by-board river kernel."""
    strategy = as_betting_strategy(strategy)
    if tables is None:
        abstraction = strategy_abstraction(strategy, abstraction)
        if math.prod(abstraction.buckets) <= MAX_SEQUENCES:
            tables = joint_bucket_tables(abstraction)
        else:
            tables = board_tables(abstraction, max_bytes=max_bytes)
    layout = strategy.layout
    if tuple(tables.counts) != layout.buckets:
        raise PokerlabError(
            f"bucket tables of {tuple(tables.counts)} for a strategy of {layout.buckets}"
        )
    total = 0.0
    for p in (0, 1):
        args = (layout.tree, tables, strategy.probs, layout.offset, layout.num_states,
                layout.recall, p)  # fmt: skip
        if isinstance(tables, BoardTables):
            total += abstract_value_by_board(*args, threads=threads)
        else:
            total += abstract_value(*args)  # type: ignore[arg-type]
    return 1000.0 * total / 2.0
