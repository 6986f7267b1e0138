"""The hand's actual line inside a search subgame (issue 25): a real no-limit action as the
subgame's action-tree child, the line's node of the solved spot, a node's average strategy per
hand, and a subgame action back as the real game's action (:class:`~pokerlab.solvers.search.
agent.SearchAgent` and :mod:`pokerlab.solvers.search.freeze`)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from pokerlab.cards.deck import COMBO_INDEX, N_COMBOS, format_combo
from pokerlab.cards.ranges import RangeText
from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit.rules import (
    ALLIN,
    BET,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    BettingState,
    NoLimitRules,
)
from pokerlab.games.postflop.actions import ALLIN as S_ALLIN
from pokerlab.games.postflop.actions import BET as S_BET
from pokerlab.games.postflop.actions import CALL as S_CALL
from pokerlab.games.postflop.actions import CHECK as S_CHECK
from pokerlab.games.postflop.actions import FOLD as S_FOLD
from pokerlab.games.postflop.actions import RAISE as S_RAISE
from pokerlab.games.postflop.actions import action_label

__all__ = ["tree_child", "line_labels", "line_node", "node_strategy", "range_text", "real_action"]

#: a round's action as the agent keeps it: (seat, kind, amount, the betting state before it)
Move = tuple[int, int, int, Any]


def tree_child(node: Any, kind: int, amount: int) -> int | None:
    """The index of the action-tree ``node``'s action equal to the real game's action ``(kind,
    amount)`` (rules' kinds, ``amount`` the street total), None when the tree lacks it."""
    for i, (k, a) in enumerate(node.actions):
        if kind == FOLD and k == S_FOLD:
            return i
        if kind in (CHECK, CALL) and k in (S_CHECK, S_CALL):
            return i
        if kind in (BET, RAISE, ALLIN) and k in (S_BET, S_RAISE) and a == amount:
            return i
        if kind in (BET, RAISE, ALLIN) and k == S_ALLIN and amount >= a:
            return i  # all-in (a deeper stack's all-in puts in the effective stack)
    return None


def line_labels(action_tree: Any, moves: Sequence[Move]) -> list[str]:
    """The action labels (``"check"``, ``"bet 66"``) of the round's ``moves`` walked down the
    subgame's ``action_tree`` from its root."""
    labels = []
    node = action_tree
    for _, kind, amount, _ in moves:
        i = tree_child(node, kind, amount)
        if i is None:  # pragma: no cover - the agent inserted every size of the line
            raise PokerlabError(f"the line's {amount} is not in the subgame")
        labels.append(action_label(*node.actions[i]))
        node = node.children[i]
    return labels


def line_node(spot: Any, action_tree: Any, moves: Sequence[Move]) -> int:
    """The arena node of the expanded ``spot`` where the round's ``moves`` lead."""
    from pokerlab.games.postflop.naming import SpotNaming

    arena, _, swap = SpotNaming(spot).locate(line_labels(action_tree, moves))
    if swap >= 0:  # pragma: no cover - no card is dealt inside the round
        raise PokerlabError("the line reads through a suit swap")
    return int(arena)


def node_strategy(
    solver: Any, spot: Any, node: int
) -> tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]:
    """The average strategy of ``solver`` (a :class:`~pokerlab.solvers.postflop.
    PostflopSolver` of ``spot``) at arena ``node``: probabilities per actor hand ``(n, A)``
    (locked hands read their lock: the sums accumulate it), a map combo id -> row (-1 absent),
    and the spot's actions."""
    tree = solver.tree
    a = tree.arrays
    p = int(a.player[node])
    n = int(tree.hands.num[p])
    an = spot.action_node[node]
    na = len(an.actions)
    off = int(a.offset[node])
    block = solver.strat_sum[off : off + na * n].astype(np.float64).reshape(na, n).T
    total = block.sum(axis=1, keepdims=True)
    probs = np.where(total > 0, block / np.where(total > 0, total, 1.0), 1.0 / na)
    present = np.full(1326, -1, dtype=np.int64)
    present[spot.combos[p]] = np.arange(n)
    return probs, present, list(an.actions)


def real_action(
    rules: NoLimitRules, state: BettingState, kind: int, amount: int | None
) -> tuple[int, int]:
    """A subgame action ``(kind, amount)`` as the real game's action at ``state`` (sizes
    clamped into the legal raise range)."""
    if kind == S_FOLD:
        return (FOLD, 0)
    if kind in (S_CHECK, S_CALL):
        legal = state.legal_actions(rules)
        want = CALL if state.to_call() > 0 else CHECK
        return next((int(k), int(a)) for k, a in legal if k == want)
    bounds = state.raise_bounds(rules)
    if bounds is None:  # pragma: no cover - the spot and the rules agree on who may raise
        legal = state.legal_actions(rules)
        return (int(legal[1][0]), int(legal[1][1]))
    if kind == S_ALLIN or amount is None:
        to = bounds[1]
    else:
        to = min(max(int(amount), bounds[0]), bounds[1])
    return state.raise_kind(rules, to), to


def range_text(hands: np.ndarray, weights: np.ndarray) -> RangeText:
    """A weighted range in the range syntax: ``"AsKs:0.25,..."`` (weights scaled to a largest
    of 1; exact to float64 repr): how the agent hands a subgame its ranges. The text carries
    those weights (:class:`~pokerlab.cards.ranges.RangeText`), so the spot made from it does
    not parse it back."""
    top = float(weights.max())
    hands = np.asarray(hands, dtype=np.int64)
    combos = COMBO_INDEX[hands[:, 0], hands[:, 1]].astype(np.int64)
    names = _combo_names()
    scaled = np.zeros(N_COMBOS, dtype=np.float64)
    parts = []
    for combo, w in zip(combos.tolist(), weights.tolist(), strict=True):
        if w > 0:
            x = w / top
            scaled[combo] = x
            parts.append(f"{names[combo]}:{x!r}")
    return RangeText(",".join(parts), scaled)


@lru_cache(maxsize=1)
def _combo_names() -> list[str]:
    """Every combo's name by id, higher card first (``"AsKd"``)."""
    return [format_combo(c) for c in range(N_COMBOS)]
