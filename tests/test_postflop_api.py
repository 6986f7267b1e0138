"""Postflop spots through the generic API: built-in spots by name, ``make_solver`` routing, the
memory check before allocating, and rake (payoffs and EVs against a hand computation)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pokerlab
from pokerlab.cards.deck import COMBO_CARDS, parse_cards
from pokerlab.cards.evaluator import evaluate
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop import game as game_module
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import PostflopSolver

BOARD = "Td9d6hQc7s"


def _river(oop: str, ip: str, **extra: object) -> PostflopGame:
    """A tiny river spot: pot 40, stack 60, OOP may check or shove, IP may fold or call."""
    params: dict[str, object] = dict(
        board=BOARD, ranges=(oop, ip), pot=40, stack=60, bets="a", raises=""
    )
    params.update(extra)
    return PostflopGame(**params)


# --- built-in spots and make_solver ---------------------------------------------------------


def test_load_game_takes_a_builtin_spot_name() -> None:
    game = pokerlab.load_game("postflop", spot="river")
    assert game.config.street == "river" and game.config.pot == 200.0
    assert game.action_tree.labels() == ["check", "bet 66", "bet 150", "bet 300", "allin 900"]
    with pytest.raises(PokerlabError, match="built-in spots: flop, river, turn"):
        pokerlab.load_game("postflop", spot="rivr")


def test_make_solver_routes_postflop_spots_to_the_postflop_solver() -> None:
    game = pokerlab.load_game("postflop", spot="river")
    solver = pokerlab.make_solver(game, "dcfr-ps", threads=2)
    assert isinstance(solver, PostflopSolver)
    assert solver.algorithm == "dcfr-ps"
    # threads passes through (capped by the solver at the threads numba may use here)
    assert solver.threads == PostflopSolver(game, threads=2).threads >= 1
    assert pokerlab.make_solver(game, "CFRPlus").algorithm == "cfr+"  # aliases as elsewhere
    assert pokerlab.make_solver(game, "dcfr").threads == 1
    solver.step(20)
    reference = PostflopSolver(game, "dcfr-ps")
    reference.step(20)
    np.testing.assert_array_equal(solver.strat_sum, reference.strat_sum)


@pytest.mark.parametrize(
    ("algorithm", "options", "needle"),
    [
        ("bogus", {}, "unknown algorithm 'bogus' for a postflop spot; choose one of dcfr-ps"),
        (
            "dcfr",
            {"prune": True},
            "does not use option(s) prune; its options are threads=, compressed= and average=",
        ),
        ("cfr+", {"alternating": False, "seed": 3}, "option(s) alternating, seed"),
        ("dcfr-ps", {"colour": "red"}, "unknown option(s) colour"),
        ("dcfr-ps", {"threads": 0}, "threads must be a positive integer, got 0"),
    ],
)
def test_make_solver_refuses_bad_postflop_options_by_name(
    algorithm: str, options: dict[str, object], needle: str
) -> None:
    game = pokerlab.load_game("postflop", spot="river")
    with pytest.raises(PokerlabError) as info:
        pokerlab.make_solver(game, algorithm, **options)
    assert needle in str(info.value)


def test_threads_is_refused_for_other_games(leduc) -> None:
    with pytest.raises(PokerlabError, match="threads is an option of postflop spots"):
        pokerlab.make_solver(leduc, "dcfr", threads=2)


def test_a_tree_too_large_for_memory_is_refused_with_its_estimate(monkeypatch) -> None:
    game = pokerlab.load_game("postflop", spot="flop")
    need = game.tree_summary()["memory_upper_bound_bytes"]
    assert need == 1_685_819_760  # 8 bytes per (decision node, action, hand), no isomorphism
    with pytest.raises(PokerlabError) as info:
        game.check_memory(available_bytes=2**30)
    message = str(info.value)
    assert "too large for this machine's memory" in message
    assert "up to 1.6 GiB (1,685,819,760 bytes; 312,434 decision nodes" in message
    assert "1.0 GiB is available" in message
    assert game.check_memory(available_bytes=need)["memory_upper_bound_bytes"] == need
    # make_solver checks before it allocates anything
    monkeypatch.setattr(game_module, "available_memory_bytes", lambda: 2**20)
    monkeypatch.setattr(PostflopGame, "expanded", property(lambda self: pytest.fail("built")))
    with pytest.raises(PokerlabError, match=r"up to 1\.6 GiB .* 1\.0 MiB is available"):
        pokerlab.make_solver(game, "dcfr-ps")
    # the betting tree alone (a line read before deciding to solve) skips the memory check;
    # the solver's action tree is that tree, checked
    fresh = pokerlab.load_game("postflop", spot="flop")
    assert fresh.betting_tree.children
    with pytest.raises(PokerlabError, match="too large for this machine's memory"):
        _ = fresh.action_tree
    monkeypatch.setattr(game_module, "available_memory_bytes", lambda: None)
    assert fresh.action_tree is fresh.betting_tree


def test_available_memory_is_a_plausible_number_of_bytes() -> None:
    available = game_module.available_memory_bytes()
    assert available is not None and 2**26 < available < 2**50


# --- rake -----------------------------------------------------------------------------------


def _rake(total_pot: float, rate: float = 0.05, cap: float = 5.0) -> float:
    return min(rate * total_pot, cap)


@pytest.mark.parametrize(
    ("ip", "payoffs"),
    [
        # AhAd beats KhKd; the rake is 5% of the final pot, capped at 5 chips
        (
            "KhKd",
            {
                "check, check": (40 - 2, 0),  # pot 40: rake 2
                "allin 60, call": (160 - 5, 0),  # pot 160: 8, capped at 5
                "allin 60, fold": (40 - 2 + 60, 0),  # the pot less rake, and the bet back
                "check, allin 60, fold": (0, 40 - 2 + 60),
                "check, allin 60, call": (160 - 5, 0),
            },
        ),
        # AhAd against AcAs: a tie splits the raked pot
        (
            "AcAs",
            {
                "check, check": (19, 19),
                "allin 60, call": (77.5, 77.5),
                "allin 60, fold": (98, 0),
            },
        ),
    ],
    ids=["win", "tie"],
)
def test_rake_payoffs_at_showdown_and_fold_terminals(
    ip: str, payoffs: dict[str, tuple[float, float]]
) -> None:
    game = _river("AhAd", ip, rake_rate=0.05, rake_cap=5)
    solver = PostflopSolver(game, "cfr")
    solver.step(1)  # the average of one iteration of plain CFR is uniform: every node is reached
    solved = solver.average_strategy()
    for line, (oop_collects, ip_collects) in payoffs.items():
        view = solved.node(line)
        assert view.kind in ("showdown", "fold"), line
        # EV at a terminal: the chips each player collects there
        assert view.ev[0][0] == pytest.approx(oop_collects, abs=1e-9), line
        assert view.ev[1][0] == pytest.approx(ip_collects, abs=1e-9), line


def _hand_computed_values(game: PostflopGame, solver: PostflopSolver) -> tuple[float, float, float]:
    """(OOP EV, IP EV, expected rake) of the solver's average strategy on a :func:`_river` spot,
    by enumerating the deals and the five terminals by hand. EVs are chips collected at the end
    less chips put in during the spot, so they add up to the pot less the rake."""
    cfg = game.config
    board = list(parse_cards(BOARD))
    pot, stack = cfg.pot, cfg.stack
    solved = solver.average_strategy()
    views = {line: solved.node(line) for line in ("", "check", "allin 60", "check, allin 60")}

    def prob(line: str, combo: int, action: str) -> float:
        view = views[line]
        row = int(np.flatnonzero(view.combos[view.player] == combo)[0])
        return float(view.strategy[row, view.actions.index(action)])

    w0, w1 = cfg.weights()
    total_weight = ev0 = ev1 = expected_rake = 0.0
    for a, b in itertools.product(np.flatnonzero(w0), np.flatnonzero(w1)):
        if set(COMBO_CARDS[a].tolist()) & set(COMBO_CARDS[b].tolist()):
            continue
        weight = float(w0[a] * w1[b])
        mine = evaluate([*COMBO_CARDS[a].tolist(), *board])
        theirs = evaluate([*COMBO_CARDS[b].tolist(), *board])
        oop_share = 0.5 if mine == theirs else float(mine > theirs)

        def showdown(
            total: float, put_in: float, share: float = oop_share
        ) -> tuple[float, float, float]:
            """Net chips of OOP and IP, and the rake, when ``total`` is shown down."""
            rake = _rake(total)
            return (
                share * (total - rake) - put_in,
                (1 - share) * (total - rake) - put_in,
                rake,
            )

        # a fold leaves the bettor the starting pot less its rake (the bet comes back)
        fold_rake = _rake(pot)
        shove, call = prob("", a, "allin 60"), prob("allin 60", b, "call")
        ip_shove, oop_call = prob("check", b, "allin 60"), prob("check, allin 60", a, "call")
        outcomes = [
            ((1 - shove) * (1 - ip_shove), showdown(pot, 0.0)),
            ((1 - shove) * ip_shove * oop_call, showdown(pot + 2 * stack, stack)),
            ((1 - shove) * ip_shove * (1 - oop_call), (0.0, pot - fold_rake, fold_rake)),
            (shove * call, showdown(pot + 2 * stack, stack)),
            (shove * (1 - call), (pot - fold_rake, 0.0, fold_rake)),
        ]
        assert sum(p for p, _ in outcomes) == pytest.approx(1.0)
        for p, (net0, net1, rake) in outcomes:
            ev0 += weight * p * net0
            ev1 += weight * p * net1
            expected_rake += weight * p * rake
        total_weight += weight
    return ev0 / total_weight, ev1 / total_weight, expected_rake / total_weight


@pytest.mark.parametrize("iterations", [2, 300], ids=["mixed", "solved"])
def test_rake_evs_sum_to_the_pot_less_the_expected_rake(iterations: int) -> None:
    oop, ip = "AhAd,KsKc,5c4c,8c8h", "KhKd,QhQd,JcJh,AcAs"
    game = _river(oop, ip, rake_rate=0.05, rake_cap=5)
    solver = PostflopSolver(game, "dcfr")
    solver.step(iterations)
    ev0, ev1, expected_rake = _hand_computed_values(game, solver)
    values = solver.values()["ev"]
    assert values[0] == pytest.approx(ev0, abs=1e-6)
    assert values[1] == pytest.approx(ev1, abs=1e-6)
    assert 2.0 < expected_rake < 5.0  # both rakes occur: 2 (pot 40) and 5 (pot 160, capped)
    assert values[0] + values[1] == pytest.approx(40 - expected_rake, abs=1e-6)
    root = solver.average_strategy().node("")
    assert root.range_value(0)[0] + root.range_value(1)[0] == pytest.approx(
        40 - expected_rake, abs=1e-6
    )
    # without rake the same strategy keeps the whole pot
    plain = PostflopSolver(_river(oop, ip), "dcfr")
    plain.step(iterations)
    assert sum(plain.values()["ev"]) == pytest.approx(40.0, abs=1e-9)


def test_save_and_load_strategy_take_a_postflop_solve(tmp_path) -> None:
    """``pokerlab.save_strategy`` of a postflop solve writes the solution file that
    ``load_strategy`` (and ``pokerlab postflop show``) reopens, numbers unchanged."""
    from pokerlab.analysis.postflop import SolvedSpot
    from pokerlab.io.files import FileFormatError, read_metadata
    from pokerlab.solvers.postflop import load_spot_solution

    game = pokerlab.load_game("postflop", spot="river")
    solver = pokerlab.make_solver(game, "dcfr-ps")
    solver.step(15)
    spot = solver.average_strategy()
    path = tmp_path / "river.npz"
    pokerlab.save_strategy(path, spot, note="readme")
    meta = read_metadata(path)
    assert meta["kind"] == "postflop-solution" and meta["note"] == "readme"
    back = pokerlab.load_strategy(path)
    assert isinstance(back, SolvedSpot) and back.solver.iterations == 15
    for line in ("", "check, bet 66", "bet 150"):
        ours, theirs = spot.node(line), back.node(line)
        np.testing.assert_array_equal(theirs.strategy, ours.strategy)
        assert theirs.range_value(0) == pytest.approx(ours.range_value(0), abs=1e-9)
    np.testing.assert_array_equal(load_spot_solution(path).strat_sum, solver.strat_sum)
    # the solver itself saves the same way; the engine Strategy is an ordinary strategy file
    pokerlab.save_strategy(tmp_path / "solver.npz", solver)
    assert pokerlab.load_strategy(tmp_path / "solver.npz").solver.iterations == 15
    strategy = spot.as_strategy()
    pokerlab.save_strategy(tmp_path / "engine.npz", strategy)
    engine = pokerlab.load_strategy(tmp_path / "engine.npz")
    np.testing.assert_array_equal(engine.probs, strategy.probs)
    row = list(spot.node("check, bet 66").combos[0]).index(
        pokerlab.cards.deck.COMBO_INDEX[parse_cards("AhKh")[0], parse_cards("AhKh")[1]]
    )
    probs = strategy["AhKh|Td9d6hQc7s:check,bet 66"]
    assert list(probs.values()) == pytest.approx(
        list(spot.node("check, bet 66").strategy[row]), abs=1e-12
    )
    orphan = SolvedSpot(game, solver.strat_sum, solver.regrets, solver.passes)
    with pytest.raises(FileFormatError, match="save_spot_solution"):
        pokerlab.save_strategy(tmp_path / "orphan.npz", orphan)
    assert not (tmp_path / "orphan.npz").exists()
