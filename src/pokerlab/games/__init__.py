"""Game rules: the history interface, Kuhn, Leduc, and the registry."""

from pokerlab.games.base import CHANCE, History, HistoryGame
from pokerlab.games.kuhn import KuhnGame
from pokerlab.games.leduc import LeducGame
from pokerlab.games.registry import game_names, load_game, register_game

__all__ = [
    "CHANCE",
    "History",
    "HistoryGame",
    "KuhnGame",
    "LeducGame",
    "game_names",
    "load_game",
    "register_game",
]
