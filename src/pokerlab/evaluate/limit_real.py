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

import itertools
from math import comb
from typing import Any

import numba
import numpy as np

from pokerlab.abstraction.buckets import CardAbstraction, bucket_sequence_ids
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.evaluate import _limit_real_kernels as K
from pokerlab.evaluate.limit_strategy import as_betting_strategy, deck_hands, strategy_abstraction
from pokerlab.games.limit_holdem import DEAL, DECISION, FOLD_END, SHOWDOWN_END
from pokerlab.strategy import BettingStrategy
from pokerlab.tree.betting._kernels import betting_arrays
from pokerlab.tree.betting._value_kernels import RiverProgram

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
        K.river_values(
            deals,
            self.program,
            np.int64(self.num_states[3]),
            self.probs,
            K.RiverHands(
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


def _river_program(tree, roots: np.ndarray, offset: np.ndarray, responder: int) -> RiverProgram:
    """The river subtrees below ``roots`` renumbered for ``K.river_values``: per subtree, its
    decisions in preorder (the root first), then its folds, then its showdowns; the decisions'
    children as local numbers, whose they are, where their strategy starts; the folds'
    signed stakes for ``responder`` and the showdowns' stakes (big blinds)."""
    ends = _subtree_ends(tree)
    kind, player = tree.kind, tree.player
    cs, ch = tree.child_start, tree.children
    stake = tree.payoff_table[tree.payoff_id]
    size = int(max(ends[r] - r for r in roots))
    d_count = len(roots)
    num_dec, num_fold, num_show = (np.zeros(d_count, dtype=np.int64) for _ in range(3))
    dec_first, dec_count, dec_base = (np.zeros((d_count, size), dtype=np.int64) for _ in range(3))
    dec_mine = np.zeros((d_count, size), dtype=np.bool_)
    child_local = np.zeros((d_count, size - 1), dtype=np.int64)
    fold_coef, show_amount = np.zeros((d_count, size)), np.zeros((d_count, size))
    for i, root in enumerate(roots):
        nodes = np.arange(root, ends[root])
        decs = nodes[kind[nodes] == DECISION]
        folds = nodes[kind[nodes] == FOLD_END]
        shows = nodes[kind[nodes] == SHOWDOWN_END]
        if decs.size == 0 or decs[0] != root or decs.size + folds.size + shows.size != nodes.size:
            raise ValueError("a river subtree must be decisions and terminals below a decision")
        local = np.empty(tree.num_nodes, dtype=np.int64)
        local[np.concatenate([decs, folds, shows])] = np.arange(nodes.size)
        num_dec[i], num_fold[i], num_show[i] = decs.size, folds.size, shows.size
        e = 0
        for k, n in enumerate(decs):
            kids = ch[cs[n] : cs[n + 1]]
            dec_first[i, k], dec_count[i, k] = e, kids.size
            dec_mine[i, k] = player[n] == responder
            dec_base[i, k] = offset[n]
            child_local[i, e : e + kids.size] = local[kids]
            e += kids.size
        fold_coef[i, : folds.size] = np.where(player[folds] == responder, -1.0, 1.0) * stake[folds]
        show_amount[i, : shows.size] = stake[shows]
    return RiverProgram(
        num_dec, num_fold, num_show, dec_first, dec_count, dec_mine, dec_base, child_local,
        fold_coef, show_amount,
    )  # fmt: skip


def _hand_perms(ranks: int) -> dict[tuple[int, ...], np.ndarray]:
    """For each of the 24 permutations of the suits, the hand-pair index that each hand
    (index into the sorted pairs of the deck) is mapped to."""
    deck = list(range(52 - 4 * ranks, 52))
    hands = list(itertools.combinations(deck, 2))
    index = {hd: i for i, hd in enumerate(hands)}
    out = {}
    for perm in itertools.permutations(range(4)):
        mapped = np.empty(len(hands), dtype=np.int64)
        for i, (a, b) in enumerate(hands):
            pa, pb = (a & ~3) | perm[a & 3], (b & ~3) | perm[b & 3]
            mapped[i] = index[(min(pa, pb), max(pa, pb))]
        out[perm] = mapped
    return out


def _orbits(
    board: tuple[int, ...], cards: list[int], hand_perm: dict[tuple[int, ...], np.ndarray]
) -> list[tuple[int, list[np.ndarray]]]:
    """The orbits of ``cards`` under the suit permutations that fix ``board`` (the flop as a
    set, the later cards one by one): one card per orbit, with per card of its orbit the hand
    permutation that maps the representative's values onto that card's
    (values[:, perm] += representative's values). The abstract strategy is suit-blind and the
    earlier rounds' hand vectors are fixed by these permutations, so this is exact."""
    flop, later = frozenset(board[:3]), board[3:]

    def image(perm: tuple[int, ...], c: int) -> int:
        return (c & ~3) | perm[c & 3]

    group = [
        perm
        for perm in itertools.permutations(range(4))
        if frozenset(image(perm, c) for c in flop) == flop
        and all(image(perm, c) == c for c in later)
    ]
    seen: set[int] = set()
    out = []
    for card in cards:
        if card in seen:
            continue
        perms = []
        for perm in group:
            c = image(perm, card)
            if c not in seen:
                seen.add(c)
                perms.append(hand_perm[perm])
        out.append((card, perms))
    return out


def _subtree_ends(tree) -> np.ndarray:
    """One past the last node of each node's subtree (preorder ids)."""
    ends = np.arange(1, tree.num_nodes + 1, dtype=np.int64)
    cs, ch = tree.child_start, tree.children
    for n in range(tree.num_nodes - 1, -1, -1):
        if cs[n + 1] > cs[n]:
            ends[n] = ends[ch[cs[n + 1] - 1]]
    return ends


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
