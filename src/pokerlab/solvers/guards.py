"""Refusals before long silent work: a history tree too large to build in Python."""

from __future__ import annotations

import random
from typing import Any

from pokerlab.errors import PokerlabError

__all__ = ["HISTORY_TREE_LIMIT", "check_history_tree_size", "estimate_history_count"]

#: Histories above which :func:`check_history_tree_size` refuses to build a history tree: the
#: Python builder expands about 30,000 histories per second, so this is about half a minute.
HISTORY_TREE_LIMIT = 1_000_000


def estimate_history_count(game: Any, probes: int = 64, seed: int = 0) -> float:
    """Estimated number of histories of ``game`` (its history-tree size), without building it.

    Knuth's estimator (Knuth 1975, "Estimating the efficiency of backtrack programs"): walk
    ``probes`` random paths from the root, choosing each child uniformly; along a path the number
    of nodes at depth d is estimated by the product of the branching factors above it, and the sum
    over depths is an unbiased estimate of the tree size. Exact for trees whose branching depends
    only on depth (push/fold); cost: ``probes`` x depth calls of the history interface.
    """
    rng = random.Random(seed)
    total = 0.0
    for _ in range(probes):
        history = game.initial_history()
        weight = 1.0
        count = 1.0
        while not history.is_terminal():
            if history.is_chance():
                actions = [a for a, _p in history.chance_outcomes()]
            else:
                actions = list(history.legal_actions())
            if not actions:
                break
            weight *= len(actions)
            count += weight
            history = history.child(actions[rng.randrange(len(actions))])
        total += count
    return total / probes


def check_history_tree_size(
    game: Any, user: str, limit: float = HISTORY_TREE_LIMIT, advice: str = ""
) -> None:
    """Refuse at once, with :class:`~pokerlab.errors.PokerlabError`, a game whose history tree
    (needed by ``user``, e.g. "es-mccfr") has more than ``limit`` histories by
    :func:`estimate_history_count`: the pure-Python builder would run for minutes without a word.
    ``advice`` says what to use instead. A history tree already compiled passes."""
    cache = getattr(game, "__dict__", {}).get("_compiled_cache", {})
    if "history" in cache:
        return
    estimate = estimate_history_count(game)
    if estimate <= limit:
        return
    minutes = estimate / 30_000 / 60
    raise PokerlabError(
        f"game {game.name!r} has about {estimate / 1e6:.1f} million histories: building the "
        f"history tree that {user} needs would take about {minutes:.0f} minutes in Python"
        + (f"; {advice}" if advice else "")
    )
