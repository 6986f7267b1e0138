"""Builds public trees from game rules (no hand-written tables).

:func:`build_limit_tree` walks the betting rules of a heads-up limit poker game
(:class:`~pokerlab.games.limit.LimitRules`) and lays the public tree out in preorder with the
solver-array layout: player 0's decision blocks first, then player 1's, each block
``actions x private states`` (action-major, so one action's row over all hands is contiguous).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from pokerlab.games.limit import CALL, FOLD, RAISE, LimitRules

if TYPE_CHECKING:
    from pokerlab.games.pushfold import PushFoldGame
from pokerlab.tree.public_tree import (
    CHANCE_NODE,
    DECISION,
    SHOWDOWN,
    PublicTree,
    TreeArrays,
    dense_terminal_tables,
)
from pokerlab.tree.public_tree import FOLD as FOLD_NODE

__all__ = [
    "NodeList",
    "PrivateTables",
    "assemble_public_tree",
    "build_limit_tree",
    "build_pushfold_tree",
    "limit_key",
]


def limit_key(private: str, board: str, history: str) -> str:
    """Information-set key of limit games: ``"Qs|Kh:rc/r"`` (private card, board, actions)."""
    return f"{private}|{board}:{history}" if board else f"{private}:{history}"


@dataclass
class NodeList:
    """Growing node lists of a public tree under construction (preorder)."""

    kind: list[int] = field(default_factory=list)
    player: list[int] = field(default_factory=list)
    board: list[int] = field(default_factory=list)
    amount: list[float] = field(default_factory=list)
    children: list[list[int]] = field(default_factory=list)
    history: list[str] = field(default_factory=list)
    labels: list[tuple[str, ...]] = field(default_factory=list)

    def add(self, kind: int, player: int, board: int, amount: float, history: str) -> int:
        self.kind.append(kind)
        self.player.append(player)
        self.board.append(board)
        self.amount.append(amount)
        self.children.append([])
        self.history.append(history)
        self.labels.append(())
        return len(self.kind) - 1


def build_limit_tree(rules: LimitRules) -> PublicTree:
    """Build the public tree of a heads-up limit poker game with one private card per player.

    Payoffs are chips. The deal is uniform over ordered pairs of distinct private cards, so each
    terminal amount is multiplied by ``1 / (C (C - 1))`` and by ``1 / (cards left)`` per public
    card dealt above it: the counterfactual values the kernels compute are then exactly the sums
    over histories that history-based CFR computes.
    """
    num_cards = len(rules.card_names)
    num_private = num_cards
    deal_scale = 1.0 / (num_private * (num_private - 1))

    boards: dict[tuple[int, ...], int] = {(): 0}
    nodes = NodeList()

    def board_id(board: tuple[int, ...]) -> int:
        if board not in boards:
            boards[board] = len(boards)
        return boards[board]

    def build(
        rnd: int,
        actions: str,
        history: str,
        contrib: tuple[float, float],
        bets: int,
        board: tuple[int, ...],
        chance: float,
    ) -> int:
        player = len(actions) % 2  # player 0 opens every round
        n = nodes.add(DECISION, player, board_id(board), 0.0, history)
        facing = contrib[1 - player] > contrib[player]
        legal = (
            ([FOLD] if facing else []) + [CALL] + ([RAISE] if bets < rules.max_bets[rnd] else [])
        )
        names = rules.labels_fold_call_raise if facing else rules.labels_check_bet
        labels = tuple(names[a] if facing else names[a - 1] for a in legal)
        nodes.labels[n] = labels
        kids: list[int] = []
        for action, label in zip(legal, labels, strict=True):
            h = history + label
            if action == FOLD:
                kid = nodes.add(
                    FOLD_NODE, player, board_id(board), contrib[player] * chance * deal_scale, h
                )
            elif action == RAISE:
                new = list(contrib)
                new[player] = contrib[1 - player] + rules.bet_sizes[rnd]
                kid = build(rnd, actions + "r", h, (new[0], new[1]), bets + 1, board, chance)
            else:  # check or call
                new = list(contrib)
                new[player] = contrib[1 - player]
                closes = facing or len(actions) >= 1
                if not closes:
                    kid = build(rnd, actions + "c", h, (new[0], new[1]), bets, board, chance)
                elif rnd + 1 == rules.num_rounds:
                    kid = nodes.add(SHOWDOWN, -1, board_id(board), new[0] * chance * deal_scale, h)
                else:
                    kid = deal(rnd + 1, h + "/", (new[0], new[1]), board, chance)
            kids.append(kid)
        nodes.children[n] = kids
        return n

    def deal(
        rnd: int, history: str, contrib: tuple[float, float], board: tuple[int, ...], chance: float
    ) -> int:
        count = rules.board_cards[rnd]
        if count == 0:
            return build(rnd, "", history, contrib, 0, board, chance)
        if count != 1:
            raise NotImplementedError("limit builder deals one public card per round")
        n = nodes.add(CHANCE_NODE, -1, board_id(board), 0.0, history)
        left = num_cards - 2 - len(board)  # cards neither player nor the board holds
        kids = []
        for card in range(num_cards):
            if card in board:
                continue
            kids.append(build(rnd, "", history, contrib, 0, board + (card,), chance / left))
        nodes.children[n] = kids
        return n

    ante = rules.ante
    build(0, "", "", (ante, ante), 0, (), 1.0)
    return _finish(rules, nodes, boards, num_cards)


@dataclass
class PrivateTables:
    """Per-board private-state tables of a public tree (see :class:`TreeArrays`)."""

    valid: np.ndarray
    strength: np.ndarray
    order: np.ndarray
    num_valid: np.ndarray
    private_cards: np.ndarray
    dense_compat: np.ndarray
    dense_sign: np.ndarray
    root_reach: np.ndarray


def assemble_public_tree(
    name: str,
    nodes: NodeList,
    tables: PrivateTables,
    private_names: list[str],
    board_names: list[str],
    key_format: Callable[[str, str, str], str],
    num_cards: int = 52,
) -> PublicTree:
    """Lay out a public tree built in preorder: child ranges, subtree ends, solver offsets
    (player 0's blocks, then player 1's; ``actions x private states`` each), flat arrays."""
    num_nodes = len(nodes.kind)
    num_private = tables.private_cards.shape[0]
    child_start = np.zeros(num_nodes + 1, dtype=np.int32)
    for n, kids in enumerate(nodes.children):
        child_start[n + 1] = child_start[n] + len(kids)
    children = np.array([k for kids in nodes.children for k in kids], dtype=np.int32)
    subtree_end = np.arange(1, num_nodes + 1, dtype=np.int32)
    for n in range(num_nodes - 1, -1, -1):
        for k in nodes.children[n]:
            subtree_end[n] = max(subtree_end[n], subtree_end[k])

    kind = np.array(nodes.kind, dtype=np.int8)
    player = np.array(nodes.player, dtype=np.int8)
    offset = np.full(num_nodes, -1, dtype=np.int64)
    ranges = []
    cursor = 0
    for p in (0, 1):
        start = cursor
        for n in range(num_nodes):
            if kind[n] == DECISION and player[n] == p:
                offset[n] = cursor
                cursor += len(nodes.children[n]) * num_private
        ranges.append((start, cursor))

    arrays = TreeArrays(
        kind=kind,
        player=player,
        child_start=child_start,
        children=children,
        subtree_end=subtree_end,
        decisions=np.flatnonzero(kind == DECISION).astype(np.int32),
        terminals=np.flatnonzero(kind >= FOLD_NODE).astype(np.int32),
        board=np.array(nodes.board, dtype=np.int32),
        offset=offset,
        amount=np.array(nodes.amount, dtype=np.float64),
        valid=tables.valid,
        strength=tables.strength,
        order=tables.order,
        num_valid=tables.num_valid,
        private_cards=tables.private_cards,
        dense_compat=tables.dense_compat,
        dense_sign=tables.dense_sign,
        root_reach=tables.root_reach,
        num_cards=num_cards,
    )
    return PublicTree(
        name=name,
        arrays=arrays,
        private_names=private_names,
        board_names=board_names,
        history=nodes.history,
        action_labels=nodes.labels,
        size=cursor,
        player_ranges=ranges,
        key_format=key_format,
    )


def _finish(
    rules: LimitRules, nodes: NodeList, boards: dict[tuple[int, ...], int], num_cards: int
) -> PublicTree:
    num_private = num_cards
    board_list = sorted(boards, key=boards.__getitem__)
    num_boards = len(board_list)
    valid = np.zeros((num_boards, num_private), dtype=np.bool_)
    strength = np.full((num_boards, num_private), -1, dtype=np.int32)
    order = np.full((num_boards, num_private), -1, dtype=np.int32)
    num_valid = np.zeros(num_boards, dtype=np.int32)
    for b, board in enumerate(board_list):
        hands = [h for h in range(num_private) if h not in board]
        for h in hands:
            valid[b, h] = True
            strength[b, h] = rules.strength(h, board)
        ranked = sorted(hands, key=lambda h: strength[b, h])  # noqa: B023
        order[b, : len(ranked)] = ranked
        num_valid[b] = len(ranked)

    private_cards = np.full((num_private, 2), -1, dtype=np.int32)
    private_cards[:, 0] = np.arange(num_private)
    dense_compat, dense_sign = dense_terminal_tables(valid, strength, private_cards)
    tables = PrivateTables(
        valid,
        strength,
        order,
        num_valid,
        private_cards,
        dense_compat,
        dense_sign,
        np.ones((2, num_private), dtype=np.float64),
    )
    return assemble_public_tree(
        rules.name,
        nodes,
        tables,
        list(rules.card_names),
        ["".join(rules.card_names[c] for c in b) for b in board_list],
        limit_key,
        num_cards,
    )


def build_pushfold_tree(game: PushFoldGame) -> PublicTree:
    """The public tree of heads-up push/fold (see :mod:`pokerlab.games.pushfold`)."""
    from pokerlab.cards.deck import COMBO_CARDS, N_CLASSES, N_COMBOS
    from pokerlab.games.pushfold import class_matrices, combo_matrices, posts

    classes = game.hands == "classes"
    num_h = N_CLASSES if classes else N_COMBOS
    if classes:
        weights, share = class_matrices()
        deal_pairs = float(weights.sum())
        dense_compat = weights[None, :, :].copy()
        dense_sign = share[None, :, :].copy()
        private_cards = np.full((num_h, 2), -1, dtype=np.int32)
    else:
        _, share = combo_matrices()
        deal_pairs = float(N_COMBOS * 1225)  # each combo meets 1225 disjoint combos
        dense_compat = np.zeros((0, 0, 0))  # folds use the exact card sweep
        dense_sign = share[None, :, :]
        private_cards = COMBO_CARDS.astype(np.int32)
    scale = 1.0 / deal_pairs

    nodes = NodeList()

    def decisions(stack: float, prob: float, prefix: str) -> int:
        sb_post, bb_post = posts(stack, game.ante_bb)
        w = prob * scale
        sb = nodes.add(DECISION, 0, 0, 0.0, f"{prefix}:")
        sb_fold = nodes.add(FOLD_NODE, 0, 0, sb_post * w, f"{prefix}:f")
        bb = nodes.add(DECISION, 1, 0, 0.0, f"{prefix}:s")
        bb_fold = nodes.add(FOLD_NODE, 1, 0, bb_post * w, f"{prefix}:sf")
        call = nodes.add(SHOWDOWN, -1, 0, stack * w, f"{prefix}:sc")
        nodes.labels[sb] = ("f", "s")
        nodes.labels[bb] = ("f", "c")
        nodes.children[sb] = [sb_fold, bb]
        nodes.children[bb] = [bb_fold, call]
        return sb

    if game.variable:
        root = nodes.add(CHANCE_NODE, -1, 0, 0.0, "")
        nodes.children[root] = [
            decisions(s, p, game.stack_prefix(s))
            for s, p in zip(game.stacks, game.stack_probs, strict=True)
        ]
    else:
        decisions(game.stacks[0], 1.0, "")

    tables = PrivateTables(
        valid=np.ones((1, num_h), dtype=np.bool_),
        strength=np.zeros((1, num_h), dtype=np.int32),
        order=np.arange(num_h, dtype=np.int32)[None, :],
        num_valid=np.array([num_h], dtype=np.int32),
        private_cards=private_cards,
        dense_compat=dense_compat,
        dense_sign=dense_sign,
        root_reach=np.ones((2, num_h), dtype=np.float64),
    )
    return assemble_public_tree(
        "pushfold",
        nodes,
        tables,
        game.private_names,
        [""],
        lambda private, board, hist: f"{private}{hist}",
    )
