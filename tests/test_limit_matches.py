"""Duplicate matches between limit hold'em agents (evaluate.limit_matches)."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.errors import PokerlabError
from pokerlab.evaluate.limit_matches import (
    LimitAgent,
    always_call,
    always_raise,
    duplicate_match,
    ehs_rule,
    strategy_agent,
)
from pokerlab.games.limit_holdem import CALL, DECISION, FOLD
from pokerlab.games.registry import load_game


@pytest.fixture(scope="module")
def game():
    return load_game("limit-holdem", variant="tiny")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A strategy trained a little on the tiny deck (4 buckets per round, imperfect recall)."""
    from pokerlab.abstraction.buckets import build_abstraction
    from pokerlab.solvers.limit_holdem import LimitPCSSolver

    folder = tmp_path_factory.mktemp("cache")
    game = load_game("limit-holdem", variant="tiny")
    abstraction = build_abstraction(4, (4, 4, 4, 4), "ehs", cache=folder)
    solver = LimitPCSSolver(game, abstraction, recall="imperfect", seed=0)
    solver.step(30)
    return solver


def always_fold(game) -> LimitAgent:
    """Folds whenever it faces a bet, else checks."""
    agent = always_call(game)
    probs = agent.probs.copy()
    tree = game.betting_tree
    for n in np.flatnonzero(tree.kind == DECISION):
        acts = tree.actions(int(n))
        if FOLD in acts:
            probs[agent.offset[n] + acts.index(CALL)] = 0.0
            probs[agent.offset[n] + acts.index(FOLD)] = 1.0
    return LimitAgent("always-fold", probs, agent.offset, agent.num_states, agent.states)


def test_raise_against_call_is_exactly_zero_per_pair(game) -> None:
    # every hand reaches the showdown with 7 bb each whoever raises, so in duplicate the raiser's
    # win with seat 0's cards is its loss with seat 1's: each pair sums to exactly 0
    result = duplicate_match(game, always_raise(game), always_call(game), 2000, seed=3)
    assert result.pairs == 2000
    assert np.all(result.pair_values == 0.0)
    assert result.mbb_per_game == 0.0 and result.ci95_mbb == 0.0


def test_raise_against_fold_wins_the_blinds_exactly(game) -> None:
    # as the small blind the raiser raises and the big blind folds (+1 bb); as the big blind the
    # folder folds its small blind at once (+0.5 bb): 1.5 bb per pair, 750 mbb per game
    result = duplicate_match(game, always_raise(game), always_fold(game), 500, seed=1)
    assert np.all(result.pair_values == 1.5)
    assert result.mbb_per_game == 750.0 and result.ci95_mbb == 0.0
    assert result.interval == (750.0, 750.0)


def test_strategy_against_itself_is_zero_per_pair(game, trained) -> None:
    agent = strategy_agent(trained)
    # a mixed strategy: the shared uniforms make both games of a pair play the same line
    assert np.any((agent.probs > 0.05) & (agent.probs < 0.95))
    result = duplicate_match(game, agent, strategy_agent(trained, name="copy"), 3000, seed=2)
    assert np.all(result.pair_values == 0.0)


def test_trained_strategy_beats_always_call(game, trained) -> None:
    result = duplicate_match(game, strategy_agent(trained), always_call(game), 4000, seed=5)
    low, high = result.interval
    assert low > 0.0, result.as_dict()
    assert 100.0 < result.mbb_per_game < 1500.0


def test_seats_swapped_and_seeds(game) -> None:
    rule, call = ehs_rule(game), always_call(game)
    first = duplicate_match(game, rule, call, 1000, seed=7)
    again = duplicate_match(game, rule, call, 1000, seed=np.random.default_rng(0))
    assert np.array_equal(first.pair_values, duplicate_match(game, rule, call, 1000, 7).pair_values)
    assert not np.array_equal(first.pair_values, again.pair_values)
    mirrored = duplicate_match(game, call, rule, 1000, seed=7)
    assert np.array_equal(mirrored.pair_values, -first.pair_values)
    assert first.mbb_per_game > 0 and first.as_dict()["games"] == 2000
    # a Generator seed is recorded as the integer it drew (pokerlab._rng convention)
    assert isinstance(again.seed, int)


def test_interval_shrinks_with_more_pairs(game) -> None:
    rule, call = ehs_rule(game), always_call(game)
    few = duplicate_match(game, rule, call, 250, seed=11)
    many = duplicate_match(game, rule, call, 16_000, seed=11)
    # 64 times the pairs: about 1/8 of the half-width
    assert 0.08 < many.ci95_mbb / few.ci95_mbb < 0.2
    assert abs(many.mbb_per_game - few.mbb_per_game) < few.ci95_mbb + many.ci95_mbb


def test_ehs_rule_plays_by_thresholds(game) -> None:
    rule = ehs_rule(game, raise_above=0.7, call_above=0.4)
    board = np.array([[50, 51, 44, 45, 40]])  # A A K K Q
    # E[HS] per round (strength tables of the 16-card deck): AA 0.722, 1, 1, 1; JQ 0.352,
    # 0.187, 0.192, 0.125
    strong = rule.states(np.array([[48, 49]]), board)
    assert strong.tolist() == [[2, 2, 2, 2]]
    assert rule.states(np.array([[36, 41]]), board).tolist() == [[0, 0, 0, 0]]
    assert ehs_rule(game, 0.9, 0.3).states(np.array([[36, 41]]), board).tolist() == [[1, 0, 0, 0]]
    tree = game.betting_tree
    bet_into = tree.find("cc/r")  # flop: the big blind bets, the small blind decides
    assert tree.actions(bet_into) == [FOLD, CALL, 2]
    assert rule.action_probs(bet_into, 0, tree).tolist() == [1.0, 0.0, 0.0]
    assert rule.action_probs(bet_into, 1, tree).tolist() == [0.0, 1.0, 0.0]
    assert rule.action_probs(bet_into, 2, tree).tolist() == [0.0, 0.0, 1.0]


def test_bad_input_is_named(game) -> None:
    with pytest.raises(PokerlabError, match="pairs"):
        duplicate_match(game, always_call(game), always_call(game), 1)
    with pytest.raises(PokerlabError, match="raise_above"):
        ehs_rule(game, raise_above=0.3, call_above=0.5)


def test_perfect_recall_agent_plays_by_bucket_sequences(game, tmp_path) -> None:
    from pokerlab.abstraction.buckets import build_abstraction
    from pokerlab.solvers.limit_holdem import LimitPCSSolver

    abstraction = build_abstraction(4, (3, 3, 3, 3), "ehs", cache=tmp_path)
    solver = LimitPCSSolver(game, abstraction, recall="perfect", seed=1)
    solver.step(20)
    agent = strategy_agent(solver)
    hole, board = np.array([[48, 49], [36, 41]]), np.array([[50, 51, 44, 45, 40]] * 2)
    states = agent.states(hole, board)
    labels = [abstraction.bucket_of(r, np.concatenate([hole, board[:, :s]], axis=1))
              for r, s in enumerate((0, 3, 4, 5))]  # fmt: skip
    assert states[:, 3].tolist() == [
        ((a * 3 + b) * 3 + c) * 3 + d for a, b, c, d in zip(*labels, strict=True)
    ]
    assert int(states.max()) < 81 and agent.num_states.tolist() == [3, 9, 27, 81]
    same = duplicate_match(game, agent, strategy_agent(solver), 1000, seed=4)
    assert np.all(same.pair_values == 0.0)


def test_load_limit_checkpoint_refuses_another_solver(tmp_path) -> None:
    import pokerlab
    from pokerlab.io.files import save_checkpoint
    from pokerlab.solvers.factory import load_limit_checkpoint

    solver = pokerlab.make_solver(pokerlab.load_game("kuhn"), "cfr")
    solver.step(2)
    path = tmp_path / "kuhn.ckpt.npz"
    save_checkpoint(path, solver.state_dict(), game="kuhn")
    with pytest.raises(PokerlabError, match="not a limit hold'em training checkpoint"):
        load_limit_checkpoint(path)
