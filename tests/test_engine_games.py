"""Game rules and their two compiled forms (public tree and history tree)."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from pokerlab.games.kuhn import KuhnGame
from pokerlab.tree.compiled import compile_game


def _expected_value_by_enumeration(game: pokerlab.HistoryGame, strategy: pokerlab.Strategy):
    """Independent recursive EV over the history interface (for cross-checking the kernels)."""

    def walk(h):
        if h.is_terminal():
            return np.array([h.terminal_utility(p) for p in range(game.num_players)])
        if h.is_chance():
            return sum(p * walk(h.child(o)) for o, p in h.chance_outcomes())
        probs = strategy.action_probs(h.info_set_key())
        return sum(pr * walk(h.child(a)) for a, pr in zip(h.legal_actions(), probs, strict=True))

    return walk(game.initial_history())


def test_registry_and_errors() -> None:
    assert pokerlab.load_game("kuhn").num_players == 2
    assert pokerlab.load_game("kuhn", players=3).num_players == 3
    assert pokerlab.load_game("Leduc").name == "leduc"
    with pytest.raises(pokerlab.PokerlabError, match="'nope'"):
        pokerlab.load_game("nope")
    with pytest.raises(pokerlab.PokerlabError, match="players"):
        pokerlab.load_game("kuhn", players=1)
    with pytest.raises(pokerlab.PokerlabError, match="bad parameters"):
        pokerlab.load_game("leduc", stack=3)


def test_tree_sizes_match_the_literature(leduc: pokerlab.HistoryGame) -> None:
    # OpenSpiel's leduc_poker: 936 information sets, 9,457 histories; Kuhn: 12 information sets.
    hist = compile_game(leduc, "history")
    assert hist.tree.num_nodes == 9457
    assert len(hist.index) == 936
    assert len(compile_game(leduc, "public").index) == 936
    assert len(compile_game(pokerlab.load_game("kuhn"), "public").index) == 12
    assert len(compile_game(KuhnGame(3)).index) == 48


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_public_and_history_trees_have_the_same_infosets(name: str) -> None:
    game = pokerlab.load_game(name)
    pub = compile_game(game, "public").index
    hist = compile_game(game, "history").index
    assert sorted(pub.keys) == sorted(hist.keys)
    for k, key in enumerate(hist.keys):
        assert pub.labels[pub.find(key)] == hist.labels[k]


def test_kuhn_keys_read_like_the_literature(kuhn: pokerlab.HistoryGame) -> None:
    s = pokerlab.uniform_strategy(kuhn)
    assert s["K:pb"] == {"p": 0.5, "b": 0.5}
    assert set(s.keys()) >= {"J:", "Q:p", "K:b", "J:pb"}


@pytest.mark.parametrize("name,players", [("kuhn", 2), ("kuhn", 3), ("leduc", 2)])
def test_kernel_expected_values_match_enumeration(name: str, players: int) -> None:
    game = pokerlab.load_game(name, players=players) if name == "kuhn" else pokerlab.load_game(name)
    rng = np.random.default_rng(7)
    for rep in ("public", "history"):
        if rep == "public" and game.public_tree() is None:
            continue
        compiled = compile_game(game, rep)
        table = {}
        for k, key in enumerate(compiled.index.keys):
            w = rng.random(compiled.index.num_actions[k])
            table[key] = dict(zip(compiled.index.labels[k], w, strict=True))
        strategy = pokerlab.Strategy.from_dict(compiled, table)
        want = _expected_value_by_enumeration(game, strategy)
        got = pokerlab.expected_values(game, strategy)
        np.testing.assert_allclose(got, want, atol=1e-12)
        assert abs(got.sum()) < 1e-12  # zero-sum


def test_uniform_nash_conv_from_the_literature() -> None:
    # OpenSpiel's exploitability tests: NashConv of the uniform policy is 11/12 in Kuhn and
    # 4.747222222222222 in Leduc (open_spiel/python/algorithms/exploitability_test.py).
    for rep in ("public", "history"):
        kuhn = compile_game(pokerlab.load_game("kuhn"), rep)
        leduc = compile_game(pokerlab.load_game("leduc"), rep)
        assert pokerlab.nash_conv(None, pokerlab.uniform_strategy(kuhn)) == pytest.approx(11 / 12)
        assert pokerlab.nash_conv(None, pokerlab.uniform_strategy(leduc)) == pytest.approx(
            4.747222222222222, abs=1e-12
        )


def test_best_response_of_three_player_kuhn_beats_the_profile() -> None:
    game = pokerlab.load_game("kuhn", players=3)
    s = pokerlab.uniform_strategy(game)
    br = pokerlab.best_response_values(game, s)
    ev = pokerlab.expected_values(game, s)
    assert np.all(br >= ev - 1e-12)
    assert pokerlab.nash_conv(game, s) > 0


def test_user_defined_game_through_the_history_interface() -> None:
    """Matching pennies written by hand: the solver finds the 50/50 equilibrium, value 0."""

    class Pennies(pokerlab.History):
        def __init__(self, moves: tuple[int, ...] = ()) -> None:
            self.moves = moves

        def is_terminal(self) -> bool:
            return len(self.moves) == 2

        def terminal_utility(self, player: int) -> float:
            win = 1.0 if self.moves[0] == self.moves[1] else -1.0
            return win if player == 0 else -win

        def current_player(self) -> int:
            return len(self.moves)

        def legal_actions(self) -> list[int]:
            return [0, 1]

        def chance_outcomes(self) -> list[tuple[int, float]]:
            return []

        def child(self, action: int) -> Pennies:
            return Pennies(self.moves + (action,))

        def info_set_key(self) -> str:
            return f"p{len(self.moves)}"  # player 1 does not see player 0's coin

    class PenniesGame(pokerlab.HistoryGame):
        name = "pennies"

        def initial_history(self) -> Pennies:
            return Pennies()

    game = PenniesGame()
    solver = pokerlab.make_solver(game, "cfr+")
    result = solver.solve(target_exploitability=1e-6)
    assert result.exploitability <= 1e-6
    np.testing.assert_allclose(solver.average_strategy().action_probs("p0"), [0.5, 0.5], atol=1e-3)
    assert pokerlab.expected_values(game, solver.average_strategy())[0] == pytest.approx(
        0, abs=1e-3
    )
