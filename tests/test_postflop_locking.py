"""Node locking on postflop spots: locked nodes keep their strategy, the rest adapts; the
locked game's best response and exploitability; locks through dealt and isomorphic cards;
locks in saved states; bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pokerlab
from pokerlab.cards.deck import COMBO_INDEX, format_combo, parse_card
from pokerlab.cards.ranges import parse_range
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.action_walk import walk
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import PostflopSolver, load_spot_solution, save_spot_solution
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import compile_game
from pokerlab.tree.vector import _kernels as K

OOP = "66+,A8s+,K9s+,Q9s+,J9s+,T8s+,97s+,86s+,75s+,64s+,A9o+,KTo+,QTo+,JTo"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"


def b6_river() -> PostflopGame:
    """The B6 river spot, built from its parameters."""
    return PostflopGame(
        board="Td9d6hQc7s",
        ranges=(OOP, IP),
        pot=200,
        stack=900,
        bets="33%, 75%, 150%, a",
        raises="60%",
    )


def tiny_river() -> PostflopGame:
    """The small river spot of the solver tests (pot 100: the history tree can check it)."""
    return PostflopGame(
        board="Td9d6hQc7s",
        ranges=("AA,KK,T9s,76s", "QQ,AK,J8s"),
        pot=100,
        stack=300,
        bets="50%, a",
        raises="a",
    )


def tiny_turn() -> PostflopGame:
    return PostflopGame(
        board="Td9d6hQc",
        ranges=("AhAs,KK,T9s", "QsQh,J8s,AK"),
        pot=100,
        stack=300,
        bets="50%, a",
        raises="a",
    )


ISO_PARAMS = dict(
    board="Td9d6dAh", ranges=("AA,KK,T9", "QQ,JJ,87"), pot=100, stack=200, bets="50%", raises="a"
)


def combos(text: str) -> np.ndarray:
    """Combo ids of a range string, in id order."""
    return np.flatnonzero(parse_range(text))


def player_lines(game: PostflopGame, player: int) -> list[str]:
    """Lines of every decision node of ``player`` in a spot without dealt cards."""
    lines: list[str] = []

    def visit(node, line):  # type: ignore[no-untyped-def]
        if node.kind == "decision" and node.player == player:
            lines.append(", ".join(line))

    walk(game.action_tree, visit)
    return lines


def lock_to_average(target: PostflopSolver, source: PostflopSolver, player: int) -> None:
    """Lock ``player`` at every one of its nodes in ``target``, hand by hand, to ``source``'s
    average strategy."""
    solved = source.average_strategy()
    for line in player_lines(target.game, player):
        view = solved.node(line)
        for combo, row in zip(view.combos[player], view.strategy, strict=True):
            target.lock(line, dict(zip(view.actions, row.tolist(), strict=True)), [
                format_combo(int(combo))
            ])  # fmt: skip


def history_strategy(game: PostflopGame, solver: PostflopSolver) -> Strategy:
    """The solver's average strategy (locks read through the node views) as a Strategy of the
    history form of the game: the independent evaluator's input."""
    compiled = compile_game(game, "history")
    idx = compiled.index
    solved = solver.average_strategy()
    probs = compiled.uniform()
    views: dict[str, object] = {}
    for k, key in enumerate(idx.keys):
        hand, rest = key.split("|", 1)
        line = rest.split(":", 1)[1]
        if line not in views:
            views[line] = solved.node([t for t in line.split(",") if t])
        view = views[line]
        combo = COMBO_INDEX[parse_card(hand[:2]), parse_card(hand[2:])]
        row = int(np.flatnonzero(view.combos[view.player] == combo)[0])
        probs[idx.positions(k)] = view.strategy[row]
    return Strategy(compiled, probs)


def br_pass(solver: PostflopSolver, player: int) -> float:
    """The kernel's plain best-response pass (maximising everywhere): only the opponent's locks
    are kept, read as its strategy."""
    out, _ = solver.passes.pass_(
        player, K.MODE_BR, solver.regrets, solver.strat_sum, lock_probs=solver._locks_of(1 - player)
    )
    return solver.passes.root_value(player, out)


# --- a whole node locked ----------------------------------------------------------------------


def test_root_locked_to_check_keeps_the_lock_and_ip_adapts() -> None:
    game = b6_river()
    free = PostflopSolver(game)
    free.solve(target_pct=0.3)
    assert free.average_strategy().node("").action_totals()["check"] < 0.9  # OOP bets some

    locked = PostflopSolver(game)
    locked.lock("", {"check": 1.0})
    progress = locked.solve(target_pct=0.3)
    assert progress.exploitability <= 0.3 / 100 * 200
    assert locked.exploitability_pct() <= 0.3

    root = locked.average_strategy().node("")
    want = np.zeros((root.strategy.shape[0], 5))
    want[:, 0] = 1.0
    np.testing.assert_array_equal(root.strategy, want)  # exactly check, every hand
    assert root.locked is not None and root.locked.all()

    # IP adapts: facing a range that never bets, IP's strategy after the check moves
    ip_free = free.average_strategy().node("check")
    ip_locked = locked.average_strategy().node("check")
    assert ip_locked.player == 1 and ip_locked.locked is not None and not ip_locked.locked.any()
    assert np.abs(ip_locked.strategy - ip_free.strategy).max() > 0.3
    totals_free, totals_locked = ip_free.action_totals(), ip_locked.action_totals()
    assert max(abs(totals_free[a] - totals_locked[a]) for a in totals_free) > 0.05

    # IP has no locks: its best response is the kernel's, and policy iteration finds it too
    assert locked.values()["best_response"][1] == br_pass(locked, 1)
    assert locked._locked_best_response(1) == pytest.approx(br_pass(locked, 1), rel=1e-12)
    # OOP's best-response pass in the locked game equals policy iteration (independent)
    assert locked.values()["best_response"][0] == pytest.approx(
        locked._locked_best_response(0), rel=1e-9, abs=1e-9
    )
    # in the unlocked game, OOP would gain by betting: that exploitability is much larger
    assert locked.exploitability(respect_locks=False) > 10 * locked.exploitability()
    # the locked game is worth less to OOP than the free one (both solved to 0.6 chips)
    assert locked.values()["ev"][0] < free.values()["ev"][0]

    assert locked.locks() == [
        {
            "line": "",
            "player": 0,
            "hands": None,
            "combos": [format_combo(int(c)) for c in game.expanded.combos[0]],
            "strategy": {"check": 1.0, "bet 66": 0.0, "bet 150": 0.0, "bet 300": 0.0,
                         "allin 900": 0.0},
        }
    ]  # fmt: skip


def test_a_lock_added_mid_run_is_reported_at_once_and_unlock_resumes() -> None:
    game = b6_river()
    solver = PostflopSolver(game)
    solver.step(30)
    before = solver.average_strategy().node("check")
    # IP bets 66 with some hands (the exact mix after 30 iterations moves with float rounding:
    # regret matching jumps where a regret crosses 0)
    assert before.strategy[:, 1].max() > 0.3
    mix = {"check": 0.25, "bet 66": 0.75}
    solver.lock("check", mix)
    view = solver.average_strategy().node("check")
    assert (view.strategy[:, :2] == [0.25, 0.75]).all()  # 0.25, 0.75 are exact in float32
    assert (view.strategy[:, 2:] == 0).all()
    # the node's sums were rescaled to the lock, so the raw normalised sums agree too
    off = int(solver.tree.arrays.offset[solver.average_strategy().find("check")[0]])
    nh = int(solver.tree.hands.num[1])
    sums = solver.strat_sum[off : off + 5 * nh].astype(np.float64).reshape(5, nh)
    np.testing.assert_allclose(sums / sums.sum(axis=0), view.strategy.T, atol=1e-6)
    solver.step(20)
    again = solver.average_strategy().node("check")
    np.testing.assert_array_equal(again.strategy, view.strategy)
    solver.unlock("check")
    assert solver.locks() == [] and solver.lock_probs is None
    solver.step(30)
    moved = solver.average_strategy().node("check")
    assert np.abs(moved.strategy - view.strategy).max() > 0.05  # the node adapts again


# --- some hands of a node ---------------------------------------------------------------------


def test_locking_some_hands_leaves_the_others_free() -> None:
    game = b6_river()
    solver = PostflopSolver(game)
    solver.lock("", {"allin 900": 1.0}, hands="AA, KhKs")
    solver.step(10)
    early = solver.average_strategy().node("")
    solver.step(60)
    late = solver.average_strategy().node("")
    names = [format_combo(int(c)) for c in late.combos[0]]
    locked_names = {format_combo(int(c)) for c in np.flatnonzero(parse_range("AA, KhKs"))}
    is_locked = np.array([n in locked_names for n in names])
    assert is_locked.sum() == 7
    np.testing.assert_array_equal(late.locked, is_locked)
    allin = np.zeros(5)
    allin[4] = 1.0
    np.testing.assert_array_equal(late.strategy[is_locked], np.tile(allin, (7, 1)))
    np.testing.assert_array_equal(early.strategy[is_locked], late.strategy[is_locked])
    free = ~is_locked
    assert np.abs(late.strategy[free] - early.strategy[free]).max() > 0.1  # they still move
    assert late.strategy[free, 4].mean() < 0.2  # and do not follow the lock
    # KK other than KhKs is free
    kk = [i for i, n in enumerate(names) if n[0] == "K" and n[2] == "K" and n != "KsKh"]
    assert len(kk) == 5 and not late.locked[kk].any()
    [record] = solver.locks()
    assert record["hands"] == "AA, KhKs"
    assert record["combos"] == [format_combo(int(c)) for c in combos("AA, KhKs")]
    # a second lock of a subset overrides those hands only; unlock(None) clears everything
    solver.lock("", {"check": 1.0}, hands=["AhAs"])
    view = solver.average_strategy().node("")
    assert view.strategy[names.index("AsAh"), 0] == 1.0
    assert view.strategy[names.index("AdAc"), 4] == 1.0
    assert len(solver.locks()) == 2
    solver.lock("", {"check": 1.0})  # covers both earlier locks: they are dropped
    assert len(solver.locks()) == 1
    solver.unlock()
    assert solver.locks() == [] and solver.lock_probs is None


# --- the locked game's best response ---------------------------------------------------------


def test_opponent_locked_everywhere_ip_reaches_its_best_response_value() -> None:
    """OOP fixed at every node to a strategy S (an unlocked solve's average): IP's EV after
    solving must approach IP's best-response value against S, computed by the history-tree
    evaluator, an implementation independent of the vector kernels and of the locks."""
    game = tiny_river()
    free = PostflopSolver(game, "dcfr")
    free.step(40)  # a far-from-equilibrium S, so that IP's best response gains something
    report = pokerlab.exploitability_report(game, history_strategy(game, free))
    half = 50.0
    ip_br_vs_s = report.best_response_values[1] + half
    assert ip_br_vs_s - (report.values[1] + half) > 0.5

    locked = PostflopSolver(game, "dcfr")
    lock_to_average(locked, free, 0)
    assert {r["line"] for r in locked.locks()} == set(player_lines(game, 0))
    # before solving, IP's best response against the locked OOP is already the one against S
    assert locked.values()["best_response"][1] == pytest.approx(ip_br_vs_s, abs=1e-4)
    locked.step(200)
    values = locked.values()
    assert values["ev"][1] == pytest.approx(ip_br_vs_s, abs=1e-4)
    assert values["best_response"][1] == pytest.approx(ip_br_vs_s, abs=1e-5)
    # OOP cannot deviate anywhere: its locked-game best response is its EV
    assert values["best_response"][0] == pytest.approx(values["ev"][0], abs=1e-9)
    assert locked.exploitability() < 1e-4
    # the reported OOP strategy is S (to the float32 of the lock) at every node
    for line in player_lines(game, 0):
        a, b = locked.average_strategy().node(line), free.average_strategy().node(line)
        np.testing.assert_allclose(a.strategy, b.strategy, atol=1e-7)
    # and the history-tree evaluator agrees with the locked solver's own values
    report = pokerlab.exploitability_report(game, history_strategy(game, locked))
    assert report.values[1] + half == pytest.approx(values["ev"][1], abs=1e-5)
    assert report.best_response_values[1] + half == pytest.approx(
        values["best_response"][1], abs=1e-5
    )


def test_a_partly_locked_player_reaches_its_locked_best_response() -> None:
    """IP fixed everywhere, OOP's KK locked to bet 50 at the root: OOP's EV after solving must
    approach its best-response value in the locked game (policy iteration), which is below the
    plain best response (KK, beating only AK, would rather check)."""
    game = tiny_river()
    free = PostflopSolver(game, "dcfr")
    free.step(40)
    solver = PostflopSolver(game, "dcfr")
    lock_to_average(solver, free, 1)
    solver.lock("", {"bet 50": 1.0}, hands="KK")
    plain = br_pass(solver, 0)
    solver.step(400)
    values = solver.values()
    # IP is locked everywhere: its locked-game best response is its EV
    assert values["best_response"][1] == pytest.approx(values["ev"][1], abs=1e-9)
    locked_br = values["best_response"][0]
    assert locked_br == pytest.approx(solver._locked_best_response(0), rel=1e-9, abs=1e-9)
    assert locked_br == pytest.approx(values["ev"][0], abs=1e-4)
    assert plain - locked_br > 5.0
    assert solver.values(respect_locks=False)["best_response"][0] == pytest.approx(plain)
    assert values["ev"][0] <= locked_br + 1e-9


# --- dealt and isomorphic cards -----------------------------------------------------------------


def test_locks_through_a_dealt_card_hold_only_below_that_card() -> None:
    game = tiny_turn()
    solver = PostflopSolver(game, threads=2)
    solver.lock("check, check, 2c", {"allin 300": 1.0})
    solver.lock("check, check, 8s", {"bet 50": 1.0}, hands="KK, T9s")
    solver.step(30)
    solved = solver.average_strategy()
    two = solved.node("check, check, 2c")
    assert two.locked.all()
    np.testing.assert_array_equal(two.strategy, np.tile([0.0, 0.0, 1.0], (len(two.combos[0]), 1)))
    eight = solved.node("check, check, 8s")
    names = [format_combo(int(c)) for c in eight.combos[0]]
    want = np.array([n[0] + n[2] in ("KK", "T9") and "8s" not in n for n in names])
    np.testing.assert_array_equal(eight.locked, want)
    np.testing.assert_array_equal(eight.strategy[want], np.tile([0.0, 1.0, 0.0], (want.sum(), 1)))
    other = solved.node("check, check, 2d")  # the same line after another card is free
    assert not other.locked.any() and other.strategy[:, 2].max() < 1.0
    # a hand holding the dealt card cannot be locked there
    with pytest.raises(PokerlabError, match="Ah8s"):
        solver.lock("check, check, 8s", {"check": 1.0}, hands="Ah8s")
    with pytest.raises(PokerlabError, match="AhAs"):
        solver.lock("check, check, As", {"check": 1.0}, hands="AhAs")
    assert solver.exploitability() >= 0.0


def test_locks_through_an_isomorphic_card_equal_the_full_tree() -> None:
    iso = PostflopSolver(PostflopGame(**ISO_PARAMS), "cfr+")
    full = PostflopSolver(PostflopGame(isomorphism=False, **ISO_PARAMS), "cfr+")
    node_2s, _, swap = iso.average_strategy().find("check, check, 2s")
    assert swap >= 0 and node_2s == iso.average_strategy().find("check, check, 2c")[0]
    # through 2s, KsKh is stored as KcKh below 2c: one stored node serves both cards
    iso.lock("check, check, 2s", {"bet 50": 1.0}, hands="KsKh")
    full.lock("check, check, 2s", {"bet 50": 1.0}, hands="KsKh")
    full.lock("check, check, 2c", {"bet 50": 1.0}, hands="KcKh")
    assert iso.locks()[0]["combos"] == ["KsKh"]
    iso.step(30)
    full.step(30)
    a, b = iso.values(), full.values()
    for key in ("ev", "best_response"):
        assert a[key] == pytest.approx(b[key], abs=1e-6)
    for card, combo in (("2s", "KsKh"), ("2c", "KhKc")):
        line = f"check, check, {card}"
        v_iso, v_full = iso.average_strategy().node(line), full.average_strategy().node(line)
        names_iso = [format_combo(int(c)) for c in v_iso.combos[0]]
        names_full = [format_combo(int(c)) for c in v_full.combos[0]]
        assert v_iso.locked[names_iso.index(combo)] and v_full.locked[names_full.index(combo)]
        assert v_iso.locked.sum() == v_full.locked.sum() == 1
        np.testing.assert_array_equal(v_iso.strategy[names_iso.index(combo)], [0.0, 1.0])
        order_iso, order_full = np.argsort(v_iso.combos[0]), np.argsort(v_full.combos[0])
        np.testing.assert_allclose(
            v_iso.strategy[order_iso], v_full.strategy[order_full], atol=1e-5
        )
    # unlocking through the twin card removes the lock set through 2s (the same stored node)
    iso.unlock("check, check, 2c")
    assert iso.locks() == []


# --- saved states -------------------------------------------------------------------------------


def test_resume_with_locks_is_exact(tmp_path) -> None:
    game = tiny_turn()

    def locked_solver() -> PostflopSolver:
        s = PostflopSolver(game)
        s.lock("", {"check": 0.5, "bet 50": 0.5}, hands="KK")
        s.lock("check, check, 2h", {"allin": 1.0})
        return s

    straight = locked_solver()
    straight.step(10)
    straight.lock("check", {"check": 1.0}, hands=["QsQh", "AK"])  # a lock added mid-run
    straight.step(15)

    first = locked_solver()
    first.step(10)
    first.lock("check", {"check": 1.0}, hands=["QsQh", "AK"])
    first.step(5)
    path = tmp_path / "locked.npz"
    save_spot_solution(path, first)
    back = load_spot_solution(path, threads=2)
    assert back.locks() == first.locks()
    back.step(10)
    np.testing.assert_array_equal(back.regrets, straight.regrets)
    np.testing.assert_array_equal(back.strat_sum, straight.strat_sum)
    np.testing.assert_array_equal(back.lock_probs, straight.lock_probs)
    assert back.values() == straight.values()
    assert back.iterations == 25

    # in memory too; loading a state replaces the locks a solver had
    other = PostflopSolver(game)
    other.lock("check, check, 2c", {"check": 1.0})
    other.load_state_dict(first.state_dict())
    assert other.locks() == first.locks()
    other.step(10)
    np.testing.assert_array_equal(other.strat_sum, straight.strat_sum)
    # a state without locks clears them
    other.load_state_dict(PostflopSolver(game).state_dict())
    assert other.locks() == [] and other.lock_probs is None


def test_a_state_with_a_damaged_lock_is_refused_whole() -> None:
    game = tiny_river()
    solver = PostflopSolver(game)
    solver.lock("", {"check": 1.0})
    solver.step(5)
    state = solver.state_dict()
    state["extra"]["locks"][0]["line"] = "bet 77"
    target = PostflopSolver(game)
    with pytest.raises(PokerlabError, match="bet 77"):
        target.load_state_dict(state)
    assert target.iterations == 0 and not target.strat_sum.any() and target.locks() == []
    state["extra"]["locks"] = "check"
    with pytest.raises(PokerlabError, match="locks"):
        target.load_state_dict(state)


# --- bad input ----------------------------------------------------------------------------------

BAD_LOCKS = [
    ("bet 77", {"check": 1.0}, None, "bet 77"),
    ("check, jam", {"check": 1.0}, None, "jam"),
    ("check, check", {"check": 1.0}, None, "hand is over"),
    ("", {"raise 500": 1.0}, None, "raise 500"),
    ("", {"bet 70": 1.0}, None, "bet 70"),
    ("", {"bet": 1.0}, None, "'bet' is ambiguous"),
    ("", {"shove": 1.0}, None, "shove"),
    ("", {"check": 0.5}, None, "sum to 0.5"),
    ("", {"check": 0.5, "bet 66": 0.6}, None, "sum to 1.1"),
    ("", {"check": 1.5, "bet 66": -0.5}, None, "'check'"),
    ("", {"check": math.nan}, None, "'check'"),
    ("", {"check": "1"}, None, "not a number"),
    ("", {"check": True}, None, "not a number"),
    ("", {}, None, "maps actions"),
    ("", {"allin": 0.5, "allin 900": 0.5}, None, "'allin 900'"),
    ("", {"check": 1.0}, "22", "'22'"),
    ("", {"check": 1.0}, "AA, 53s", "'53s'"),
    ("", {"check": 1.0}, "TdTc", "'TdTc'"),
    ("", {"check": 1.0}, "AA:0.5", "'AA:0.5'"),
    ("", {"check": 1.0}, "AXs", "'AXs'"),
    ("", {"check": 1.0}, "AA,,KK", "empty hand item"),
    ("", {"check": 1.0}, 7, "range string"),
    ("check", {"check": 1.0}, "AA", "'AA' is not in IP's range"),
]


@pytest.mark.parametrize("line,strategy,hands,message", BAD_LOCKS)
def test_bad_locks_are_refused_by_name(line, strategy, hands, message) -> None:  # type: ignore[no-untyped-def]
    solver = PostflopSolver(b6_river())
    with pytest.raises(PokerlabError, match=message.replace("(", r"\(")):
        solver.lock(line, strategy, hands)
    assert solver.locks() == [] and solver.lock_probs is None  # nothing half-set


def test_bad_unlocks_and_lines_are_refused() -> None:
    solver = PostflopSolver(tiny_turn())
    with pytest.raises(PokerlabError, match="nothing is locked at 'check'"):
        solver.unlock("check")
    with pytest.raises(PokerlabError, match="a card is dealt"):
        solver.lock("check, check", {"check": 1.0})
    with pytest.raises(PokerlabError, match="'Zz'"):
        solver.lock("check, check, Zz", {"check": 1.0})
    with pytest.raises(PokerlabError, match="a line is a string"):
        solver.lock(["check"], {"check": 1.0})  # type: ignore[arg-type]
    solver.lock("check", {"bet 50": 1.0})
    with pytest.raises(PokerlabError, match="'bet 77'"):
        solver.unlock("bet 77")
    assert len(solver.locks()) == 1
