"""The postflop vector tree behind the engine's tree-backend seam (tree/vector/backend.py).

The generic engine (compile_game, Strategy, exploitability, best response, CFRSolver) runs on a
postflop spot through the backend; its evaluations are checked against the history form of the
same spot (the history-tree evaluator, independent of the vector kernels) and against
PostflopSolver.
"""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from pokerlab.cards.deck import format_combo
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.exploitability import best_response_strategy
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.cfr import CFRSolver
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.solvers.schedule import schedule_by_name
from pokerlab.strategy import Strategy
from pokerlab.tree.backend import TreeBackend
from pokerlab.tree.compiled import compile_game
from pokerlab.tree.vector.tree import DECISION

TURN = dict(
    board="Td9d6hQc",
    ranges=("AhAs,KK,T9s", "QsQh,J8s,AK"),
    pot=100,
    stack=300,
    bets="50%, a",
    raises="a",
)
# a board and ranges with suit symmetry: the turn's club and spade cards are folded
ISO = dict(
    board="Td9d6dAh",
    ranges=("AA,KK,T9", "QQ,JJ,87"),
    pot=100,
    stack=200,
    bets="50%",
    raises="a",
)


def _solved(params: dict, iterations: int = 40) -> tuple[PostflopGame, PostflopSolver]:
    game = PostflopGame(**params)
    solver = PostflopSolver(game, "dcfr")
    solver.step(iterations)
    return game, solver


def _to_history(strategy: Strategy) -> Strategy:
    """The same behaviour as a strategy of the spot's history form, key by key."""
    history = compile_game(strategy.compiled.game, "history")
    probs = history.uniform()
    idx = history.index
    for k, key in enumerate(idx.keys):
        probs[idx.positions(k)] = _row(strategy, key)
    return Strategy(history, probs)


def _row(strategy: Strategy, key: str) -> np.ndarray:
    idx = strategy.compiled.index
    return strategy.probs[idx.positions(idx.find(key))]


def test_compile_game_gives_the_postflop_backend() -> None:
    game = PostflopGame(**TURN)
    compiled = compile_game(game)
    backend = compiled.tree
    assert compiled.kind == "postflop" and isinstance(backend, TreeBackend)
    tree = game.expanded.tree
    (a0, b0), (a1, b1) = backend.player_ranges
    assert (a0, b1) == (0, tree.size) and b0 == a1
    # every decision node's block lies in its actor's slice, and the blocks tile the arrays
    arr = tree.arrays
    covered = np.zeros(tree.size, dtype=np.int64)
    for n in np.flatnonzero(arr.kind == 0):
        p = int(arr.player[n])
        na = int(arr.child_start[n + 1] - arr.child_start[n])
        lo = int(arr.offset[n])
        hi = lo + na * int(tree.hands.num[p])
        assert backend.player_ranges[p][0] <= lo and hi <= backend.player_ranges[p][1]
        covered[lo:hi] += 1
    assert np.all(covered == 1)
    assert compile_game(game, "postflop") is compiled
    assert compile_game(game, "history").kind == "history"


def test_keys_round_trip_and_read_like_the_history_form() -> None:
    game = PostflopGame(**TURN)
    idx = compile_game(game).index
    n = len(idx)
    for k in [0, 1, n // 3, n // 2, n - 1]:
        key = idx.keys[k]
        assert idx.find(key) == k
        assert len(idx.positions(k)) == idx.num_actions[k] == len(idx.labels[k])
    history = compile_game(game, "history").index
    for k in range(0, len(history), 97):
        key = history.keys[k]
        j = idx.find(key)
        assert idx.keys[j] == key
        assert tuple(idx.labels[j]) == tuple(history.labels[k])
        assert idx.player[j] == history.player[k]
    with pytest.raises(KeyError, match="7c7d"):
        idx.find("7c7d|Td9d6hQc:")
    with pytest.raises(KeyError, match="bet 999"):
        idx.find("AhAs|Td9d6hQc:bet 999")


def test_evaluations_agree_with_the_history_form_and_the_solver() -> None:
    game, solver = _solved(TURN)
    compiled = compile_game(game)
    strategy = Strategy(compiled, compiled.normalise(solver.strat_sum))
    ours = pokerlab.exploitability_report(game, strategy)
    theirs = pokerlab.exploitability_report(game, _to_history(strategy))
    np.testing.assert_allclose(ours.values, theirs.values, atol=1e-6)
    np.testing.assert_allclose(ours.best_response_values, theirs.best_response_values, atol=1e-6)
    assert ours.exploitability == pytest.approx(solver.exploitability(), abs=1e-6)
    assert ours.exploitability > 0


def test_isomorphic_keys_read_the_source_card() -> None:
    game, solver = _solved(ISO, 30)
    compiled = compile_game(game)
    assert game.expanded.tree.arrays.iso_card.size > 0
    strategy = Strategy(compiled, compiled.normalise(solver.strat_sum))
    # keys of the history form through folded cards (e.g. the 2c turn) find stored sets
    history = compile_game(game, "history").index
    through_iso = [key for key in history.keys if key.endswith(":check,check,2c")]
    assert through_iso
    view = solver.average_strategy().node("check, check, 2c")
    names = [format_combo(int(c)) for c in view.combos[0]]
    for key in through_iso:
        row = names.index(key.split("|")[0])
        np.testing.assert_allclose(_row(strategy, key), view.strategy[row], atol=1e-6)
    report = pokerlab.exploitability_report(game, strategy)
    history_report = pokerlab.exploitability_report(game, _to_history(strategy))
    assert report.exploitability == pytest.approx(history_report.exploitability, abs=1e-6)


def test_best_response_policy_reaches_the_best_response_value() -> None:
    game, solver = _solved(TURN, 20)
    compiled = compile_game(game)
    strategy = Strategy(compiled, compiled.normalise(solver.strat_sum))
    for player in (0, 1):
        br, value = best_response_strategy(game, strategy, player)
        assert value == pytest.approx(compiled.tree.value(strategy.probs, player, True), abs=1e-6)
        # the returned profile is pure for the player and plays the strategy elsewhere
        lo, hi = compiled.tree.player_ranges[player]
        assert set(np.unique(br.probs[lo:hi])) <= {0.0, 1.0}
        other = compiled.tree.player_ranges[1 - player]
        np.testing.assert_allclose(br.probs[slice(*other)], strategy.probs[slice(*other)])
        # evaluated as a plain profile, it earns the best-response value
        assert compiled.tree.value(br.probs, player, False) == pytest.approx(value, abs=1e-6)
        history = _to_history(br)
        assert pokerlab.expected_values(history.compiled.game, history)[player] == pytest.approx(
            value, abs=1e-6
        )


def test_cfr_solver_runs_on_the_backend_like_postflop_solver() -> None:
    game = PostflopGame(**TURN)
    generic = CFRSolver(compile_game(game), schedule_by_name("dcfr"))
    generic.step(15)
    special = PostflopSolver(game, "dcfr")
    special.step(15)
    np.testing.assert_array_equal(generic.regrets, special.regrets)
    np.testing.assert_array_equal(generic.strat_sum, special.strat_sum)
    expl = pokerlab.exploitability(game, generic.average_strategy())
    assert expl == pytest.approx(special.exploitability(), abs=1e-6)
    with pytest.raises(PokerlabError, match="alternating"):
        CFRSolver(compile_game(game), schedule_by_name("dcfr"), alternating=False)


def test_an_old_state_format_is_refused_with_the_reason() -> None:
    game, solver = _solved(TURN, 2)
    state = solver.state_dict()
    state["format"] = 1
    with pytest.raises(PokerlabError, match="solve the spot again"):
        PostflopSolver(game, "dcfr").load_state_dict(state)


def test_a_postflop_strategy_saves_and_loads_by_key(tmp_path) -> None:
    game, solver = _solved(TURN, 10)
    compiled = compile_game(game)
    strategy = Strategy(compiled, compiled.normalise(solver.strat_sum))
    path = tmp_path / "turn.npz"
    pokerlab.save_strategy(path, strategy, algorithm="dcfr")
    loaded = pokerlab.load_strategy(path)
    assert loaded.compiled.kind == "postflop"
    np.testing.assert_array_equal(loaded.probs, strategy.probs)
    key = compiled.index.keys[7]
    np.testing.assert_array_equal(_row(loaded, key), _row(strategy, key))
    assert pokerlab.exploitability(loaded.compiled.game, loaded) == pytest.approx(
        pokerlab.exploitability(game, strategy), abs=1e-9
    )


def test_a_spot_solved_without_isomorphism_reopens_without_it(tmp_path) -> None:
    from pokerlab.solvers.postflop import load_spot_solution, save_spot_solution

    game = PostflopGame(isomorphism=False, **ISO)
    assert game.params["isomorphism"] is False
    solver = PostflopSolver(game, "dcfr")
    solver.step(3)
    path = tmp_path / "full.npz"
    save_spot_solution(path, solver)
    back = load_spot_solution(path)
    assert back.game.isomorphism is False and back.tree.size == solver.tree.size
    np.testing.assert_array_equal(back.strat_sum, solver.strat_sum)
    # the generic files too: load_game rebuilds the same layout from the params
    compiled = compile_game(game)
    strategy = Strategy(compiled, compiled.normalise(solver.strat_sum))
    pokerlab.save_strategy(tmp_path / "s.npz", strategy)
    assert pokerlab.load_strategy(tmp_path / "s.npz").compiled.size == compiled.size


@pytest.mark.parametrize("params", [TURN, ISO, {"spot": "river"}])
def test_the_uniform_strategy_is_the_normalised_zeros(params) -> None:
    """The backend's uniform strategy (each decision block's 1 / actions laid end to end) is
    the normalisation of all-zero sums bit for bit, on spots with and without isomorphic
    cards, and its blocks read 1 / actions for every hand."""
    game = pokerlab.load_game("postflop", **params)
    backend = game.public_tree()
    uniform = backend.uniform()
    assert uniform.shape == (backend.size,) and uniform.dtype == np.float64
    assert np.array_equal(uniform, backend.normalise(np.zeros(backend.size)))
    a = backend.tree.arrays
    for n in np.flatnonzero(a.kind == DECISION)[:50]:
        na = int(a.child_start[n + 1] - a.child_start[n])
        nh = int(backend.tree.hands.num[a.player[n]])
        assert np.all(uniform[a.offset[n] : a.offset[n] + na * nh] == 1.0 / na)
