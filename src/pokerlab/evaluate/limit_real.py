"""Exact best response in the real game against an abstract limit hold'em strategy (issue 10).

The best responder sees its real cards and the board (not buckets); the opponent plays the
abstract strategy (its action probabilities by bucket state, read from the solver's arrays).
One walk of the public tree (betting rounds x board cards) with vectors over every hole-card
pair of the best responder: per round and board prefix, the opponent's reach goes down the
round's decisions, every next card (the flop as a set, then the turn, then the river) is dealt
below its deal nodes and the values come back up, maximised per (hand, board, betting).

Values are sums over the opponent's hands and the board completions; the best response value is
their average over the responder's hands and all deals. The flops are walked up to suit
isomorphism (the abstract strategy is suit-blind): each canonical flop's values are mapped to
the other flops of its class by permuting the hands.

Cost grows with the deck: the 16-card deck takes seconds with one raise per round, the 24-card
deck minutes with ACPC caps.
"""

from __future__ import annotations

import itertools
from math import comb

import numpy as np

from pokerlab.abstraction.buckets import bucket_sequence_ids
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.evaluate import _limit_real_kernels as K
from pokerlab.games.limit_holdem import DEAL

__all__ = ["real_value", "real_exploitability_mbb"]


class _Walk:
    def __init__(self, solver, probs: np.ndarray, responder: int, best: bool) -> None:
        self.solver = solver
        self.tree = solver.tree
        self.probs = probs
        self.responder = responder
        self.best = best
        self.ranks = solver.game.rules.ranks
        self.deck = [int(c) for c in solver.game.rules.cards]
        self.hands = solver.hands
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
        self.counts = tuple(int(b) for b in solver.abstraction.buckets)
        self.with_card = np.zeros((52, h), dtype=bool)
        for i, (a, b) in enumerate(self.hands):
            self.with_card[a, i] = self.with_card[b, i] = True

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
        lab[live] = self.solver.abstraction.labels[r][
            round_indexer(r, self.ranks).index(rows[live])
        ]
        labels = labels + [lab]
        ids = bucket_sequence_ids(labels, self.counts, self.solver.recall)[r]
        return np.where(live, ids, -1), labels

    def round(self, r: int, board: tuple[int, ...], labels: list[np.ndarray]) -> None:
        t, s = self.tree, self.solver
        states, labels = self.states(board, r, labels)
        live = states >= 0
        K.round_top_down(
            np.int64(r),
            t.kind,
            t.player,
            t.round,
            t.child_start,
            t.children,
            s.offset,
            s.num_states,
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
            t.kind,
            t.player,
            t.round,
            t.child_start,
            t.children,
            t.payoff_id,
            t.payoff_table,
            s.offset,
            s.num_states,
            self.probs,
            states,
            self.hands,
            live,
            order,
            strength,
            np.int64(order.size),
            float(self.multiplier[r]),
            np.int64(self.responder),
            self.best,
            self.reach,
            self.values,
            self.card_sum,
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


def _canonical_flops(ranks: int) -> list[tuple[tuple[int, int, int], list[np.ndarray]]]:
    """Each canonical flop with, per distinct flop of its class, the hand permutation that maps
    the canonical flop's hand vector onto that flop's (values[:, perm] += canonical values)."""
    return _FLOPS.setdefault(ranks, _build_flops(ranks))


_FLOPS: dict[int, list] = {}


def _build_flops(ranks: int) -> list:
    deck = list(range(52 - 4 * ranks, 52))
    hands = list(itertools.combinations(deck, 2))
    index = {h: i for i, h in enumerate(hands)}
    indexer = HandIndexer((3,), ranks)
    flops, _ = indexer.unindex(np.arange(indexer.size))
    out = []
    for flop in flops:
        seen: set[frozenset[int]] = set()
        perms = []
        for perm in itertools.permutations(range(4)):
            image = frozenset((c & ~3) | perm[c & 3] for c in flop)
            if image in seen:
                continue
            seen.add(image)
            mapped = np.empty(len(hands), dtype=np.int64)
            for i, (a, b) in enumerate(hands):
                pa, pb = (a & ~3) | perm[a & 3], (b & ~3) | perm[b & 3]
                mapped[i] = index[(min(pa, pb), max(pa, pb))]
            perms.append(mapped)
        out.append((tuple(int(c) for c in flop), perms))
    return out


def real_value(solver, probs: np.ndarray, responder: int, best: bool = True) -> float:
    """Value (big blinds per game) for ``responder`` of a real-game best response (``best``) or
    of ``probs`` itself against ``probs`` (solver layout), over every deal."""
    return _Walk(solver, np.asarray(probs, dtype=np.float64), responder, best).run()


def real_exploitability_mbb(solver) -> float:
    """Exploitability of ``solver``'s average strategy in the real game (best responses not
    restricted to the abstraction), milli big blinds per game."""
    probs = solver.average_strategy()
    return 1000.0 * (real_value(solver, probs, 0) + real_value(solver, probs, 1)) / 2.0
