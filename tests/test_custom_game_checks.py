"""A custom game (docs/adding-a-game.md) is checked as its tree is built and as it is
registered: repeated legal actions, negative or non-finite chance probabilities and non-finite
utilities are refused by name (they gave a strategy summing to 0.5, a solve on impossible
probabilities and a NaN exploitability); ``register_game`` refuses a non-callable factory and a
taken name unless ``replace=True``, which then serves the new game."""

from __future__ import annotations

import math

import pytest

import pokerlab
from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame


class _Coin:
    """Matching pennies after a chance move; knobs for each defect."""

    def __init__(self, game: _Game, moves: tuple[int, ...] = ()) -> None:
        self.game, self.moves = game, moves

    def is_terminal(self) -> bool:
        return len(self.moves) == 3

    def is_chance(self) -> bool:
        return len(self.moves) == 0

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, self.game.probs[0]), (1, self.game.probs[1])]

    def current_player(self) -> int:
        return len(self.moves) - 1

    def legal_actions(self) -> list[int]:
        return self.game.actions

    def info_set_key(self) -> str:
        return f"p{len(self.moves) - 1}"

    def action_label(self, a: int) -> str:
        return str(a)

    def child(self, a: int) -> _Coin:
        return _Coin(self.game, (*self.moves, a))

    def terminal_utility(self, player: int) -> float:
        win = self.game.payoff if self.moves[1] == self.moves[2] else -self.game.payoff
        return win if player == 0 else -win

    def regret_pruning_allowed(self) -> bool:
        return True


class _Game(HistoryGame):
    num_players = 2
    zero_sum = True

    def __init__(self, actions=(0, 1), probs=(0.5, 0.5), payoff=1.0, name="coin") -> None:
        self.actions, self.probs, self.payoff = list(actions), probs, payoff
        self.name, self.params = name, {}

    def initial_history(self) -> _Coin:
        return _Coin(self)


@pytest.mark.parametrize(
    ("game", "message"),
    [
        (_Game(actions=(0, 0)), r"legal actions \[0, 0\] repeat an action at 'p0'"),
        (_Game(probs=(1.5, -0.5)), "chance probability -0.5 at a chance node of 'coin'"),
        (_Game(payoff=math.nan), "terminal utilities .* of 'coin' are not all finite"),
    ],
)
def test_defective_games_are_refused_as_the_tree_is_built(game: _Game, message: str) -> None:
    with pytest.raises(PokerlabError, match=message):
        pokerlab.make_solver(game, "cfr", representation="history")


def test_a_sound_custom_game_solves() -> None:
    """Matching pennies: the equilibrium mixes 50/50 and gives away nothing."""
    game = _Game()
    solver = pokerlab.make_solver(game, "cfr", representation="history")
    solver.step(200)
    strategy = solver.average_strategy()
    assert strategy["p0"] == pytest.approx({"0": 0.5, "1": 0.5})
    assert pokerlab.exploitability(game, strategy) == pytest.approx(0.0, abs=1e-12)


def test_register_game_refuses_a_taken_name_and_a_non_factory() -> None:
    with pytest.raises(PokerlabError, match="game 'kuhn' is already registered"):
        pokerlab.register_game("kuhn", _Game)
    assert pokerlab.load_game("kuhn").name == "kuhn"
    with pytest.raises(PokerlabError, match="the factory must be callable"):
        pokerlab.register_game("five", 5)  # type: ignore[arg-type]
    pokerlab.register_game("coin-test", lambda: _Game(name="coin-test"))
    first = pokerlab.load_game("coin-test")
    pokerlab.register_game("coin-test", lambda: _Game(payoff=2.0, name="coin-test"), replace=True)
    second = pokerlab.load_game("coin-test")
    assert first.payoff == 1.0 and second.payoff == 2.0
