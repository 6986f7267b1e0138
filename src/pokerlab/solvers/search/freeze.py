"""Freezing the search agent's own earlier actions in the round when it re-solves (issue 25).

When the opponent's new size makes :class:`~pokerlab.solvers.search.agent.SearchAgent` solve a
new subgame in a round where it has acted already, the subgame again starts at the round's
start, so the agent's earlier decisions are nodes of it. Following Pluribus (Brown and
Sandholm, "Superhuman AI for multiplayer poker", Science 2019, supplement: "the strategy for
the actions Pluribus already took is frozen for the hand it actually holds"), the new solve
plays, at each of those nodes, the action the agent took there with probability 1 for the hand
it holds; its other hands choose freely there (the solve may give them another strategy than
the one before), and the opponent's range and strategy are left to the solve. The freeze goes
through the postflop solver's node locks (:meth:`PostflopSolver.lock
<pokerlab.solvers.postflop.PostflopSolver.lock>`): the locked hand's row of each such node
plays the lock in every pass, the other rows stay free.

A decision is frozen when it was taken in another subgame than the current one (fewer sizes
inserted, or a lower raise limit): a decision taken in the current subgame was drawn from that
same solve, which the agent keeps reading.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from pokerlab.cards.deck import format_card
from pokerlab.solvers.search.lines import Move, line_labels

__all__ = ["frozen_decisions", "freeze_hand"]


def frozen_decisions(
    seat: int, moves: Sequence[Move], subgame_of: Callable[[int], Hashable]
) -> tuple[int, ...]:
    """The indices into the round's ``moves`` of ``seat``'s decisions that a solve of the
    current subgame freezes: those taken in another subgame. ``subgame_of(i)`` names the
    subgame of the round's first ``i`` moves (equal names, equal subgames); the current one is
    ``subgame_of(len(moves))``."""
    mine = [i for i, move in enumerate(moves) if move[0] == seat]
    if not mine:
        return ()
    now = subgame_of(len(moves))
    return tuple(i for i in mine if subgame_of(i) != now)


def freeze_hand(
    solver: Any, moves: Sequence[Move], frozen: Sequence[int], hole: tuple[int, int]
) -> list[str]:
    """Lock ``hole`` (two card ids) at each frozen decision of the round's actual line in the
    subgame ``solver`` (a :class:`~pokerlab.solvers.postflop.PostflopSolver` not yet run) to
    the action taken there (the tree's action the real one is; an off-menu size is in the tree,
    inserted); the lines locked, each as ``"line: action"``."""
    a, b = sorted(int(c) for c in hole)
    hand = f"{format_card(b)}{format_card(a)}"
    labels = line_labels(solver.game.action_tree, moves)
    done = []
    for i in frozen:
        line = ", ".join(labels[:i])
        solver.lock(line, {labels[i]: 1.0}, hands=hand)
        done.append(f"{line or 'root'}: {labels[i]}")
    return done
