"""Safe search at the table (issue 25): the blueprint read onto a subgame's tree, the opponent's
CBVs there, and the resolve / maxmargin gadgets in the search agent's subgames, on the 12-card
four-round game of ``test_search_agent.py``."""

from __future__ import annotations

import numpy as np
import pytest

import test_search_agent
from pokerlab.cards.deck import COMBO_CARDS
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import PublicView
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.matches import duplicate_match
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.solvers.search import safe
from pokerlab.solvers.search.agent import SearchAgent
from pokerlab.solvers.search.lines import real_action
from test_search_agent import _river_view

#: the 12-card blueprint of test_search_agent.py (20,000 MCCFR iterations), one fixture
blueprint = test_search_agent.blueprint


def _subgames(blueprint: BlueprintAgent, deal: int) -> tuple:
    """The search's subgame and the blueprint-sized one at a river decision, the seat on move
    as spot player, the blueprint read onto the latter, and the opponent's CBVs."""
    game = blueprint.strategy.game
    view, _ = _river_view(blueprint, deal)
    agent = SearchAgent(blueprint, "river", iterations=300)
    agent._seat = view.state.to_act
    prefix, moves = agent._round_start(view)
    (_, sizes), search_game = agent._subgame(view, prefix, moves)
    search_game = search_game or agent._game(view, prefix, sizes)
    menu = safe.blueprint_sizes(game.abstraction, 3)
    bp_game = agent._game(view, prefix, agent._sizes(moves, tuple(m[2] for m in moves), menu))
    start = moves[0][3] if moves else view.state
    profile = safe.projected_blueprint(blueprint, game.rules, bp_game, start, prefix, agent._seat)
    player = 0 if agent._seat == game.rules.first_to_act(3) else 1
    cbv = safe.opponent_cbv(bp_game, profile, 1 - player)
    return view, start, prefix, search_game, bp_game, profile, player, cbv


def test_the_blueprint_read_onto_its_own_sizes_is_the_blueprint(blueprint) -> None:
    """On a spot with the blueprint's river sizes, the profile at the searching seat's first
    decision is the blueprint's own action probabilities hand by hand, and every block of that
    seat sums to 1 per hand."""
    game = blueprint.strategy.game
    assert safe.blueprint_sizes(game.abstraction, 3) == ("50%", "50%", 1)
    view, start, prefix, _, bp_game, profile, player, _ = _subgames(blueprint, 0)
    spot = bp_game.expanded
    tree = spot.tree
    a = tree.arrays
    n = int(tree.hands.num[player])
    decided = 0
    for node in np.flatnonzero(a.player == player):
        if a.kind[node] != 0 or a.child_start[node + 1] == a.child_start[node]:
            continue
        na = len(spot.action_node[node].actions)
        block = profile[a.offset[node] : a.offset[node] + na * n].reshape(na, n)
        np.testing.assert_allclose(block.sum(axis=0), 1.0, atol=1e-6)
        decided += 1
    assert decided >= 1
    if int(a.player[0]) == player:  # the root is the searching seat's: compare directly
        hands = np.sort(COMBO_CARDS[spot.combos[player]].astype(np.int64), axis=1)
        root_view = PublicView(game.rules, start, view.board, tuple(prefix))
        for i, (k, amt) in enumerate(spot.action_node[0].actions):
            want = blueprint.action_probability(
                root_view, hands, real_action(game.rules, start, k, amt)
            )
            np.testing.assert_allclose(profile[a.offset[0] + i * n : a.offset[0] + (i + 1) * n],
                                       want, atol=1e-6)  # fmt: skip


def test_safe_gadgets_keep_the_opponent_to_its_blueprint_values(blueprint) -> None:
    """Resolve and maxmargin: the opponent's best response gains under a quarter of a chip
    over its CBVs (the pot is 400-800 chips); the unsafe solve of the same subgames lets it gain
    chips on some of them (BLUEPRINT.md 3.5: safe search bounds what the opponent can win)."""
    unsafe = []
    for deal in range(6):
        _, _, _, search_game, bp_game, _, player, cbv = _subgames(blueprint, deal)
        w = search_game.expanded.tree.hands.weight.astype(np.float64)
        scale = w[0].sum() * w[1].sum()
        for gadget in ("resolve", "maxmargin"):
            solver = PostflopSolver(search_game, "dcfr", warmup=False)
            gains = safe.solve_safe(solver, gadget, player, cbv, 300)
            again = safe.opponent_gain(solver, player, cbv)
            assert again == pytest.approx(gains[1 - player], rel=1e-3, abs=1e-3 * scale)
            assert gains[1 - player] / scale < 0.25, (deal, gadget)
        solver = PostflopSolver(search_game, "dcfr", warmup=False)
        solver.step(300)
        unsafe.append(safe.opponent_gain(solver, player, cbv) / scale)
    assert max(unsafe) > 1.0, unsafe


def test_the_agent_searches_safely_in_matches(blueprint) -> None:
    """A resolve search agent plays a duplicate match against its blueprint, repeatably, one
    solve per seat where both search the same subgame, and with a time budget; a bad gadget is
    refused."""
    rules = blueprint.strategy.game.rules
    first = SearchAgent(blueprint, "river", iterations=50, gadget="resolve")
    one = duplicate_match(rules, first, blueprint, 10, seed=5)
    assert first.records and all(r.street == 3 for r in first.records)
    again = SearchAgent(blueprint, "river", iterations=50, gadget="resolve")
    assert duplicate_match(rules, again, blueprint, 10, seed=5).mbb_per_game == one.mbb_per_game
    with pytest.raises(PokerlabError, match="unknown gadget 'safe'"):
        SearchAgent(blueprint, "river", gadget="safe")
    timed = SearchAgent(blueprint, "river", gadget="maxmargin", seconds=0.05)
    duplicate_match(rules, timed, blueprint, 4, seed=5)
    assert timed.records and all(r.iterations >= 1 for r in timed.records)


def test_a_time_budget_cuts_the_gadget_solve_into_calls_of_the_same_numbers(
    blueprint, monkeypatch
) -> None:
    """``seconds``: the gadget's iterations run in several kernel calls, numbered on with the
    gadget's own regrets carried, so 120 iterations under a budget that does not bind give the
    strategy sums of one call of 120, bit for bit; a budget that binds stops early."""
    from pokerlab.solvers.search import gadgets

    calls = []
    kernel = gadgets.gadget_iterations

    def counted(*args):
        calls.append(args[7])  # the iterations of this call
        return kernel(*args)

    _, _, _, search_game, _, _, player, cbv = _subgames(blueprint, 1)
    for gadget in ("resolve", "maxmargin"):
        whole = PostflopSolver(search_game, "dcfr", warmup=False)
        safe.solve_safe(whole, gadget, player, cbv, 120)
        monkeypatch.setattr(gadgets, "gadget_iterations", counted)
        calls.clear()
        cut = PostflopSolver(search_game, "dcfr", warmup=False)
        safe.solve_safe(cut, gadget, player, cbv, 120, seconds=1e6)
        monkeypatch.setattr(gadgets, "gadget_iterations", kernel)
        assert len(calls) > 1 and sum(calls) == 120 == cut.iterations
        np.testing.assert_array_equal(cut.strat_sum, whole.strat_sum)
        np.testing.assert_array_equal(cut.regrets, whole.regrets)
    short = PostflopSolver(search_game, "dcfr", warmup=False)
    safe.solve_safe(short, "resolve", player, cbv, 10**6, seconds=0.02)
    assert 1 <= short.iterations < 10**6
    with pytest.raises(PokerlabError, match="time budget"):
        safe.solve_safe(short, "resolve", player, cbv, 10, seconds=0.0)


@pytest.mark.parametrize("spot", ["river", "turn"])
def test_faced_reach_equals_the_compatibility_matrix(spot) -> None:
    """The gadgets' normaliser by inclusion-exclusion over the cards equals the (H, H)
    compatibility matrix times the reach, for either player."""
    import pokerlab
    from pokerlab.solvers.search.subgames import faced_reach

    tree = pokerlab.load_game("postflop", spot=spot).expanded.tree
    hd = tree.hands
    rng = np.random.default_rng(3)
    for player in (0, 1):
        mine, theirs = hd.cards[player], hd.cards[1 - player]
        clash = (mine[:, None, :, None] == theirs[None, :, None, :]).any(axis=(2, 3))
        matrix = (~clash).astype(np.float64)
        matrix[int(hd.num[player]) :, :] = 0.0
        reach = rng.random(hd.cards.shape[1])
        reach[int(hd.num[1 - player]) :] = 0.0
        want = matrix @ reach
        np.testing.assert_allclose(faced_reach(tree, player, reach), want, rtol=1e-12, atol=1e-9)


def test_safe_gadgets_on_threads_equal_one_thread() -> None:
    """From the root of a turn spot (split at the river cards) the gadget's passes run on the
    passes' threads (``solve_subgame``'s threaded loop): resolve and maxmargin learn the
    strategy sums of the one-thread kernel, and the time budget holds there too."""
    import pokerlab

    game = pokerlab.load_game("postflop", spot="turn")
    tree = game.expanded.tree
    assert tree.num_items > 0  # the threaded path needs split points
    uniform = game.public_tree().normalise(np.ones(tree.size)).astype(np.float32)
    cbv = safe.opponent_cbv(game, uniform, 1)
    for gadget in ("resolve", "maxmargin"):
        one = PostflopSolver(game, "dcfr", threads=1, warmup=False)
        safe.solve_safe(one, gadget, 0, cbv, 12)
        two = PostflopSolver(game, "dcfr", threads=2, warmup=False)
        safe.solve_safe(two, gadget, 0, cbv, 12)
        assert two.passes.threads == 2
        np.testing.assert_allclose(two.strat_sum, one.strat_sum, rtol=1e-5, atol=1e-6)
        assert np.abs(one.strat_sum).sum() > 0
    timed = PostflopSolver(game, "dcfr", threads=2, warmup=False)
    safe.solve_safe(timed, "resolve", 0, cbv, 10**6, seconds=0.3)
    assert 1 <= timed.iterations < 10**6


def test_a_blueprint_spot_offers_each_later_street_its_own_sizes(blueprint) -> None:
    """The spot of a turn round with the blueprint's sizes (what the safe gadgets and
    reach-maxmargin's gifts read the blueprint on) gives the river the sizes passed for it: a
    river first bet of 100% of the pot where the turn's is 50% (the 12-card blueprint bets 50%
    on both, so the river's here stand for a blueprint whose rounds differ)."""
    from pokerlab.solvers.search.table_gifts import turn_line

    game = blueprint.strategy.game
    assert safe.blueprint_later(game.abstraction, 2) == (("50%", "50%"),)
    assert safe.blueprint_later(game.abstraction, 3) == ()
    river, _ = _river_view(blueprint, 0)
    before, _, start = turn_line(game.rules, river.history)
    view = PublicView(game.rules, start, river.board[:4], before)
    agent = SearchAgent(blueprint, "river", iterations=1)
    agent._seat = start.to_act
    turn = safe.blueprint_sizes(game.abstraction, 2)
    same = agent._game(view, before, turn)
    apart = agent._game(view, before, turn, later=(("100%", "50%"),))

    def first_bets(root, dealt: bool) -> set[int]:
        """The chips of the bets at the spot's first decision (``dealt``: the first one after
        the river's deal)."""
        stack = [(root, False)]
        while stack:
            node, below = stack.pop()
            if node.kind == "decision" and below == dealt:
                return {amt for _, amt in node.actions if amt > 0}
            stack.extend((c, below or node.kind == "chance") for c in node.children)
        raise AssertionError("no such decision")

    assert first_bets(same.action_tree, False) == first_bets(apart.action_tree, False)
    # the line's river pot is the same in both: the first river bet doubles with the size
    river_same = first_bets(same.action_tree, True)
    river_apart = first_bets(apart.action_tree, True)
    assert len(river_same) == len(river_apart) == 1
    assert max(river_apart) == 2 * max(river_same)
    with pytest.raises(PokerlabError, match="later streets"):
        agent._game(view, before, turn, later=(("100%", "50%"), ("50%", "50%")))
