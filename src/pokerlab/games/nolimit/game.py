"""``load_game("nolimit-holdem", ...)``: no-limit hold'em for 2 to 6 players over an action
abstraction, with its size summary and, on tiny decks, the history interface.

The history interface deals each seat's two hole cards as one chance event (every pair of the
cards left, equally likely) and each street's board cards as one (the flop's three together), so
that a tiny configuration (for example 8 or 12 cards, two rounds, fold / call / pot / all-in)
expands to few enough histories for the exact solvers of :mod:`pokerlab.solvers`. Utilities are
in chips. Information sets are keyed ``"hole|board:betting"`` with the betting in ACPC style per
street (``c`` check or call, ``f`` fold, ``r<amount>`` raise to that street total), streets
separated by ``/``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from itertools import combinations
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pokerlab.cards.deck import RANKS, SUITS
from pokerlab.errors import PokerlabError
from pokerlab.games.base import CHANCE, History, HistoryGame
from pokerlab.games.nolimit.actions import ActionAbstraction, abstract_actions
from pokerlab.games.nolimit.betting import build_betting_tree
from pokerlab.games.nolimit.config import BUILTIN, DECKS, resolve_config
from pokerlab.games.nolimit.rules import (
    CALL,
    CHECK,
    FOLD,
    BettingState,
    NoLimitRules,
    payoffs,
)
from pokerlab.games.nolimit.size import (
    AVERAGES,
    PLURIBUS_BUCKETS,
    check_fits,
    format_summary,
    summary_dict,
)
from pokerlab.tree.betting.tree import BettingTree

if TYPE_CHECKING:
    from pokerlab.games.nolimit.abstraction import AbstractionBuild

__all__ = ["NoLimitHoldemGame", "NoLimitHistory"]


def _list(value: Any, name: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list | tuple) or (length is not None and len(value) != length):
        size = f"{length} " if length is not None else ""
        raise PokerlabError(f"nolimit-holdem: {name} must be a list of {size}numbers: {value!r}")
    return list(value)


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise PokerlabError(f"nolimit-holdem: {name} must be a whole number, got {value!r}")
    return int(value)


class NoLimitHoldemGame(HistoryGame):
    """No-limit hold'em: the table rules (:class:`NoLimitRules`), the action abstraction
    (:class:`ActionAbstraction`) and the card buckets used for the size summary.

    Parameters (all optional; chips are whole numbers): ``config`` a built-in configuration
    (``"hunl-100"`` default, ``"acpc-hunl"``, ``"6max-100"``, ``"fcpa"``) or a ``.toml`` file;
    ``players`` 2 to 6; ``stack`` (every seat) or ``stacks`` (one per seat); ``blinds``
    ``(small, big)``; ``ante``; ``deck`` ``"full" | "small" | "tiny" | "micro"`` or ``ranks``;
    ``rounds`` 2 to 4; ``actions`` a table for :meth:`ActionAbstraction.from_dict` or the name
    of a built-in configuration whose actions to take; ``buckets`` per street; ``averages``
    ``"all" | "preflop" | "none"``; ``short_allin_reopens`` (see :class:`NoLimitRules`).
    """

    name = "nolimit-holdem"

    def __init__(
        self,
        config: str | Path | None = None,
        *,
        players: int | None = None,
        stack: int | None = None,
        stacks: Sequence[int] | None = None,
        blinds: Sequence[int] | None = None,
        ante: int | None = None,
        deck: str | None = None,
        ranks: int | None = None,
        rounds: int | None = None,
        actions: Mapping[str, Any] | str | None = None,
        buckets: Sequence[int] | None = None,
        averages: str | None = None,
        short_allin_reopens: bool | None = None,
    ) -> None:
        super().__init__()
        given = {
            "players": players,
            "stack": stack,
            "stacks": stacks,
            "blinds": blinds,
            "ante": ante,
            "deck": deck,
            "ranks": ranks,
            "rounds": rounds,
            "actions": actions,
            "buckets": buckets,
            "averages": averages,
            "short_allin_reopens": short_allin_reopens,
        }
        params = resolve_config(config, given)
        n = _whole(params.get("players", 2), "players")
        if "stacks" in params:
            stack_list = [_whole(s, "a stack") for s in _list(params["stacks"], "stacks")]
        else:
            stack_list = [_whole(params.get("stack", 10_000), "stack")] * max(n, 0)
        blind_pair = _list(params.get("blinds", [50, 100]), "blinds (small, big)", 2)
        deck_name = str(params.get("deck", "full")).lower()
        if deck_name not in DECKS:
            raise PokerlabError(
                f"nolimit-holdem: unknown deck {params.get('deck')!r}; known: {', '.join(DECKS)}"
            )
        self.rules = NoLimitRules(
            players=n,
            stacks=tuple(stack_list),
            small_blind=_whole(blind_pair[0], "the small blind"),
            big_blind=_whole(blind_pair[1], "the big blind"),
            ante=_whole(params.get("ante", 0), "ante"),
            ranks=_whole(params.get("ranks", DECKS[deck_name]), "ranks"),
            rounds=_whole(params.get("rounds", 4), "rounds"),
            short_allin_reopens=bool(params.get("short_allin_reopens", False)),
        )
        spec = params.get("actions", {})
        if isinstance(spec, str):
            if spec not in BUILTIN:
                raise PokerlabError(
                    f"nolimit-holdem: unknown actions {spec!r}; built-in: {', '.join(BUILTIN)}"
                )
            spec = BUILTIN[spec]["actions"]
        self.abstraction = ActionAbstraction.from_dict(spec)
        buckets_given = _list(params.get("buckets", PLURIBUS_BUCKETS), "buckets", 4)
        self.buckets = tuple(_whole(b, "a bucket count") for b in buckets_given)
        if min(self.buckets) < 1:
            raise PokerlabError(f"nolimit-holdem: bucket counts must be >= 1: {self.buckets}")
        self.averages = str(params.get("averages", "all"))
        if self.averages not in AVERAGES:
            raise PokerlabError(
                f"nolimit-holdem: averages must be one of {', '.join(AVERAGES)}: {self.averages!r}"
            )
        self.num_players = n
        self._values: dict[frozenset[int], int] = {}
        self.cards = tuple(range(52 - 4 * self.rules.ranks, 52))
        self.params = {
            "players": n,
            "stacks": list(self.rules.stacks),
            "blinds": [self.rules.small_blind, self.rules.big_blind],
            "ante": self.rules.ante,
            "ranks": self.rules.ranks,
            "rounds": self.rules.rounds,
            "actions": self.abstraction.to_dict(),
            "buckets": list(self.buckets),
            "averages": self.averages,
            "short_allin_reopens": self.rules.short_allin_reopens,
        }

    def summary(
        self, buckets: Sequence[int] | None = None, averages: str | None = None
    ) -> dict[str, Any]:
        """Size of the abstract game before allocation: action sequences (decision nodes),
        actions, terminals per street, stored information-set actions for ``buckets`` per
        street, and the bytes of regrets (+ averages); ``"text"`` holds a readable table."""
        info = summary_dict(
            self.rules,
            self.abstraction,
            self.buckets if buckets is None else buckets,
            self.averages if averages is None else averages,
        )
        info["text"] = format_summary(info)
        return info

    @cached_property
    def betting_tree(self) -> BettingTree:
        """The public betting tree of the abstract game
        (:func:`pokerlab.games.nolimit.betting.build_betting_tree`), built on first use."""
        return build_betting_tree(self.rules, self.abstraction)

    def check_fits(self, available: int | None = None) -> dict[str, Any]:
        """:meth:`summary`, refused with its estimate when the rows will not fit in
        ``available`` bytes (default: this machine's free memory)."""
        info = self.summary()
        check_fits(info["bytes"], available)
        return info

    def card_abstraction(
        self,
        method: str = "emd",
        *,
        buckets: Sequence[int] | None = None,
        seed: int = 0,
        cache: bool | str | Path = True,
        progress: Callable[[str, int, int], None] | None = None,
        kmeans_sample: int | None = None,
    ) -> AbstractionBuild:
        """The card buckets per street of this game's deck (``buckets``: the configuration's
        by default), built once and cached on disk: see
        :func:`pokerlab.games.nolimit.abstraction.card_abstraction`. Four-round games only."""
        from pokerlab.games.nolimit.abstraction import KMEANS_SAMPLE, card_abstraction

        if self.rules.rounds != 4:
            raise PokerlabError(
                f"nolimit-holdem: the card abstraction needs the four rounds of hold'em; this "
                f"game has rounds={self.rules.rounds}"
            )
        return card_abstraction(
            self.rules.ranks,
            self.buckets if buckets is None else buckets,
            method,
            seed=seed,
            cache=cache,
            progress=progress,
            kmeans_sample=KMEANS_SAMPLE if kmeans_sample is None else kmeans_sample,
        )

    def initial_history(self) -> NoLimitHistory:
        return NoLimitHistory(self, (), self.rules.initial_state(), ("",))

    def hand_value(self, hole: Sequence[int], board: Sequence[int]) -> int:
        """Value of the best five of ``hole`` + ``board`` (higher wins), cached per card set."""
        key = frozenset((*hole, *board))
        value = self._values.get(key)
        if value is None:
            from pokerlab.cards.evaluator import evaluate

            value = self._values[key] = evaluate(sorted(key))
        return value

    def card_name(self, card: int) -> str:
        return RANKS[card >> 2] + SUITS[card & 3]


def _token(kind: int, amount: int) -> str:
    return "f" if kind == FOLD else "c" if kind in (CHECK, CALL) else f"r{amount}"


class NoLimitHistory(History):
    """One history: hole cards of seat 0, 1, ... then the board; the betting state; the betting
    line per street. Actions are indices into :meth:`abstract_actions`."""

    __slots__ = ("game", "cards", "state", "line")

    def __init__(
        self,
        game: NoLimitHoldemGame,
        cards: tuple[int, ...],
        state: BettingState,
        line: tuple[str, ...],
    ) -> None:
        self.game = game
        self.cards = cards
        self.state = state
        self.line = line

    def _board_target(self) -> int:
        rules = self.game.rules
        street = self.state.street if self.state.status == "act" else rules.rounds - 1
        if self.state.status == "fold":
            return len(self.cards) - 2 * rules.players
        return rules.board_size(street)

    def is_terminal(self) -> bool:
        if self.state.status == "fold":
            return True
        board = len(self.cards) - 2 * self.game.rules.players
        return self.state.status == "showdown" and board >= self._board_target()

    def current_player(self) -> int:
        holes = 2 * self.game.rules.players
        if len(self.cards) < holes or len(self.cards) - holes < self._board_target():
            return CHANCE
        return self.state.to_act

    def abstract_actions(self) -> list[tuple[int, int]]:
        """The (kind, amount) actions behind the indices of :meth:`legal_actions`."""
        return abstract_actions(self.game.rules, self.game.abstraction, self.state)

    def legal_actions(self) -> Sequence[int]:
        return list(range(len(self.abstract_actions())))

    def _deal_size(self) -> int:
        rules = self.game.rules
        if len(self.cards) < 2 * rules.players:
            return 2
        board = len(self.cards) - 2 * rules.players
        for street in range(1, rules.rounds):
            if rules.board_size(street) > board:
                return rules.board_size(street) - board
        raise PokerlabError("no card left to deal")

    def chance_outcomes(self) -> Sequence[tuple[int, float]]:
        left = [c for c in self.game.cards if c not in self.cards]
        groups = list(combinations(left, self._deal_size()))
        p = 1.0 / len(groups)
        return [(sum(c << (6 * i) for i, c in enumerate(g)), p) for g in groups]

    def child(self, action: int) -> NoLimitHistory:
        if self.is_chance():
            dealt = tuple((action >> (6 * i)) & 63 for i in range(self._deal_size()))
            return NoLimitHistory(self.game, self.cards + dealt, self.state, self.line)
        kind, amount = self.abstract_actions()[action]
        state = self.state.apply(self.game.rules, kind, amount)
        line = self.line[:-1] + (self.line[-1] + _token(kind, amount),)
        if state.status == "act" and state.street > self.state.street:
            line = line + ("",) * (state.street - self.state.street)
        return NoLimitHistory(self.game, self.cards, state, line)

    def terminal_utility(self, player: int) -> float:
        rules = self.game.rules
        strengths = None
        if self.state.status == "showdown":
            board = self.cards[2 * rules.players :]
            strengths = [
                0
                if self.state.folded[s]
                else self.game.hand_value(self.cards[2 * s : 2 * s + 2], board)
                for s in range(rules.players)
            ]
        return float(payoffs(rules, self.state, strengths)[player])

    def info_set_key(self) -> str:
        p = self.current_player()
        name = self.game.card_name
        hole = "".join(name(c) for c in self.cards[2 * p : 2 * p + 2])
        board = "".join(name(c) for c in self.cards[2 * self.game.rules.players :])
        betting = "/".join(self.line)
        return f"{hole}|{board}:{betting}" if board else f"{hole}:{betting}"

    def action_label(self, action: int) -> str:
        if self.is_chance():
            return "".join(
                self.game.card_name((action >> (6 * i)) & 63) for i in range(self._deal_size())
            )
        return _token(*self.abstract_actions()[action])

    def regret_pruning_allowed(self) -> bool:
        return self.state.street < self.game.rules.rounds - 1
