"""Preflop search (issue 25): on a small deck the search agent's preflop subgame is the whole
hand, a spot that starts before the flop (blinds, no board, every hand in both ranges), solved to
the end of the game; checked against the same spot written by hand and solved directly, and by
the exact best response of the whole pipeline (T4 of ``benchmarks/search_exact.py``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pokerlab
from _checkpoints import train_checkpoint
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import PublicView, deck_combos
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.exact import exact_best_response
from pokerlab.games.nolimit.rules import CALL, RAISE, NoLimitRules
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.spot import spot_from_params
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.solvers.search.agent import SearchAgent, SearchMenu
from pokerlab.solvers.search.lines import line_node, node_strategy, real_action
from pokerlab.solvers.search.menu import check_preflop

#: the game's own sizes (fold, call, pot, all-in): the search's tree is the responder's game
MENU = SearchMenu("100%, a", "100%, a", raise_limit=8)
STACK = 300


def _blueprint(stack: int) -> BlueprintAgent:
    game = pokerlab.load_game("nolimit-holdem", actions="fcpa", ranks=3, rounds=4, stack=stack)
    abstraction = lossless_abstraction(3)
    solver = BlueprintSolver(game, abstraction, seed=1)
    solver.step(2000)
    return BlueprintAgent(solver.average_strategy(), abstraction)


@pytest.fixture(scope="module")
def blueprint() -> BlueprintAgent:
    return _blueprint(STACK)


def _by_hand(stack: int) -> PostflopGame:
    """The whole hand written as a spot by hand: what the agent's preflop subgame must be."""
    spot = spot_from_params(
        board="", blinds=(50, 100), ranges=("QQ+,AK,AQ,KQ",) * 2, pot=0, stack=stack,
        bets={s: {"bet": "100%, a", "raise": "100%, a"}
              for s in ("preflop", "flop", "turn", "river")},
        add_allin_threshold=0.0, force_allin_threshold=0.0, merging_threshold=0.0,
        raise_limit=8, ranks=3,
    )  # fmt: skip
    return PostflopGame(spot)


def test_the_preflop_subgame_is_the_whole_hand_solved_directly(blueprint) -> None:
    """At every preflop decision the agent's strategy, for every hand at once, equals the
    strategy of the hand-written whole-hand spot solved with the same 60 DCFR iterations, at
    the node of the same line: seats, blinds, sizes and the walk of the line all agree, facing
    an all-in too (the agent once left those to the blueprint). One subgame serves every
    preflop decision (no size was missing)."""
    rules = blueprint.strategy.game.rules
    agent = SearchAgent(blueprint, "preflop", menu=MENU, iterations=60)
    direct = PostflopSolver(_by_hand(STACK), "dcfr")
    direct.step(60)
    hands = deck_combos(rules)
    todo = [(rules.initial_state(), ())]
    checked = 0
    while todo:
        state, history = todo.pop()
        if state.street != 0 or state.status != "act":
            continue
        view = PublicView(rules, state, (), history)
        actions = sorted(set(view.legal()) & set(_menu_actions(view)))
        node = line_node(direct.spot, direct.game.action_tree, _moves(rules, history))
        probs, present, acts = node_strategy(direct, direct.spot, node)
        reals = [real_action(rules, state, k, a) for k, a in acts]
        assert sorted(reals) == actions
        for col, action in enumerate(reals):
            got = agent.action_probability(view, hands, action)
            want = probs[present[_combo_rows(hands)], col]
            np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
            checked += 1
            todo.append((state.apply(rules, *action), (*history, (state.to_act, *action))))
    assert checked >= 8
    assert len(agent.records) == 1 and agent.records[0].street == 0
    assert agent.records[0].inserted == ()


def _menu_actions(view: PublicView) -> list[tuple[int, int]]:
    """The game's fold / call / pot / all-in actions at ``view`` (the menu's)."""
    from pokerlab.games.nolimit.actions import abstract_actions

    game = pokerlab.load_game(
        "nolimit-holdem", actions="fcpa", ranks=3, rounds=4, stack=view.rules.stacks[0]
    )
    return abstract_actions(view.rules, game.abstraction, view.state)


def _moves(rules: NoLimitRules, history: tuple) -> list:
    state, out = rules.initial_state(), []
    for seat, kind, amount in history:
        out.append((seat, kind, amount, state))
        state = state.apply(rules, kind, amount)
    return out


def _combo_rows(hands: np.ndarray) -> np.ndarray:
    from pokerlab.cards.deck import COMBO_INDEX

    return COMBO_INDEX[hands[:, 0], hands[:, 1]]


def test_searching_every_street_from_the_preflop_is_less_exploitable(blueprint) -> None:
    """T4 at 3 bb (``benchmarks/search_exact.py --stack 300 --iterations 2000``), exact best
    responses of the whole pipeline: the blueprint after 2,000 iterations 113.3 mbb/g; search
    on the flop, turn and river 28.9; from the preflop on (one whole-hand solve, then nested
    re-solves from its ranges) 0.7. (88.2 and 63.6 while decisions facing an all-in were left
    to the blueprint.)"""
    game = blueprint.strategy.game
    late = SearchAgent(blueprint, "flop,turn,river", menu=MENU, iterations=100, cache=10**6)
    every = SearchAgent(
        blueprint, "preflop,flop,turn,river", menu=MENU, iterations=100, cache=10**6
    )
    values = {
        name: exact_best_response(game, agent, suit_isomorphism=True).mbb_per_game
        for name, agent in (("blueprint", blueprint), ("late", late), ("every", every))
    }
    assert values["every"] < values["late"] < values["blueprint"], values
    assert sum(r.street == 0 for r in every.records) == 1


def test_an_off_menu_preflop_raise_is_inserted_and_re_solved(blueprint) -> None:
    """The small blind min-raises to 200 (the menu has pot, 300, and all-in): the big blind's
    search re-solves the whole hand with that raise in it, and answers with the game's actions
    (fold, call, all-in; the pot raise is the all-in at this depth)."""
    rules = blueprint.strategy.game.rules
    agent = SearchAgent(blueprint, "preflop", menu=MENU, iterations=30)
    state = rules.initial_state()
    view = PublicView(rules, state.apply(rules, RAISE, 200), (), ((0, RAISE, 200),))
    hole = tuple(int(c) for c in deck_combos(rules)[0])
    policy = agent.policy(view, hole)
    assert [r.inserted for r in agent.records] == [(200,)]
    assert {k for k, _ in policy} >= {CALL} and sum(policy.values()) == pytest.approx(1.0)
    assert all(a in view.legal() for a in policy)


def test_preflop_search_is_refused_where_it_cannot_run(blueprint) -> None:
    full = NoLimitRules(players=2, stacks=(10000, 10000), small_blind=50, big_blind=100)
    with pytest.raises(PokerlabError, match="small decks only"):
        check_preflop(full, (0, 3), "end")
    check_preflop(full, (1, 2, 3), "end")  # no preflop: nothing to refuse
    with pytest.raises(PokerlabError, match="not depth 'round'"):
        SearchAgent(blueprint, "preflop,flop", depth="round")


def test_the_cli_plays_a_preflop_searching_agent(tmp_path, capsys) -> None:
    """``blueprint match search:F --search-streets preflop,flop,turn,river`` on a checkpoint of a
    12-card game trained by ``blueprint train``: the match's numbers equal the API's."""
    from pokerlab.cli.blueprint_eval import load_agent
    from pokerlab.cli.main import main
    from pokerlab.evaluate.nolimit.matches import duplicate_match

    config = (
        'ranks = 3\nrounds = 4\nstack = 300\n[actions]\npreflop = "100%"\nflop = "100%"\n'
        'turn = "100%"\nriver = "100%"\n'
    )
    path = train_checkpoint(tmp_path, config, 2000)
    capsys.readouterr()
    streets = "preflop,flop,turn,river"
    args = ["blueprint", "match", f"search:{path}", str(path), "--pairs", "3", "--seed", "4"]
    assert main([*args, "--search-streets", streets, "--search-iterations", "20", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    agent, game = load_agent(str(path), "X")
    search = SearchAgent(agent, streets, iterations=20)
    want = duplicate_match(game.rules, search, agent, 3, 4)
    assert got["mbb_per_game"] == pytest.approx(want.mbb_per_game, abs=1e-9)
    assert any(r.street == 0 for r in search.records)
    bad = ["--search-streets", "preflop", "--search-depth", "round", "--json"]
    assert main([*args, *bad]) == 2
    assert "not depth 'round'" in capsys.readouterr().err
