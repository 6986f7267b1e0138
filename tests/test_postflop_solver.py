"""The postflop solver: tree sizes of the B6 spots, agreement with the history-tree evaluator on
tiny spots (an implementation independent of the vector kernels), isomorphism, threads, resume."""

from __future__ import annotations

import time

import numpy as np
import pytest

import pokerlab
from _postflop_spots import TINY_TURN
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import PostflopSolver, load_spot_solution, save_spot_solution
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import compile_game

OOP = "66+,A8s+,K9s+,Q9s+,J9s+,T8s+,97s+,86s+,75s+,64s+,A9o+,KTo+,QTo+,JTo"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"


def test_b6_river_tree_matches_the_reference_counts() -> None:
    game = pokerlab.load_game("postflop", spot="river")
    counts = PostflopSolver(game).tree.node_counts()
    assert counts == {"decision": 22, "chance": 0, "terminal": 41}
    labels = game.action_tree.labels()
    assert labels == ["check", "bet 66", "bet 150", "bet 300", "allin 900"]


def test_b6_turn_tree_matches_the_reference_counts() -> None:
    game = PostflopGame(
        board="Td9d6hQc",
        ranges=(OOP, IP),
        pot=200,
        stack=900,
        bets={
            "turn": {"bet": "50%, a", "raise": "a"},
            "river": {"bet": "33%, 75%, a", "raise": "a"},
        },
    )
    tree = game.expanded.tree
    assert tree.node_counts() == {"decision": 1736, "chance": 7, "terminal": 3222}
    assert tuple(tree.hands.num) == (227, 250)


def _history_strategy(game: PostflopGame, solver: PostflopSolver) -> Strategy:
    """The solver's average strategy as a Strategy of the history form of the game."""
    compiled = compile_game(game, "history")
    idx = compiled.index
    solved = solver.average_strategy()
    probs = compiled.uniform()
    cache: dict[str, object] = {}
    for k, key in enumerate(idx.keys):
        hand, rest = key.split("|", 1)
        board, line = rest.split(":", 1)
        tokens = [t for t in line.split(",") if t]
        # dealt cards appear in the line; the node view wants them too
        if line not in cache:
            cache[line] = solved.node(tokens)
        view = cache[line]
        combo = pokerlab.cards.COMBO_INDEX[
            pokerlab.cards.parse_card(hand[:2]), pokerlab.cards.parse_card(hand[2:])
        ]
        row = int(np.flatnonzero(view.combos[view.player] == combo)[0])
        probs[idx.positions(k)] = view.strategy[row]
    return Strategy(compiled, probs)


@pytest.mark.parametrize(
    "board,oop,ip,algorithm",
    [
        ("Td9d6hQc7s", "AA,KK,T9s,76s", "QQ,AK,J8s", "dcfr"),
        ("Td9d6hQc", "AhAs,KK,T9s", "QsQh,J8s,AK", "dcfr"),
        # the predictive and optimistic variants of issue 13 (the turn case costs ~30 s each)
        *[
            ("Td9d6hQc7s", "AA,KK,T9s,76s", "QQ,AK,J8s", name)
            for name in ("pcfr+", "dcfr+", "pdcfr+", "hs-pcfr+", "hs-dcfr")
        ],
    ],
)
def test_agrees_with_the_history_tree_evaluator(
    board: str, oop: str, ip: str, algorithm: str
) -> None:
    game = PostflopGame(
        board=board, ranges=(oop, ip), pot=100, stack=300, bets="50%, a", raises="a"
    )
    solver = PostflopSolver(game, algorithm)
    solver.step(60)
    ours = solver.values()
    strategy = _history_strategy(game, solver)
    report = pokerlab.exploitability_report(game, strategy)
    half = 50.0
    assert report.values[0] == pytest.approx(ours["ev"][0] - half, abs=1e-6)
    assert report.best_response_values[0] == pytest.approx(
        ours["best_response"][0] - half, abs=1e-6
    )
    assert report.best_response_values[1] == pytest.approx(
        ours["best_response"][1] - half, abs=1e-6
    )
    assert report.exploitability == pytest.approx(solver.exploitability(), abs=1e-6)


def test_isomorphic_cards_equal_the_full_tree() -> None:
    params = dict(
        board="Td9d6dAh",
        ranges=("AA,KK,T9", "QQ,JJ,87"),
        pot=100,
        stack=200,
        bets="50%",
        raises="a",
    )
    # CFR+ (no reset of positive regrets) keeps the two trees' rounding differences harmless;
    # DCFR's zeroing of early regrets lets exact ties of this toy spot break either way.
    iso = PostflopSolver(PostflopGame(**params), "cfr+")
    full = PostflopSolver(PostflopGame(isomorphism=False, **params), "cfr+")
    assert iso.tree.size < full.tree.size
    iso.step(30)
    full.step(30)
    a, b = iso.values(), full.values()
    for key in ("ev", "best_response"):
        assert a[key] == pytest.approx(b[key], abs=1e-9)
    # a card the solver folded onto an isomorphic one reads like the card itself
    v_iso = iso.average_strategy().node("check, check, 2s")
    v_full = full.average_strategy().node("check, check, 2s")
    order_iso = np.argsort(v_iso.combos[0])
    order_full = np.argsort(v_full.combos[0])
    np.testing.assert_allclose(v_iso.strategy[order_iso], v_full.strategy[order_full], atol=1e-5)


def test_threads_give_the_same_result_and_resume_is_exact(tmp_path) -> None:
    game = PostflopGame(**TINY_TURN)
    one = PostflopSolver(game, threads=1)
    two = PostflopSolver(game, threads=2)
    one.step(20)
    two.step(20)
    np.testing.assert_array_equal(one.regrets, two.regrets)
    np.testing.assert_array_equal(one.strat_sum, two.strat_sum)
    path = tmp_path / "spot.npz"
    save_spot_solution(path, one)
    one.step(15)
    back = load_spot_solution(path)
    back.step(15)
    np.testing.assert_array_equal(one.regrets, back.regrets)
    np.testing.assert_array_equal(one.strat_sum, back.strat_sum)
    assert back.iterations == 35


def test_converges_and_strategies_are_distributions() -> None:
    game = pokerlab.load_game("postflop", spot="river")
    solver = PostflopSolver(game)
    progress = solver.solve(target_pct=0.5)
    assert solver.exploitability_pct() <= 0.5
    assert progress.iterations <= 120  # postflop-solver needs about 60
    solved = solver.average_strategy()
    for line in ("", "check", "bet 66", "check, bet 150, raise 450"):
        view = solved.node(line)
        np.testing.assert_allclose(view.strategy.sum(axis=1), 1.0, atol=1e-6)
    root = solved.node("")
    ev0, _ = root.range_value(0)
    ev1, _ = root.range_value(1)
    assert ev0 + ev1 == pytest.approx(200.0, abs=1e-6)  # constant sum: the starting pot
    assert ev0 == pytest.approx(solver.values()["ev"][0], abs=1e-6)


def test_solve_times_its_exploitability_checks_apart(monkeypatch) -> None:
    game = pokerlab.load_game("postflop", spot="river")
    solver = PostflopSolver(game)
    measured = solver.check_exploitability  # what the solving loop checks
    checks: list[int] = []

    def slow_check() -> float:
        checks.append(solver.iterations)
        time.sleep(0.02)
        return measured()

    monkeypatch.setattr(solver, "check_exploitability", slow_check)
    solver.solve(target_pct=0.5, check_every=10)
    assert checks == list(range(10, solver.iterations + 1, 10))  # every 10, none at 0
    assert 0.02 * len(checks) <= solver.check_seconds < 0.02 * len(checks) + 5.0
    assert solver.seconds < solver.check_seconds  # the sleeps are not solving time
    solver.solve(iterations=10)  # no target: one check at the end, added to the total
    assert len(checks) == solver.iterations // 10


def test_bad_lines_and_inputs_are_refused() -> None:
    game = pokerlab.load_game("postflop", spot="river")
    solved = PostflopSolver(game).average_strategy()
    with pytest.raises(PokerlabError, match="bet 77"):
        solved.node("bet 77")
    with pytest.raises(PokerlabError):
        PostflopGame(board="Td9d6hQcTd", ranges=("AA", "KK"), pot=100, stack=100)
    with pytest.raises(PokerlabError, match="threads"):
        PostflopSolver(game, threads=0)
