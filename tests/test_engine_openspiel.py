"""OpenSpiel interop: exploitability agrees both ways; OpenSpiel games solve through the interface.

Skipped when open_spiel is not installed (it is part of the ``test`` extra).
"""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab

pyspiel = pytest.importorskip("pyspiel")
from open_spiel.python.algorithms import exploitability as os_exploitability  # noqa: E402

from pokerlab.interop.openspiel import (  # noqa: E402
    OpenSpielGame,
    from_openspiel_policy,
    openspiel_name,
    to_openspiel_policy,
)


@pytest.mark.parametrize("name,players", [("kuhn", 2), ("kuhn", 3), ("leduc", 2)])
def test_nash_conv_agrees_with_openspiel(name, players) -> None:
    game = pokerlab.load_game(name, players=players) if name == "kuhn" else pokerlab.load_game(name)
    solver = pokerlab.make_solver(game, "cfr")
    solver.step(40)
    strategy = solver.average_strategy()
    policy = to_openspiel_policy(strategy)
    os_game = pyspiel.load_game(openspiel_name(game))
    assert os_exploitability.nash_conv(os_game, policy) == pytest.approx(
        pokerlab.nash_conv(game, strategy), abs=1e-10
    )
    back = from_openspiel_policy(policy, game)
    idx = strategy.compiled.index
    for k in range(len(idx)):
        pos = idx.positions(k)
        np.testing.assert_allclose(back.probs[pos], strategy.probs[pos], atol=1e-12)


def test_openspiel_cfr_plus_and_ours_reach_the_same_value() -> None:
    from open_spiel.python.algorithms import cfr as os_cfr

    os_game = pyspiel.load_game("kuhn_poker")
    os_solver = os_cfr.CFRPlusSolver(os_game)
    for _ in range(200):
        os_solver.evaluate_and_update_policy()
    ours = from_openspiel_policy(os_solver.average_policy(), pokerlab.load_game("kuhn"))
    assert pokerlab.expected_values(None, ours)[0] == pytest.approx(-1 / 18, abs=2e-3)


def test_solve_an_openspiel_game_through_the_history_interface() -> None:
    game = OpenSpielGame("kuhn_poker")
    solver = pokerlab.make_solver(game, "cfr+")
    result = solver.solve(target_exploitability=1e-4)
    assert result.exploitability <= 1e-4
    assert pokerlab.expected_values(game, solver.average_strategy())[0] == pytest.approx(
        -1 / 18, abs=1e-3
    )
