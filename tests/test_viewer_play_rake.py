"""The viewer's play page on a raked postflop spot (issue 30): every hand's result is the
spot's terminal utility with the rake taken (``PostflopHistory.terminal_utility``, the payoff
the solver's EVs are expectations of), not the unraked pot."""

from __future__ import annotations

import pytest

from pokerlab.games.postflop import spot_from_params
from pokerlab.games.postflop.game import PostflopGame, PostflopHistory
from pokerlab.solvers.postflop import PostflopSolver, save_spot_solution

pytest.importorskip("fastapi", reason="the viewer extra (fastapi, uvicorn) is not installed")

from pokerlab.viewer.models import PostflopModel  # noqa: E402
from pokerlab.viewer.sessions import new_session  # noqa: E402

RATE, CAP = 0.05, 8.0


@pytest.fixture(scope="module")
def raked(tmp_path_factory) -> tuple[PostflopModel, PostflopGame]:
    config = spot_from_params(
        board="Td9d6hQc7s",
        oop_range="66+,A8s+,K9s+,Q9s+,J9s+,T8s+,A9o+,KTo+",
        ip_range="QQ-22,AQs-A2s,ATo+,K5s+,Q8s+,J8s+,T7s+",
        pot=200,
        stack=900,
        bets="66c, a",
        raises="a",
        rake_rate=RATE,
        rake_cap=CAP,
    )
    game = PostflopGame(config)
    solver = PostflopSolver(game, "dcfr-ps")
    solver.step(30)
    path = tmp_path_factory.mktemp("raked") / "raked.npz"
    save_spot_solution(path, solver)
    return PostflopModel(path, "raked.npz"), game


def _finish(session, pick: int) -> None:
    for _ in range(20):
        if session.done:
            return
        legal = session.legal()
        session.act(legal[pick % len(legal)])
    raise AssertionError("the hand did not end")


def test_play_results_are_the_raked_terminal_utilities(raked) -> None:
    model, game = raked
    seen = {"fold": 0, "showdown": 0}
    capped = 0
    for seat in (0, 1):
        for seed in range(30):
            session = new_session(model, seat, seed)
            _finish(session, pick=seed % 3)
            node = model.action_node(session.line)
            history = PostflopHistory(
                game, session.combos, node, tuple(session.board), tuple(session.line)
            )
            assert history.is_terminal()
            expected = history.terminal_utility(seat)
            assert session.result == pytest.approx(expected, abs=1e-9), session.line
            # the other seat's result: together they lose exactly the rake
            matched = node.commit[node.player] if node.kind == "fold" else node.commit[0]
            rake = min(RATE * (200 + 2 * matched), CAP)
            capped += rake == CAP
            assert session.result + history.terminal_utility(1 - seat) == pytest.approx(-rake)
            seen[node.kind] += 1
            if rake > 0:
                assert "less rake" in session.message
    assert seen["fold"] > 0 and seen["showdown"] > 0 and capped > 0


def test_a_raked_fold_by_hand(raked) -> None:
    model, _ = raked
    for seed in range(200):  # a hand where OOP (you) bets 66 and the bot folds
        session = new_session(model, 0, seed)
        if "bet 66" not in session.legal():
            continue
        session.act("bet 66")
        if session.done and session.line == ["bet 66", "fold"]:
            break
    else:
        pytest.fail("the bot never folded to a bet of 66 in 200 hands")
    # matched pot 200, rake 5% = 10 capped at 8: OOP collects 266 - 8, put in 66
    assert session.result == pytest.approx(266 - 8 - 66 - 100)
    assert session.state()["rake"] == {"rate": RATE, "cap": CAP}
