"""The no-limit game through the history interface: keys, labels, chance, payoffs that sum to
zero for 2 and 3 players, and an exact solve of a tiny configuration by the existing engine."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from pokerlab.games.base import CHANCE
from pokerlab.games.nolimit import NoLimitHistory


def _tiny(**params: object) -> pokerlab.HistoryGame:
    base = {"actions": "fcpa", "ranks": 2, "rounds": 2, "stack": 300}
    return pokerlab.load_game("nolimit-holdem", **{**base, **params})


def test_deals_keys_and_labels() -> None:
    game = _tiny()
    h = game.initial_history()
    assert h.current_player() == CHANCE
    outcomes = h.chance_outcomes()
    assert len(outcomes) == 28 and abs(sum(p for _, p in outcomes) - 1) < 1e-12  # C(8, 2)
    h = h.child(outcomes[0][0])  # seat 0: Kc Kd (the first pair of K..A)
    assert h.action_label(h.chance_outcomes()[0][0]) == "KhKs" and len(h.chance_outcomes()) == 15
    h = h.child(h.chance_outcomes()[0][0])
    assert isinstance(h, NoLimitHistory) and h.current_player() == 0
    assert h.info_set_key() == "KcKd:"
    assert [h.action_label(a) for a in h.legal_actions()] == ["f", "c", "r300"]  # pot = all-in
    h = h.child(1)  # the limp
    assert h.current_player() == 1 and h.info_set_key() == "KhKs:c"
    assert [h.action_label(a) for a in h.legal_actions()] == ["c", "r300"]
    h = h.child(0)  # check: the flop comes
    assert h.current_player() == CHANCE and len(h.chance_outcomes()) == 4  # C(4, 3)
    assert h.action_label(h.chance_outcomes()[0][0]) == "AcAdAh"
    h = h.child(h.chance_outcomes()[0][0])
    assert h.current_player() == 1 and h.info_set_key() == "KhKs|AcAdAh:cc/"
    assert not h.regret_pruning_allowed()
    h = h.child(0).child(0)
    assert h.is_terminal() and h.terminal_utility(0) == 0.0  # two pairs of kings, aces on board


def test_random_hands_are_zero_sum_for_three_players() -> None:
    game = pokerlab.load_game(
        "nolimit-holdem",
        players=3,
        stacks=[400, 700, 1000],
        blinds=[50, 100],
        ante=10,
        ranks=3,
        actions={"preflop": "50%, 100%, a", "flop": "100%, a", "turn": "a", "river": "a"},
    )
    rng = np.random.default_rng(7)
    showdowns = 0
    for _ in range(200):
        h = game.initial_history()
        while not h.is_terminal():
            if h.is_chance():
                h = h.child(h.sample_chance(rng))
            else:
                h = h.child(int(rng.choice(h.legal_actions())))
        payoff = [h.terminal_utility(p) for p in range(3)]
        assert abs(sum(payoff)) < 1e-9
        assert all(-stack <= u for u, stack in zip(payoff, (400, 700, 1000), strict=True))
        showdowns += h.state.status == "showdown"
        if h.state.status == "showdown":
            assert len(h.cards) == 6 + 5
    assert showdowns > 20


def test_tiny_game_is_solved_by_the_engine() -> None:
    game = _tiny()
    uniform = pokerlab.uniform_strategy(game)
    assert pokerlab.exploitability(game, uniform) > 40  # 87.6 chips of NashConv
    solver = pokerlab.make_solver(game, "cfr+")
    solver.solve(iterations=200)
    strategy = solver.average_strategy()
    assert pokerlab.exploitability(game, strategy) < 0.05
    values = pokerlab.expected_values(game, strategy)
    assert abs(values[0] + values[1]) < 1e-9


@pytest.mark.slow
def test_fixed_chip_sizes_equal_limit_holdem_in_value() -> None:
    """Issue 24: with fixed bets no-limit is limit hold'em of the same deck (8 cards, two
    rounds, one raise per round to keep the limit history small): the same value of the uniform
    strategy and the same NashConv, in big blinds (no-limit counts chips, 2 per big blind). The
    limit history takes about 45 s to expand; with caps (3, 4, 4, 4) both give -0.15753601 and
    NashConv 3.03227513 (measured, 5 minutes for the limit side)."""
    limit = pokerlab.load_game("limit-holdem", ranks=2, rounds=2, raise_caps=[1, 1, 1, 1])
    nolimit = pokerlab.load_game(
        "nolimit-holdem",
        ranks=2,
        rounds=2,
        stack=1000,
        blinds=[1, 2],
        actions={
            "preflop": "2c",
            "flop": "2c",
            "turn": "4c",
            "river": "4c",
            "raise_cap": 1,
            "add_allin_threshold": 0,
            "force_allin_threshold": 0,
            "merging_threshold": 0,
        },
    )
    u_limit, u_nolimit = pokerlab.uniform_strategy(limit), pokerlab.uniform_strategy(nolimit)
    v_limit = pokerlab.expected_values(limit, u_limit)
    v_nolimit = pokerlab.expected_values(nolimit, u_nolimit) / 2
    assert v_nolimit[0] == pytest.approx(v_limit[0], abs=1e-9)
    assert v_nolimit[0] == pytest.approx(-1 / 6, abs=1e-9)
    nash_conv = pokerlab.nash_conv(nolimit, u_nolimit) / 2
    assert nash_conv == pytest.approx(pokerlab.nash_conv(limit, u_limit), abs=1e-9)
