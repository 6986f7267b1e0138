"""Safe search at the table (issue 25): the resolve and maxmargin gadgets of
:mod:`~pokerlab.solvers.search.gadgets` for the subgames that
:class:`~pokerlab.solvers.search.agent.SearchAgent` builds during a hand of no-limit hold'em.

A safe gadget needs the opponent's counterfactual best-response values (CBV) at the subgame's
root against the blueprint (Burch, Johanson and Bowling 2014; Brown and Sandholm, NIPS 2017).
The table's blueprint is the bucketed MCCFR strategy of the whole game, not a profile on the
subgame's tree, so it is brought there first:

1. a spot of the same round start, ranges and board with the blueprint's own sizes for the
   street (depth 0 as bets, depth 1 as raises, its raise cap; :func:`blueprint_sizes`), plus the
   sizes played in the round, and its sizes of each later street there
   (:func:`blueprint_later`);
2. at every decision of the searching seat in that spot, down to the end of the game (every
   stored card below a chance node), the blueprint's probabilities for each of its hands read
   through :meth:`BlueprintAgent.belief_probability
   <pokerlab.evaluate.nolimit.blueprint.BlueprintAgent.belief_probability>` and normalised
   over the node's actions (:func:`projected_blueprint`): its own actions where the spot holds
   them, its pseudo-harmonic reading elsewhere (a size the blueprint lacks, a depth-2 raise);
3. one best-response pass of the opponent over that profile gives its CBV per hand
   (:func:`opponent_cbv`);
4. the search's own subgame (the search menu) is solved with the gadget for the searching seat
   (:func:`solve_safe`), its average strategy left in the solver's strategy sums where the
   agent reads its decisions.

The guarantee of the gadgets holds against the blueprint as step 2 reads it on the spot.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from pokerlab.cards.deck import COMBO_CARDS
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import PublicView
from pokerlab.games.nolimit.actions import ActionAbstraction
from pokerlab.games.nolimit.rules import BettingState, NoLimitRules
from pokerlab.solvers.postflop import postflop_schedule
from pokerlab.solvers.search.gadgets import solve_subgame
from pokerlab.solvers.search.lines import real_action
from pokerlab.solvers.search.menu import spot_oop
from pokerlab.solvers.search.subgames import SubgameRanges, _possible
from pokerlab.tree.vector import _kernels as K
from pokerlab.tree.vector.tree import DECISION

__all__ = [
    "TABLE_GADGETS",
    "blueprint_sizes",
    "blueprint_later",
    "projected_blueprint",
    "opponent_cbv",
    "solve_safe",
    "safe_solve",
    "opponent_gain",
    "root_ranges",
    "ITERATION_CEILING",
]

#: the gadgets the table offers (reach-maxmargin on the river alone: its gifts come from the
#: turn's spot, :mod:`~pokerlab.solvers.search.table_gifts`)
TABLE_GADGETS = ("unsafe", "resolve", "maxmargin", "reach-maxmargin")
#: the most iterations a time-budgeted solve at the table runs
ITERATION_CEILING = 1_000_000


def blueprint_sizes(abstraction: ActionAbstraction, street: int) -> tuple[str, str, int]:
    """The blueprint's first-bet and raise sizes on ``street`` (rules' numbering, 1 = flop) in
    the bet-size syntax, and its raise cap there (4 when it has none): the sizes of depth 0 and
    of depth 1 (a spot offers one raise menu for every depth)."""
    from pokerlab.games.postflop.betsizes import format_bet_sizes

    bets = abstraction.sizes_at(street, 0)
    raises = abstraction.sizes_at(street, 1)
    cap = abstraction.raise_cap[street]
    return (
        format_bet_sizes(list(bets)) if bets else "",
        format_bet_sizes(list(raises)) if raises else "",
        4 if cap is None else int(cap),
    )


def blueprint_later(abstraction: ActionAbstraction, street: int) -> tuple[tuple[str, str], ...]:
    """The blueprint's first-bet and raise sizes (:func:`blueprint_sizes`) on each street after
    ``street``, in order: a spot of the blueprint's sizes offers them there (its raise limit is
    the round's on every street)."""
    return tuple(blueprint_sizes(abstraction, s)[:2] for s in range(street + 1, 4))


def projected_blueprint(
    blueprint: Any,
    rules: NoLimitRules,
    game: Any,
    start: BettingState,
    before: tuple[tuple[int, int, int], ...],
    seat: int,
    within: np.ndarray | None = None,
) -> np.ndarray:
    """The blueprint agent ``blueprint``'s strategy for the real ``seat`` on the postflop
    ``game``'s tree (float32 probabilities, the tree's layout; the other seat's blocks uniform):
    the spot starts at ``start`` (the round's first state) after the hand's actions ``before``;
    module docstring, step 2. ``within``: bool ``(N,)`` over the expanded nodes, closed under
    parents: read only the nodes it holds and leave the other blocks unwritten (what a pass that
    reads part of the tree needs; a pass must not read them).

    A line's actions and its reading are the same under every card dealt before it, so the
    line is read once per node of the action tree (:meth:`BlueprintAgent.belief_boards
    <pokerlab.evaluate.nolimit.blueprint.BlueprintAgent.belief_boards>`: all its boards at
    once) and written to all of its expanded nodes together."""
    spot = game.expanded
    tree = spot.tree
    a = tree.arrays
    oop = spot_oop(rules)
    player = 0 if seat == oop else 1
    hands = np.sort(COMBO_CARDS[spot.combos[player]].astype(np.int64), axis=1)
    # a turn spot's 2-5 M numbers are mostly blocks a partial read never touches: writing a
    # uniform there took 8 ms of a river search, and clearing them 2-3 ms (the allocator hands
    # back freed memory), so only the blocks read are written
    out = np.empty(tree.size, dtype=np.float32)
    read = a.kind == DECISION
    if within is not None:
        read &= within
    other = np.flatnonzero(read & (a.player != player))
    na = a.child_start[other + 1] - a.child_start[other]
    width = na * int(tree.hands.num[1 - player])
    for o, w, k in zip(a.offset[other].tolist(), width.tolist(), na.tolist(), strict=True):
        out[o : o + w] = 1.0 / k
    lines = _action_lines(rules, game.action_tree, start, before)
    mine = read & (a.player == player)
    nodes = np.flatnonzero(mine)
    line_of = np.array([lines[id(spot.action_node[i])][0] for i in nodes], dtype=np.int64)
    by_line = np.argsort(line_of, kind="stable")
    cuts = np.flatnonzero(np.diff(line_of[by_line])) + 1
    memo: dict[Any, Any] = {}  # the hands' buckets per board and the lines' readings, reused
    for rows in np.split(by_line, cuts) if nodes.size else []:
        group = nodes[rows]
        _, state, history, reals = lines[id(spot.action_node[int(group[0])])]
        boards = [tuple(c for c in b if c >= 0) for b in spot.node_board[group].tolist()]
        view = PublicView(rules, state, boards[0], history)
        # normalised over the node's actions (uniform where all are 0) and written per board
        blueprint.write_belief_boards(view, boards, hands, reals, a.offset[group], out, memo)
    return out


def _action_lines(
    rules: NoLimitRules, root: Any, start: BettingState, before: tuple[tuple[int, int, int], ...]
) -> dict[int, tuple[int, BettingState, tuple[tuple[int, int, int], ...], list[Any]]]:
    """Per decision node of a spot's action tree (by ``id``): its number, the real betting
    state and the hand's actions before it, and its actions as real actions."""
    out: dict[int, tuple[int, BettingState, tuple[tuple[int, int, int], ...], list[Any]]] = {}
    stack = [(root, start, before)]
    while stack:
        node, state, history = stack.pop()
        if node.kind == "chance":
            stack.append((node.children[0], state, history))
            continue
        if node.kind != "decision":
            continue
        reals = [real_action(rules, state, k, amt) for k, amt in node.actions]
        out[id(node)] = (len(out), state, history, reals)
        for child, (k, amt) in zip(node.children, reals, strict=True):
            stack.append((child, state.apply(rules, k, amt), (*history, (state.to_act, k, amt))))
    return out


def opponent_cbv(game: Any, profile: np.ndarray, opponent: int) -> np.ndarray:
    """The spot player ``opponent``'s counterfactual best-response values per hand at the root
    of ``game``'s tree against ``profile`` (the passes' units: chips times the other's reach
    weight; float64 ``(H,)``)."""
    from pokerlab.tree.vector.passes import Passes

    tree = game.expanded.tree
    passes = Passes(tree, 1)
    weight = tree.hands.weight.astype(np.float64)
    return passes.pass_at(0, opponent, K.MODE_BR, passes.no_regrets, profile, weight[1 - opponent],
                          weight[opponent])  # fmt: skip


def solve_safe(
    solver: Any, gadget: str, player: int, cbv: np.ndarray, iterations: int,
    seconds: float | None = None, gift: np.ndarray | None = None,
) -> tuple[float, float]:  # fmt: skip
    """Solve ``solver``'s whole spot (a :class:`~pokerlab.solvers.postflop.PostflopSolver`,
    float32) with ``gadget`` for the spot player ``player``, the opponent's alternative payoffs
    ``cbv`` (:func:`opponent_cbv`, on the same hands), ``iterations`` of DCFR (``seconds``: a
    wall-time budget instead, ``iterations`` its ceiling; :func:`solve_subgame`); the average
    strategies land in ``solver.strat_sum`` (the solver's reader then plays them); the solver's
    node locks (the agent's frozen decisions) hold in every pass. Returns the
    gains of :class:`~pokerlab.solvers.search.gadgets.SubgameSolution` (what a best response
    gains over its CBV in the subgame, plus its gift with reach-maxmargin; the spot's units).
    ``gift``: reach-maxmargin's, per opponent hand (:func:`~pokerlab.solvers.search.
    table_gifts.river_gifts`)."""
    if gadget not in TABLE_GADGETS or gadget == "unsafe":
        raise PokerlabError(
            f"a safe gadget at the table is resolve, maxmargin or reach-maxmargin, not {gadget!r}"
        )
    if solver.compressed:
        raise PokerlabError("safe search runs on float32 subgames")
    tree = solver.tree
    ranges = root_ranges(solver)
    ranges.cbv[1 - player] = cbv
    assembled = np.full(tree.size, 0.5, dtype=np.float32)
    sol = solve_subgame(
        solver.passes, ranges, player, gadget, iterations, postflop_schedule("dcfr"),
        (solver.regrets, solver.strat_sum), assembled, gift=gift, seconds=seconds,
        lock=solver.lock_probs,
    )  # fmt: skip
    solver.iterations += sol.iterations
    return sol.gain


def root_ranges(solver: Any) -> SubgameRanges:
    """The ranges of a subgame at the root of ``solver``'s spot (a table search's: the round's
    start): both reaches the range weights, no chance above, CBVs 0 (a safe gadget sets the
    opponent's), the hands each player can hold on the spot's board."""
    tree = solver.tree
    weight = tree.hands.weight.astype(np.float64)
    return SubgameRanges(
        0, weight.copy(), weight.copy(), np.zeros_like(weight),
        _possible(tree, solver.spot.node_board[0]),
    )  # fmt: skip


def safe_solve(
    agent: Any, solver: Any, view: PublicView, prefix: Any, moves: Any,
    deadline: float | None = None, gifts: Callable[..., np.ndarray] | None = None,
) -> None:  # fmt: skip
    """Steps 1-4 of the module docstring for a :class:`~pokerlab.solvers.search.agent.
    SearchAgent` (``agent``; its :attr:`gadget`, :attr:`iterations` and the seat searching)
    whose subgame at ``view`` (the hand's actions ``prefix`` before the round, the round's
    ``moves``) is ``solver``'s spot. ``deadline`` (a :func:`time.perf_counter` time): the
    gadget's solve stops at the first iteration past it (at least one runs), steps 1-3
    included in the budget. ``gifts(agent, view, prefix, spot)``: reach-maxmargin's gifts per
    opponent hand (:func:`~pokerlab.solvers.search.table_gifts.river_gifts`)."""
    rules = agent.rules
    seat = agent._seat
    abstraction = agent.blueprint.strategy.game.abstraction
    menu = blueprint_sizes(abstraction, view.state.street)
    played = tuple(int(m[2]) for m in moves)
    later = blueprint_later(abstraction, view.state.street)
    bp_game = agent._game(view, prefix, agent._sizes(moves, played, menu), later=later)
    spot = solver.spot
    pairs = zip(bp_game.expanded.combos, spot.combos, strict=True)
    if any(not np.array_equal(a, b) for a, b in pairs):
        raise PokerlabError("the blueprint's subgame holds other hands than the search's")
    start = moves[0][3] if moves else view.state
    profile = projected_blueprint(agent.blueprint, rules, bp_game, start, tuple(prefix), seat)
    player = 0 if seat == spot_oop(rules) else 1
    cbv = opponent_cbv(bp_game, profile, 1 - player)
    gift = None
    if agent.gadget == "reach-maxmargin":  # the opponent's turn gifts (once per turn line)
        if gifts is None:
            raise PokerlabError("reach-maxmargin needs the opponent's gifts (river_gifts)")
        gift = gifts(agent, view, prefix, spot)
    if deadline is None:
        solve_safe(solver, agent.gadget, player, cbv, agent.iterations, gift=gift)
    else:  # what steps 1-3 left of the budget (a positive remainder: one iteration at least)
        left = max(deadline - time.perf_counter(), 1e-9)
        solve_safe(solver, agent.gadget, player, cbv, ITERATION_CEILING, seconds=left, gift=gift)


def opponent_gain(solver: Any, player: int, cbv: np.ndarray) -> float:
    """What the opponent of the spot player ``player`` gains over its CBVs ``cbv`` by best
    responding to ``solver``'s average strategy from the root of its spot: the sum over its
    hands of range weight x max(0, best-response value - CBV), the spot's units (divide by the
    product of the two ranges' weights for chips). A safe gadget keeps it near 0 (its solve
    error); unsafe search can raise it (Brown and Sandholm, NIPS 2017, sec. 3)."""
    tree = solver.tree
    # the average strategy: the engine's per (node, hand) normalisation of the sums
    probs = solver.game.public_tree().normalise(solver.strat_sum).astype(np.float32)
    weight = tree.hands.weight.astype(np.float64)
    o = 1 - player
    br = solver.passes.pass_at(
        0, o, K.MODE_BR, solver.passes.no_regrets, probs, weight[player], weight[o]
    )
    return float(np.sum(weight[o] * np.maximum(br - cbv, 0.0)))
