"""Reach subgame solving at the table (issue 25): the opponent's gifts for the river searches of
:class:`~pokerlab.solvers.search.agent.SearchAgent` with ``gadget="reach-maxmargin"``.

Reach-maxmargin (Brown and Sandholm, NIPS 2017, sec. 5) is maxmargin whose alternative payoffs
are raised by what the opponent gave up on the way to the subgame: at its last decision ``I``
above the subgame, hand ``h`` took the action ``a`` although another was worth up to ``g(h) =
max_b CBV(I, b, h) - CBV(I, a, h)`` more against the blueprint, so the subgames below ``(I, a)``
may let it win up to ``g`` more in all without making ``a`` better than the best action, and
nothing above ``I`` changes (:func:`~pokerlab.solvers.search.subgames.reach_gifts`, whose
per-unit split between the subgames below ``I`` this module reuses).

At the table the subgame of a river search starts with the river; its opponent's last decision
is on the turn. So, once per turn line, the turn's round is built as a spot the way the safe
gadgets build the river's (:mod:`~pokerlab.solvers.search.safe`: both ranges at the turn's start
by Bayes' rule, the blueprint's turn sizes plus the sizes played and its river sizes, every river
card dealt), the searching seat's blueprint is projected onto it down to the end of the game,
and the gifts come from the opponent's best-response values at ``I``: one best-response pass
per action of ``I`` over the turn and river below it. The river subgame adds ``gift x`` the
searcher's reach each opponent hand faces there (the per-unit share; the chips do not depend on
the ranges' scale).

Only the last decision is used, and only on the turn (the flop's tree, every turn and river card
below a flop decision, is too large to walk during a hand on this machine): fewer gifts than the
paper's, which is the conservative side. So reach-maxmargin searches the river alone, the turn
played by the blueprint, against which the CBVs are taken; the guarantee holds against the
blueprint as projected on the turn's spot, as the safe gadgets' does on the river's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import PublicView
from pokerlab.games.nolimit.rules import BettingState
from pokerlab.games.postflop.actions import ActionNode
from pokerlab.solvers.search.lines import line_labels, line_node
from pokerlab.solvers.search.menu import spot_oop
from pokerlab.solvers.search.safe import blueprint_later, blueprint_sizes, projected_blueprint
from pokerlab.solvers.search.subgames import (
    ancestors,
    last_decision,
    reach_gifts,
    subtree_end,
)
from pokerlab.tree.vector.passes import Passes

__all__ = ["REACH_GADGET", "check_table_gadget", "river_gifts", "turn_line"]

#: the gadget that needs the gifts
REACH_GADGET = "reach-maxmargin"
_RIVER = 3
_TURN = 2
#: a round's actions, each with the betting state it was taken at
Moves = list[tuple[int, int, int, BettingState]]


def check_table_gadget(gadget: Any, streets: tuple[int, ...], known: tuple[str, ...]) -> None:
    """Refuse, by name, a gadget the table does not offer and reach-maxmargin on other streets
    than the river alone (module docstring)."""
    if gadget not in known:
        raise PokerlabError(f"unknown gadget {gadget!r}; choose {', '.join(known)}")
    if gadget == REACH_GADGET and tuple(streets) != (_RIVER,):
        raise PokerlabError(
            "reach-maxmargin searches the river alone (its gifts are the opponent's turn "
            "decisions against the blueprint): use streets='river'"
        )


def turn_line(
    rules: Any, prefix: tuple[tuple[int, int, int], ...]
) -> tuple[tuple[tuple[int, int, int], ...], Moves, BettingState]:
    """The hand's actions before the river (``prefix``) split at the turn: the actions before the
    turn, the turn's actions each with the state it was taken at, and the turn's first state."""
    state = rules.initial_state()
    before: list[tuple[int, int, int]] = []
    moves: Moves = []
    start: BettingState | None = None
    for seat, kind, amount in prefix:
        if state.street == _TURN:
            start = state if start is None else start
            moves.append((seat, kind, amount, state))
        elif state.street < _TURN:
            before.append((seat, kind, amount))
        state = state.apply(rules, kind, amount)
    if start is None or state.street != _RIVER:
        raise PokerlabError("the turn's gifts need a hand that played the turn and is on the river")
    return tuple(before), moves, start


def river_gifts(agent: Any, view: PublicView, prefix: tuple[Any, ...], spot: Any) -> np.ndarray:
    """The gifts (chips per unit of the searcher's reach faced; float64) for each hand of the
    opponent of ``agent``'s searching seat in the river subgame ``spot`` (the expanded spot the
    agent solves at ``view``; ``prefix``: the hand's actions before the river). Kept per turn line
    in ``agent._gifts``; the turn's spot and its passes are dropped once the gifts are known."""
    rules = agent.rules
    seat = agent._seat
    if view.state.street != _RIVER:
        raise PokerlabError("reach-maxmargin searches the river alone")
    board = tuple(view.board[: rules.board_size(_TURN)])
    player = 0 if seat == spot_oop(rules) else 1
    key = (tuple(prefix), board, seat)
    cache: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray]] = agent._gifts
    got = cache.get(key)
    if got is None:
        before, moves, start = turn_line(rules, tuple(prefix))
        turn_view = PublicView(rules, start, board, before)
        abstraction = agent.blueprint.strategy.game.abstraction
        sizes = agent._sizes(
            moves, tuple(int(m[2]) for m in moves), blueprint_sizes(abstraction, _TURN)
        )
        whole = agent._game(turn_view, before, sizes, later=blueprint_later(abstraction, _TURN))
        root = _gift_tree(whole.action_tree, line_labels(whole.action_tree, moves), 1 - player)
        if root is None:  # no decision of the opponent on the turn: nothing given up
            return np.zeros(len(spot.combos[1 - player]))
        game = whole.with_action_tree(root)
        turn_spot = game.expanded
        node = line_node(turn_spot, root, moves)  # the river's deal
        # the blueprint is read where the gifts look: the path to the opponent's last decision
        # and the subtree below it (the passes read nothing else)
        within = _path_and_subtree(turn_spot, node, 1 - player)
        profile = projected_blueprint(agent.blueprint, rules, game, start, before, seat, within)
        passes = Passes(turn_spot.tree, 1)
        gift = reach_gifts(passes, turn_spot.parent, [node], profile, 1 - player)[node]
        got = (np.asarray(turn_spot.combos[1 - player], dtype=np.int64), gift)
        if len(cache) > 64:
            cache.clear()
        cache[key] = got
    combos, gift = got
    where = np.full(1326, -1, dtype=np.int64)
    where[combos] = np.arange(combos.size)
    rows = where[np.asarray(spot.combos[1 - player], dtype=np.int64)]
    if (rows < 0).any():  # pragma: no cover - the river's hands are the turn's minus its card
        raise PokerlabError("the river subgame holds a hand the turn's spot lacks")
    return np.asarray(gift, dtype=np.float64)[rows]


def _gift_tree(root: ActionNode, labels: list[str], opponent: int) -> ActionNode | None:
    """The turn's action tree as the gifts read it (None when the line holds no decision of
    ``opponent``, spot player): down the line of ``labels`` to the opponent's last decision,
    whose subtree is kept whole, every other action on the way ending at once (a stub the
    passes never reach: they read the path to that decision and below it). The turn spot then
    deals the river only where it is read, a few times fewer nodes to build than the round's."""
    path = [root]
    for label in labels:
        node = path[-1]
        path.append(node.children[node.labels().index(label)])
    ours = [k for k, n in enumerate(path) if n.kind == "decision" and n.player == opponent]
    if not ours:
        return None
    top = ours[-1]
    kept = path[top]
    for k in range(top - 1, -1, -1):
        node = path[k]
        kids = [
            kept if child is path[k + 1] else
            ActionNode("fold", node.player, node.street, node.commit)
            for child in node.children
        ]  # fmt: skip
        kept = ActionNode(node.kind, node.player, node.street, node.commit, node.actions, kids)
    return kept


def _path_and_subtree(spot: Any, node: int, opponent: int) -> np.ndarray | None:
    """The expanded ``spot``'s nodes on the path from the root to the last decision of
    ``opponent`` (spot player) above ``node``, and in that decision's subtree (bool ``(N,)``;
    None, every node, when the opponent has no decision above: no gift)."""
    top, _ = last_decision(spot.tree, spot.parent, node, opponent)
    if top < 0:
        return None
    mask = np.zeros(spot.tree.num_nodes, dtype=bool)
    mask[top : subtree_end(spot.tree, top)] = True
    mask[[up for up, _ in ancestors(spot.parent, top)]] = True
    return mask
