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

import math
from typing import Any

import numba
import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction
from pokerlab.errors import PokerlabError
from pokerlab.evaluate._limit_real_program import _river_program
from pokerlab.evaluate.limit_strategy import as_betting_strategy, strategy_abstraction
from pokerlab.evaluate.limit_tables import (
    MAX_BOARD_PATH_BYTES,
    MAX_SEQUENCES,
    BoardTables,
    JointBucketTables,
    board_path_bytes,
    board_tables,
    cached_joint_bucket_tables,
    joint_bucket_tables,
)
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
