"""OpenSpiel interoperability (optional: needs ``pip install open_spiel``).

* :func:`to_openspiel_policy` exports a pokerlab strategy for Kuhn or Leduc as an OpenSpiel
  ``TabularPolicy`` of ``kuhn_poker`` / ``leduc_poker``, so OpenSpiel can evaluate it.
* :func:`from_openspiel_policy` imports such a policy back.
* :class:`OpenSpielGame` wraps any OpenSpiel game in pokerlab's history interface, so every
  pokerlab solver and evaluator runs on it.

The mapping walks the OpenSpiel game and the pokerlab game side by side; both number actions the
same way (Kuhn: 0 pass, 1 bet; Leduc: 0 fold, 1 call, 2 raise; cards by id).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.base import CHANCE, History, HistoryGame
from pokerlab.strategy import Strategy

__all__ = ["to_openspiel_policy", "from_openspiel_policy", "OpenSpielGame", "openspiel_name"]


def _pyspiel() -> Any:
    try:
        import pyspiel
    except ImportError:  # pragma: no cover - depends on the environment
        raise PokerlabError(
            "OpenSpiel is not installed; install it with `pip install open_spiel`"
        ) from None
    return pyspiel


_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}


def openspiel_name(game: HistoryGame) -> str:
    """The OpenSpiel game string matching a pokerlab game (``kuhn_poker(players=3)``...)."""
    if game.name not in _NAMES:
        raise PokerlabError(f"game {game.name!r} has no OpenSpiel counterpart")
    base = _NAMES[game.name]
    players = game.params.get("players", 2)
    return f"{base}(players={players})" if players != 2 else base


def _walk(os_state: Any, history: History) -> Iterator[tuple[Any, History]]:
    """Pairs of matching (OpenSpiel state, pokerlab history) at decision nodes."""
    if os_state.is_terminal():
        return
    if os_state.is_chance_node():
        for outcome, _ in os_state.chance_outcomes():
            yield from _walk(os_state.child(outcome), history.child(outcome))
        return
    yield os_state, history
    for action in os_state.legal_actions():
        yield from _walk(os_state.child(action), history.child(action))


def to_openspiel_policy(strategy: Strategy, os_game: Any | None = None) -> Any:
    """An OpenSpiel ``TabularPolicy`` playing ``strategy`` (Kuhn or Leduc)."""
    pyspiel = _pyspiel()
    from open_spiel.python import policy as os_policy

    game = strategy.game
    if os_game is None:
        os_game = pyspiel.load_game(openspiel_name(game))
    tabular = os_policy.TabularPolicy(os_game)
    for os_state, history in _walk(os_game.new_initial_state(), game.initial_history()):
        key = history.info_set_key()
        probs = strategy.action_probs(key)
        ours = list(history.legal_actions())
        row = tabular.policy_for_key(os_state.information_state_string())
        row[:] = 0.0
        for pos, action in enumerate(ours):
            row[action] = probs[pos]
    return tabular


def from_openspiel_policy(policy: Any, game: HistoryGame, os_game: Any | None = None) -> Strategy:
    """A pokerlab strategy from an OpenSpiel policy of the matching game."""
    pyspiel = _pyspiel()
    if os_game is None:
        os_game = pyspiel.load_game(openspiel_name(game))
    table: dict[str, dict[str, float]] = {}
    for os_state, history in _walk(os_game.new_initial_state(), game.initial_history()):
        key = history.info_set_key()
        if key in table:
            continue
        probs = policy.action_probabilities(os_state)
        table[key] = {
            history.action_label(a): float(probs.get(a, 0.0)) for a in history.legal_actions()
        }
    return Strategy.from_dict(game, table)


class OpenSpielHistory(History):
    """A pokerlab history around an OpenSpiel state."""

    __slots__ = ("state",)

    def __init__(self, state: Any) -> None:
        self.state = state

    def is_terminal(self) -> bool:
        return bool(self.state.is_terminal())

    def terminal_utility(self, player: int) -> float:
        return float(self.state.returns()[player])

    def current_player(self) -> int:
        return CHANCE if self.state.is_chance_node() else int(self.state.current_player())

    def legal_actions(self) -> Sequence[int]:
        return list(self.state.legal_actions())

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        return [(int(a), float(p)) for a, p in self.state.chance_outcomes()]

    def child(self, action: int) -> OpenSpielHistory:
        return OpenSpielHistory(self.state.child(action))

    def info_set_key(self) -> str:
        return str(self.state.information_state_string())

    def action_label(self, action: int) -> str:
        player = self.state.current_player()
        return str(self.state.action_to_string(player, action))


class OpenSpielGame(HistoryGame):
    """Any OpenSpiel game (``OpenSpielGame("kuhn_poker")``) through the history interface."""

    def __init__(self, name: str) -> None:
        super().__init__()
        pyspiel = _pyspiel()
        self.os_game = pyspiel.load_game(name)
        self.name = f"openspiel:{name}"
        self.num_players = int(self.os_game.num_players())
        utility = self.os_game.get_type().utility
        self.zero_sum = utility == pyspiel.GameType.Utility.ZERO_SUM
        self.params = {}

    def initial_history(self) -> OpenSpielHistory:
        return OpenSpielHistory(self.os_game.new_initial_state())


def policy_array(policy: Any) -> np.ndarray:
    """The raw action-probability array of an OpenSpiel tabular policy (for tests)."""
    return np.asarray(policy.action_probability_array)
