"""The generic history interface (SPEC 1.8): how any game is described to pokerlab.

This module is game-neutral: :mod:`pokerlab.tree` compiles games through it and never imports
:mod:`pokerlab.games`; :mod:`pokerlab.games.base` re-exports it, so game code and user code
import ``History`` and ``HistoryGame`` from there as before.

A game is a factory of :class:`History` objects. A history is one point of play: the sequence of
actions so far, chance events included. Implementing these two small classes in plain Python is
enough for every solver and evaluator of pokerlab to run on a new game: the game is compiled once
into flat arrays (:mod:`pokerlab.tree.history.tree`) and solved by the same numba kernels as the
built-in games. Poker games additionally offer a public tree (:meth:`HistoryGame.public_tree`),
the vectorised fast path.

The worked example is Kuhn poker in :mod:`pokerlab.games.kuhn`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from pokerlab.tree.backend import TreeBackend

__all__ = ["CHANCE", "History", "HistoryGame"]

#: Value returned by :meth:`History.current_player` at chance nodes.
CHANCE = -1


class History(ABC):
    """One history of a game. Histories are immutable: :meth:`child` returns a new one.

    Actions are small non-negative integers; :meth:`action_label` names them for people.
    """

    @abstractmethod
    def is_terminal(self) -> bool:
        """True when the game is over."""

    @abstractmethod
    def terminal_utility(self, player: int) -> float:
        """Payoff of ``player`` at a terminal history, in the game's own units (chips, bb)."""

    @abstractmethod
    def current_player(self) -> int:
        """The player to act (0-based), or :data:`CHANCE` at a chance node."""

    def is_chance(self) -> bool:
        """True at chance nodes (dealing cards)."""
        return self.current_player() == CHANCE

    @abstractmethod
    def legal_actions(self) -> Sequence[int]:
        """Actions available to the player to act (not called at chance or terminal nodes)."""

    @abstractmethod
    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        """Pairs (outcome, probability) at a chance node; probabilities sum to 1."""

    def sample_chance(self, rng: np.random.Generator) -> int:
        """Draw one chance outcome with ``rng`` (override when outcomes are too many to list)."""
        outcomes = self.chance_outcomes()
        probs = np.array([p for _, p in outcomes], dtype=np.float64)
        return outcomes[int(rng.choice(len(outcomes), p=probs / probs.sum()))][0]

    @abstractmethod
    def child(self, action: int) -> History:
        """The history after ``action`` (a player action or a chance outcome)."""

    @abstractmethod
    def info_set_key(self) -> str:
        """Readable key of the acting player's information set: equal for histories the player
        cannot tell apart, different otherwise (perfect recall is assumed)."""

    def action_label(self, action: int) -> str:
        """Short readable name of ``action`` at this history (default: the number)."""
        return str(action)

    def regret_pruning_allowed(self) -> bool:
        """Whether regret-based pruning (Brown et al. 2017; Pluribus, Brown & Sandholm 2019) may
        skip actions at this decision history. Pluribus never pruned on the last betting round;
        poker games return False there. Actions leading straight to a terminal history are never
        pruned, whatever this returns. Default: True.
        """
        return True


class HistoryGame(ABC):
    """A game: its static facts and its initial history.

    Subclasses set :attr:`name`, :attr:`num_players` and :attr:`params` and implement
    :meth:`initial_history`. ``zero_sum`` declares that utilities sum to zero, which
    exploitability requires.
    """

    name: str = "game"
    num_players: int = 2
    zero_sum: bool = True
    params: dict[str, Any]

    def __init__(self) -> None:
        self.params = {}

    @abstractmethod
    def initial_history(self) -> History:
        """The empty history (usually a chance node dealing cards)."""

    def public_tree(self) -> TreeBackend | None:
        """The vectorised tree of this game (a :class:`~pokerlab.tree.public.tree.PublicTree` or
        any other :class:`~pokerlab.tree.backend.TreeBackend`), or None when it has none.
        Games build it through the game-neutral builder API of :mod:`pokerlab.tree.builder`."""
        return None

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"
