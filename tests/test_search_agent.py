"""The search agent inside no-limit blueprint hands (issue 25): subgames built from the actual
hand, ranges by Bayes' rule under the blueprint, the opponent's size inserted, matches and LBR
against it, and the blueprint's vectorised action probabilities it relies on."""

from __future__ import annotations

import io
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

import pokerlab
from _checkpoints import train_checkpoint
from pokerlab._rng import generator
from pokerlab.cards.deck import COMBO_INDEX, format_combo
from pokerlab.cli.blueprint_eval import load_agent
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import (
    NoLimitAgent,
    PublicView,
    check_policy,
    deck_combos,
    passive_action,
)
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.lbr import local_best_response
from pokerlab.evaluate.nolimit.matches import deal_cards, duplicate_match, play_hand
from pokerlab.games.nolimit.rules import ALLIN, BET, CALL, FOLD, RAISE
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction
from pokerlab.solvers.search.agent import RANGE_FLOOR, SearchAgent, SearchMenu
from pokerlab.solvers.search.cache import Solved, SubgameCache

#: 12 cards, four rounds, 50 bb deep, half-pot bets and one raise after the preflop: hands
#: reach the river with chips behind, where the agent searches.
STREETS = {"preflop": "100%", "flop": "50%", "turn": "50%", "river": "50%", "raise_cap": 1}


@pytest.fixture(scope="module")
def blueprint() -> BlueprintAgent:
    game = pokerlab.load_game("nolimit-holdem", ranks=3, rounds=4, stack=5000, actions=STREETS)
    abstraction = lossless_abstraction(3)
    solver = BlueprintSolver(game, abstraction, seed=1)
    solver.step(20_000)
    return BlueprintAgent(solver.average_strategy(), abstraction)


def _river_view(blueprint: BlueprintAgent, deal: int = 0) -> tuple[PublicView, tuple[int, int]]:
    """The first river decision of a hand the blueprint plays against itself (a deal where one
    happens), and the hole cards of the seat on move."""
    rules = blueprint.strategy.game.rules
    cards = deal_cards(rules, 200, generator(11))
    found = 0
    for row in cards:
        record = play_hand(rules, [blueprint, blueprint], row, generator(3))
        state, history = rules.initial_state(), []
        for seat, kind, amount in record.actions:
            if state.street == 3:
                if found == deal:
                    board = tuple(int(c) for c in row[4:9])
                    hole = (int(row[2 * seat]), int(row[2 * seat + 1]))
                    return PublicView(rules, state, board, tuple(history)), hole
                found += 1
                break
            history.append((seat, kind, amount))
            state = state.apply(rules, kind, amount)
    raise AssertionError("no river decision in 200 deals")


def test_vectorised_blueprint_probabilities_equal_the_policy(blueprint) -> None:
    """BlueprintAgent.action_probability (one bucket lookup per hand) equals its policy asked
    hand by hand, at every decision of a few hands, on and off the tree."""
    rules = blueprint.strategy.game.rules
    hands = deck_combos(rules)
    checked = 0
    for row in deal_cards(rules, 6, generator(2)):
        record = play_hand(rules, [blueprint, blueprint], row, generator(4))
        state, history = rules.initial_state(), []
        for seat, kind, amount in record.actions:
            board = tuple(int(c) for c in row[4 : 4 + rules.board_size(state.street)])
            view = PublicView(rules, state, board, tuple(history))
            free = hands[~np.isin(hands, board).any(axis=1)]
            for action in {(k, a) for k, a in view.legal()}:
                fast = blueprint.action_probability(view, free, action)
                slow = NoLimitAgent.action_probability(blueprint, view, free, action)
                np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
                checked += 1
            history.append((seat, kind, amount))
            state = state.apply(rules, kind, amount)
    assert checked > 20


def test_river_search_ranges_follow_bayes_rule(blueprint) -> None:
    """The subgame's ranges are the product of the blueprint's probabilities of each seat's
    actions before the river, hand by hand (the policy asked per hand: an independent path),
    up to one scale per seat."""
    view, hole = _river_view(blueprint)
    agent = SearchAgent(blueprint, "river", iterations=50)
    agent.policy(view, hole)
    rules = view.rules
    hands = deck_combos(rules)
    expected = np.ones((2, len(hands)))
    state, history = rules.initial_state(), []
    prefix, _ = agent._round_start(view)
    for seat, kind, amount in prefix:
        board = view.board[: rules.board_size(state.street)]
        seen = PublicView(rules, state, board, tuple(history))
        for i, (a, b) in enumerate(hands.tolist()):
            if {a, b} & set(view.board):
                expected[:, i] = 0.0
                continue
            policy = check_policy(seen, blueprint.policy(seen, (a, b)), "bp")
            expected[seat, i] *= policy.get((kind, amount), 0.0)
        history.append((seat, kind, amount))
        state = state.apply(rules, kind, amount)
    got = agent._bayes(prefix, view.board)
    for s in (0, 1):
        np.testing.assert_allclose(got[s], expected[s], rtol=1e-12, atol=1e-15)
    # the spot's ranges: those weights, each seat's floored at RANGE_FLOOR of its largest
    solved = next(iter(agent._cache.values()))
    spot_weights = solved.solver.game.config.weights()
    ids = COMBO_INDEX[hands[:, 0], hands[:, 1]]
    free = ~np.isin(hands, view.board).any(axis=1)
    oop = rules.first_to_act(3)
    for p, seat in ((0, oop), (1, 1 - oop)):
        want = np.where(free, np.maximum(expected[seat], RANGE_FLOOR * expected[seat].max()), 0.0)
        np.testing.assert_allclose(spot_weights[p][ids], want / want.max(), rtol=1e-12, atol=0)


def test_nested_search_reads_the_ranges_from_the_previous_search(blueprint) -> None:
    """Searching the turn and the river: the river subgame's ranges are the blueprint's
    probabilities of the actions before the turn times the turn search's probabilities of the
    turn's actions (asked of the agent at each turn decision, both seats); with
    ``ranges="blueprint"`` the blueprint's throughout."""
    view, _ = _river_view(blueprint)
    rules = view.rules
    hands = deck_combos(rules)
    for ranges in ("search", "blueprint"):
        agent = SearchAgent(blueprint, "turn,river", iterations=30, ranges=ranges)
        prefix, _ = agent._round_start(view)
        expected = np.ones((2, len(hands)))
        expected[:, np.isin(hands, view.board).any(axis=1)] = 0.0
        state, history = rules.initial_state(), []
        turn_actions = 0
        for seat, kind, amount in prefix:
            seen = PublicView(rules, state, view.board[: rules.board_size(state.street)],
                              tuple(history))  # fmt: skip
            turn_actions += state.street == 2
            live = expected[seat] > 0
            if ranges == "search" and state.street == 2:
                probs = agent.action_probability(seen, hands[live], (kind, amount))
            else:
                probs = blueprint.belief_probability(seen, hands[live], (kind, amount))
            expected[seat, live] *= probs
            history.append((seat, kind, amount))
            state = state.apply(rules, kind, amount)
        assert turn_actions >= 2
        np.testing.assert_allclose(agent._bayes(prefix, view.board), expected, rtol=1e-12)
        if ranges == "search":
            searched = expected
        else:
            assert not np.allclose(expected, searched)  # the turn search changed the ranges


def test_river_search_solves_the_subgame_and_is_repeatable(blueprint) -> None:
    """The agent's river strategy is its subgame's solution: the spot it built is solved to a
    small exploitability within the budget, the strategy is a distribution over legal actions,
    and a second agent with the same budget plays the same probabilities."""
    view, hole = _river_view(blueprint)
    agent = SearchAgent(blueprint, "river", iterations=300)
    policy = check_policy(view, agent.policy(view, hole), "search")
    assert abs(sum(policy.values()) - 1.0) < 1e-9
    solved = next(iter(agent._cache.values()))
    assert solved.solver.iterations == 300
    assert solved.solver.exploitability_pct() < 0.5  # % of the pot
    again = SearchAgent(blueprint, "river", iterations=300).policy(view, hole)
    assert again == agent.policy(view, hole)
    assert len(agent.records) == 1 and agent.records[0].inserted == ()


def test_an_off_menu_bet_is_inserted_into_the_subgame(blueprint) -> None:
    """The opponent bets a size neither the blueprint nor the search menu has (37 big blinds'
    worth of chips chosen to be odd): the subgame is re-solved with that bet in it and the
    agent answers it with fold, call or raise, summing to 1."""
    view, hole = _river_view(blueprint)
    rules = view.rules
    state = view.state
    assert state.to_call() == 0  # the river's first decision: nothing to call
    bounds = state.raise_bounds(rules)
    odd = bounds[0] + 37
    agent = SearchAgent(blueprint, "river", iterations=100, menu=SearchMenu("50%, a", "a"))
    after = state.apply(rules, BET, odd)
    seat = state.to_act
    view2 = PublicView(rules, after, view.board, (*view.history, (seat, BET, odd)))
    others = [c for c in deck_combos(rules).tolist() if not set(c) & {*view.board, *hole}]
    reply = check_policy(view2, agent.policy(view2, tuple(others[0])), "search")
    assert abs(sum(reply.values()) - 1.0) < 1e-9
    kinds = {k for k, _ in reply}
    assert kinds <= {FOLD, CALL, RAISE, ALLIN} and kinds & {FOLD, CALL}
    assert agent.records[-1].inserted == (odd,)


def test_search_agent_plays_matches_and_lbr(blueprint) -> None:
    """A duplicate match against its own blueprint and LBR against it run end to end; the
    search happened on rivers, and the match is repeatable."""
    rules = blueprint.strategy.game.rules
    agent = SearchAgent(blueprint, "river", iterations=50)
    first = duplicate_match(rules, agent, blueprint, 12, seed=5)
    assert agent.records and all(r.street == 3 for r in agent.records)
    # every river decision is timed end to end; the ones that solved a new subgame are at
    # most the solves (a range read by the match can solve too) and take longer than a read
    assert agent.decisions and {d[0] for d in agent.decisions} == {3}
    new = [s for _, s, n in agent.decisions if n]
    assert 0 < len(new) <= len(agent.records) and all(s > 0 for _, s, _ in agent.decisions)
    assert min(new) >= min(r.seconds for r in agent.records)
    again = duplicate_match(rules, SearchAgent(blueprint, "river", iterations=50), blueprint,
                            12, seed=5)  # fmt: skip
    assert first.mbb_per_game == again.mbb_per_game
    result = local_best_response(rules, agent, 3, 1, actions="fc")
    assert result.pairs == 3 and np.isfinite(result.mbb_per_game)


def test_errors_name_the_bad_input(blueprint) -> None:
    with pytest.raises(PokerlabError, match="'showdown'"):
        SearchAgent(blueprint, "showdown")
    with pytest.raises(PokerlabError, match="BlueprintAgent"):
        SearchAgent("bp", "river")  # type: ignore[arg-type]
    with pytest.raises(PokerlabError, match="iterations"):
        SearchAgent(blueprint, "river", iterations=0)
    with pytest.raises(PokerlabError, match="'x'"):
        SearchMenu("50%, x")


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    """The module's game trained by ``pokerlab blueprint train`` (lossless, 20,000 it.)."""
    config = (
        'ranks = 3\nrounds = 4\nstack = 5000\n[actions]\npreflop = "100%"\nflop = "50%"\n'
        'turn = "50%"\nriver = "50%"\nraise_cap = 1\n'
    )
    return train_checkpoint(tmp_path_factory.mktemp("search-cli"), config, 20_000)


def test_cli_match_and_lbr_take_a_search_agent(checkpoint, capsys) -> None:
    """``search:CHECKPOINT`` plays in ``blueprint match`` and ``blueprint lbr``; the match's
    numbers equal the API's with the same settings."""
    capsys.readouterr()
    args = ["blueprint", "match", f"search:{checkpoint}", str(checkpoint), "--pairs", "6"]
    assert main([*args, "--seed", "2", "--search-iterations", "40", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    agent, game = load_agent(str(checkpoint), "X")
    want = duplicate_match(game.rules, SearchAgent(agent, "river", iterations=40), agent, 6, 2)
    assert got["hero"] == f"search:{checkpoint.name}" and got["games"] == 12
    assert got["mbb_per_game"] == pytest.approx(want.mbb_per_game, abs=1e-9)
    args = ["blueprint", "match", f"search:{checkpoint}", str(checkpoint), "--pairs", "4"]
    assert main([*args, "--search-iterations", "30", "--search-gadget", "maxmargin", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    safe = SearchAgent(agent, "river", iterations=30, gadget="maxmargin")
    assert got["mbb_per_game"] == pytest.approx(
        duplicate_match(game.rules, safe, agent, 4, 0).mbb_per_game, abs=1e-9
    )
    # depth-limited turn search (table_depth): the same numbers as the API
    args = ["blueprint", "match", f"search:{checkpoint}", str(checkpoint), "--pairs", "3"]
    args += ["--search-streets", "turn,river", "--search-iterations", "20"]
    assert main([*args, "--search-depth", "round", "--search-continuations", "4", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    limited = SearchAgent(agent, "turn,river", iterations=20, depth="round", continuations=4)
    assert got["mbb_per_game"] == pytest.approx(
        duplicate_match(game.rules, limited, agent, 3, 0).mbb_per_game, abs=1e-9
    )
    assert any(r.street == 2 for r in limited.records)
    # and with the river below the turn's leaves sampled (5 of its 8 cards)
    sample = ["--search-depth", "round", "--search-deal-sample", "5,5", "--json"]
    assert main([*args, *sample]) == 0
    got = json.loads(capsys.readouterr().out)
    sampled = SearchAgent(agent, "turn,river", iterations=20, depth="round", deal_sample=(5, 5))
    assert got["mbb_per_game"] == pytest.approx(
        duplicate_match(game.rules, sampled, agent, 3, 0).mbb_per_game, abs=1e-9
    )
    args = ["blueprint", "lbr", f"search:{checkpoint}", "--pairs", "2", "--actions", "fc"]
    assert main([*args, "--search-iterations", "20", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pairs"] == 2


def test_cli_play_with_search_shows_the_thinking_time(checkpoint, monkeypatch, capsys) -> None:
    """``blueprint play --search`` and ``play nolimit-holdem --checkpoint F --search`` (the
    issue's command): a person who always calls plays hands to the river, where the bot searches
    and says how long it thought; both commands play the same session move for move."""
    search = ["--search", "--search-iterations", "30", "--search-threads", "2", "--seed", "1"]
    sessions = []
    for command in (
        ["blueprint", "play", str(checkpoint)],
        ["play", "nolimit-holdem", "--checkpoint", str(checkpoint)],
    ):
        monkeypatch.setattr("sys.stdin", io.StringIO("c\n" * 60))
        assert main([*command, *search, "--hands", "6"]) == 0
        out = capsys.readouterr().out
        assert re.search(r"\(the bot searched 30 iterations: \d+\.\d\d s\)", out)
        sessions.append(re.sub(r"\d+\.\d\d s\)", "s)", out.split("\n", 1)[1]))
    assert sessions[0] == sessions[1]
    assert "session: 6 hands" in sessions[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bot", "call", "--search"], "--search is for nolimit-holdem"),
        (["--bot", "call", "--seat", "0"], "--seat is for nolimit-holdem"),
    ],
)
def test_cli_play_limit_refuses_the_no_limit_options(capsys, args, message) -> None:
    assert main(["play", "limit-holdem", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--search-streets", "showdown"], "'showdown'"),
        (
            ["--search-streets", "preflop,river", "--search-preflop-far", "-1"],
            "--search-preflop-far",
        ),
        (["--search-bets", "50%, x"], "'x'"),
        (["--search-iterations", "0"], "--search-iterations"),
        (["--search-gadget", "safe"], "--search-gadget: unknown 'safe'"),
        (
            ["--search-streets", "turn,river", "--search-gadget", "reach-maxmargin"],
            "reach-maxmargin searches the river alone",
        ),
        (["--search-gadget", "resolve", "--search-seconds", "river=0"], "must be > 0"),
        (["--search-seconds", "turn=x"], "--search-seconds: 'x' is not a number"),
        (["--search-seconds", "pre=1"], "--search-seconds: unknown street 'pre'"),
        (["--search-seconds", "0"], "--search-seconds must be > 0"),
        (["--search-depth", "leaf"], "--search-depth: depth: 'end', 'round' or streets among"),
        (["--search-continuations", "3"], "--search-continuations: 1, 4 or self, not '3'"),
        (["--search-deal-sample", "6,6"], "--search-deal-sample: deal_sample samples a depth"),
        (
            ["--search-depth", "round", "--search-deal-sample", "4,x"],
            "--search-deal-sample: deal_sample is (turn cards, river cards) or (flop cards, turn "
            "cards, river cards), got ['4', 'x']",
        ),
        (
            ["--search-depth", "round", "--search-deal-sample", "2,6"],
            "river cards), whole numbers of at least 3",
        ),
        (
            ["--search-depth", "round", "--search-deal-draws", "2"],
            "--search-deal-draws: draws of sampled deals need --search-deal-sample",
        ),
        (
            ["--search-depth", "round", "--search-gadget", "resolve"],
            "--search-depth round searches with the unsafe gadget",
        ),
    ],
)
def test_cli_search_errors_are_one_line(checkpoint, capsys, extra, message) -> None:
    args = ["blueprint", "match", f"search:{checkpoint}", "always-call", "--pairs", "2"]
    assert main([*args, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_turn_search_on_a_small_deck_deals_the_deck(blueprint) -> None:
    """Search from the turn to the end of the game on the 12-card deck: the subgame deals the
    river from the deck's cards only, and the agent plays whole matches with it."""
    rules = blueprint.strategy.game.rules
    agent = SearchAgent(blueprint, "turn,river", iterations=40)
    duplicate_match(rules, agent, blueprint, 30, seed=7)
    turns = [r for r in agent.records if r.street == 2]
    assert turns, "no turn search in 30 deals"
    deck = set(range(52 - 4 * rules.ranks, 52))
    rivers = 0
    for solved in agent._cache.values():
        boards = np.asarray(solved.spot.boards)
        assert {int(c) for c in boards.ravel() if c >= 0} <= deck
        rivers += int((boards >= 0).sum(axis=1).max() == 5 and len(solved.spot.boards) > 1)
    assert rivers > 0  # some subgame dealt river cards


def test_a_cache_bounded_in_bytes_plays_the_same_match(blueprint) -> None:
    """``cache_bytes``: a cache of one byte keeps only the subgame solved last (each new solve
    drops the others first, as a full-deck flop subgame must) and plays the same match to the
    chip as the default cache: a dropped subgame solved again is the same solve. Bad bounds are
    refused by name."""
    rules = blueprint.strategy.game.rules
    roomy = SearchAgent(blueprint, "turn,river", iterations=20)
    tight = SearchAgent(blueprint, "turn,river", iterations=20, cache_bytes=1)
    a = duplicate_match(rules, roomy, blueprint, 30, seed=7)
    b = duplicate_match(rules, tight, blueprint, 30, seed=7)
    assert a.mbb_per_game == b.mbb_per_game
    assert len(tight._cache) == 1 and tight._cache.evicted_for_bytes >= len(roomy._cache) - 1
    assert len(roomy._cache) >= 3 and roomy._cache.evicted_for_bytes == 0
    assert len(tight.records) >= len(roomy.records)  # dropped subgames were solved again
    for bad, message in ((0, "cache_bytes must be > 0"), (True, "cache_bytes")):
        with pytest.raises(PokerlabError, match=message):
            SearchAgent(blueprint, "river", cache_bytes=bad)
    with pytest.raises(PokerlabError, match="cache must be a positive number"):
        SearchAgent(blueprint, "river", cache=0)


def test_subgame_cache_drops_the_least_recently_used_by_bytes() -> None:
    cache = SubgameCache(3, max_bytes=100)
    for i, nbytes in enumerate((40, 30, 20)):
        cache.put((i,), Solved(None, None, 0, nbytes))
    assert cache.get((0,)) is not None  # 0 is now the most recently used
    assert cache.make_room(20) and [s.nbytes for s in cache.values()] == [20, 40]
    assert not cache.make_room(40) and cache.nbytes == 60
    assert cache.make_room(500) and len(cache) == 0 and cache.evicted_for_bytes == 3
    for i in range(5):
        cache.put((i,), Solved(None, None, 0, 1))
    assert len(cache) == 3 and cache.get((1,)) is None and cache.get((4,)) is not None


def test_subgame_cache_without_a_bound_drops_what_memory_needs(monkeypatch) -> None:
    """With no fixed bound the cache drops the least recently used while a new subgame's
    estimate exceeds the memory available (read again after each drop), and keeps everything
    while it fits."""
    import pokerlab.solvers.search.cache as C

    free = [1000]
    monkeypatch.setattr(C, "available_memory_bytes", lambda: free[0])
    cache = SubgameCache(10)
    for i in range(4):
        cache.put((i,), Solved(None, None, 0, 100))
    assert not cache.make_room(900) and len(cache) == 4

    def drop_frees() -> int:  # each subgame dropped gives its 100 bytes back
        return 1000 + 100 * cache.evicted_for_bytes

    monkeypatch.setattr(C, "available_memory_bytes", drop_frees)
    assert cache.make_room(1150) and len(cache) == 2 and cache.evicted_for_bytes == 2
    assert cache.get((2,)) is not None and cache.get((0,)) is None
    monkeypatch.setattr(C, "available_memory_bytes", lambda: None)  # unknown: a fixed bound
    assert cache.make_room(C.FALLBACK_BYTES) and len(cache) == 0


def test_flop_search_on_the_full_deck_warns_of_its_cost(blueprint) -> None:
    from pokerlab.errors import PokerlabWarning
    from pokerlab.games.nolimit.rules import NoLimitRules
    from pokerlab.solvers.search.menu import warn_full_deck_flop

    full = NoLimitRules(players=2, stacks=(10000, 10000), small_blind=50, big_blind=100)
    with pytest.warns(PokerlabWarning, match="minutes per flop decision"):
        warn_full_deck_flop(full, (1, 2, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_full_deck_flop(full, (2, 3))  # turn and river: quick
        SearchAgent(blueprint, "flop,turn,river")  # a small deck: quick


def test_a_time_budget_for_one_street(blueprint) -> None:
    """``seconds={"turn": ...}``: the turn's solves stop on time, the river's run the
    iterations; bad budgets are refused by name."""
    rules = blueprint.strategy.game.rules
    agent = SearchAgent(blueprint, "turn,river", iterations=30, seconds={"turn": 0.02})
    duplicate_match(rules, agent, blueprint, 20, seed=7)
    turns = [r for r in agent.records if r.street == 2]
    rivers = [r for r in agent.records if r.street == 3]
    assert turns and rivers and all(r.iterations == 30 for r in rivers)
    assert agent.seconds == {2: 0.02}
    assert SearchAgent(blueprint, "turn,river", seconds=0.5).seconds == {2: 0.5, 3: 0.5}
    with pytest.raises(PokerlabError, match="unknown street 'showdown'"):
        SearchAgent(blueprint, "river", seconds={"showdown": 1.0})
    with pytest.raises(PokerlabError, match="seconds must be > 0, got 0"):
        SearchAgent(blueprint, "river", seconds={"river": 0})


def test_an_off_tree_size_is_believed_as_its_translations_neighbours(blueprint) -> None:
    """The blueprint's belief about a size its tree lacks: the probabilities of the two tree
    sizes around it, weighted by the pseudo-harmonic split (Ganzfried and Sandholm 2013);
    on-tree actions keep their probabilities; a search after such a bet (LBR's pot bets on a
    half-pot tree) finds the bettor's range non-empty."""
    from pokerlab.abstraction.actions import translation_probs
    from pokerlab.evaluate.nolimit.translation import pot_after_call

    view, _ = _river_view(blueprint)
    rules = view.rules
    state = view.state
    hands = deck_combos(rules)
    free = hands[~np.isin(hands, view.board).any(axis=1)]
    # the tree here: check or bet 50% of the pot (no all-in in this game's menu)
    legal = [(k, a) for k, a in blueprint.policy(view, tuple(free[0])).keys()]
    bet = next(a for a in legal if a[0] in (BET, ALLIN))
    check = next(a for a in legal if a[0] not in (BET, ALLIN))
    for action in (bet, check):
        np.testing.assert_allclose(
            blueprint.belief_probability(view, free, action),
            blueprint.action_probability(view, free, action), rtol=0, atol=1e-15,
        )  # fmt: skip
    pot = pot_after_call(rules, state)
    odd = max(state.bets) + int(0.3 * pot)  # 30% of the pot: between check (0) and 50%
    options = translation_probs([0.5], 0.3)
    assert options == [(0, 1.0)]  # below the smallest size: reads as the smallest
    np.testing.assert_allclose(
        blueprint.belief_probability(view, free, (BET, odd)),
        blueprint.action_probability(view, free, bet), rtol=0, atol=1e-15,
    )  # fmt: skip
    big = max(state.bets) + 3 * pot  # above the largest size: reads as it
    np.testing.assert_allclose(
        blueprint.belief_probability(view, free, (BET, big)),
        blueprint.action_probability(view, free, bet), rtol=0, atol=1e-15,
    )  # fmt: skip
    assert blueprint.action_probability(view, free, (BET, odd)).max() == 0.0


def test_a_size_between_two_tree_sizes_is_believed_as_their_pseudo_harmonic_mixture() -> None:
    """On a tree with half-pot and pot bets, a 75% bet is believed as p x P(half pot) +
    (1 - p) x P(pot) with p the pseudo-harmonic split of 0.75 between 0.5 and 1."""
    from pokerlab.abstraction.actions import pseudo_harmonic
    from pokerlab.evaluate.nolimit.translation import pot_after_call

    two = {"preflop": "100%", "flop": "50%, 100%", "turn": "50%, 100%", "river": "50%, 100%",
           "raise_cap": 1}  # fmt: skip
    game = pokerlab.load_game("nolimit-holdem", ranks=3, rounds=4, stack=5000, actions=two)
    abstraction = lossless_abstraction(3)
    solver = BlueprintSolver(game, abstraction, seed=2)
    solver.step(5_000)
    bp = BlueprintAgent(solver.average_strategy(), abstraction)
    rules = game.rules
    state, history = rules.initial_state(), []
    board = (40, 44, 48, 41, 45)
    for _ in range(2):  # the small blind limps, the big blind checks: the flop
        kind, amount = passive_action(PublicView(rules, state, (), tuple(history)))
        history.append((state.to_act, kind, amount))
        state = state.apply(rules, kind, amount)
    assert state.street == 1
    view = PublicView(rules, state, board[:3], tuple(history))
    hands = deck_combos(rules)
    free = hands[~np.isin(hands, board[:3]).any(axis=1)]
    pot = pot_after_call(rules, state)
    half, full, odd = (BET, pot // 2), (BET, pot), (BET, (3 * pot) // 4)
    p = pseudo_harmonic(0.5, 1.0, ((3 * pot) // 4) / pot)
    want = p * bp.action_probability(view, free, half) + (1 - p) * bp.action_probability(
        view, free, full
    )
    got = bp.belief_probability(view, free, odd)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert 0.0 < p < 1.0 and got.max() > 0.0


def test_the_search_agent_plays_acpc_matches_over_loopback(blueprint) -> None:
    """The search agent speaks the ACPC protocol: the local dealer plays it against its
    blueprint over loopback; every river action it sends is one its policy plays, and the
    chips add up to zero."""
    import threading

    from pokerlab.evaluate.nolimit.acpc import play_acpc
    from pokerlab.evaluate.nolimit.acpc_dealer import AcpcDealer
    from pokerlab.interop.acpc import AcpcGame

    rules = blueprint.strategy.game.rules
    game = AcpcGame(rules)
    agent = SearchAgent(blueprint, "river", iterations=30)
    dealer = AcpcDealer(game, 16, 5, timeout=60)
    out: dict[int, object] = {}

    def client(k: int) -> None:
        who = (agent, blueprint)[k]
        out[k] = play_acpc(game, who, "127.0.0.1", dealer.ports[k], seed=k, timeout=60)

    threads = [threading.Thread(target=client, args=(k,), daemon=True) for k in range(2)]
    for t in threads:
        t.start()
    result = dealer.run()
    for t in threads:
        t.join(60)
    assert result.invalid == [0, 0] and sum(result.totals) == 0
    checked = 0
    for hand in result.hands:
        state, history = rules.initial_state(), []
        for seat, kind, amount in hand.actions:
            if hand.positions.index(game.position(seat)) == 0 and state.street == 3:
                board = tuple(hand.cards[4 : 4 + rules.board_size(state.street)])
                view = PublicView(rules, state, board, tuple(history))
                hole = (hand.cards[2 * seat], hand.cards[2 * seat + 1])
                assert agent.policy(view, hole).get((kind, amount), 0.0) > 0.0
                checked += 1
            history.append((seat, kind, amount))
            state = state.apply(rules, kind, amount)
    assert checked > 0 and agent.records


def _bet_then_odd_raise(blueprint: BlueprintAgent, menu: SearchMenu):
    """The river's first decision; the hand (of the seat on move) whose probability of the
    search's first bet is largest below 0.9 there; that bet; and the view after the opponent
    raises it to an odd size that neither menu has (the minimum raise + 37 chips)."""
    view, _ = _river_view(blueprint)
    rules, state = view.rules, view.state
    free = deck_combos(rules)[~np.isin(deck_combos(rules), view.board).any(axis=1)]
    probs, acts = SearchAgent(blueprint, "river", iterations=100, menu=menu)._decision(view, free)
    col = next(i for i, a in enumerate(acts) if a[0] == BET)
    row = int(np.argmax(np.where(probs[:, col] < 0.9, probs[:, col], -1.0)))
    assert 0.05 < probs[row, col] < 0.9  # a hand that mixes the bet
    hole = (int(free[row, 0]), int(free[row, 1]))
    seat, bet = state.to_act, acts[col]
    after = state.apply(rules, *bet)
    odd = after.raise_bounds(rules)[0] + 37
    history = (*view.history, (seat, *bet), (1 - seat, RAISE, odd))
    return hole, bet, odd, PublicView(rules, after.apply(rules, RAISE, odd), view.board, history)


@pytest.mark.parametrize("gadget", ["unsafe", "resolve"])
def test_a_re_solve_freezes_the_agents_own_earlier_action_for_its_hand(blueprint, gadget) -> None:
    """The agent bets the river, the opponent raises to an off-menu size: the new subgame
    (the raise inserted) locks the agent's bet for the hand it holds, through the solver's
    node locks, and only that: at the round's root that hand bets with probability 1, other
    hands still mix, and the ranges are those of the unfrozen solve. With ``freeze=False``
    nothing is locked and the hand's bet there is mixed. Two agents agree. The same with the
    resolve gadget (its passes read the locks)."""
    from pokerlab.solvers.search.lines import node_strategy

    menu = SearchMenu("50%, a", "a")
    hole, bet, odd, view = _bet_then_odd_raise(blueprint, menu)
    combo = COMBO_INDEX[hole[0], hole[1]]
    got = {}
    for freeze in (True, False):
        agent = SearchAgent(
            blueprint, "river", iterations=100, menu=menu, freeze=freeze, gadget=gadget
        )
        policy = check_policy(view, agent.policy(view, hole), "search")
        assert [r.inserted for r in agent.records] == [(odd,)]
        (solved,) = agent._cache.values()
        probs, present, acts = node_strategy(solved.solver, solved.spot, 0)  # the round's root
        col = next(i for i, (k, a) in enumerate(acts) if a == bet[1])
        mine = probs[present[combo]]
        others = np.delete(probs[:, col], present[combo])
        got[freeze] = (policy, solved.solver.game.config.weights())
        if freeze:
            label = f"bet {bet[1]}"
            assert agent.records[0].frozen == (f"root: {label}",)
            (lock,) = solved.solver.locks()
            assert lock["line"] == "" and lock["combos"] == [format_combo(combo)]
            assert lock["strategy"][label] == 1.0
            np.testing.assert_array_equal(mine, np.eye(len(acts))[col])
            assert ((others > 0.01) & (others < 0.99)).sum() >= 3  # the other hands mix
            again = SearchAgent(blueprint, "river", iterations=100, menu=menu, gadget=gadget)
            again = again.policy(view, hole)
            assert again == policy
        else:
            assert agent.records[0].frozen == () and solved.solver.locks() == []
            assert 0.01 < mine[col] < 0.99
    assert got[True][0] != got[False][0]  # the freeze changed the answer to the raise
    for p in (0, 1):  # the ranges at the root are the same
        np.testing.assert_array_equal(got[True][1][p], got[False][1][p])


def test_a_range_reads_the_unfrozen_solve(blueprint) -> None:
    """``action_probability`` (a range at once: ranges, LBR, the exact best response) reads
    the re-solved subgame without the freeze: equal to what ``freeze=False`` plays."""
    menu = SearchMenu("50%, a", "a")
    hole, _, _, view = _bet_then_odd_raise(blueprint, menu)
    frozen = SearchAgent(blueprint, "river", iterations=100, menu=menu)
    free = SearchAgent(blueprint, "river", iterations=100, menu=menu, freeze=False)
    hands = np.asarray([hole], dtype=np.int64)
    for action, p in free.policy(view, hole).items():
        assert frozen.action_probability(view, hands, action)[0] == pytest.approx(p, abs=1e-15)


def test_frozen_decisions_are_the_seats_taken_in_another_subgame() -> None:
    """Of the round's moves, the seat on move's decisions whose subgame (named by the moves
    before them) differs from the current one."""
    from pokerlab.solvers.search.freeze import frozen_decisions

    moves = [(1, 0, 0, None), (0, 0, 0, None), (1, 0, 0, None), (0, 0, 0, None)]
    names = ["a", "a", "b", "b", "c"]  # the subgame after 0, 1, 2, 3, 4 moves
    assert frozen_decisions(1, moves, names.__getitem__) == (0, 2)
    assert frozen_decisions(0, moves, names.__getitem__) == (1, 3)
    assert frozen_decisions(1, moves[:3], names.__getitem__) == (0,)  # taken in "a", now "b"
    assert frozen_decisions(1, moves, lambda i: "same") == ()


def test_matches_with_freezing_are_legal_and_repeatable(blueprint) -> None:
    """A search menu without the blueprint's half-pot sizes: the blueprint's bets and raises
    after the agent's own river action are inserted and re-solved with that action frozen.
    Every action is legal (the match checks each policy), a second match with the same seed
    plays the same, and with ``freeze=False`` nothing is frozen."""
    rules = blueprint.strategy.game.rules
    menu = SearchMenu("100%, a", "a")
    results = {}
    for freeze in (True, False):
        agent = SearchAgent(blueprint, "river", iterations=40, menu=menu, freeze=freeze)
        results[freeze] = duplicate_match(rules, agent, blueprint, 12, seed=3).mbb_per_game
        frozen = [r for r in agent.records if r.frozen]
        assert bool(frozen) == freeze and any(r.inserted for r in agent.records)
    again = SearchAgent(blueprint, "river", iterations=40, menu=menu)
    assert duplicate_match(rules, again, blueprint, 12, seed=3).mbb_per_game == results[True]


def test_cli_search_freeze_flag(checkpoint, capsys, monkeypatch) -> None:
    """``--no-search-freeze`` builds the search agent with ``freeze=False`` (frozen by
    default), and the match's numbers equal the API's with those settings."""
    import pokerlab.cli.blueprint_eval as cli_eval

    built: list[SearchAgent] = []
    real = cli_eval.with_search

    def spy(*args, **kwargs):
        built.append(real(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(cli_eval, "with_search", spy)
    capsys.readouterr()
    args = ["blueprint", "match", f"search:{checkpoint}", str(checkpoint), "--pairs", "6"]
    extra = ["--search-iterations", "30", "--search-bets", "100%, a", "--seed", "5"]
    assert main([*args, *extra, "--no-search-freeze", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert main([*args, *extra, "--json"]) == 0
    assert [a.freeze for a in built] == [False, True]
    assert any(r.frozen for r in built[1].records) and not any(r.frozen for r in built[0].records)
    agent, game = load_agent(str(checkpoint), "X")
    menu = SearchMenu("100%, a", "a")
    searcher = SearchAgent(agent, "river", iterations=30, menu=menu, freeze=False)
    want = duplicate_match(game.rules, searcher, agent, 6, 5)
    assert got["mbb_per_game"] == pytest.approx(want.mbb_per_game, abs=1e-9)
