"""Reach-maxmargin at the table (issue 25): the opponent's gifts from its last turn decision,
checked against a best response written here on the real game's rules, and the gadget in the
search agent's river subgames, on the 12-card four-round game of ``test_search_agent.py``."""

from __future__ import annotations

import numpy as np
import pytest

import test_search_agent
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import PublicView, deck_combos
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.matches import duplicate_match, showdown_values
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.solvers.search import safe
from pokerlab.solvers.search.agent import RANGE_FLOOR, SearchAgent
from pokerlab.solvers.search.lines import real_action, tree_child
from pokerlab.solvers.search.table_gifts import river_gifts, turn_line
from test_search_agent import _river_view

#: the 12-card blueprint of test_search_agent.py (20,000 MCCFR iterations) and its checkpoint
blueprint = test_search_agent.blueprint
checkpoint = test_search_agent.checkpoint


def _reference_gifts(agent: SearchAgent, view: PublicView, combos_o: np.ndarray) -> np.ndarray:
    """The gifts per unit of faced reach, computed directly: from the opponent's last turn
    decision ``I``, each action's expected best-response value (chips, the hand's net) against
    the searcher's range there under the blueprint, walking the turn spot's action tree with
    the real rules, the blueprint's probabilities (normalised over the tree's actions, as the
    projection does), every river card and the hand evaluator."""
    rules = agent.rules
    seat = agent._seat
    prefix, _ = agent._round_start(view)
    before, moves, start = turn_line(rules, prefix)
    board4 = tuple(view.board[:4])
    game = agent._game(
        PublicView(rules, start, board4, before),
        before,
        agent._sizes(
            moves,
            tuple(int(m[2]) for m in moves),
            safe.blueprint_sizes(agent.blueprint.strategy.game.abstraction, 2),
        ),
    )
    me = 0 if seat == rules.first_to_act(3) else 1  # spot players: 0 = out of position
    hands = deck_combos(rules)
    weights = agent._bayes(before, board4)[seat].copy()
    free = ~np.isin(hands, board4).any(axis=1)
    weights[free] = np.maximum(weights[free], RANGE_FLOOR * weights.max())
    deck = np.unique(hands)

    def probs(state, history, board, node, live):
        seen = PublicView(rules, state, board, tuple(history))
        reals = [real_action(rules, state, k, a) for k, a in node.actions]
        p = np.stack([agent.blueprint.belief_probability(seen, hands[live], r) for r in reals])
        total = p.sum(axis=0)
        return reals, np.where(total > 0, p / np.where(total > 0, total, 1.0), 1.0 / len(reals))

    half = (start.pot() - sum(start.bets)) / 2  # each seat's chips before the turn

    def value(node, state, history, board, h_o, w):
        if not (w > 0).any():
            return 0.0
        if node.kind == "fold":
            chips = half + node.commit[node.player]
            return (-chips if node.player != me else chips) * w.sum()
        if node.kind == "showdown":
            live = np.flatnonzero(w > 0)
            rows = np.array([[*h_o, *hands[i], *board] for i in live])
            v = showdown_values(rules, rows)
            sign = np.sign(v[:, 0] - v[:, 1])
            return float((half + node.commit[1 - me]) * np.sum(sign * w[live]))
        if node.kind == "chance":
            out = 0.0
            left = len(deck) - len(board) - 4  # river cards given both hands
            for c in deck:
                if c in board or c in h_o:
                    continue
                w2 = np.where((hands == c).any(axis=1), 0.0, w) / left
                out += value(node.children[0], state, history, (*board, int(c)), h_o, w2)
            return out
        if node.player != me:  # the opponent best-responds
            return max(
                value(child, state.apply(rules, *r), [*history, (state.to_act, *r)], board, h_o, w)
                for child, r in zip(
                    node.children,
                    [real_action(rules, state, k, a) for k, a in node.actions],
                    strict=True,
                )
            )
        live = np.flatnonzero(w > 0)
        reals, p = probs(state, history, board, node, live)
        out = 0.0
        for i, (child, r) in enumerate(zip(node.children, reals, strict=True)):
            w2 = np.zeros_like(w)
            w2[live] = w[live] * p[i]
            out += value(child, state.apply(rules, *r), [*history, (state.to_act, *r)], board,
                         h_o, w2)  # fmt: skip
        return out

    # down the actual turn line to the opponent's last decision, the searcher's reach with it
    node, state, history = game.action_tree, start, list(before)
    reach = weights.copy()
    last = None
    for mover, kind, amount, _ in moves:
        i = tree_child(node, kind, amount)
        if node.player == me:
            live = np.flatnonzero(reach > 0)
            _, p = probs(state, history, board4, node, live)
            reach[live] *= p[i]
        else:
            last = (node, state, tuple(history), i)
        history.append((mover, kind, amount))
        state = state.apply(rules, kind, amount)
        node = node.children[i]
    assert last is not None
    node_i, state_i, history_i, taken = last
    out = np.zeros(len(combos_o))
    for j, combo in enumerate(combos_o):
        h_o = tuple(int(c) for c in combo)
        w = np.where(np.isin(hands, h_o).any(axis=1) | ~free, 0.0, reach)
        cbv = []
        for child, (k, a) in zip(node_i.children, node_i.actions, strict=True):
            r = real_action(rules, state_i, k, a)
            cbv.append(value(child, state_i.apply(rules, *r), [*history_i, (state_i.to_act, *r)],
                             board4, h_o, w))  # fmt: skip
        d = w.sum()
        out[j] = max(max(cbv) - cbv[taken], 0.0) / d if d > 0 else 0.0
    return out


def _river(blueprint: BlueprintAgent, deal: int) -> tuple[SearchAgent, PublicView, tuple, object]:
    view, _ = _river_view(blueprint, deal)
    agent = SearchAgent(blueprint, "river", iterations=200, gadget="reach-maxmargin")
    agent._seat = view.state.to_act
    prefix, moves = agent._round_start(view)
    (_, sizes), game = agent._subgame(view, prefix, moves)
    return agent, view, prefix, game or agent._game(view, prefix, sizes)


def test_gifts_equal_a_direct_best_response_on_the_rules(blueprint) -> None:
    """On three river decisions, the turn gifts of every opponent hand (per unit of the
    searcher's reach it faces) equal the direct computation to 1e-6 chips; at least one hand
    has a positive gift (the opponent's turn play is the blueprint's, not a best response)."""
    from pokerlab.cards.deck import COMBO_CARDS

    positive = 0
    for deal in (0, 1, 2):
        agent, view, prefix, game = _river(blueprint, deal)
        spot = game.expanded
        me = 0 if agent._seat == agent.rules.first_to_act(3) else 1
        gifts = river_gifts(agent, view, prefix, spot)
        combos = np.sort(COMBO_CARDS[spot.combos[1 - me]].astype(np.int64), axis=1)
        want = _reference_gifts(agent, view, combos)
        np.testing.assert_allclose(gifts, want, rtol=1e-5, atol=1e-6)
        assert (gifts >= 0).all()
        positive += int((gifts > 1e-3).sum())
    assert positive > 0


def test_reach_maxmargin_keeps_the_opponent_within_cbv_and_gift(blueprint) -> None:
    """The river subgame solved with reach-maxmargin: the opponent's best response gains little
    over CBV + gift (its solve error, under a quarter of a chip per unit of the two ranges),
    more than over the CBVs alone where the gifts are positive (the slack it spends), and with
    every gift zero the solve equals maxmargin's bit for bit."""
    agent, view, prefix, game = _river(blueprint, 0)
    spot = game.expanded
    rules = agent.rules
    _, moves = agent._round_start(view)
    menu = safe.blueprint_sizes(blueprint.strategy.game.abstraction, 3)
    bp_game = agent._game(view, prefix, agent._sizes(moves, tuple(m[2] for m in moves), menu))
    start = moves[0][3] if moves else view.state
    profile = safe.projected_blueprint(blueprint, rules, bp_game, start, prefix, agent._seat)
    player = 0 if agent._seat == rules.first_to_act(3) else 1
    cbv = safe.opponent_cbv(bp_game, profile, 1 - player)
    gift = river_gifts(agent, view, prefix, spot)
    from pokerlab.solvers.search.subgames import faced_reach

    w = spot.tree.hands.weight.astype(np.float64)
    scale = w[0].sum() * w[1].sum()
    allowed = cbv + gift * faced_reach(spot.tree, 1 - player, w[player])
    solver = PostflopSolver(game, "dcfr", warmup=False)
    gains = safe.solve_safe(solver, "reach-maxmargin", player, cbv, 300, gift=gift)
    assert safe.opponent_gain(solver, player, allowed) / scale < 0.25
    assert gains[1 - player] == pytest.approx(
        safe.opponent_gain(solver, player, allowed), rel=1e-3, abs=1e-3 * scale
    )
    zero = PostflopSolver(game, "dcfr", warmup=False)
    safe.solve_safe(zero, "reach-maxmargin", player, cbv, 50, gift=np.zeros_like(gift))
    plain = PostflopSolver(game, "dcfr", warmup=False)
    safe.solve_safe(plain, "maxmargin", player, cbv, 50)
    np.testing.assert_array_equal(zero.strat_sum, plain.strat_sum)


def test_the_agent_plays_reach_maxmargin_on_the_river_only(blueprint) -> None:
    """A reach-maxmargin agent plays a duplicate match against its blueprint repeatably, one
    turn spot per turn line (the gifts kept); other streets are refused by name."""
    rules = blueprint.strategy.game.rules
    agent = SearchAgent(blueprint, "river", iterations=40, gadget="reach-maxmargin")
    one = duplicate_match(rules, agent, blueprint, 6, seed=5)
    assert agent.records and agent._gifts
    again = SearchAgent(blueprint, "river", iterations=40, gadget="reach-maxmargin")
    assert duplicate_match(rules, again, blueprint, 6, seed=5).mbb_per_game == one.mbb_per_game
    with pytest.raises(PokerlabError, match="reach-maxmargin searches the river alone"):
        SearchAgent(blueprint, "turn,river", gadget="reach-maxmargin")


def test_cli_match_takes_reach_maxmargin(checkpoint, capsys) -> None:
    """``blueprint match search:F F --search-gadget reach-maxmargin`` gives the API's numbers."""
    import json

    from pokerlab.cli.blueprint_eval import load_agent
    from pokerlab.cli.main import main

    capsys.readouterr()
    args = ["blueprint", "match", f"search:{checkpoint}", str(checkpoint), "--pairs", "4"]
    args += ["--search-iterations", "30", "--search-gadget", "reach-maxmargin", "--json"]
    assert main(args) == 0
    got = json.loads(capsys.readouterr().out)
    agent, game = load_agent(str(checkpoint), "X")
    reach = SearchAgent(agent, "river", iterations=30, gadget="reach-maxmargin")
    assert got["mbb_per_game"] == pytest.approx(
        duplicate_match(game.rules, reach, agent, 4, 0).mbb_per_game, abs=1e-9
    )
