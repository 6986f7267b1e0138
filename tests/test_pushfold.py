"""Heads-up push/fold: the equilibrium, exact EV against brute force, specs, matches, CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

import pokerlab
from pokerlab.analysis.pushfold import (
    best_response_report,
    class_frequencies,
    pushfold_strategy,
    shove_call_arrays,
    strategy_from_spec,
    top_fraction,
)
from pokerlab.cards import preflop
from pokerlab.cards.deck import COMBO_CLASS, parse_class
from pokerlab.cli.main import main
from pokerlab.evaluate.matches import PushFoldPlayer, play_match, play_matches
from pokerlab.games.pushfold import PushFoldGame
from pokerlab.solvers.pushfold import solve_pushfold


@pytest.fixture(scope="module")
def nash10():
    return solve_pushfold(10.0)


def brute_force_sb_value(stack: float, ante: float, shove: np.ndarray, call: np.ndarray) -> float:
    """The small blind's EV written directly from the rules over all dealt combo pairs."""
    eq = np.nan_to_num(preflop.equity_matrix())
    ok = preflop.compatible_mask()
    sb_post, bb_post = min(stack, 0.5 + ante), min(stack, 1.0 + ante)
    showdown = stack * (2.0 * eq - 1.0)
    per_pair = (1 - shove)[:, None] * -sb_post + shove[:, None] * (
        (1 - call)[None, :] * bb_post + call[None, :] * showdown
    )
    return float(per_pair[ok].mean())


def test_equilibrium_at_ten_big_blinds(nash10) -> None:
    # Literature (e.g. the HoldemResources Nash charts, SPEC 5.4): at 10 bb the small blind
    # shoves about 58% of hands and the big blind calls about 37% (combo-weighted).
    assert nash10.exploitability_bb <= 1e-6
    assert nash10.sb_shove_fraction == pytest.approx(0.58, abs=0.01)
    assert nash10.bb_call_fraction == pytest.approx(0.37, abs=0.01)
    report = best_response_report(nash10.game, nash10.strategy)
    assert report["sb_best_response"]["gain_bb"] <= 2e-6
    assert report["bb_best_response"]["gain_bb"] <= 2e-6
    sb = class_frequencies(nash10.sb_shove[0])
    bb = class_frequencies(nash10.bb_call[0])
    assert sb[parse_class("AA")] == pytest.approx(1.0, abs=1e-3)
    assert sb[parse_class("72o")] == pytest.approx(0.0, abs=1e-3)
    assert bb[parse_class("A2o")] == pytest.approx(1.0, abs=1e-3)  # calls any ace at 10 bb
    assert bb[parse_class("K2o")] == pytest.approx(0.0, abs=1e-3)


def test_game_value_agrees_between_solver_exact_ev_and_brute_force(nash10) -> None:
    sb, bb = shove_call_arrays(nash10.strategy)
    brute = brute_force_sb_value(10.0, 0.0, sb[0], bb[0])
    assert nash10.sb_game_value_bb == pytest.approx(brute, abs=1e-12)
    assert pokerlab.expected_values(nash10.game, nash10.strategy)[0] == pytest.approx(brute)


@pytest.mark.parametrize(
    "r,c,stack,ante", [(0.7, 0.6, 10, 0), (0.4, 0.3, 10, 0), (1.0, 1.0, 3, 0.1)]
)
def test_exact_ev_of_simple_strategies_matches_brute_force(r, c, stack, ante) -> None:
    game = PushFoldGame(stack, ante)
    strategy = strategy_from_spec(f"{r}/{c}", game)
    shove, call = top_fraction(r), top_fraction(c)
    assert pokerlab.expected_values(game, strategy)[0] == pytest.approx(
        brute_force_sb_value(stack, ante, shove, call), abs=1e-12
    )


def test_class_reduction_is_exact_for_class_strategies() -> None:
    rng = np.random.default_rng(3)
    sb, bb = rng.random(169), rng.random(169)
    combos = PushFoldGame(7.5, 0.125)
    classes = combos.with_hands("classes")
    s_combo = pushfold_strategy(combos, sb, bb)
    s_class = pushfold_strategy(classes, sb, bb)
    np.testing.assert_allclose(
        pokerlab.expected_values(combos, s_combo),
        pokerlab.expected_values(classes, s_class),
        atol=1e-12,
    )
    np.testing.assert_allclose(
        pokerlab.best_response_values(combos, s_combo),
        pokerlab.best_response_values(classes, s_class),
        atol=1e-12,
    )


def test_history_interface_agrees_with_public_tree() -> None:
    game = PushFoldGame(5.0, hands="classes")
    rng = np.random.default_rng(0)
    strategy = pushfold_strategy(game, rng.random(169), rng.random(169))
    h = game.initial_history()
    value = 0.0
    for sb_hand, p_sb in h.chance_outcomes():
        after = h.child(sb_hand)
        for bb_hand, p_bb in after.chance_outcomes():
            deal = after.child(bb_hand)
            shove = strategy.action_probs(deal.info_set_key())[1]
            facing = deal.child(1)
            call = strategy.action_probs(facing.info_set_key())[1]
            value += (
                p_sb
                * p_bb
                * (
                    (1 - shove) * deal.child(0).terminal_utility(0)
                    + shove
                    * (
                        (1 - call) * facing.child(0).terminal_utility(0)
                        + call * facing.child(1).terminal_utility(0)
                    )
                )
            )
    assert value == pytest.approx(pokerlab.expected_values(game, strategy)[0], abs=1e-12)


def test_variable_stack_game_is_solved_stack_by_stack() -> None:
    both = solve_pushfold(None, stacks=[4.0, 12.0], stack_probs=[0.25, 0.75])
    assert both.exploitability_bb <= 1e-6
    for row, stack in enumerate((4.0, 12.0)):
        alone = solve_pushfold(stack)
        assert pytest.approx(alone.sb_shove_fraction, abs=0.01) == (
            class_frequencies(both.sb_shove[row]) @ np.bincount(COMBO_CLASS) / 1326
        )
    assert both.strategy.keys()[0].endswith("@4bb:")


def test_antes_widen_the_shoving_range(nash10) -> None:
    with_ante = solve_pushfold(10.0, 0.125)
    assert with_ante.sb_shove_fraction > nash10.sb_shove_fraction + 0.02


def test_best_response_against_70_60_is_near_45_45() -> None:
    # SPEC 5.4: against a 70/60 shover/caller the adaptive genetic search lands near 45/45.
    game = PushFoldGame(10.0)
    report = best_response_report(game, strategy_from_spec("70/60", game))
    assert report["sb_best_response"]["fraction"] == pytest.approx(0.45, abs=0.03)
    assert report["bb_best_response"]["fraction"] == pytest.approx(0.45, abs=0.03)
    assert report["sb_best_response"]["gain_bb"] > 0


def test_strategy_specs_and_their_errors(tmp_path, nash10) -> None:
    game = nash10.game
    ranges = strategy_from_spec("22+, A2+ / 55+, AT+", game)
    sb, bb = shove_call_arrays(ranges)
    assert sb[0].sum() == 6 * 13 + 16 * 12 and bb[0].sum() == 6 * 10 + 16 * 4
    path = tmp_path / "eq.json"
    path.write_text(json.dumps(nash10.to_dict()))
    from_json = strategy_from_spec(str(path), game)
    assert pokerlab.exploitability(game, from_json) <= 1.1e-6
    saved = tmp_path / "eq.npz"
    pokerlab.save_strategy(saved, nash10.strategy)
    np.testing.assert_allclose(strategy_from_spec(str(saved), game).probs, nash10.strategy.probs)
    for bad in ("abc", "120/50", "QQ+ / ZZ"):
        with pytest.raises(pokerlab.PokerlabError):
            strategy_from_spec(bad, game)
    with pytest.raises(pokerlab.PokerlabError, match="stack"):
        PushFoldGame(0.5)


def test_long_simulated_match_agrees_with_exact_ev(nash10) -> None:
    game = nash10.game
    other = strategy_from_spec("70/60", game)
    sb_a, bb_a = shove_call_arrays(nash10.strategy)
    sb_b, bb_b = shove_call_arrays(other)
    a = PushFoldPlayer(sb_a, bb_a)
    b = PushFoldPlayer(sb_b, bb_b)
    result = play_match(a, b, 200_000, 10.0, seed=11)
    exact = 0.5 * (
        pokerlab.expected_values(game, pushfold_strategy(game, sb_a, bb_b))[0]
        + pokerlab.expected_values(game, pushfold_strategy(game, sb_b, bb_a))[1]
    )
    assert abs(result.bb_per_hand - exact) <= result.ci95_bb_per_hand * 1.5
    assert result.shove_frequency[0] == pytest.approx(nash10.sb_shove_fraction, abs=0.01)
    again = play_match(a, b, 200_000, 10.0, seed=11)
    assert again.total_bb == result.total_bb  # seeded
    series = play_matches(a, b, 500, 10.0, matches=4, until_broke=True, seed=2)
    assert all(1 <= m.hands <= 500 for m in series.matches)


def test_cli_pushfold_json(capsys) -> None:
    assert main(["pushfold", "--stack", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in (
        "stack_bb",
        "sb_shove_fraction",
        "bb_call_fraction",
        "sb_game_value_bb",
        "exploitability_bb",
        "seconds",
        "sb_shove",
        "bb_call",
    ):
        assert key in data
    assert len(data["sb_shove"]) == 169 and data["sb_shove"]["AA"] == pytest.approx(1, abs=1e-3)
    assert main(["pushfold", "--stack", "0.2"]) == 2


def test_cli_sweep_best_response_and_match(capsys, tmp_path) -> None:
    csv_path, png = tmp_path / "chart.csv", tmp_path / "chart.png"
    assert (
        main(["pushfold", "--sweep", "2:6:2", "--csv", str(csv_path), "--png", str(png), "--json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert [row["stack_bb"] for row in data["stacks"]] == [2.0, 4.0, 6.0]
    assert data["sb_shove_max_bb"]["AA"] == 6.0
    assert csv_path.read_text().startswith("hand,sb_shove_max_bb,bb_call_max_bb")
    assert png.stat().st_size > 10_000
    assert main(["pushfold", "--best-response", "70/60", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["exploitability_bb"] > 0.05
    assert (
        main(
            [
                "match",
                "nash",
                "40/30",
                "-n",
                "2000",
                "-m",
                "2",
                "--json",
                "--png",
                str(tmp_path / "m.png"),
            ]
        )
        == 0
    )
    series = json.loads(capsys.readouterr().out)
    assert len(series["matches"]) == 2 and "std_bb_per_hand" in series
    assert main(["pushfold", "--sweep", "5:1:1"]) == 2
