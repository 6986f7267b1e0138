"""The tables of the real-game best response (:mod:`pokerlab.evaluate.limit_real`) that depend
on the betting tree and the deck only: the river subtrees renumbered for the river kernel
(:func:`_river_program`), and the suit symmetries that let a walk visit one flop, turn or river
card per orbit (:func:`_hand_perms`, :func:`_orbits`, :func:`_canonical_flops`)."""

from __future__ import annotations

import itertools

import numpy as np

from pokerlab.abstraction.isomorphism import HandIndexer
from pokerlab.games.limit_holdem import DECISION, FOLD_END, SHOWDOWN_END
from pokerlab.tree.betting._value_kernels import RiverProgram


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
