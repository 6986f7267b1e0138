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
S = 4096, 268 MB), which bounds the bucket counts this exact measure handles.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from pokerlab.abstraction.buckets import CardAbstraction, bucket_sequence_ids
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.abstraction.store import cache_dir, load_tables, save_tables
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import DEAL, FOLD_END, BettingTree

__all__ = [
    "JointBucketTables",
    "joint_bucket_tables",
    "cached_joint_bucket_tables",
    "abstract_value",
    "abstract_exploitability_mbb",
]

#: Largest number of river bucket sequences the exact tables are built for.
MAX_SEQUENCES = 8192


@dataclass
class JointBucketTables:
    """``P`` and ``W`` over river bucket-sequence pairs and the bucket counts."""

    counts: tuple[int, int, int, int]
    P: np.ndarray
    W: np.ndarray

    def marginal(self, rnd: int) -> np.ndarray:
        """P over pairs of sequences b_0..b_rnd."""
        s = int(np.prod(self.counts[: rnd + 1]))
        tail = int(np.prod(self.counts[rnd + 1 :]))
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
    s = int(np.prod(counts))
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
    seqs = int(np.prod(counts[: rnd + 1]))
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
    seqs = [int(np.prod(counts[: r + 1])) for r in range(4)]
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
    for n in range(tree.num_nodes - 1, -1, -1):
        k = kind[n]
        if k >= FOLD_END:
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
    return float(values[0].sum())


def abstract_exploitability_mbb(solver, tables: JointBucketTables | None = None) -> float:
    """Exploitability of ``solver``'s average strategy in the abstract game, in milli big blinds
    per game: the mean of the two best-response values (the game is zero-sum)."""
    if tables is None:
        tables = joint_bucket_tables(solver.abstraction)
    probs = solver.average_strategy()
    total = 0.0
    for p in (0, 1):
        total += abstract_value(
            solver.tree, tables, probs, solver.offset, solver.num_states, solver.recall, p
        )
    return 1000.0 * total / 2.0
