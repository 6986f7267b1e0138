"""Fixed-limit poker rules shared by Kuhn (two players) and Leduc hold'em, and Leduc's history.

:class:`LimitRules` describes a heads-up limit poker game: antes, rounds with their bet size and
raise cap, public cards dealt before each round, the deck and how hands rank. The public-tree
builder :func:`build_limit_tree` describes the rules' public tree to the game-neutral builder API
(:mod:`pokerlab.tree.builder`); :class:`LeducHistory` is the
same Leduc game written by hand through the history interface, an independent implementation
that the tests compare with the tree.

Leduc hold'em (Southey et al. 2005, "Bayes' Bluff"), as OpenSpiel's ``leduc_poker``: six cards
(J, Q, K in two suits), ante 1, one private card each; a betting round with bets of 2, one public
card, a betting round with bets of 4; at most two bets (a bet and a raise) per round; player 0
acts first in both rounds. A pair with the public card wins, otherwise the higher card; equal ranks
split. Actions: ``f`` fold, ``c`` check/call, ``r`` bet/raise.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from pokerlab.errors import PokerlabError
from pokerlab.games.base import CHANCE, History, HistoryGame
from pokerlab.tree.builder import NodeList, assemble_public_tree, private_tables

if TYPE_CHECKING:
    from pokerlab.tree.public.tree import PublicTree

__all__ = [
    "FOLD",
    "CALL",
    "RAISE",
    "LimitRules",
    "kuhn_rules",
    "leduc_rules",
    "LeducGame",
    "LeducHistory",
    "build_limit_tree",
    "limit_key",
]

#: Action codes of limit poker (the order of OpenSpiel's poker games).
FOLD, CALL, RAISE = 0, 1, 2


@dataclass(frozen=True)
class LimitRules:
    """A heads-up fixed-limit poker game.

    Attributes
    ----------
    name:
        Game name used in keys and files.
    card_names:
        Display name of each card of the deck (card ids are positions in this tuple).
    ante:
        Chips each player puts in before the deal.
    bet_sizes:
        Bet (and raise increment) per round, in chips.
    max_bets:
        Largest number of bets plus raises per round.
    board_cards:
        Public cards dealt before each round (the first entry is normally 0).
    strength:
        ``strength(private_card, board_cards) -> int``; higher wins at showdown.
    labels_check_bet, labels_fold_call_raise:
        How actions are written in information-set keys when not facing / facing a bet:
        (check, bet) and (fold, call, raise).
    """

    name: str
    card_names: tuple[str, ...]
    ante: float
    bet_sizes: tuple[float, ...]
    max_bets: tuple[int, ...]
    board_cards: tuple[int, ...]
    strength: Callable[[int, tuple[int, ...]], int]
    labels_check_bet: tuple[str, str] = ("c", "r")
    labels_fold_call_raise: tuple[str, str, str] = ("f", "c", "r")

    @property
    def num_rounds(self) -> int:
        return len(self.bet_sizes)


def _kuhn_strength(card: int, board: tuple[int, ...]) -> int:
    return card


def _leduc_rank(card: int) -> int:
    return card // 2  # OpenSpiel's leduc_poker: cards 2k and 2k+1 share rank k


def _leduc_strength(card: int, board: tuple[int, ...]) -> int:
    rank = _leduc_rank(card)
    if board and _leduc_rank(board[0]) == rank:
        return 100 + rank  # a pair beats every unpaired hand
    return rank


def kuhn_rules() -> LimitRules:
    """Two-player Kuhn poker as limit rules (actions written ``p``/``b`` as in the literature)."""
    return LimitRules(
        name="kuhn",
        card_names=("J", "Q", "K"),
        ante=1.0,
        bet_sizes=(1.0,),
        max_bets=(1,),
        board_cards=(0,),
        strength=_kuhn_strength,
        labels_check_bet=("p", "b"),
        labels_fold_call_raise=("p", "b", "b"),
    )


LEDUC_CARDS = ("Js", "Jh", "Qs", "Qh", "Ks", "Kh")


def leduc_rules() -> LimitRules:
    """Leduc hold'em as limit rules."""
    return LimitRules(
        name="leduc",
        card_names=LEDUC_CARDS,
        ante=1.0,
        bet_sizes=(2.0, 4.0),
        max_bets=(2, 2),
        board_cards=(0, 1),
        strength=_leduc_strength,
    )


class LeducHistory(History):
    """A Leduc hold'em history, written directly from the rules (independent of the builder)."""

    __slots__ = ("cards", "rounds", "folded")

    def __init__(
        self, cards: tuple[int, ...] = (), rounds: tuple[str, ...] = ("",), folded: int = -1
    ) -> None:
        self.cards = cards  # private card of player 0, of player 1, then the public card
        self.rounds = rounds  # betting actions of each round started so far
        self.folded = folded

    def _round_closed(self, actions: str) -> bool:
        # A round ends with a call of a bet, or with two checks.
        return actions.endswith("rc") or actions == "cc"

    def is_terminal(self) -> bool:
        if self.folded >= 0:
            return True
        return len(self.rounds) == 2 and self._round_closed(self.rounds[1])

    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        if len(self.rounds) == 2 and len(self.cards) < 3:
            return CHANCE
        return len(self.rounds[-1]) % 2  # player 0 opens every round

    def legal_actions(self) -> Sequence[int]:
        actions = self.rounds[-1]
        bets = actions.count("r")
        facing = actions.endswith("r")
        legal = [FOLD] if facing else []
        legal.append(CALL)
        if bets < 2:
            legal.append(RAISE)
        return legal

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        remaining = [c for c in range(6) if c not in self.cards]
        return [(c, 1.0 / len(remaining)) for c in remaining]

    def child(self, action: int) -> LeducHistory:
        if self.is_chance():
            return LeducHistory(self.cards + (action,), self.rounds, self.folded)
        if action == FOLD:
            return LeducHistory(self.cards, self.rounds, self.current_player())
        actions = self.rounds[-1] + "fcr"[action]
        rounds = self.rounds[:-1] + (actions,)
        if len(rounds) == 1 and self._round_closed(actions):
            rounds = rounds + ("",)
        return LeducHistory(self.cards, rounds, -1)

    def _contributions(self) -> list[float]:
        committed = [1.0, 1.0]
        for r, actions in enumerate(self.rounds):
            bet = 2.0 if r == 0 else 4.0
            level = 0.0  # amount to match in this round, above what was in before it
            paid = [0.0, 0.0]
            for i, a in enumerate(actions):
                p = i % 2
                if a == "r":
                    level += bet
                    paid[p] = level
                elif a == "c":
                    paid[p] = level
            committed[0] += paid[0]
            committed[1] += paid[1]
        return committed

    def terminal_utility(self, player: int) -> float:
        committed = self._contributions()
        if self.folded >= 0:
            return -committed[player] if player == self.folded else committed[self.folded]
        s0 = _leduc_strength(self.cards[0], self.cards[2:])
        s1 = _leduc_strength(self.cards[1], self.cards[2:])
        if s0 == s1:
            return 0.0
        winner = 0 if s0 > s1 else 1
        return committed[1 - player] if player == winner else -committed[player]

    def info_set_key(self) -> str:
        p = self.current_player()
        board = f"|{LEDUC_CARDS[self.cards[2]]}" if len(self.cards) > 2 else ""
        return f"{LEDUC_CARDS[self.cards[p]]}{board}:{'/'.join(self.rounds)}"

    def action_label(self, action: int) -> str:
        if self.is_chance():
            return LEDUC_CARDS[action]
        return "fcr"[action]

    def regret_pruning_allowed(self) -> bool:
        return len(self.rounds) == 1  # never on the last betting round (Pluribus)


class LeducGame(HistoryGame):
    """Leduc hold'em (two players)."""

    name = "leduc"
    num_players = 2

    def __init__(self, players: int = 2) -> None:
        super().__init__()
        if players != 2:
            raise PokerlabError(f"leduc: only 2 players are supported, got players={players!r}")
        self.params = {}

    def initial_history(self) -> LeducHistory:
        return LeducHistory()

    def public_tree(self) -> PublicTree:
        return self._public_tree

    @cached_property
    def _public_tree(self) -> PublicTree:
        return build_limit_tree(leduc_rules())


# --- the public tree of limit rules ------------------------------------------------------------


def limit_key(private: str, board: str, history: str) -> str:
    """Information-set key of limit games: ``"Qs|Kh:rc/r"`` (private card, board, actions)."""
    return f"{private}|{board}:{history}" if board else f"{private}:{history}"


def build_limit_tree(rules: LimitRules) -> PublicTree:
    """Build the public tree of a heads-up limit poker game with one private card per player.

    Payoffs are chips. The deal is uniform over ordered pairs of distinct private cards, so each
    terminal amount is multiplied by ``1 / (C (C - 1))`` and by ``1 / (cards left)`` per public
    card dealt above it: the counterfactual values the kernels compute are then exactly the sums
    over histories that history-based CFR computes.
    """
    num_cards = len(rules.card_names)
    deal_scale = 1.0 / (num_cards * (num_cards - 1))

    boards: dict[tuple[int, ...], int] = {(): 0}
    nodes = NodeList()

    def board_id(board: tuple[int, ...]) -> int:
        if board not in boards:
            boards[board] = len(boards)
        return boards[board]

    def build(
        rnd: int,
        actions: str,
        history: str,
        contrib: tuple[float, float],
        bets: int,
        board: tuple[int, ...],
        chance: float,
    ) -> int:
        player = len(actions) % 2  # player 0 opens every round
        facing = contrib[1 - player] > contrib[player]
        legal = (
            ([FOLD] if facing else []) + [CALL] + ([RAISE] if bets < rules.max_bets[rnd] else [])
        )
        names = rules.labels_fold_call_raise if facing else rules.labels_check_bet
        labels = tuple(names[a] if facing else names[a - 1] for a in legal)
        n = nodes.decision(player, board_id(board), history, labels)
        kids: list[int] = []
        for action, label in zip(legal, labels, strict=True):
            h = history + label
            if action == FOLD:
                stake = contrib[player] * chance * deal_scale
                kid = nodes.fold(player, board_id(board), stake, h)
            elif action == RAISE:
                new = list(contrib)
                new[player] = contrib[1 - player] + rules.bet_sizes[rnd]
                kid = build(rnd, actions + "r", h, (new[0], new[1]), bets + 1, board, chance)
            else:  # check or call
                new = list(contrib)
                new[player] = contrib[1 - player]
                closes = facing or len(actions) >= 1
                if not closes:
                    kid = build(rnd, actions + "c", h, (new[0], new[1]), bets, board, chance)
                elif rnd + 1 == rules.num_rounds:
                    kid = nodes.showdown(board_id(board), new[0] * chance * deal_scale, h)
                else:
                    kid = deal(rnd + 1, h + "/", (new[0], new[1]), board, chance)
            kids.append(kid)
        nodes.link(n, kids)
        return n

    def deal(
        rnd: int, history: str, contrib: tuple[float, float], board: tuple[int, ...], chance: float
    ) -> int:
        count = rules.board_cards[rnd]
        if count == 0:
            return build(rnd, "", history, contrib, 0, board, chance)
        if count != 1:
            raise NotImplementedError("limit builder deals one public card per round")
        n = nodes.chance(board_id(board), history)
        left = num_cards - 2 - len(board)  # cards neither player nor the board holds
        kids = []
        for card in range(num_cards):
            if card in board:
                continue
            kids.append(build(rnd, "", history, contrib, 0, board + (card,), chance / left))
        nodes.link(n, kids)
        return n

    build(0, "", "", (rules.ante, rules.ante), 0, (), 1.0)

    # Private states: one card each; a card on the board is not a possible private state.
    board_list = sorted(boards, key=boards.__getitem__)
    valid = np.zeros((len(board_list), num_cards), dtype=np.bool_)
    strength = np.full((len(board_list), num_cards), -1, dtype=np.int32)
    for b, board in enumerate(board_list):
        for h in range(num_cards):
            if h not in board:
                valid[b, h] = True
                strength[b, h] = rules.strength(h, board)
    private_cards = np.full((num_cards, 2), -1, dtype=np.int32)
    private_cards[:, 0] = np.arange(num_cards)
    return assemble_public_tree(
        rules.name,
        nodes,
        private_tables(valid, strength, private_cards),
        list(rules.card_names),
        ["".join(rules.card_names[c] for c in b) for b in board_list],
        limit_key,
        num_cards,
    )
