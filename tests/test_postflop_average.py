"""The two ways a postflop solve's strategy sums grow (``PostflopSolver(average=...)``): times the
player's own reach (the CFR theorem's average, the default) or the current strategy as it is
(postflop-solver's sums), and how a saved state keeps its choice."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from _postflop_spots import TINY_TURN
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop import spot_from_params
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.tree.vector.tree import DECISION


def _game() -> PostflopGame:
    return PostflopGame(spot_from_params(**TINY_TURN))


def _own_reach_at(solver: PostflopSolver, node: int) -> np.ndarray:
    """The acting player's reach at ``node`` under the uniform first-iteration strategy, per hand
    of its list: the product of 1 / actions over its own earlier decisions (cards dealt on the
    way remove the hands holding them)."""
    a = solver.tree.arrays
    hd = solver.tree.hands
    actor = int(a.player[node])
    parent = np.full(a.kind.shape[0], -1)
    for n in range(a.kind.shape[0]):
        for e in range(a.child_start[n], a.child_start[n + 1]):
            parent[a.children[e]] = n
    reach = hd.weight[actor].copy()
    child, up = node, int(parent[node])
    while up >= 0:
        if a.kind[up] == DECISION and a.player[up] == actor:
            reach /= a.child_start[up + 1] - a.child_start[up]
        elif a.kind[up] != DECISION:
            edges = range(a.child_start[up], a.child_start[up + 1])
            e = next(e for e in edges if a.children[e] == child)
            card = int(a.edge_card[e])
            held = (hd.cards[actor] == card).any(axis=1)
            reach[held] = 0.0
        child, up = up, int(parent[up])
    return reach


@pytest.mark.parametrize("average", ["reach", "plain"])
def test_first_iteration_sums_are_the_uniform_strategy_with_or_without_the_own_reach(
    average: str,
) -> None:
    """After one CFR iteration (regrets all zero before it: every strategy uniform) each decision
    block of the strategy sums is 1 / actions for every hand with ``plain``, and that times the
    player's own reach there with ``reach``; both players' nodes, on the turn and the river."""
    solver = PostflopSolver(_game(), "cfr", average=average)
    solver.step(1)
    a, hd = solver.tree.arrays, solver.tree.hands
    checked = {0: 0, 1: 0}
    deep = 0
    for node in np.flatnonzero(a.kind == DECISION):
        actor = int(a.player[node])
        na = int(a.child_start[node + 1] - a.child_start[node])
        nh = int(hd.num[actor])
        block = solver.strat_sum[a.offset[node] : a.offset[node] + na * nh].reshape(na, nh)
        if average == "plain":
            want = np.full(nh, 1.0 / na)
        else:
            want = _own_reach_at(solver, int(node))[:nh] / na
            deep += bool((want < hd.weight[actor][:nh] / na - 1e-9).any())
        np.testing.assert_allclose(block, np.broadcast_to(want, (na, nh)), rtol=1e-6, atol=1e-7)
        checked[actor] += 1
    assert checked[0] > 3 and checked[1] > 3
    if average == "reach":
        assert deep > 0  # some nodes lie below the player's own decisions: the two differ there


def test_the_choices_converge_and_differ() -> None:
    """Both reach the same game value region: exploitability under 1% of the pot in 100
    iterations; their strategy sums differ (the choice is not a no-op) and the thread count does
    not change a plain solve."""
    game = _game()
    runs = {}
    for average in ("reach", "plain"):
        solver = PostflopSolver(game, "dcfr-ps", average=average)
        solver.step(100)
        assert solver.exploitability_pct() < 1.0
        runs[average] = solver.strat_sum.copy()
    assert not np.array_equal(runs["reach"], runs["plain"])
    two = PostflopSolver(game, "dcfr-ps", threads=2, average="plain")
    two.step(100)
    np.testing.assert_array_equal(two.strat_sum, runs["plain"])


def test_a_state_keeps_its_average() -> None:
    game = _game()
    plain = PostflopSolver(game, "dcfr-ps", average="plain")
    plain.step(5)
    state = plain.state_dict()
    assert state["config"]["average"] == "plain"
    again = PostflopSolver(game, "dcfr-ps")  # no choice given: the state's
    again.load_state_dict(state)
    assert again.average == "plain"
    again.step(5)
    plain.step(5)
    np.testing.assert_array_equal(again.strat_sum, plain.strat_sum)
    with pytest.raises(PokerlabError, match="average='plain', not 'reach'"):
        PostflopSolver(game, "dcfr-ps", average="reach").load_state_dict(state)
    # states saved before the choice existed were reach-weighted
    old = plain.state_dict()
    del old["config"]["average"]
    fresh = PostflopSolver(game, "dcfr-ps")
    fresh.load_state_dict(old)
    assert fresh.average == "reach"


def test_an_unknown_average_is_refused() -> None:
    with pytest.raises(PokerlabError, match="unknown average 'mean'; choose one of reach, plain"):
        PostflopSolver(pokerlab.load_game("postflop", spot="river"), average="mean")


def test_cli_average_reaches_the_saved_solution_and_bad_values_are_named(tmp_path, capsys) -> None:
    from pokerlab.cli.main import main
    from pokerlab.io.files import load_checkpoint

    path = tmp_path / "plain.npz"
    assert (
        main(["postflop", "river", "-n", "20", "--average", "plain", "--json", "-o", str(path)])
        == 0
    )
    assert load_checkpoint(path)["config"]["average"] == "plain"
    direct = PostflopSolver(pokerlab.load_game("postflop", spot="river"), average="plain")
    direct.step(20)
    np.testing.assert_array_equal(load_checkpoint(path)["arrays"]["strategy_sum"], direct.strat_sum)
    capsys.readouterr()
    assert main(["postflop", "river", "-n", "2", "--average", "mean"]) == 2
    assert "unknown average 'mean'; choose one of reach, plain" in capsys.readouterr().err
