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
from itertools import chain

import numpy as np

from pokerlab._rng import generator
from pokerlab.cards.deck import COMBO_CARDS
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.actions import ActionNode
from pokerlab.games.postflop.hand_lists import (
    deal_weight,
    hand_arrays,
    iso_source,
    street_pairs,
    suit_swap_combo,
    symmetric_suit_pairs,
)
from pokerlab.tree.vector.tree import (
    CHANCE,
    DECISION,
    FOLD,
    SHOWDOWN,
    SUIT_PAIRS,
    VectorArrays,
    VectorTree,
    fold_twins,
)

__all__ = ["ExpandedSpot", "expand_spot", "count_expanded", "suit_swap_combo"]

_KIND = {"decision": DECISION, "chance": CHANCE, "fold": FOLD, "showdown": SHOWDOWN}


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


def _deals_below(n: ActionNode, memo: dict[int, bool]) -> bool:
    """Whether a chance node lies in ``n``'s subtree (``n`` included; ``memo`` by ``id``)."""
    got = memo.get(id(n))
    if got is None:
        got = memo[id(n)] = n.kind == "chance" or any(_deals_below(c, memo) for c in n.children)
    return got


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
    deal_sample: tuple[int, ...] | None = None,
    deal_seed: int = 0,
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
    all four suits, so the suit swaps stay symmetries of the game.

    ``deal_sample``: public chance sampling of the later deals (the leaves of a depth-limited
    search, :mod:`pokerlab.solvers.search.table_depth`): the chance nodes of the ``i``-th card
    dealt after ``board`` deal only ``deal_sample[i]`` cards (at least 3: a hand holds two, so
    every hand keeps a sampled card, :func:`~pokerlab.tree.vector._chance_kernels.sampled_spread`
    stays finite; the search agent asks 5 on the turn and river) drawn uniformly from
    the cards left, by a generator seeded with ``deal_seed``, in tree order (every chance node
    its own draw); a count at or above the cards left deals them all. A sampled node's weight is
    stored negated: the passes renormalise its values per hand so that each hand's chance
    probability still sums to one (:func:`~pokerlab.tree.vector._chance_kernels.
    sampled_renormalise`). No suit isomorphism then."""
    if deal_sample is not None:
        if any(int(m) < 3 for m in deal_sample):
            raise PokerlabError(
                f"a sampled deal needs at least 3 cards (a hand blocks 2), got {deal_sample}"
            )
        isomorphism = False
    rng = generator(deal_seed)  # the package's seeding (pokerlab._rng)
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
        sym = symmetric_suit_pairs(weights)

    kind: list[int] = []
    player: list[int] = []
    kids: list[list[int]] = []
    edge_cards: list[list[int]] = []
    chance_weight: list[float] = []
    iso: list[list[tuple[int, int, int]]] = []
    parent: list[int] = []
    # a copied block shares its first block's lists of child ids and parents: ``shift`` is
    # what to add to them (0 for the nodes walked), ``roots`` each copy's root and parent
    shift: list[int] = []
    roots: list[tuple[int, int]] = []
    anode: list[ActionNode] = []
    node_board: list[list[int]] = []
    board_id: list[int] = []
    win: list[float] = []
    lose: list[float] = []
    tie: list[float] = []
    boards: dict[tuple[int, ...], int] = {}
    depth_max = [0]
    below: dict[int, bool] = {}  # per action node: whether a deal lies in its subtree

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
        shift.append(0)
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
        dealt_here = [c for c in deck_cards if c not in cards]
        later = len(cards) - len(board)
        if deal_sample is not None and later < len(deal_sample):
            if int(deal_sample[later]) < len(dealt_here):
                picks = rng.choice(len(dealt_here), size=int(deal_sample[later]), replace=False)
                dealt_here = [dealt_here[i] for i in sorted(picks.tolist())]
                chance_weight[nid] = -chance_weight[nid]  # sampled: renormalised per hand
        template = n.children[0]
        # below the last deal every subtree has one shape: the first walked, the rest copied
        flat = not _deals_below(template, below)
        block: tuple[int, int] | None = None
        shows: list[int] = []  # the first block's showdowns, relative to its root
        slots: dict[int, int] = {}
        pairs = street_pairs(cards, sym, len(board)) if isomorphism else []
        for card in dealt_here:
            src = iso_source(card, pairs) if pairs else None
            if src is not None and src[0] in slots:
                iso[nid].append((slots[src[0]], card, src[1]))
                continue
            slots[card] = len(kids[nid])
            if flat and block is not None:
                kids[nid].append(copy_block(block, shows, [*cards, card], nid))
            else:
                start = len(kind)
                kids[nid].append(visit(template, [*cards, card], nid, depth + 1))
                block = (start, len(kind))
                shows = [j for j, b in enumerate(board_id[start:]) if b >= 0]
            edge_cards[nid].append(card)
        return nid

    def copy_block(block: tuple[int, int], shows: list[int], board: list[int], par: int) -> int:
        """Append a copy of the nodes ``block`` (a dealt card's subtree holding no deal) for
        the cards ``board`` under the chance node ``par`` (``shows``: the block's showdowns,
        relative); its root's id. Lists are extended by slices, no Python work per node."""
        lo, hi = block
        delta = len(kind) - lo
        for column in (kind, player, kids, edge_cards, iso, parent, anode, chance_weight):
            column.extend(column[lo:hi])  # kids, edge_cards, iso: lists never changed again
        for column in (win, lose, tie, board_id):
            column.extend(column[lo:hi])
        shift.extend([delta] * (hi - lo))
        roots.append((lo + delta, par))
        node_board.extend([board] * (hi - lo))
        if shows:
            bid = boards.setdefault(tuple(sorted(board)), len(boards))
            for j in shows:
                board_id[lo + delta + j] = bid
        return lo + delta

    visit(root, list(board), -1, 0)
    # a recursive closure is a reference cycle (visit -> its cell -> visit) holding every list
    # above until the cyclic collector runs: break it, so they go when this function returns
    visit = None  # type: ignore[assignment]
    n_nodes = len(kind)
    kind_a = np.array(kind, dtype=np.int8)
    player_a = np.array(player, dtype=np.int8)
    shift_a = np.array(shift, dtype=np.int64)
    lens = np.fromiter(map(len, kids), dtype=np.int64, count=n_nodes)
    child_start = np.zeros(n_nodes + 1, dtype=np.int64)
    child_start[1:] = np.cumsum(lens)
    n_edges = int(child_start[-1])
    children = np.fromiter(chain.from_iterable(kids), dtype=np.int64, count=n_edges)
    children += np.repeat(shift_a, lens)
    parent_a = np.array(parent, dtype=np.int64) + shift_a
    if roots:
        at = np.array(roots, dtype=np.int64)
        parent_a[at[:, 0]] = at[:, 1]

    # solver layout: actions x hands(actor) per decision node, player-major (OOP's blocks in
    # preorder, then IP's) so that each player owns one slice (VectorTree.player_ranges)
    offset = np.full(n_nodes, -1, dtype=np.int64)
    size = 0
    player_ranges = []
    for owner in (0, 1):
        mine = np.flatnonzero((kind_a == DECISION) & (player_a == owner))
        widths = lens[mine] * nh[owner]
        offset[mine] = size + np.cumsum(widths) - widths
        player_ranges.append((size, size + int(widths.sum())))
        size += int(widths.sum())
    iso_start = np.zeros(n_nodes + 1, dtype=np.int64)
    iso_start[1:] = np.cumsum([len(x) for x in iso])
    flat_iso = [x for row in iso for x in row]

    # split points: chance nodes with no chance ancestor; their dealt children are work items
    item_first = np.full(n_nodes, -1, dtype=np.int64)
    item_node: list[int] = []
    for i in np.flatnonzero(kind_a == CHANCE).tolist():
        a = parent_a[i]
        while a >= 0 and kind_a[a] != CHANCE:
            a = parent_a[a]
        if a < 0:
            item_first[i] = len(item_node)
            item_node.extend(kids[i])  # a chance node is never copied: its ids are absolute
    arrays = VectorArrays(
        kind=kind_a,
        player=player_a,
        child_start=child_start,
        children=children,
        edge_card=np.fromiter(chain.from_iterable(edge_cards), dtype=np.int64, count=n_edges),
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
        twin=fold_twins(kind_a, player_a, child_start, children),
    )

    final_boards = np.array(sorted(boards, key=boards.__getitem__), dtype=np.int64).reshape(-1, 5)
    hands = hand_arrays(combos, weights, final_boards, hmax)
    norm = deal_weight(combos, weights)
    max_children = int(lens.max()) if n_nodes else 1
    tree = VectorTree(
        arrays=arrays,
        hands=hands,
        size=size,
        player_ranges=player_ranges,
        depth=depth_max[0],
        max_children=max(max_children, 1),
        norm=norm,
    )
    # cards 0..51: a byte (the flop's: 2.7 MB); one row per distinct board list, then gathered
    rows: dict[int, int] = {}
    which = [rows.setdefault(i, len(rows)) for i in map(id, node_board)]
    lists = {id(cs): cs for cs in node_board}
    table = np.full((len(rows), 5), -1, dtype=np.int8)
    for i, r in rows.items():
        table[r, : len(lists[i])] = lists[i]
    nb = table[np.array(which, dtype=np.int64)]
    return ExpandedSpot(
        tree=tree,
        combos=(combos[0], combos[1]),
        parent=parent_a,
        action_node=anode,
        node_board=nb,
        boards=final_boards,
        deck=tuple(deck_cards),
    )
