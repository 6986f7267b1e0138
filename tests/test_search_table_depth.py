"""Depth-limited search at the table (issue 25, ``SearchAgent(depth="round")``): on the 12-card
four-round game of ``test_search_agent.py``, a turn subgame stops at the river's deal, the
blueprint's own river sizes below it, and the agent's solve is the exact table's depth-limited
solve of the same spot."""

from __future__ import annotations

import numpy as np
import pytest

import test_search_agent
from pokerlab._rng import generator
from pokerlab.cards.deck import COMBO_INDEX
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import PublicView, deck_combos
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.matches import deal_cards, duplicate_match, play_hand
from pokerlab.solvers.search import search_everywhere
from pokerlab.solvers.search.agent import SearchAgent
from pokerlab.solvers.search.safe import projected_blueprint

#: the 12-card blueprint of test_search_agent.py (20,000 MCCFR iterations), one fixture
blueprint = test_search_agent.blueprint


def _turn_view(blueprint: BlueprintAgent, oop: bool) -> PublicView:
    """The first turn decision of a hand the blueprint plays against itself where the player
    out of position is on move (``oop``) or the one in position is."""
    rules = blueprint.strategy.game.rules
    for row in deal_cards(rules, 200, generator(11)):
        record = play_hand(rules, [blueprint, blueprint], row, generator(3))
        state, history = rules.initial_state(), []
        for seat, kind, amount in record.actions:
            if state.street == 2:
                if (seat == rules.first_to_act(2)) == oop:
                    board = tuple(int(c) for c in row[4:8])
                    return PublicView(rules, state, board, tuple(history))
                break
            history.append((seat, kind, amount))
            state = state.apply(rules, kind, amount)
    raise AssertionError("no such turn decision in 200 deals")


def test_bad_settings_are_refused_by_name(blueprint) -> None:
    for kwargs, message in [
        (
            {"depth": "leaf"},
            "depth: 'end', 'round' or streets among preflop, flop, turn, not 'leaf'",
        ),
        ({"depth": "round", "gadget": "resolve"}, "depth-limited search at the table is unsafe"),
        ({"continuations": 3}, "continuations: 1, 4 or 'self'"),
        ({"bias": 1.0}, "bias must be above 1"),
        ({"self_rounds": -1}, "self_rounds"),
        ({"self_tolerance": -0.5}, "self_tolerance"),
    ]:
        with pytest.raises(PokerlabError, match=message):
            SearchAgent(blueprint, "turn,river", **kwargs)


@pytest.mark.parametrize("k", [1, 4])
def test_the_agents_turn_solve_is_the_exact_tables_depth_limited_solve(blueprint, k) -> None:
    """At a turn decision of the player out of position, the depth-limited agent's subgame
    offers the blueprint's 50% river bet below the leaves (the search menu's 100% and all-in
    only on the turn), and its strategy at the subgame's root equals :func:`search_everywhere`
    run on the same spot, from the blueprint projected for both seats, to the end of the turn
    with the same continuations (the exact table's path: its own ranges and leaves), to 1e-6."""
    view = _turn_view(blueprint, oop=True)
    agent = SearchAgent(blueprint, "turn,river", iterations=40, depth="round", continuations=k)
    seat = view.state.to_act
    agent._seat = seat
    hands = deck_combos(agent.rules)
    live = ~np.isin(hands, view.board).any(axis=1)
    probs, acts = agent._decision(view, hands[live])
    (solved,) = agent._cache.values()
    game = solved.solver.game
    # below the leaves the blueprint's sizes: the river's first bets are its 50% only
    turn_root = game.action_tree
    river = [n for n, dealt in _decisions(turn_root) if dealt][0]
    assert len([a for a in river.actions if a[1] > 0]) == 1  # check or bet 50%
    assert len([a for a in turn_root.actions if a[1] > 0]) == 3  # 50%, 100%, all-in
    prefix, moves = agent._round_start(view)
    start = moves[0][3] if moves else view.state
    mine = projected_blueprint(blueprint, agent.rules, game, start, prefix, seat)
    other = projected_blueprint(blueprint, agent.rules, game, start, prefix, 1 - seat)
    lo, hi = game.expanded.tree.player_ranges[1]
    mine[lo:hi] = other[lo:hi]
    report = search_everywhere(
        game, mine, "unsafe", street="turn", iterations=40, depth="round", continuations=k
    )
    tree = game.expanded.tree
    n = int(tree.hands.num[0])
    na = len(acts)
    want = report.profile[: na * n].reshape(na, n).T
    rows = np.full(1326, -1)
    rows[game.expanded.combos[0]] = np.arange(n)
    combos = COMBO_INDEX[hands[live, 0], hands[live, 1]]
    np.testing.assert_allclose(probs, want[rows[combos]], atol=1e-6)
    assert solved.solver.iterations == 40


def _decisions(root) -> list:
    """Every decision of an action tree with whether a deal lies above it, in preorder."""
    out, stack = [], [(root, False)]
    while stack:
        node, dealt = stack.pop()
        if node.kind == "decision":
            out.append((node, dealt))
        stack.extend((c, dealt or node.kind == "chance") for c in reversed(node.children))
    return out


def test_a_depth_limited_agent_plays_repeatably_with_every_continuation_set(blueprint) -> None:
    """Matches of a few pairs: each continuation set plays to the end, solves turn subgames
    (the river's to the end of the game), the same numbers twice, and a self-generative set
    with a tolerance adds between one and three responses."""
    rules = blueprint.strategy.game.rules
    for k in (1, 4, "self"):
        runs = []
        for _ in range(2):
            agent = SearchAgent(blueprint, "turn,river", iterations=20, depth="round",
                                continuations=k, self_tolerance=0.01)  # fmt: skip
            result = duplicate_match(rules, agent, blueprint, 4, 1)
            runs.append((result.mbb_per_game, [r.iterations for r in agent.records]))
            assert any(r.street == 2 for r in agent.records)
            if k == "self":
                turn = [r.iterations for r in agent.records if r.street == 2]
                assert all(40 <= i <= 80 for i in turn), turn
        assert runs[0] == runs[1], k
