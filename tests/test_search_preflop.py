"""Preflop search (issue 25): on a small deck the search agent's preflop subgame is the whole
hand, a spot that starts before the flop (blinds, no board, every hand in both ranges), solved to
the end of the game; checked against the same spot written by hand and solved directly, and by
the exact best response of the whole pipeline (T4 of ``benchmarks/search_exact.py``)."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
import pytest

import pokerlab
from _checkpoints import train_checkpoint
from pokerlab.errors import PokerlabError, PokerlabWarning
from pokerlab.evaluate.nolimit.agents import PublicView, deck_combos
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.exact import exact_best_response
from pokerlab.evaluate.nolimit.translation import off_tree_gap
from pokerlab.games.nolimit.rules import ALLIN, CALL, CHECK, RAISE, NoLimitRules
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.games.postflop.spot import spot_from_params
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.solvers.search.agent import SearchAgent, SearchMenu
from pokerlab.solvers.search.lines import line_node, node_strategy, real_action
from pokerlab.solvers.search.menu import check_preflop
from pokerlab.solvers.search.table_depth import leaf_sample, limited_streets

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
    """The full deck's whole hand does not fit: a preflop search there is depth-limited with a
    flop count in its sample, and without ``preflop_far`` warns that every preflop decision
    pays a solve; small decks search the preflop either way."""
    full = NoLimitRules(players=2, stacks=(10000, 10000), small_blind=50, big_blind=100)
    cases = (("end", None), ("round", None), ("round", (6, 6)), ("flop", (3, 3, 3)))
    for depth, sample in cases:
        with pytest.raises(PokerlabError, match=r"depth='round' \(or naming the preflop\)"):
            check_preflop(full, (0, 3), limited_streets(depth), sample, 1.0)
    check_preflop(full, (1, 2, 3), frozenset())  # no preflop: nothing to refuse
    with pytest.warns(PokerlabWarning, match="every preflop decision"):
        check_preflop(full, (0, 3), limited_streets("round"), (3, 3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_preflop(full, (0, 3), limited_streets("preflop"), (3, 3, 3), 1.0)
    SearchAgent(blueprint, "preflop,flop", depth="round")  # small deck: exact leaves
    per_street = SearchAgent(blueprint, "preflop,flop,turn,river", depth="preflop, turn")
    assert [per_street._limited(s) for s in range(4)] == [True, False, True, False]
    with pytest.raises(PokerlabError, match="not 'river'"):
        SearchAgent(blueprint, "preflop", depth="preflop,river")
    with pytest.raises(PokerlabError, match="preflop_far must be a number of big blinds"):
        SearchAgent(blueprint, "preflop", preflop_far=-1)
    with pytest.raises(PokerlabError, match="at least 3"):
        SearchAgent(blueprint, "preflop", depth="round", deal_sample=(2, 5, 5))


def test_leaf_samples_per_street() -> None:
    """A sample names the cards of each deal below the leaves: the flop's count at each of its
    three deals, every card where no flop count is given."""
    assert leaf_sample((3, 5, 6), 0) == (3, 3, 3, 5, 6)
    assert leaf_sample((3, 5, 6), 1) == (5, 6)
    assert leaf_sample((5, 6), 2) == (6,)
    assert leaf_sample((5, 6), 0) == (52, 52, 52, 5, 6)
    assert leaf_sample(None, 1) is None


def _coarse_blueprint(iterations: int) -> BlueprintAgent:
    """T4 at 10 bb with the preflop raises 50% and all-in only: the pot raise is off its tree."""
    actions = {**_FCPA, "preflop": "50%, a"}
    game = pokerlab.load_game("nolimit-holdem", actions=actions, ranks=3, rounds=4, stack=1000)
    abstraction = lossless_abstraction(3)
    solver = BlueprintSolver(game, abstraction, seed=1)
    solver.step(iterations)
    return BlueprintAgent(solver.average_strategy(), abstraction)


_FCPA = {s: "100%, a" for s in ("preflop", "flop", "turn", "river")} | {
    "add_allin_threshold": 0.0,
    "force_allin_threshold": 0.0,
    "merging_threshold": 0.0,
}


def test_off_tree_gap_is_the_distance_to_the_nearest_size() -> None:
    """The small blind's open to 300 (the pot raise: 1.0 of the 200 chips after the call) lies
    0.5 x 200 = 100 chips from the tree's 50% raise (to 200); 250 lies 50 from it; the tree's
    own raise and the all-in lie 0 from the tree; only the seat asked about counts."""
    agent = _coarse_blueprint(10)
    tree, rules = agent.strategy.layout.tree, agent.strategy.game.rules
    abstraction = agent.strategy.game.abstraction
    stack = rules.stacks[0]
    for amount, gap in ((300, 100.0), (250, 50.0), (200, 0.0), (stack, 0.0)):
        kind = ALLIN if amount == stack else RAISE
        got = off_tree_gap(tree, rules, abstraction, ((0, kind, amount),))
        assert got == pytest.approx(gap), amount
    assert off_tree_gap(tree, rules, abstraction, ((0, RAISE, 300),), seat=1) == 0.0
    # the big blind's raise facing a limp: pot after the call 200, the pot raise to 300
    line = ((0, CALL, 100), (1, RAISE, 300))
    assert off_tree_gap(tree, rules, abstraction, line) == pytest.approx(100.0)


def test_preflop_far_searches_only_far_sizes() -> None:
    """With ``preflop_far=0.5`` the big blind searches the preflop only facing an open far from
    the blueprint's sizes: facing its 50% raise the blueprint answers (no subgame, the
    blueprint's probabilities), facing the pot raise a depth-limited preflop subgame with the
    raise inserted answers, and the flop's ranges read that search."""
    agent = _coarse_blueprint(200)
    rules = agent.strategy.game.rules
    search = SearchAgent(agent, "preflop", depth="round", continuations=1, iterations=20,
                         preflop_far=0.5)  # fmt: skip
    hands = deck_combos(rules)
    state = rules.initial_state()
    near = PublicView(rules, state.apply(rules, RAISE, 200), (), ((0, RAISE, 200),))
    assert not search.searches(near)
    np.testing.assert_array_equal(
        search.action_probability(near, hands, (CALL, 200)),
        agent.action_probability(near, hands, (CALL, 200)),
    )
    assert search.records == []
    far = PublicView(rules, state.apply(rules, RAISE, 300), (), ((0, RAISE, 300),))
    assert search.searches(far)
    policy = search.policy(far, tuple(int(c) for c in hands[0]))
    assert sum(policy.values()) == pytest.approx(1.0)
    assert [(r.street, r.inserted) for r in search.records] == [(0, (300,))]
    assert search.decisions[-1][0] == 0 and search.decisions[-1][2]


def test_inserted_raises_grow_the_tree_at_their_own_depth_only() -> None:
    """An open to 300 and a 3-bet to 700, both off the blueprint's sizes (50% and all-in):
    the small blind's preflop subgame holds each at the depth where it was played (``Nc@M``,
    the blinds counting as the first bet), not at every raise, so its tree is smaller than with
    the sizes at every depth, and the line is still in it and searched."""
    from pokerlab.games.postflop.action_walk import count_action_nodes

    agent = _coarse_blueprint(200)
    rules = agent.strategy.game.rules
    search = SearchAgent(agent, "preflop", depth="round", continuations=1, iterations=20,
                         preflop_far=0.5)  # fmt: skip
    history = ((0, RAISE, 300), (1, RAISE, 700))
    state = rules.initial_state()
    for _, kind, amount in history:
        state = state.apply(rules, kind, amount)
    view = PublicView(rules, state, (), history)
    prefix, moves = search._round_start(view)
    (inserted, sizes), game = search._subgame(view, prefix, moves)
    assert inserted == (300, 700)
    assert re.findall(r"(\d+)c(@\d+)?", sizes[1]) == [("200", "@1"), ("400", "@2")]
    everywhere = (sizes[0], re.sub(r"@\d+", "", sizes[1]), sizes[2])
    decisions = [
        sum(count_action_nodes(g.action_tree)["decision"])
        for g in (game, search._game(view, prefix, everywhere))
    ]
    assert decisions[0] < decisions[1], decisions
    policy = search.policy(view, tuple(int(c) for c in deck_combos(rules)[0]))
    assert sum(policy.values()) == pytest.approx(1.0)
    assert [(r.street, r.inserted) for r in search.records] == [(0, (300, 700))]


def test_a_depth_limited_preflop_search_lowers_exact_exploitability(blueprint) -> None:
    """T4 at 3 bb, exact best responses: the preflop searched alone, to the end of the preflop
    with four continuations of the blueprint at its leaves (exact flops), the rest played by
    the blueprint: 82.7 mbb/g against the blueprint's 113.3; with the flop drawn (3 cards at
    each of its deals, 5 turn and 5 river cards) the agent still runs its sampled spots."""
    game = blueprint.strategy.game
    limited = SearchAgent(blueprint, "preflop", menu=MENU, iterations=100, cache=10**6,
                          depth="round", continuations=4)  # fmt: skip
    base = exact_best_response(game, blueprint, suit_isomorphism=True).mbb_per_game
    got = exact_best_response(game, limited, suit_isomorphism=True).mbb_per_game
    assert got < 0.85 * base, (got, base)
    # one subgame per seat: the seat searching keeps its blueprint beyond the leaves
    assert [r.street for r in limited.records] == [0, 0]
    sampled = SearchAgent(blueprint, "preflop", menu=MENU, iterations=20, depth="round",
                          deal_sample=(3, 5, 5))  # fmt: skip
    rules = game.rules
    view = PublicView(rules, rules.initial_state(), (), ())
    hands = deck_combos(rules)
    probs = sum(sampled.action_probability(view, hands, a) for a in view.legal())
    np.testing.assert_allclose(probs, 1.0, atol=1e-6)
    (solved,) = sampled._cache.values()
    assert solved.solver.game.deal_sample == (3, 3, 3, 5, 5)


def test_a_depth_limited_search_too_large_for_memory_is_refused(blueprint, monkeypatch) -> None:
    """Before it is built, a depth-limited subgame whose profiles would not fit in the memory
    available is refused by name (built, it would be killed for memory): the agent warns and
    the blueprint plays the rest of that round, so a match goes on; the next round searches."""
    import pokerlab.solvers.search.cache as cache

    monkeypatch.setattr(cache, "available_memory_bytes", lambda: 1000)
    agent = SearchAgent(blueprint, "preflop,river", depth="round", iterations=5)
    rules = blueprint.strategy.game.rules
    view = PublicView(rules, rules.initial_state(), (), ())
    hole = tuple(int(c) for c in deck_combos(rules)[0])
    with pytest.warns(PokerlabWarning, match="depth-limited preflop subgame needs about"):
        assert agent.policy(view, hole) == blueprint.policy(view, hole)
    assert agent.refusals == [((), 0)] and agent.records == []
    later = view.state.apply(rules, CALL, 100)
    after = PublicView(rules, later, (), ((0, CALL, 100),))
    assert not agent.searches(after)  # the rest of the round: the blueprint
    hands = deck_combos(rules)
    np.testing.assert_array_equal(
        agent.action_probability(after, hands, (CHECK, 100)),
        blueprint.action_probability(after, hands, (CHECK, 100)),
    )
    with pytest.raises(cache.SubgameTooLarge):
        cache.SubgameCache(4).check_fits(2000, "a subgame")


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
    assert main([*args, *bad, "--search-deal-sample", "2,5,5"]) == 2
    assert "at least 3" in capsys.readouterr().err
    far = ["--search-preflop-far", "0.5", "--search-iterations", "5"]
    assert main([*args, *bad, *far]) == 0
    got = json.loads(capsys.readouterr().out)["mbb_per_game"]
    search = SearchAgent(agent, "preflop", iterations=5, depth="round", preflop_far=0.5)
    assert got == pytest.approx(duplicate_match(game.rules, search, agent, 3, 4).mbb_per_game)
    assert search.records == []  # the blueprint's own sizes: nothing is far
