"""Each player's hand list of a postflop spot and what the vector tree needs of it: showdown
strengths and orders on every final board, the suit-swap permutations, the total weight of the
deals (:class:`~pokerlab.tree.vector.tree.HandArrays`). :mod:`~pokerlab.games.postflop.expand`
deals the tree and calls these, and the suit swaps under which a dealt card folds onto another."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS, COMBO_INDEX
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.tree.vector.tree import SUIT_PAIRS, HandArrays

__all__ = [
    "suit_swap_combo",
    "symmetric_suit_pairs",
    "iso_pairs",
    "street_pairs",
    "iso_source",
    "deal_weight",
    "hand_arrays",
]


def _swap_card(card: int, s1: int, s2: int) -> int:
    suit = card & 3
    if suit == s1:
        return (card & ~3) | s2
    if suit == s2:
        return (card & ~3) | s1
    return card


def suit_swap_combo(combo: int, s1: int, s2: int) -> int:
    """The combo id after exchanging suits ``s1`` and ``s2``."""
    a, b = COMBO_CARDS[combo]
    return int(COMBO_INDEX[_swap_card(int(a), s1, s2), _swap_card(int(b), s1, s2)])


@lru_cache(maxsize=1)
def _swap_perms() -> np.ndarray:
    """``perm[k, c]``: combo ``c`` with the suits of ``SUIT_PAIRS[k]`` exchanged, int64
    ``(6, 1326)`` (built once: a spot's construction asks for it every time)."""
    perms = np.array([[suit_swap_combo(c, s1, s2) for c in range(1326)] for s1, s2 in SUIT_PAIRS])
    perms.setflags(write=False)
    return perms


def symmetric_suit_pairs(weights: tuple[np.ndarray, np.ndarray]) -> list[bool]:
    return [all(np.array_equal(w, w[perm]) for w in weights) for perm in _swap_perms()]


def iso_pairs(board: list[int], sym: list[bool]) -> list[tuple[int, int, int]]:
    """The suit pairs ``(id, s1, s2)``, ``s1 < s2``, under which a card dealt on ``board`` of
    suit ``s2`` is isomorphic to the same rank of suit ``s1``: the ranges are symmetric under
    the swap (``sym``) and the board holds the same ranks in both suits."""
    if not any(sym):
        return []
    ranks = [frozenset(c >> 2 for c in board if c & 3 == s) for s in range(4)]
    return [
        (pid, s1, s2)
        for pid, (s1, s2) in enumerate(SUIT_PAIRS)
        if sym[pid] and ranks[s1] == ranks[s2]
    ]


def street_pairs(cards: list[int], sym: list[bool], first: int) -> list[tuple[int, int, int]]:
    """The :func:`iso_pairs` of a chance node whose board so far is ``cards`` (in deal order;
    ``first``: the spot's own board cards) under which the swap also fixes the flop alone when
    the turn was dealt in the tree: strategies before the turn saw the flop, so a swap that maps
    the flop plus turn onto itself but trades the turn with a flop card (flop Ks Qd Ac, turn Kh,
    spades and hearts) leads to another flop's subtree, not a mirror image. postflop-solver's
    rule on flop spots (card.rs); a turn spot's board is one public state, no condition."""
    pairs = iso_pairs(cards, sym)
    if len(cards) > 3 and first < 4 and pairs:
        pairs = [p for p in pairs if p in iso_pairs(cards[:3], sym)]
    return pairs


def iso_source(card: int, pairs: list[tuple[int, int, int]]) -> tuple[int, int] | None:
    """(source card, swap id) when ``card`` is isomorphic to a lower card (``pairs``: the
    board's :func:`iso_pairs`)."""
    suit = card & 3
    for pid, s1, s2 in pairs:
        if s2 == suit:
            return (card & ~3) | s1, pid
    return None


def deal_weight(combos: tuple[np.ndarray, ...], weights: tuple[np.ndarray, ...]) -> float:
    """The total weight of the deals: the sum of ``w0[h] * w1[g]`` over the pairs of hands
    with no card in common, by inclusion-exclusion over the cards (a pair sharing a card is
    counted once per card shared, and only a hand paired with itself shares two), so without
    the (H, H) conflict matrix: milliseconds less per subgame, which search builds at the
    table."""
    w0 = weights[0][combos[0]]
    w1 = weights[1][combos[1]]
    per_card = [
        np.bincount(COMBO_CARDS[c].ravel(), np.repeat(w, 2), minlength=52)
        for c, w in ((combos[0], w0), (combos[1], w1))
    ]
    same = float(np.asarray(weights[0], dtype=np.float64) @ np.asarray(weights[1], np.float64))
    return float(w0.sum() * w1.sum() - per_card[0] @ per_card[1] + same)


#: final boards evaluated per call when the hand arrays are built
_BOARD_CHUNK = 64


def hand_arrays(
    combos: tuple[np.ndarray, ...],
    weights: tuple[np.ndarray, np.ndarray],
    boards: np.ndarray,
    hmax: int,
) -> HandArrays:
    nb = boards.shape[0]
    cards = np.zeros((2, hmax, 2), dtype=np.int64)
    weight = np.zeros((2, hmax))
    same = np.full((2, hmax), -1, dtype=np.int64)
    perm = np.zeros((2, 6, hmax), dtype=np.int64)
    order = np.zeros((2, max(nb, 1), hmax), dtype=np.int64)
    num_valid = np.zeros((2, max(nb, 1)), dtype=np.int64)
    strength = np.zeros((2, max(nb, 1), hmax), dtype=np.int64)
    # position of each combo in each player's list (-1: absent)
    where = np.full((2, 1326), -1, dtype=np.int64)
    for q in (0, 1):
        where[q, combos[q]] = np.arange(combos[q].size)
    for p in range(2):
        c = combos[p]
        n = c.size
        cards[p, :n] = COMBO_CARDS[c]
        # pad with a card no hand holds twice: padded hands have zero weight and stay unused
        weight[p, :n] = weights[p][c]
        same[p, :n] = where[1 - p, c]
        swapped = where[p][_swap_perms()[:, c]]  # (6, n): the swapped combo's position
        perm[p, :, :n] = np.where(swapped >= 0, swapped, np.arange(n))
        if p == 1 and np.array_equal(c, combos[0]):  # the same hands: the same strengths
            strength[1], order[1], num_valid[1] = strength[0], order[0], num_valid[0]
            continue
        hole = COMBO_CARDS[c].astype(np.int64)
        held = (np.int64(1) << hole[:, 0]) | (np.int64(1) << hole[:, 1])
        # the boards in chunks, each evaluated in one call (a turn spot's 48 river boards at
        # once; a flop spot's ~1,100 in a few, bounding the (boards x hands x 7) temporary)
        for lo in range(0, nb, _BOARD_CHUNK):
            bd = boards[lo : lo + _BOARD_CHUNK].astype(np.int64)
            k = bd.shape[0]
            shown = np.bitwise_or.reduce(np.int64(1) << bd, axis=1)
            valid = (held[None, :] & shown[:, None]) == 0  # (k, n): no card on the board
            seven = np.empty((k, n, 7), dtype=np.uint8)  # the evaluator's card type
            seven[:, :, :2] = hole
            seven[:, :, 2:] = bd[:, None, :]
            vals = np.zeros((k, n), dtype=np.int64)
            if valid.any():
                vals[valid] = evaluate_batch(seven[valid])
            strength[p, lo : lo + k, :n] = vals
            # valid hands by strength, ties by list position (a stable sort with the others
            # last), the rest of each row 0
            # (16 bits: the evaluator's values are at most 7,462, and numpy sorts 16-bit keys
            # stably by radix)
            key = np.where(valid, vals, np.iinfo(np.int16).max).astype(np.int16)
            ranked = np.argsort(key, axis=1, kind="stable")
            nv = valid.sum(axis=1)
            order[p, lo : lo + k, :n] = np.where(np.arange(n)[None, :] < nv[:, None], ranked, 0)
            num_valid[p, lo : lo + k] = nv
    return HandArrays(
        num=np.array([c.size for c in combos], dtype=np.int64),
        cards=cards,
        weight=weight,
        same=same,
        perm=perm,
        order=order,
        num_valid=num_valid,
        strength=strength,
    )
