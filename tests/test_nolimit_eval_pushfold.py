"""The push/fold baseline in the real heads-up no-limit game: it plays the solved class
frequencies (the solver's shove and call fractions over all 1,326 hands), shoves all-in, and
cancels exactly against itself in duplicate."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards.deck import CLASS_SIZE
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit import AlwaysFold, PublicView, duplicate_match
from pokerlab.evaluate.nolimit.agents import deck_combos
from pokerlab.evaluate.nolimit.pushfold_agent import PushFoldAgent
from pokerlab.games.nolimit.rules import ALLIN, CALL, CHECK, FOLD, NoLimitRules
from pokerlab.solvers.pushfold import solve_pushfold

TEN_BB = NoLimitRules(2, (1000, 1000), 50, 100)


@pytest.fixture(scope="module")
def agent() -> PushFoldAgent:
    solution = solve_pushfold(10.0)
    return PushFoldAgent(solution.sb_shove[0], solution.bb_call[0], name="pushfold-10bb")


def test_pushfold_agent_plays_the_solved_fractions(agent: PushFoldAgent) -> None:
    solution = solve_pushfold(10.0)
    hands = deck_combos(TEN_BB)
    start = PublicView(TEN_BB, TEN_BB.initial_state(), ())
    shove = agent.action_probability(start, hands, (ALLIN, 1000))
    fold = agent.action_probability(start, hands, (FOLD, 0))
    assert np.allclose(shove + fold, 1.0)
    assert float(shove.mean()) == pytest.approx(solution.sb_shove_fraction, abs=1e-12)
    assert float(shove.mean()) == pytest.approx(0.5828, abs=1e-3)  # BENCHMARKS.md B3 sanity
    facing = PublicView(TEN_BB, start.state.apply(TEN_BB, ALLIN, 1000), ())
    call = agent.action_probability(facing, hands, (CALL, 1000))
    assert float(call.mean()) == pytest.approx(solution.bb_call_fraction, abs=1e-12)
    # class by class: AA always shoves; the per-class mean over combos is the class frequency
    aces = agent.policy(start, (51, 50))
    assert set(aces) == {(ALLIN, 1000), (FOLD, 0)} and aces[(ALLIN, 1000)] > 0.999
    weights = np.asarray(CLASS_SIZE, dtype=np.float64)
    assert float(weights @ agent.sb_shove / weights.sum()) == pytest.approx(float(shove.mean()))
    # facing a limp the big blind shoves or checks
    limp = PublicView(TEN_BB, start.state.apply(TEN_BB, CALL, 100), ())
    assert set(agent.policy(limp, (51, 50))) <= {(ALLIN, 1000), (CHECK, 100)}


def test_pushfold_agent_in_matches(agent: PushFoldAgent) -> None:
    assert duplicate_match(TEN_BB, agent, agent, 20, seed=1).group_values.tolist() == [0.0] * 20
    # against always-fold it takes the blinds: +50 as the big blind, +100 or -50 as the SB
    result = duplicate_match(TEN_BB, agent, AlwaysFold(), 200, seed=2)
    assert result.seat_means[1] == 500.0
    assert -500.0 < result.seat_means[0] < 1000.0 and result.interval[0] > 0.0
    with pytest.raises(PokerlabError, match="sb_shove must hold 169 probabilities"):
        PushFoldAgent(np.ones(168), np.ones(169))
