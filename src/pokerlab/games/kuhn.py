"""Kuhn poker (Kuhn 1950), for two or more players: the worked example of the history interface.

Rules (as OpenSpiel's ``kuhn_poker``): a deck of ``players + 1`` cards ranked J < Q < K (< A ...);
every player antes 1 chip and gets one card; players act in turn with two actions, pass (``p``)
and bet (``b``, one chip). Once someone has bet, each later player either calls (``b``) or folds
(``p``). The highest card among the players still in wins the pot. With two players the game
value for the first player is -1/18 (Kuhn 1950).

Information-set keys are the player's card followed by the public actions, e.g. ``"K:pb"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from pokerlab.errors import PokerlabError
from pokerlab.games.base import CHANCE, History, HistoryGame

if TYPE_CHECKING:
    from pokerlab.tree.public.tree import PublicTree

__all__ = ["KuhnGame", "KuhnHistory", "PASS", "BET"]

PASS, BET = 0, 1
CARD_NAMES = "JQKA23456789T"  # J < Q < K < A for up to 4 players, then more cards if asked


class KuhnHistory(History):
    """A Kuhn history: the cards dealt so far and the betting actions."""

    __slots__ = ("game", "cards", "actions")

    def __init__(self, game: KuhnGame, cards: tuple[int, ...] = (), actions: str = "") -> None:
        self.game = game
        self.cards = cards
        self.actions = actions

    # --- whose turn -------------------------------------------------------------------------
    def current_player(self) -> int:
        if len(self.cards) < self.game.num_players:
            return CHANCE
        return len(self.actions) % self.game.num_players

    def is_terminal(self) -> bool:
        n = self.game.num_players
        if len(self.cards) < n:
            return False
        first_bet = self.actions.find("b")
        if first_bet < 0:  # nobody has bet: over when everyone passed
            return len(self.actions) == n
        # after the first bet every other player answers once
        return len(self.actions) == first_bet + n

    def legal_actions(self) -> Sequence[int]:
        return (PASS, BET)

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        remaining = [c for c in range(self.game.num_cards) if c not in self.cards]
        return [(c, 1.0 / len(remaining)) for c in remaining]

    def child(self, action: int) -> KuhnHistory:
        if self.is_chance():
            return KuhnHistory(self.game, self.cards + (action,), self.actions)
        return KuhnHistory(self.game, self.cards, self.actions + "pb"[action])

    # --- payoffs ----------------------------------------------------------------------------
    def terminal_utility(self, player: int) -> float:
        n = self.game.num_players
        first_bet = self.actions.find("b")
        committed = [1.0] * n  # antes
        if first_bet < 0:
            in_hand = list(range(n))
        else:
            in_hand = []
            for i, a in enumerate(self.actions[first_bet:]):
                p = (first_bet + i) % n
                if a == "b":
                    committed[p] += 1.0
                    in_hand.append(p)
        winner = max(in_hand, key=lambda p: self.cards[p])
        pot = sum(committed)
        return (pot if player == winner else 0.0) - committed[player]

    # --- information ------------------------------------------------------------------------
    def info_set_key(self) -> str:
        p = self.current_player()
        return f"{CARD_NAMES[self.cards[p]]}:{self.actions}"

    def action_label(self, action: int) -> str:
        if self.is_chance():
            return CARD_NAMES[action]
        return "pb"[action]

    def regret_pruning_allowed(self) -> bool:
        return False  # Kuhn's one betting round is the last one: never pruned (Pluribus)


class KuhnGame(HistoryGame):
    """Kuhn poker for ``players`` players (2 or more)."""

    name = "kuhn"

    def __init__(self, players: int = 2) -> None:
        super().__init__()
        if not isinstance(players, int) or players < 2 or players > 10:
            raise PokerlabError(f"kuhn: players must be an integer from 2 to 10, got {players!r}")
        self.num_players = players
        self.num_cards = players + 1
        self.params = {"players": players}

    def initial_history(self) -> KuhnHistory:
        return KuhnHistory(self)

    def public_tree(self) -> PublicTree | None:
        if self.num_players != 2:
            return None
        return self._public_tree

    @cached_property
    def _public_tree(self) -> PublicTree:
        from pokerlab.games.leduc import build_limit_tree, kuhn_rules

        return build_limit_tree(kuhn_rules())
