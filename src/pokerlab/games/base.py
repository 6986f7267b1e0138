"""The generic history interface (SPEC 1.8): how any game is described to pokerlab.

A game is a factory of :class:`History` objects; implementing these two small classes in plain
Python is enough for every solver and evaluator of pokerlab to run on a new game. The classes live
in the game-neutral module :mod:`pokerlab.tree.history_interface` (so that :mod:`pokerlab.tree`
compiles games without importing :mod:`pokerlab.games`) and are re-exported here, where games and
user code import them.

The worked example is Kuhn poker in :mod:`pokerlab.games.kuhn`.
"""

from __future__ import annotations

from pokerlab.tree.history_interface import CHANCE, History, HistoryGame

__all__ = ["CHANCE", "History", "HistoryGame"]
