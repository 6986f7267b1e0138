"""Postflop spots on a small deck (the top ranks, as the no-limit game's ``deck`` option): the
vector tree against the history form, the chance probabilities against an independent
enumeration of the runouts, the size estimate, suit isomorphism, errors and the dict form."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

import pokerlab
from pokerlab.cards import COMBO_CARDS, COMBO_INDEX, parse_card, parse_cards, parse_range
from pokerlab.cards.evaluator import evaluate
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop import SpotConfig, load_spot, spot_from_params
from pokerlab.games.postflop.expand import count_expanded
from pokerlab.games.postflop.game import PostflopGame
from pokerlab.solvers.postflop import PostflopSolver, load_spot_solution, save_spot_solution
from pokerlab.solvers.postflop_mccfr import PostflopMCCFR
from pokerlab.strategy import Strategy
from pokerlab.tree.compiled import compile_game

# a turn spot on the 24-card deck (9 to A) and a flop spot on the 12-card deck (Q to A)
SMALL_TURN = dict(
    board="AsKdQhJc", ranges=("AA,KK,T9s", "QQ,AK,JT"), pot=100, stack=300,
    bets="50%, a", raises="a", deck="small",
)  # fmt: skip
MICRO_FLOP = dict(
    board="AsKdQh", ranges=("AA,KQ", "KK,AQ"), pot=100, stack=300,
    bets="50%, a", raises="a", deck="micro",
)  # fmt: skip


def _history_strategy(game: PostflopGame, solver: PostflopSolver) -> Strategy:
    """The solver's average strategy as a Strategy of the history form of the game (as in
    tests/test_postflop_solver.py)."""
    compiled = compile_game(game, "history")
    idx = compiled.index
    solved = solver.average_strategy()
    probs = compiled.uniform()
    cache: dict[str, object] = {}
    for k, key in enumerate(idx.keys):
        hand, rest = key.split("|", 1)
        _, line = rest.split(":", 1)
        if line not in cache:
            cache[line] = solved.node([t for t in line.split(",") if t])
        view = cache[line]
        combo = COMBO_INDEX[parse_card(hand[:2]), parse_card(hand[2:])]
        row = int(np.flatnonzero(view.combos[view.player] == combo)[0])
        probs[idx.positions(k)] = view.strategy[row]
    return Strategy(compiled, probs)


@pytest.mark.parametrize("params", [SMALL_TURN, MICRO_FLOP], ids=["small-turn", "micro-flop"])
def test_vector_solver_agrees_with_the_history_form(params: dict) -> None:
    game = PostflopGame(**params)
    lowest = 52 - 4 * game.config.ranks
    # every card the tree deals is in the deck, and every card of the deck left comes
    a = game.expanded.tree.arrays
    dealt = set(a.edge_card[a.edge_card >= 0].tolist()) | set(a.iso_card.tolist())
    assert dealt == set(range(lowest, 52)) - set(game.config.board)
    solver = PostflopSolver(game, "dcfr")
    solver.step(40)
    ours = solver.values()
    report = pokerlab.exploitability_report(game, _history_strategy(game, solver))
    half = 50.0
    assert report.values[0] == pytest.approx(ours["ev"][0] - half, abs=1e-6)
    for p in (0, 1):
        assert report.best_response_values[p] == pytest.approx(
            ours["best_response"][p] - half, abs=1e-6
        )
    assert report.exploitability == pytest.approx(solver.exploitability(), abs=1e-6)
    assert report.exploitability > 0.01  # 40 iterations: far from solved, a real comparison


def _deck_weights(text: str, board: list[int], ranks: int) -> np.ndarray:
    """The range's weights with combos holding a board card or a card below the deck zeroed,
    computed here from the card ids, not by the spot."""
    w = parse_range(text).copy()
    low = 52 - 4 * ranks
    for combo in range(1326):
        a, b = (int(x) for x in COMBO_CARDS[combo])
        if a < low or b < low or a in board or b in board:
            w[combo] = 0.0
    return w


def _checkdown(board: list[int], ranges: tuple[str, str], ranks: int) -> float:
    """OOP's expected showdown share (win 1, tie 1/2) when the hand is checked down, by
    enumerating the hand pairs (weighted, no shared card) and, for each, every runout of the
    deck's cards left, each equally likely."""
    w0, w1 = (_deck_weights(r, board, ranks) for r in ranges)
    deck = range(52 - 4 * ranks, 52)
    num = den = 0.0
    for a in np.flatnonzero(w0):
        ha = [int(x) for x in COMBO_CARDS[a]]
        for b in np.flatnonzero(w1):
            hb = [int(x) for x in COMBO_CARDS[b]]
            if set(ha) & set(hb):
                continue
            left = [c for c in deck if c not in board and c not in ha and c not in hb]
            runs = list(itertools.combinations(left, 5 - len(board)))
            share = 0.0
            for run in runs:
                mine = evaluate([*ha, *board, *run])
                theirs = evaluate([*hb, *board, *run])
                share += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            weight = w0[a] * w1[b]
            num += weight * share / len(runs)
            den += weight
    return num / den


@pytest.mark.parametrize(
    "board,ranges,ranks",
    [
        ("AsKdQhJc", ("AA,KK,T9s,99", "QQ,AK,JT,TT"), 6),
        ("AsKdJh", ("AA,KQ,QJs,JJ", "KK,AQ,AJs,TT"), 4),  # TT is off the tiny deck
    ],
    ids=["small-turn", "tiny-flop"],
)
def test_checked_down_ev_is_pot_times_the_enumerated_equity(
    board: str, ranges: tuple[str, str], ranks: int
) -> None:
    pot = 100.0
    game = PostflopGame(
        board=board, ranges=ranges, pot=pot, stack=1000, bets="", raises="", ranks=ranks
    )
    assert game.action_tree.labels() == ["check"]  # no bets: the hand is checked down
    solver = PostflopSolver(game, "dcfr")
    solver.step(1)
    ev = solver.values()["ev"]
    share = _checkdown(parse_cards(board), ranges, ranks)
    assert 0.05 < share < 0.95
    assert ev[0] == pytest.approx(pot * share, abs=1e-6)
    assert ev[1] == pytest.approx(pot * (1.0 - share), abs=1e-6)
    # the node view's check-down equity deals the runouts from the deck too
    root = solver.average_strategy().node("")
    assert root.range_value(0)[1] == pytest.approx(share, abs=1e-9)
    if len(board) == 8:  # the turn: dealing the river from all 52 cards gives another number
        assert abs(_checkdown(parse_cards(board), ranges, 13) - share) > 1e-3


def test_history_form_deals_from_the_deck() -> None:
    game = PostflopGame(**SMALL_TURN)
    h = game.initial_history()
    deal = h.child(0)  # a pair of hands
    assert deal.is_chance() is False
    node = deal
    while not node.is_chance():
        node = node.child(0)  # check, check
    outcomes = node.chance_outcomes()
    held = set(game.config.board) | set(COMBO_CARDS[deal.deal[0]].tolist())
    held |= set(COMBO_CARDS[deal.deal[1]].tolist())
    assert sorted(c for c, _ in outcomes) == [c for c in range(28, 52) if c not in held]
    assert all(p == pytest.approx(1 / 16) for _, p in outcomes)  # 24 - 4 board - 4 hole


def test_size_estimate_counts_the_small_deck() -> None:
    params = dict(MICRO_FLOP, isomorphism=False)
    game = PostflopGame(**params)
    summary = game.tree_summary()
    counts = game.expanded.tree.node_counts()
    bound = summary["dealt_upper_bound"]
    # without isomorphism the bound is the tree: 9 turn cards, then 8 rivers
    assert bound == {
        "decision": counts["decision"],
        "chance": counts["chance"],
        "terminal": counts["terminal"],
    }
    dealt = count_expanded(game.action_tree, list(game.config.board), deck_size=12)
    assert {k: dealt[k] for k in bound} == bound
    full = PostflopGame(**{k: v for k, v in params.items() if k != "deck"}).tree_summary()
    assert full["dealt_upper_bound"]["chance"] > bound["chance"]
    chance_nodes = game.expanded.tree.arrays.kind == 1
    turn = game.expanded.tree.arrays.chance_weight[chance_nodes]
    assert set(np.round(1.0 / turn).astype(int).tolist()) == {5, 4}  # 12 - 3 - 4, 12 - 4 - 4


def test_suit_isomorphism_on_a_small_deck_equals_the_full_tree() -> None:
    # clubs and spades hold no board card and the ranges are symmetric in them
    params = dict(
        board="Td9dAdKh", ranges=("AA,QQ,JT", "KK,QJ,99"), pot=100, stack=200,
        bets="50%", raises="a", ranks=6,
    )  # fmt: skip
    iso = PostflopSolver(PostflopGame(**params), "cfr+")
    full = PostflopSolver(PostflopGame(isomorphism=False, **params), "cfr+")
    assert iso.tree.size < full.tree.size
    assert iso.tree.arrays.iso_card.size > 0
    assert set(iso.tree.arrays.iso_card.tolist()) <= set(range(28, 52))
    iso.step(30)
    full.step(30)
    a, b = iso.values(), full.values()
    for key in ("ev", "best_response"):
        assert a[key] == pytest.approx(b[key], abs=1e-9)


def test_sampled_deals_use_only_the_deck() -> None:
    game = PostflopGame(**MICRO_FLOP)
    solver = PostflopMCCFR(game, "es-mccfr", seed=3)
    deals = solver.sample_deals(20_000)
    cards = deals[:, 2:]
    assert (cards >= 40).all()  # the micro deck: Q, K, A
    assert not np.isin(cards, game.config.board).any()
    assert set(np.unique(cards).tolist()) == set(range(40, 52)) - set(game.config.board)


def test_cards_outside_the_deck_are_refused() -> None:
    with pytest.raises(PokerlabError, match=r"board card '8d' is not in the 24-card deck"):
        spot_from_params(**dict(SMALL_TURN, board="AsKd8d"))
    with pytest.raises(PokerlabError, match=r"ip_range '22-55' has no combo in the 24-card deck"):
        spot_from_params(**dict(SMALL_TURN, ranges=("AA", "22-55")))
    # combos off the deck are dropped, as board-blocked ones: AK and K8 keep only AK
    spot = spot_from_params(**dict(SMALL_TURN, ranges=("AA", "AK,K8")))
    w = spot.weights()[1]
    assert int(np.count_nonzero(w)) == 9  # AK: 3 x 3 with As and Kd on the board
    assert all(min(COMBO_CARDS[c]) >= 28 for c in np.flatnonzero(w))
    with pytest.raises(PokerlabError, match=r"unknown deck 'huge'; known: full, small"):
        spot_from_params(**dict(SMALL_TURN, deck="huge"))
    with pytest.raises(PokerlabError, match=r"ranks must be a whole number .* got 14"):
        spot_from_params(**dict(SMALL_TURN, deck=None, ranks=14))
    with pytest.raises(PokerlabError, match=r"deck 'small' keeps 6 ranks but ranks = 5"):
        spot_from_params(**dict(SMALL_TURN, ranks=5))
    with pytest.raises(PokerlabError, match=r"a deck of 8 cards cannot hold"):
        spot_from_params(**dict(SMALL_TURN, deck=2))
    game = PostflopGame(**MICRO_FLOP)
    solver = PostflopSolver(game)
    with pytest.raises(PokerlabError, match=r"card '2c' cannot come here \(not in the deck\)"):
        solver.average_strategy().node("check, check, 2c")


def test_cli_refuses_a_card_outside_the_deck_in_one_line(capsys, tmp_path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('board = "AsKd8d"\npot = 100\nstack = 300\noop_range = "AA"\n'
                    'ip_range = "KK"\ndeck = "small"\n')  # fmt: skip
    code = main(["postflop", str(path), "-n", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "board card '8d' is not in the 24-card deck" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_solves_a_small_deck_spot_from_a_file_and_from_flags(capsys, tmp_path) -> None:
    path = tmp_path / "micro.toml"
    path.write_text('board = "AsKdQh"\npot = 100\nstack = 300\noop_range = "AA,KQ"\n'
                    'ip_range = "KK,AQ"\ndeck = "micro"\n')  # fmt: skip
    code = main(["postflop", str(path), "-n", "3", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    got = json.loads(out)
    assert got["game_params"]["ranks"] == 3
    code = main(
        ["postflop", "--board", "AsKdQh", "--oop-range", "AA,KQ", "--ip-range", "KK,AQ",
         "--pot", "100", "--stack", "300", "--deck", "3", "-n", "3", "--json"]
    )  # fmt: skip
    again = json.loads(capsys.readouterr().out)
    assert code == 0 and again["game_params"] == got["game_params"]
    assert again["ev"] == got["ev"]


def test_dict_form_round_trips_and_solutions_keep_the_deck(tmp_path) -> None:
    spot = spot_from_params(**SMALL_TURN)
    assert spot.ranks == 6 and spot.deck == tuple(range(28, 52))
    data = spot.to_dict()
    assert data["ranks"] == 6 and "deck" not in data
    back = SpotConfig.from_dict(data)
    assert back == spot and hash(back) == hash(spot)
    assert SpotConfig.from_dict(json.loads(json.dumps(data))) == spot
    # the no-limit game's names and a number are read alike
    assert SpotConfig.from_dict({**data, "ranks": None, "deck": "small"}) == spot
    without = {k: v for k, v in data.items() if k != "ranks"}
    assert SpotConfig.from_dict({**without, "deck": 6}) == spot
    assert SpotConfig.from_dict(without).ranks == 13
    assert spot_from_params(**dict(SMALL_TURN, deck=None, ranks=6)) == spot
    # a full-deck spot writes no deck key: its files and saved solutions are as before
    full = spot_from_params(**dict(SMALL_TURN, deck=None))
    assert full.ranks == 13 and "ranks" not in full.to_dict() and full != spot
    assert SpotConfig.from_dict(full.to_dict()) == full
    # a spot file
    toml = tmp_path / "small.toml"
    toml.write_text(
        'board = "AsKdQhJc"\npot = 100\nstack = 300\noop_range = "AA,KK,T9s"\n'
        'ip_range = "QQ,AK,JT"\ndeck = "small"\n[turn]\nbet = "50%, a"\nraise = "a"\n'
        '[river]\nbet = "50%, a"\nraise = "a"\n'
    )
    assert load_spot(toml) == spot
    # a saved solution reopens on the same deck with the same values
    game = PostflopGame(spot)
    assert pokerlab.load_game("postflop", **game.params).config == spot
    solver = PostflopSolver(game, "dcfr")
    solver.step(5)
    path = tmp_path / "small.npz"
    save_spot_solution(path, solver)
    again = load_spot_solution(path)
    assert again.game.config.ranks == 6
    assert again.values()["ev"] == pytest.approx(solver.values()["ev"], abs=1e-9)
