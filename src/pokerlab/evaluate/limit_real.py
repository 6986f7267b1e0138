"""Exact best response in the real game against an abstract limit hold'em strategy (issue 10).

The best responder sees its real cards and the board (not buckets); the opponent plays the
abstract strategy (its action probabilities by bucket state, a ``BettingStrategy``'s table).
One walk of the public tree (betting rounds x board cards) with vectors over every hole-card
pair of the best responder: per round and board prefix, the opponent's reach goes down the
round's decisions, every next card (the flop as a set, then the turn, then the river) is dealt
below its deal nodes and the values come back up, maximised per (hand, board, betting).

Values are sums over the opponent's hands and the board completions; the best response value is
their average over the responder's hands and all deals. The flops are walked up to suit
isomorphism (the abstract strategy is suit-blind): each canonical flop's values are mapped to
the other flops of its class by permuting the hands.

The turn and river cards are walked up to suit isomorphism too (one card per orbit under the
permutations that fix the board so far), and the river, nearly all the work, runs in one
parallel numba kernel per turn board (``_limit_real_kernels.river_values``). Cost with ACPC
caps: about 7 s per best response on the 16-card deck, 6 minutes on the 24-card deck (2 threads
of the shared 2-core machine; docs/limit-holdem.md).

The method is the public-tree best response of Johanson, Waugh, Bowling and Zinkevich,
"Accelerating Best Response Calculation in Large Extensive Games" (IJCAI 2011): vectors over
private hands per public state, showdowns by one sort and two card-removal sweeps; suit
isomorphism as in Waugh, "A Fast and Optimal Hand Isomorphism Algorithm" (AAAI workshop 2013).
"""

from __future__ import annotations

from math import comb
from typing import Any

import numba
import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction, bucket_sequence_ids
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.evaluate import _limit_real_kernels as K
from pokerlab.evaluate import _limit_river_kernels as R
from pokerlab.evaluate._limit_real_program import (
    _canonical_flops,
    _hand_perms,
    _orbits,
    _river_program,
)
from pokerlab.evaluate.limit_strategy import as_betting_strategy, deck_hands, strategy_abstraction
from pokerlab.games.limit_holdem import DEAL
from pokerlab.strategy import BettingStrategy
from pokerlab.tree.betting._kernels import betting_arrays

__all__ = ["real_value", "real_exploitability_mbb"]


class _Walk:
    def __init__(
        self,
        strategy: BettingStrategy,
        abstraction: CardAbstraction,
        responder: int,
        best: bool,
        fast: bool = True,
    ) -> None:
        layout = strategy.layout
        self.abstraction = abstraction
        self.recall = layout.recall
        self.num_states = layout.num_states
        self.tree = layout.tree
        self.probs = np.asarray(strategy.probs, dtype=np.float64)
        self.responder = responder
        self.best = best
        rules = strategy.game.rules
        self.ranks = rules.ranks
        self.deck = [int(c) for c in rules.cards]
        self.hands = deck_hands(strategy.game)
        self.hand_index = {(int(a), int(b)): i for i, (a, b) in enumerate(self.hands)}
        n, h = self.tree.num_nodes, len(self.hands)
        self.reach = np.zeros((n, h))
        self.values = np.zeros((n, h))
        self.card_sum = np.zeros(52)
        t = self.tree
        self.deals = [np.flatnonzero((t.kind == DEAL) & (t.round == r)) for r in range(3)]
        self.roots = [t.children[t.child_start[d]] for d in self.deals]
        n_cards = len(self.deck)
        self.multiplier = [
            comb(n_cards - 4, 3) * (n_cards - 7) * (n_cards - 8),
            (n_cards - 7) * (n_cards - 8),
            n_cards - 8,
            1,
        ]
        self.counts = tuple(int(b) for b in abstraction.buckets)
        self.with_card = np.zeros((52, h), dtype=bool)
        for i, (a, b) in enumerate(self.hands):
            self.with_card[a, i] = self.with_card[b, i] = True
        self.fast = fast
        self.hand_perm = _hand_perms(self.ranks)
        #: the betting tree's arrays with the strategy's layout (the kernels' bundle)
        self.arrays = betting_arrays(t, layout.offset, layout.num_states)
        if fast:
            self.program = _river_program(t, self.roots[2], layout.offset, responder)

    def _meets(self, cards) -> np.ndarray:
        out = np.zeros(len(self.hands), dtype=bool)
        for c in cards:
            out |= self.with_card[c]
        return out

    def states(
        self, board: tuple[int, ...], r: int, labels: list[np.ndarray]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Each hand's abstract state in round r on ``board`` (-1: meets the board), from the
        earlier rounds' ``labels`` (per hand, on this board's prefixes) and this round's."""
        shown = (0, 3, 4, 5)[r]
        rows = np.concatenate(
            [self.hands, np.broadcast_to(board[:shown], (len(self.hands), shown))], axis=1
        )
        live = ~self._meets(board)
        lab = np.zeros(len(self.hands), dtype=np.int64)
        lab[live] = self.abstraction.labels[r][round_indexer(r, self.ranks).index(rows[live])]
        labels = labels + [lab]
        ids = bucket_sequence_ids(labels, self.counts, self.recall)[r]
        return np.where(live, ids, -1), labels

    def round(self, r: int, board: tuple[int, ...], labels: list[np.ndarray]) -> None:
        states, labels = self.states(board, r, labels)
        live = states >= 0
        K.round_top_down(
            np.int64(r),
            self.arrays,
            self.probs,
            states,
            np.int64(self.responder),
            self.reach,
        )
        if r < 3:
            deals, roots = self.deals[r], self.roots[r]
            acc = np.zeros((deals.size, len(self.hands)))
            rest = [c for c in self.deck if c not in board]
            if r == 0:
                for flop, perms in _canonical_flops(self.ranks):
                    self._deal(r, board, flop, deals, roots, labels)
                    base = self.values[roots]
                    for perm in perms:
                        acc[:, perm] += base
            elif r == 1 and self.fast:
                # turn cards up to the flop's suit symmetries: one walk per orbit, its values
                # mapped onto the other turn cards of the orbit by permuting the hands
                for card, perms in _orbits(board, rest, self.hand_perm):
                    self._deal(r, board, (card,), deals, roots, labels)
                    base = self.values[roots]
                    for perm in perms:
                        acc[:, perm] += base
            elif r == 2 and self.fast:
                self._river(board, states, deals)
                acc = self.values[deals]
            else:
                for card in rest:
                    self._deal(r, board, (card,), deals, roots, labels)
                    acc += self.values[roots]
            self.values[deals] = acc
        order = np.zeros(0, dtype=np.int64)
        strength = np.zeros(len(self.hands), dtype=np.int32)
        if r == 3:
            idx = np.flatnonzero(live)
            seven = np.concatenate(
                [self.hands[idx], np.broadcast_to(board, (idx.size, 5))], axis=1
            ).astype(np.uint8)
            strength[idx] = evaluate_batch(seven)
            order = idx[np.argsort(strength[idx], kind="stable")].astype(np.int64)
        K.round_bottom_up(
            np.int64(r),
            self.arrays,
            self.probs,
            K.RoundHands(states, self.hands, live, order, strength, np.int64(order.size)),
            float(self.multiplier[r]),
            np.int64(self.responder),
            self.best,
            self.reach,
            self.values,
            self.card_sum,
        )

    def _river(self, board: tuple[int, ...], turn_states: np.ndarray, deals: np.ndarray) -> None:
        """Values at the river deal nodes of turn ``board``: the sum over every river card, in
        one kernel call. River cards are taken up to the board's suit symmetries (one per
        orbit, its values added at the permuted hands of the others); each hand's river state
        and strength and the order of the hands that miss the board are computed here in
        numpy, so that no Python runs per river board."""
        h = len(self.hands)
        rest = [c for c in self.deck if c not in board]
        orbits = _orbits(board, rest, self.hand_perm)
        rivers = np.array([card for card, _ in orbits], dtype=np.int64)
        width = max(len(perms) for _, perms in orbits)
        perms = np.zeros((rivers.size, width, h), dtype=np.int64)
        counts = np.zeros(rivers.size, dtype=np.int64)
        for k, (_, ps) in enumerate(orbits):
            counts[k] = len(ps)
            perms[k, : len(ps)] = ps
        live = ~self.with_card[rivers] & (turn_states[None, :] >= 0)
        rows = np.empty((rivers.size, h, 7), dtype=np.int64)
        rows[..., :2] = self.hands[None]
        rows[..., 2:6] = np.asarray(board)
        rows[..., 6] = rivers[:, None]
        rows = rows[live]
        strength = np.full(live.shape, np.iinfo(np.int32).max, dtype=np.int64)
        strength[live] = evaluate_batch(rows.astype(np.uint8))
        lab = self.abstraction.labels[3][round_indexer(3, self.ranks).index(rows)]
        states = np.full(live.shape, -1, dtype=np.int64)
        if self.recall == "perfect":
            prefix = np.broadcast_to(turn_states[None, :] * self.counts[3], live.shape)
            states[live] = prefix[live] + lab
        else:
            states[live] = lab
        order = np.argsort(strength, axis=1, kind="stable")
        R.river_values(
            deals,
            self.program,
            np.int64(self.num_states[3]),
            self.probs,
            R.RiverHands(
                self.hands[order],
                order,
                np.take_along_axis(states, order, 1),
                np.take_along_axis(strength, order, 1),
                live.sum(axis=1).astype(np.int64),
                perms,
                counts,
            ),
            self.best,
            self.reach,
            self.values,
        )

    def _deal(self, r, board, cards, deals, roots, labels) -> None:
        meets = self._meets(cards)
        self.reach[roots] = self.reach[deals]
        self.reach[np.ix_(roots, np.flatnonzero(meets))] = 0.0
        self.round(r + 1, board + tuple(int(c) for c in cards), labels)

    def run(self) -> float:
        self.reach[0] = 1.0
        self.round(0, (), [])
        n_cards = len(self.deck)
        deals = comb(n_cards, 2) * comb(n_cards - 2, 2) * self.multiplier[0]
        return float(self.values[0].sum() / deals)


def real_value(
    strategy: BettingStrategy,
    responder: int,
    best: bool = True,
    threads: int | None = None,
    reference: bool = False,
    *,
    abstraction: CardAbstraction | None = None,
) -> float:
    """Value (big blinds per game) for ``responder`` of a real-game best response (``best``) or
    of ``strategy`` itself against ``strategy``, over every deal; the strategy plays by
    ``abstraction`` (default: its own). ``threads``: numba threads of the river kernel
    (default: all of numba's, i.e. every core). ``reference``: the original path (one Python
    step and two whole-tree kernels per river board), for tests."""
    strategy = as_betting_strategy(strategy)
    abstraction = strategy_abstraction(strategy, abstraction)
    walk = _Walk(strategy, abstraction, responder, best, not reference)
    prev = numba.get_num_threads()
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS if threads is None else int(threads))
    try:
        return walk.run()
    finally:
        numba.set_num_threads(prev)


def real_exploitability_mbb(
    strategy: BettingStrategy | Any,
    threads: int | None = None,
    *,
    abstraction: CardAbstraction | None = None,
) -> float:
    """Exploitability of ``strategy`` in the real game (best responses not restricted to the
    abstraction), milli big blinds per game. A solver is still read through its
    ``average_strategy()`` (deprecated: pass the strategy)."""
    strategy = as_betting_strategy(strategy)
    abstraction = strategy_abstraction(strategy, abstraction)
    return (
        1000.0
        * (
            real_value(strategy, 0, threads=threads, abstraction=abstraction)
            + real_value(strategy, 1, threads=threads, abstraction=abstraction)
        )
        / 2.0
    )
