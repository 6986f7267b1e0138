"""Heads-up limit Texas hold'em (ACPC rules), with the deck size and raise caps as parameters.

Rules (the ACPC heads-up limit game, "reverse blinds"): seat 0 posts the small blind (half a
small bet) and acts first before the flop, seat 1 posts the big blind (one small bet) and acts
first on the flop, turn and river. Bets and raises are one small bet before the flop and on the
flop, one big bet (two small bets) on the turn and the river. At most ``raise_caps[r]`` raises per
round, where the big blind is not a raise and the first bet after the flop is: (3, 4, 4, 4) gives
the usual "four bets" cap of every round. The board gets 3, 1 and 1 cards. A round ends with a
call (or a check) that is not the round's first action, so the small blind's preflop call (the
"limp") gives the big blind its option. Showdowns compare the best five of seven cards
(:mod:`pokerlab.cards.evaluator`); equal hands split.

Units: big blinds (= small bets); ``mbb`` is 1/1000 of that.

Small variants are the same code with fewer ranks: ``ranks=6`` is the 24-card deck 9..A
(``variant="small"``; ``"tiny"``: 16 cards, J..A; ``"micro"``: 12 cards, Q..A). Ranks are always
the top ones of the deck and hands rank as in full hold'em (a five-card run of the remaining
ranks is a straight; the wheel needs the deuce).

The game offers its **betting tree** (:class:`BettingTree`): the public actions only, with no
cards; chance nodes mark the deals between rounds. Abstracted solvers walk that one tree with
vectors over hands or buckets (DESIGN.md, "Buckets"). Terminal payoffs are shared: a terminal
holds an index into a small table of distinct amounts instead of a per-node payoff array
(:attr:`BettingTree.payoff_table`). :class:`LimitHoldemHistory` is the same game through the
history interface, written from the rules independently of the tree (the tests compare them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from pokerlab.cards.deck import RANKS, SUITS
from pokerlab.errors import PokerlabError
from pokerlab.games.base import CHANCE, History, HistoryGame
from pokerlab.tree._primitives import DEAL, DECISION, FOLD_END, SHOWDOWN_END
from pokerlab.tree.betting.tree import BettingTree

__all__ = [
    "FOLD",
    "CALL",
    "RAISE",
    "VARIANTS",
    "LimitHoldemRules",
    "BettingTree",
    "LimitHoldemGame",
    "LimitHoldemHistory",
    "build_betting_tree",
]

#: Action codes (the order of OpenSpiel's poker games).
FOLD, CALL, RAISE = 0, 1, 2

#: Named variants: keyword arguments of :class:`LimitHoldemRules`.
VARIANTS: dict[str, dict[str, Any]] = {
    "full": {"ranks": 13},
    "small": {"ranks": 6},  # 24 cards, 9 to ace: exact evaluation and tests
    "tiny": {"ranks": 4},  # 16 cards, J to ace: quick tests
    "micro": {"ranks": 3},  # 12 cards, Q to ace: every board per iteration (B8's measured 2 mbb/g)
}


@dataclass(frozen=True)
class LimitHoldemRules:
    """Parameters of heads-up limit hold'em.

    Attributes
    ----------
    ranks:
        Number of ranks in the deck, the top ones (13: the full deck; 6: 9..A, 24 cards).
    raise_caps:
        Largest number of raises per round (the big blind is not one; the first bet after the
        flop is). ACPC: (3, 4, 4, 4).
    rounds:
        Betting rounds played (4; fewer gives a shorter game ending with a showdown on the board
        dealt so far, for exact evaluation).
    small_blind, big_blind, small_bet, big_bet:
        In big blinds: 0.5, 1, 1, 2.
    """

    ranks: int = 13
    raise_caps: tuple[int, ...] = (3, 4, 4, 4)
    rounds: int = 4
    small_blind: float = 0.5
    big_blind: float = 1.0
    small_bet: float = 1.0
    big_bet: float = 2.0
    board_cards: tuple[int, ...] = field(default=(0, 3, 1, 1), repr=False)

    def __post_init__(self) -> None:
        if not 2 <= int(self.ranks) <= 13:
            raise PokerlabError(f"limit-holdem: ranks must be in 2..13, got {self.ranks!r}")
        if not 1 <= int(self.rounds) <= 4:
            raise PokerlabError(f"limit-holdem: rounds must be in 1..4, got {self.rounds!r}")
        if len(self.raise_caps) != 4 or any(int(c) < 0 for c in self.raise_caps):
            raise PokerlabError(
                "limit-holdem: raise_caps must be four non-negative counts, "
                f"got {self.raise_caps!r}"
            )
        if 4 + sum(self.board_cards[: self.rounds]) > self.num_cards:
            raise PokerlabError(
                f"limit-holdem: {self.num_cards} cards are too few for {self.rounds} rounds"
            )

    @property
    def num_cards(self) -> int:
        return 4 * self.ranks

    @property
    def cards(self) -> np.ndarray:
        """Card ids of the deck (``4 * rank + suit`` of :mod:`pokerlab.cards.deck`)."""
        return np.arange(52 - self.num_cards, 52, dtype=np.int64)

    def bet_size(self, rnd: int) -> float:
        return self.small_bet if rnd < 2 else self.big_bet

    def first_player(self, rnd: int) -> int:
        return 0 if rnd == 0 else 1

    def board_size(self, rnd: int) -> int:
        """Board cards showing during round ``rnd``."""
        return sum(self.board_cards[: rnd + 1])

    def card_names(self) -> list[str]:
        return [RANKS[c >> 2] + SUITS[c & 3] for c in self.cards]


def build_betting_tree(rules: LimitHoldemRules) -> BettingTree:
    """The betting tree of ``rules`` (preorder ids; Python recursion, at most ~25 deep)."""
    kind: list[int] = []
    rnd_of: list[int] = []
    player: list[int] = []
    action: list[int] = []
    contrib: list[tuple[float, float]] = []
    history: list[str] = []
    children: list[list[int]] = []
    payoff_key: list[tuple[int, float] | None] = []

    def add(k: int, r: int, p: int, a: int, c: tuple[float, float], h: str) -> int:
        kind.append(k)
        rnd_of.append(r)
        player.append(p)
        action.append(a)
        contrib.append(c)
        history.append(h)
        children.append([])
        payoff_key.append(None)
        return len(kind) - 1

    def decision(r: int, acted: int, raises: int, c: tuple[float, float], h: str, a: int) -> int:
        p = (rules.first_player(r) + acted) % 2
        n = add(DECISION, r, p, a, c, h)
        if c[1 - p] > c[p]:  # facing a bet: fold is legal
            f = add(FOLD_END, r, p, FOLD, c, h + "f")
            payoff_key[f] = (FOLD_END, c[p])
            children[n].append(f)
        level = max(c)
        called = (level, level)
        if acted == 0:  # the round's first check (or the small blind's limp) does not close it
            kid = decision(r, 1, raises, called, h + "c", CALL)
        elif r + 1 == rules.rounds:
            kid = add(SHOWDOWN_END, r, -1, CALL, called, h + "c")
            payoff_key[kid] = (SHOWDOWN_END, level)
        else:
            kid = add(DEAL, r, -1, CALL, called, h + "c")
            children[kid].append(decision(r + 1, 0, 0, called, h + "c/", -1))
        children[n].append(kid)
        if raises < rules.raise_caps[r]:
            new = list(c)
            new[p] = c[1 - p] + rules.bet_size(r)
            kid = decision(r, acted + 1, raises + 1, (new[0], new[1]), h + "r", RAISE)
            children[n].append(kid)
        return n

    decision(0, 0, 0, (rules.small_blind, rules.big_blind), "", -1)

    num = len(kind)
    child_start = np.zeros(num + 1, dtype=np.int32)
    for i, kids in enumerate(children):
        child_start[i + 1] = child_start[i] + len(kids)
    flat = np.array([k for kids in children for k in kids], dtype=np.int32)
    distinct = sorted({key for key in payoff_key if key is not None})
    lookup = {key: i for i, key in enumerate(distinct)}
    payoff_id = np.array(
        [lookup[key] if key is not None else -1 for key in payoff_key], dtype=np.int32
    )
    return BettingTree(
        kind=np.array(kind, dtype=np.int8),
        round=np.array(rnd_of, dtype=np.int8),
        player=np.array(player, dtype=np.int8),
        child_start=child_start,
        children=flat,
        action=np.array(action, dtype=np.int8),
        contrib=np.array(contrib, dtype=np.float64),
        payoff_id=payoff_id,
        payoff_table=np.array([a for _, a in distinct], dtype=np.float64),
        payoff_kind=np.array([k for k, _ in distinct], dtype=np.int8),
        history=history,
    )


class LimitHoldemHistory(History):
    """A history of limit hold'em, written from the rules (independent of the betting tree).

    ``cards``: the four hole cards (seat 0's two, seat 1's two), then the board; ``rounds``: the
    betting actions (``"fcr"``) of each round started so far.
    """

    __slots__ = ("game", "cards", "rounds", "folded")

    def __init__(
        self,
        game: LimitHoldemGame,
        cards: tuple[int, ...] = (),
        rounds: tuple[str, ...] = ("",),
        folded: int = -1,
    ) -> None:
        self.game = game
        self.cards = cards
        self.rounds = rounds
        self.folded = folded

    def _cards_needed(self) -> int:
        return 4 + self.game.rules.board_size(len(self.rounds) - 1)

    def _closed(self, actions: str) -> bool:
        return len(actions) >= 2 and actions[-1] == "c"

    def is_terminal(self) -> bool:
        if self.folded >= 0:
            return True
        return len(self.rounds) == self.game.rules.rounds and self._closed(self.rounds[-1])

    def current_player(self) -> int:
        if len(self.cards) < self._cards_needed():
            return CHANCE
        rnd = len(self.rounds) - 1
        return (self.game.rules.first_player(rnd) + len(self.rounds[-1])) % 2

    def _contributions(self) -> list[float]:
        rules = self.game.rules
        paid = [rules.small_blind, rules.big_blind]
        for r, actions in enumerate(self.rounds):
            p = rules.first_player(r)
            for a in actions:
                if a == "r":
                    paid[p] = paid[1 - p] + rules.bet_size(r)
                elif a == "c":
                    paid[p] = paid[1 - p]
                p = 1 - p
        return paid

    def legal_actions(self) -> Sequence[int]:
        rnd = len(self.rounds) - 1
        paid = self._contributions()
        p = self.current_player()
        legal = [FOLD] if paid[1 - p] > paid[p] else []
        legal.append(CALL)
        if self.rounds[-1].count("r") < self.game.rules.raise_caps[rnd]:
            legal.append(RAISE)
        return legal

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        left = [int(c) for c in self.game.rules.cards if c not in self.cards]
        return [(c, 1.0 / len(left)) for c in left]

    def child(self, action: int) -> LimitHoldemHistory:
        if self.is_chance():
            return LimitHoldemHistory(self.game, self.cards + (action,), self.rounds, self.folded)
        if action == FOLD:
            return LimitHoldemHistory(self.game, self.cards, self.rounds, self.current_player())
        actions = self.rounds[-1] + "fcr"[action]
        rounds = self.rounds[:-1] + (actions,)
        if self._closed(actions) and len(rounds) < self.game.rules.rounds:
            rounds = rounds + ("",)
        return LimitHoldemHistory(self.game, self.cards, rounds, -1)

    def terminal_utility(self, player: int) -> float:
        from pokerlab.cards.evaluator import evaluate

        paid = self._contributions()
        if self.folded >= 0:
            return -paid[player] if player == self.folded else paid[self.folded]
        board = list(self.cards[4:])
        v0 = evaluate(list(self.cards[0:2]) + board)
        v1 = evaluate(list(self.cards[2:4]) + board)
        if v0 == v1:
            return 0.0
        winner = 0 if v0 > v1 else 1
        return paid[1 - player] if player == winner else -paid[player]

    def info_set_key(self) -> str:
        rules = self.game.rules
        names = {int(c): n for c, n in zip(rules.cards, rules.card_names(), strict=True)}
        p = self.current_player()
        hole = "".join(names[c] for c in self.cards[2 * p : 2 * p + 2])
        board = "".join(names[c] for c in self.cards[4:])
        betting = "/".join(self.rounds)
        return f"{hole}|{board}:{betting}" if board else f"{hole}:{betting}"

    def action_label(self, action: int) -> str:
        if self.is_chance():
            return self.game.rules.card_names()[action - (52 - self.game.rules.num_cards)]
        return "fcr"[action]

    def regret_pruning_allowed(self) -> bool:
        return len(self.rounds) < self.game.rules.rounds


class LimitHoldemGame(HistoryGame):
    """Heads-up limit hold'em (ACPC rules); ``variant`` names a deck (``"full"``, ``"small"``),
    ``ranks``, ``raise_caps`` and ``rounds`` override it (see :class:`LimitHoldemRules`).

    The full game is far too large for the history tree; solvers use :attr:`betting_tree` with a
    card abstraction (:mod:`pokerlab.abstraction`).
    """

    name = "limit-holdem"
    num_players = 2

    def __init__(
        self,
        variant: str = "full",
        ranks: int | None = None,
        raise_caps: Sequence[int] | None = None,
        rounds: int | None = None,
    ) -> None:
        super().__init__()
        key = str(variant).lower()
        if key not in VARIANTS:
            raise PokerlabError(
                f"limit-holdem: unknown variant {variant!r}; known: {', '.join(VARIANTS)}"
            )
        kwargs = dict(VARIANTS[key])
        if ranks is not None:
            kwargs["ranks"] = int(ranks)
        if raise_caps is not None:
            kwargs["raise_caps"] = tuple(int(c) for c in raise_caps)
        if rounds is not None:
            kwargs["rounds"] = int(rounds)
        self.rules = LimitHoldemRules(**kwargs)
        self.variant = key
        self.params = {"variant": key}
        for name in ("ranks", "raise_caps", "rounds"):
            if locals()[name] is not None:
                value = getattr(self.rules, name)
                self.params[name] = list(value) if isinstance(value, tuple) else value

    def initial_history(self) -> LimitHoldemHistory:
        return LimitHoldemHistory(self)

    @cached_property
    def betting_tree(self) -> BettingTree:
        """The shared betting tree (built once per game)."""
        return build_betting_tree(self.rules)
