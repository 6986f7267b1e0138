"""The game registry: ``load_game(name, **params)``.

Built-in games register here; users can add theirs with :func:`register_game` so that files and
the CLI can name them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.games.base import HistoryGame
from pokerlab.games.kuhn import KuhnGame
from pokerlab.games.leduc import LeducGame

__all__ = ["load_game", "register_game", "game_names"]


def _pushfold(**params: Any) -> HistoryGame:
    from pokerlab.games.pushfold import PushFoldGame  # needs the preflop table: load on demand

    return PushFoldGame(**params)


def _postflop(**params: Any) -> HistoryGame:
    from pokerlab.games.postflop.game import PostflopGame

    return PostflopGame(**params)


def _limit_holdem(**params: Any) -> HistoryGame:
    from pokerlab.games.limit_holdem import LimitHoldemGame

    return LimitHoldemGame(**params)


def _nolimit_holdem(**params: Any) -> HistoryGame:
    from pokerlab.games.nolimit.game import NoLimitHoldemGame

    return NoLimitHoldemGame(**params)


_REGISTRY: dict[str, Callable[..., HistoryGame]] = {
    "kuhn": KuhnGame,
    "leduc": LeducGame,
    "pushfold": _pushfold,
    "postflop": _postflop,
    "limit-holdem": _limit_holdem,
    "nolimit-holdem": _nolimit_holdem,
}


def register_game(name: str, factory: Callable[..., HistoryGame], *, replace: bool = False) -> None:
    """Make ``load_game(name, **params)`` call ``factory(**params)``.

    A name already registered (a built-in game's too) is refused unless ``replace``; replacing
    drops the games cached under that name, so every later ``load_game`` gets the new one."""
    if not isinstance(name, str) or not name.strip():
        raise PokerlabError(f"register_game: the name must be a non-empty string, got {name!r}")
    if not callable(factory):
        raise PokerlabError(
            f"register_game({name!r}, ...): the factory must be callable (a game class or a "
            f"function returning a game), got {factory!r}"
        )
    key = name.lower().strip()
    if key in _REGISTRY and not replace:
        raise PokerlabError(
            f"game {key!r} is already registered: choose another name, or pass replace=True"
        )
    for cached in [k for k in _CACHE if k[0] == key]:
        del _CACHE[cached]
    _REGISTRY[key] = factory


def game_names() -> list[str]:
    """Names of the registered games."""
    return sorted(_REGISTRY)


def load_game(name: str, **params: Any) -> HistoryGame:
    """The game called ``name`` with ``params`` (for example ``load_game("kuhn", players=3)``).

    Games are cached per (name, params), so repeated loads share compiled trees.
    """
    if not isinstance(name, str):
        raise PokerlabError(f"load_game takes a game name such as 'leduc', got {name!r}")
    key = name.lower().strip()
    if key not in _REGISTRY:
        raise PokerlabError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    cache_key = (key, json.dumps(params, sort_keys=True, default=str))
    game = _CACHE.get(cache_key)
    if game is None:
        try:
            game = _REGISTRY[key](**params)
        except TypeError as exc:
            raise PokerlabError(f"bad parameters for game {name!r}: {exc}") from None
        _CACHE[cache_key] = game
    return game


_CACHE: dict[tuple[str, str], HistoryGame] = {}
