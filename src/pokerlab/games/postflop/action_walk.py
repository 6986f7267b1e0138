"""Walks of a postflop action tree (:mod:`pokerlab.games.postflop.actions`): node counts by
kind and street, and a visit of every node with its line."""

from __future__ import annotations

from collections.abc import Callable

from pokerlab.games.postflop.actions import ActionNode

__all__ = ["count_action_nodes", "walk"]


def count_action_nodes(root: ActionNode) -> dict[str, list[int]]:
    """Action-tree nodes by kind and street (no cards dealt): ``{kind: [flop, turn, river]}``,
    ``[preflop, flop, turn, river]`` for a tree that starts before the flop."""
    first = min(root.street, 0)
    counts: dict[str, list[int]] = {
        k: [0] * (3 - first) for k in ("decision", "chance", "fold", "showdown")
    }
    stack = [root]
    while stack:
        n = stack.pop()
        counts[n.kind][n.street - first] += 1
        stack.extend(n.children)
    return counts


def walk(root: ActionNode, visit: Callable[[ActionNode, tuple[str, ...]], None]) -> None:
    """Call ``visit(node, line)`` for every node, ``line`` the labels from the root."""
    stack: list[tuple[ActionNode, tuple[str, ...]]] = [(root, ())]
    while stack:
        n, line = stack.pop()
        visit(n, line)
        labels = n.labels() if n.kind == "decision" else ["deal"] * len(n.children)
        for lab, c in zip(labels, n.children, strict=True):
            stack.append((c, (*line, lab)))
