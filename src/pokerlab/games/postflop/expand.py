"""Deal the turn and river into a postflop action tree: the vector tree the solver runs on.

Every chance node of the action tree becomes one child per card that can come. Cards that are
isomorphic to a lower one (swapping two suits leaves the board's ranks per suit and both ranges
unchanged, e.g. the club and spade turns on Td 9d 6h) are not expanded: the chance node records
them with the source card and the suit swap, and the kernels read the source's values through the
hand permutation (exact when the ranges are symmetric, which is checked).

Hands: each player's list holds the combos of its range with positive weight that do not touch
the initial board. Showdown strengths come from the 7-card evaluator for every final board.

The cards dealt come from the spot's deck: all 52 cards, or the top ranks of a small deck (the
no-limit game's ``deck`` option), each remaining card with probability 1 / (the deck's cards
left once the board and both hands are out).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS, COMBO_INDEX
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.actions import ActionNode
from pokerlab.tree.vector.tree import (
    CHANCE,
    DECISION,
    FOLD,
    SHOWDOWN,
    SUIT_PAIRS,
    HandArrays,
    VectorArrays,
    VectorTree,
    fold_twins,
)

__all__ = ["ExpandedSpot", "expand_spot", "count_expanded", "suit_swap_combo"]

_KIND = {"decision": DECISION, "chance": CHANCE, "fold": FOLD, "showdown": SHOWDOWN}


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


@dataclass(eq=False)
class ExpandedSpot:
    """The vector tree plus what readers need to name its nodes."""

    tree: VectorTree
    combos: tuple[np.ndarray, np.ndarray]  # combo ids of each player's hand list
    parent: np.ndarray  # int64 (N,): parent node, -1 at the root
    action_node: list[ActionNode]  # the action-tree node of every arena node
    node_board: np.ndarray  # int8 (N, 5): board cards at each node, -1 padded
    boards: np.ndarray  # int64 (B, 5): the final boards
    deck: tuple[int, ...] = tuple(range(52))  # the card ids the spot's cards come from


@lru_cache(maxsize=1)
def _swap_perms() -> np.ndarray:
    """``perm[k, c]``: combo ``c`` with the suits of ``SUIT_PAIRS[k]`` exchanged, int64
    ``(6, 1326)`` (built once: a spot's construction asks for it every time)."""
    perms = np.array([[suit_swap_combo(c, s1, s2) for c in range(1326)] for s1, s2 in SUIT_PAIRS])
    perms.setflags(write=False)
    return perms


def _symmetric_pairs(weights: tuple[np.ndarray, np.ndarray]) -> list[bool]:
    return [all(np.array_equal(w, w[perm]) for w in weights) for perm in _swap_perms()]


def _iso_source(board: list[int], card: int, sym: list[bool]) -> tuple[int, int] | None:
    """(source card, swap id) when ``card`` is isomorphic to a lower card on ``board``."""
    suit = card & 3
    ranks = [frozenset(c >> 2 for c in board if c & 3 == s) for s in range(4)]
    for pid, (s1, s2) in enumerate(SUIT_PAIRS):
        if s2 == suit and s1 < suit and sym[pid] and ranks[s1] == ranks[s2]:
            return (card & ~3) | s1, pid
    return None


def count_expanded(root: ActionNode, board: list[int], deck_size: int = 52) -> dict[str, int]:
    """Nodes of the dealt tree by kind, counting isomorphic cards as stored (no symmetry
    assumed: an upper bound used for the memory estimate before anything is allocated), on a
    deck of ``deck_size`` cards (the board's among them)."""
    counts = {"decision": 0, "chance": 0, "terminal": 0}
    decision_numbers = [0]

    def visit(n: ActionNode, mult: int, dealt: int) -> None:
        if n.kind == "decision":
            counts["decision"] += mult
            decision_numbers[0] += mult * len(n.children) * 2  # per-hand multiplier applied later
        elif n.kind == "chance":
            counts["chance"] += mult
        else:
            counts["terminal"] += mult
        cards_left = deck_size - len(board) - dealt
        for c in n.children:
            visit(
                c, mult * cards_left if n.kind == "chance" else mult, dealt + (n.kind == "chance")
            )

    visit(root, 1, 0)
    counts["action_slots"] = decision_numbers[0] // 2
    return counts


def _deal_weight(combos: tuple[np.ndarray, ...], weights: tuple[np.ndarray, ...]) -> float:
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


def expand_spot(
    root: ActionNode,
    board: list[int],
    weights: tuple[np.ndarray, np.ndarray],
    pot: float,
    rake_rate: float = 0.0,
    rake_cap: float | None = None,
    isomorphism: bool = True,
    symmetric_pairs: list[bool] | None = None,
    deck: tuple[int, ...] | None = None,
) -> ExpandedSpot:
    """Deal the remaining streets into ``root`` and lay out the solver arrays.

    Terminal payoffs take the rake ``min(rake_rate * pot, rake_cap)`` (``rake_cap`` None: no
    cap) from the final pot, at showdowns and folds alike.

    A card dealt is folded onto a lower-suited twin when the two suits hold the same ranks on
    the board so far and may be swapped: by default when both ranges as dealt (``weights``,
    board cards removed) are symmetric under the swap; ``symmetric_pairs`` (one flag per pair
    of :data:`~pokerlab.tree.vector.tree.SUIT_PAIRS`) overrides that. postflop-solver
    (``card.rs``) swaps only suits under which the ranges *as written* are symmetric and that
    hold the same ranks on the spot's first board too, so it stores more nodes in some spots
    (same game); ``benchmarks/agreement.py`` passes its flags to count its nodes.

    ``deck``: the card ids that can come (None: all 52), holding the board and every combo of
    ``weights`` with positive weight; a chance node deals each of its cards left, with
    probability 1 / (``len(deck)`` - the board so far - 4). A small deck of the top ranks keeps
    all four suits, so the suit swaps stay symmetries of the game."""
    deck_cards = range(52) if deck is None else tuple(sorted(int(c) for c in deck))
    deck_size = len(deck_cards)
    combos = tuple(np.flatnonzero(w > 0) for w in weights)
    if deck is not None:
        inside = np.zeros(52, dtype=bool)
        inside[list(deck_cards)] = True
        if not all(inside[c] for c in board) or any(
            not inside[COMBO_CARDS[c]].all() for c in combos
        ):
            raise PokerlabError("the board and every combo of the ranges must lie in the deck")
    for p, c in enumerate(combos):
        if c.size == 0:
            raise PokerlabError(
                f"the {'OOP' if p == 0 else 'IP'} range is empty after removing the board cards"
            )
    nh = [int(c.size) for c in combos]
    hmax = max(nh)
    if symmetric_pairs is not None and len(symmetric_pairs) != len(SUIT_PAIRS):
        raise PokerlabError(f"symmetric_pairs needs {len(SUIT_PAIRS)} flags, one per suit pair")
    if not isomorphism:
        sym = [False] * len(SUIT_PAIRS)
    elif symmetric_pairs is not None:
        sym = [bool(flag) for flag in symmetric_pairs]
    else:
        sym = _symmetric_pairs(weights)

    kind: list[int] = []
    player: list[int] = []
    kids: list[list[int]] = []
    edge_cards: list[list[int]] = []
    chance_weight: list[float] = []
    iso: list[list[tuple[int, int, int]]] = []
    parent: list[int] = []
    anode: list[ActionNode] = []
    node_board: list[list[int]] = []
    board_id: list[int] = []
    win: list[float] = []
    lose: list[float] = []
    tie: list[float] = []
    boards: dict[tuple[int, ...], int] = {}
    depth_max = [0]

    def payoffs(n: ActionNode) -> tuple[float, float, float]:
        c = n.commit[n.player] if n.kind == "fold" else n.commit[0]
        total = pot + 2 * c
        rake = rake_rate * total
        if rake_cap is not None:
            rake = min(rake, rake_cap)
        return total - rake - c, -float(c), (total - rake) / 2 - c

    def visit(n: ActionNode, cards: list[int], par: int, depth: int) -> int:
        nid = len(kind)
        depth_max[0] = max(depth_max[0], depth)
        kind.append(_KIND[n.kind])
        player.append(n.player)
        kids.append([])
        edge_cards.append([])
        iso.append([])
        parent.append(par)
        anode.append(n)
        node_board.append(cards)
        chance_weight.append(0.0)
        if n.kind in ("fold", "showdown"):
            w, lo, ti = payoffs(n)
            win.append(w)
            lose.append(lo)
            tie.append(ti)
            if n.kind == "showdown":
                key = tuple(sorted(cards))
                board_id.append(boards.setdefault(key, len(boards)))
            else:
                board_id.append(-1)
            return nid
        win.append(0.0)
        lose.append(0.0)
        tie.append(0.0)
        board_id.append(-1)
        if n.kind == "decision":
            kids[nid] = [visit(c, cards, nid, depth + 1) for c in n.children]
            edge_cards[nid] = [-1] * len(n.children)
            return nid
        # chance: one child per card that can come, isomorphic cards folded onto a source
        chance_weight[nid] = 1.0 / (deck_size - len(cards) - 4)
        template = n.children[0]
        slots: dict[int, int] = {}
        for card in deck_cards:
            if card in cards:
                continue
            src = _iso_source(cards, card, sym) if isomorphism else None
            if src is not None and src[0] in slots:
                iso[nid].append((slots[src[0]], card, src[1]))
                continue
            slots[card] = len(kids[nid])
            kids[nid].append(visit(template, [*cards, card], nid, depth + 1))
            edge_cards[nid].append(card)
        return nid

    visit(root, list(board), -1, 0)
    # a recursive closure is a reference cycle (visit -> its cell -> visit) holding every list
    # above until the cyclic collector runs: break it, so they go when this function returns
    visit = None  # type: ignore[assignment]
    n_nodes = len(kind)

    # solver layout: actions x hands(actor) per decision node, player-major (OOP's blocks in
    # preorder, then IP's) so that each player owns one slice (VectorTree.player_ranges)
    offset = np.full(n_nodes, -1, dtype=np.int64)
    size = 0
    player_ranges = []
    for owner in (0, 1):
        start = size
        for i in range(n_nodes):
            if kind[i] == DECISION and player[i] == owner:
                offset[i] = size
                size += len(kids[i]) * nh[player[i]]
        player_ranges.append((start, size))
    child_start = np.zeros(n_nodes + 1, dtype=np.int64)
    child_start[1:] = np.cumsum([len(k) for k in kids])
    iso_start = np.zeros(n_nodes + 1, dtype=np.int64)
    iso_start[1:] = np.cumsum([len(x) for x in iso])
    flat_iso = [x for row in iso for x in row]

    # split points: chance nodes with no chance ancestor; their dealt children are work items
    item_first = np.full(n_nodes, -1, dtype=np.int64)
    item_node: list[int] = []
    for i in range(n_nodes):
        if kind[i] != CHANCE:
            continue
        a = parent[i]
        while a >= 0 and kind[a] != CHANCE:
            a = parent[a]
        if a < 0:
            item_first[i] = len(item_node)
            item_node.extend(kids[i])
    arrays = VectorArrays(
        kind=np.array(kind, dtype=np.int8),
        player=np.array(player, dtype=np.int8),
        child_start=child_start,
        children=np.array([c for k in kids for c in k], dtype=np.int64),
        edge_card=np.array([c for k in edge_cards for c in k], dtype=np.int64),
        chance_weight=np.array(chance_weight),
        iso_start=iso_start,
        iso_child=np.array([x[0] for x in flat_iso], dtype=np.int64),
        iso_card=np.array([x[1] for x in flat_iso], dtype=np.int64),
        iso_swap=np.array([x[2] for x in flat_iso], dtype=np.int64),
        offset=offset,
        board=np.array(board_id, dtype=np.int64),
        win=np.array(win),
        lose=np.array(lose),
        tie=np.array(tie),
        item_first=item_first,
        item_node=np.array(item_node, dtype=np.int64),
        twin=fold_twins(kind, player, kids),
    )

    final_boards = np.array(sorted(boards, key=boards.__getitem__), dtype=np.int64).reshape(-1, 5)
    hands = _hand_arrays(combos, weights, final_boards, hmax)
    norm = _deal_weight(combos, weights)
    max_children = max(len(k) for k in kids) if kids else 1
    tree = VectorTree(
        arrays=arrays,
        hands=hands,
        size=size,
        player_ranges=player_ranges,
        depth=depth_max[0],
        max_children=max(max_children, 1),
        norm=norm,
    )
    nb = np.full((n_nodes, 5), -1, dtype=np.int8)  # cards 0..51: a byte (the flop's: 2.7 MB)
    for i, cs in enumerate(node_board):
        nb[i, : len(cs)] = cs
    return ExpandedSpot(
        tree=tree,
        combos=(combos[0], combos[1]),
        parent=np.array(parent, dtype=np.int64),
        action_node=anode,
        node_board=nb,
        boards=final_boards,
        deck=tuple(deck_cards),
    )


#: final boards evaluated per call when the hand arrays are built
_BOARD_CHUNK = 64


def _hand_arrays(
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
        hole = COMBO_CARDS[c].astype(np.int64)
        held = (np.int64(1) << hole[:, 0]) | (np.int64(1) << hole[:, 1])
        # the boards in chunks, each evaluated in one call (a turn spot's 48 river boards at
        # once; a flop spot's ~1,100 in a few, bounding the (boards x hands x 7) temporary)
        for lo in range(0, nb, _BOARD_CHUNK):
            bd = boards[lo : lo + _BOARD_CHUNK].astype(np.int64)
            k = bd.shape[0]
            shown = np.bitwise_or.reduce(np.int64(1) << bd, axis=1)
            valid = (held[None, :] & shown[:, None]) == 0  # (k, n): no card on the board
            seven = np.concatenate(
                [np.broadcast_to(hole, (k, n, 2)), np.broadcast_to(bd[:, None, :], (k, n, 5))],
                axis=2,
            )
            vals = np.zeros((k, n), dtype=np.int64)
            if valid.any():
                vals[valid] = evaluate_batch(seven[valid])
            strength[p, lo : lo + k, :n] = vals
            # valid hands by strength, ties by list position (a stable sort with the others
            # last), the rest of each row 0
            key = np.where(valid, vals, np.iinfo(np.int64).max)
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
