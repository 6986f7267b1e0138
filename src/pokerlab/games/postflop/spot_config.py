"""A postflop spot, checked completely: :class:`SpotConfig` (board, ranges, pot, stack, sizes,
tree options, rake), with its dictionary form (``to_dict`` / ``from_dict``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerlab.cards.deck import N_CARDS, RANKS, format_card, format_cards
from pokerlab.cards.ranges import parse_range, remove_blocked
from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.betsizes import format_bet_sizes
from pokerlab.games.postflop.spot_fields import (
    _REQUIRED,
    _SIZE_KEYS,
    _STREET_KEYS,
    _TOP_KEYS,
    _TREE_KEYS,
    ALL_STREETS,
    DEFAULT_SIZES,
    MAX_CHIPS,
    PLAYERS,
    STREETS,
    StreetSizes,
    TreeOptions,
    _board,
    _check_keys,
    _check_street_specs,
    _deck_ranks,
    _finite,
    _range_error,
    _rank_count,
    _street_sizes,
    _text,
)

__all__ = ["SpotConfig"]


@dataclass(frozen=True)
class SpotConfig:
    """A postflop spot, checked on construction (see :func:`spot_from_params` for the defaults).

    Attributes
    ----------
    board:
        3, 4 or 5 distinct card ids (:mod:`pokerlab.cards`); the spot starts on the flop, turn or
        river. Empty with ``blinds``: the spot starts before the flop.
    pot:
        Chips in the pot at the start of the spot, > 0 (>= 0 before the flop: dead money).
    stack:
        Effective stack behind, chips, >= 0; before the flop each player's chips before the
        blinds, at least the big blind.
    blinds:
        ``(small, big)`` blinds in chips, only with an empty board: the spot is the whole hand
        from the deal, IP (player 1) posting the small blind and acting first before the flop,
        OOP the big blind (:func:`~pokerlab.games.postflop.actions.build_action_tree`); its
        ``"preflop"`` sizes are raise sizes (the blinds are the first bet).
    oop_range, ip_range:
        Range text (:func:`pokerlab.cards.parse_range` syntax, weights allowed) of the player out
        of position (acts first) and in position; neither may be empty once the board's cards are
        removed.
    sizes:
        ``(street, player) -> StreetSizes`` with street in ``"flop" | "turn" | "river"`` and
        player 0 (OOP) or 1 (IP). Streets before the board's street are not allowed; streets
        from it on that are missing get :data:`DEFAULT_SIZES`. Donk sizes exist for OOP on the
        turn and river only.
    tree:
        Tree options.
    rake_rate:
        Fraction of the final pot taken as rake, in [0, 1); the rake is
        ``min(rake_rate * pot, rake_cap)``, taken when a hand ends by a fold too (as in
        postflop-solver).
    rake_cap:
        Most rake per pot in chips, > 0, or ``None`` (the default) for no cap. A cap of 0 is
        refused with a positive ``rake_rate``: postflop-solver reads it as no rake at all
        (``min(pot * rate, 0)``) and pokerlab used to read it as no cap, so either reading
        would silently give some user a different game.
    ranks:
        The deck: the top ``ranks`` ranks of the 52-card deck, all four suits (2 to 13; 13, the
        default, is the full deck), the card ids ``52 - 4 * ranks`` to 51 as the no-limit game's
        small decks (:data:`~pokerlab.games.nolimit.config.DECKS`: small 6, tiny 4, micro 3).
        The board must lie in it, range combos outside it are dropped (as board-blocked ones),
        and the turn and river come from its cards left.
    """

    board: tuple[int, ...]
    pot: float
    stack: float
    oop_range: str
    ip_range: str
    sizes: dict[tuple[str, int], StreetSizes] = field(default_factory=dict)
    tree: TreeOptions = field(default_factory=TreeOptions)
    rake_rate: float = 0.0
    rake_cap: float | None = None
    ranks: int = 13
    blinds: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        board = tuple(self.board)
        blinds = self._checked_blinds()
        if not (3 <= len(board) <= 5 if blinds is None else len(board) == 0):
            raise PokerlabError(
                f"a board has 3, 4 or 5 cards, got {len(board)}" if blinds is None
                else f"a spot with blinds starts before the flop: no board, got {len(board)} cards"
            )  # fmt: skip
        for card in board:
            if isinstance(card, bool) or not isinstance(card, int | np.integer):
                raise PokerlabError(f"board cards are card ids, got {card!r}")
            if not 0 <= card < N_CARDS:
                raise PokerlabError(f"board card id {card} is not in 0..{N_CARDS - 1}")
        board = tuple(int(card) for card in board)
        for i, card in enumerate(board):
            if card in board[:i]:
                raise PokerlabError(f"board card given twice: {format_card(card)!r}")
        object.__setattr__(self, "board", board)
        ranks = _rank_count("ranks", self.ranks)
        object.__setattr__(self, "ranks", ranks)
        if 4 * ranks < 9:
            raise PokerlabError(
                f"ranks {ranks}: a deck of {4 * ranks} cards cannot hold a board of 5 cards and "
                "two hands (9 cards); use 3 ranks or more"
            )
        for card in board:
            if card < N_CARDS - 4 * ranks:
                raise PokerlabError(
                    f"board card {format_card(card)!r} is not in {self.deck_text()}"
                )
        pot = _finite("pot", self.pot)
        if pot <= 0.0 and (blinds is None or pot < 0.0):
            raise PokerlabError(
                f"pot must be {'> 0' if blinds is None else '>= 0'} chips, got {self.pot!r}"
            )
        stack = _finite("stack", self.stack)
        if stack < (0.0 if blinds is None else blinds[1]):
            raise PokerlabError(
                f"stack must be >= {0 if blinds is None else blinds[1]} chips"
                f"{'' if blinds is None else ' (the big blind)'}, got {self.stack!r}"
            )
        rate = _finite("rake_rate", self.rake_rate)
        if not 0.0 <= rate < 1.0:
            raise PokerlabError(f"rake_rate must be in [0, 1), got {self.rake_rate!r}")
        cap = None if self.rake_cap is None else _finite("rake_cap", self.rake_cap)
        if cap is not None and cap < 0.0:
            raise PokerlabError(
                f"rake_cap must be >= 0 chips (leave it out for no cap), got {self.rake_cap!r}"
            )
        if cap == 0.0 and rate > 0.0:
            raise PokerlabError(
                f"rake_cap 0 with rake_rate {rate:g}: postflop-solver takes min(pot * rate, cap), "
                "i.e. no rake at all, where pokerlab once read 0 as no cap; write rake_rate = 0 "
                "for no rake, or leave rake_cap out (or give a positive cap) for a rake"
            )
        for key, value in (("pot", pot), ("stack", stack), ("rake_cap", cap)):
            if value is not None and value > MAX_CHIPS:
                raise PokerlabError(
                    f"{key} {value:g} chips is above the largest {MAX_CHIPS:g} (the solver "
                    "stores float32)"
                )
        for key, value in (("pot", pot), ("stack", stack), ("rake_rate", rate), ("rake_cap", cap)):
            object.__setattr__(self, key, value)
        if not isinstance(self.tree, TreeOptions):
            raise PokerlabError(f"tree must be TreeOptions, got {self.tree!r}")
        object.__setattr__(self, "sizes", self._checked_sizes())
        parsed = []
        for player, text in (("oop", self.oop_range), ("ip", self.ip_range)):
            if not isinstance(text, str):
                raise PokerlabError(f"{player}_range must be a string, got {text!r}")
            try:
                weights = remove_blocked(parse_range(text), board)
            except PokerlabError as exc:
                raise _range_error(player, exc) from None
            if not weights.any():
                raise PokerlabError(
                    f"{player}_range {text!r} is empty once the board "
                    f"{format_cards(board)} is removed"
                )
            in_deck = remove_blocked(weights, range(self.deck[0]))
            if ranks < 13 and not in_deck.any():
                raise PokerlabError(
                    f"{player}_range {text!r} has no combo in {self.deck_text()} once the board "
                    f"{format_cards(board)} is removed"
                )
            parsed.append(in_deck)
        object.__setattr__(self, "_weights", (parsed[0], parsed[1]))  # what weights() returns

    def _checked_blinds(self) -> tuple[int, int] | None:
        """``blinds`` as two whole chip counts, 0 < small <= big (set back on the spot)."""
        if self.blinds is None:
            return None
        b = self.blinds
        if (
            isinstance(b, str | bytes)
            or not isinstance(b, tuple | list)
            or len(b) != 2
            or any(isinstance(x, bool) or not isinstance(x, int | np.integer) for x in b)
            or not 0 < b[0] <= b[1] <= MAX_CHIPS
        ):
            raise PokerlabError(f"blinds must be two whole chip counts 0 < small <= big, got {b!r}")
        blinds = (int(b[0]), int(b[1]))
        object.__setattr__(self, "blinds", blinds)
        return blinds

    def _checked_sizes(self) -> dict[tuple[str, int], StreetSizes]:
        """The sizes dict with its keys checked and missing streets filled with defaults."""
        if not isinstance(self.sizes, Mapping):
            raise PokerlabError(f"sizes must be a dict, got {self.sizes!r}")
        streets = self.streets
        for key, value in self.sizes.items():
            if (
                not isinstance(key, tuple)
                or len(key) != 2
                or key[0] not in streets
                or key[1] not in (0, 1)
                or isinstance(key[1], bool)
            ):
                raise PokerlabError(
                    f"bad sizes key {key!r}: expected (street, player) with street in "
                    f"{', '.join(streets)} and player 0 (OOP) or 1 (IP)"
                )
            if not isinstance(value, StreetSizes):
                raise PokerlabError(f"sizes[{key!r}] must be StreetSizes, got {value!r}")
            if value.donk is not None and (key[0] == "flop" or key[1] == 1):
                raise PokerlabError(
                    f"donk sizes are the out-of-position player's, on the turn and river only: "
                    f"not {key[0]} {PLAYERS[key[1]]}"
                )
        return {
            (street, player): self.sizes.get((street, player), DEFAULT_SIZES)
            for street in streets
            for player in (0, 1)
        }

    def __hash__(self) -> int:
        """Hash of the file layout, so that equal spots hash alike (``sizes`` is a dict)."""
        return hash(json.dumps(self.to_dict(), sort_keys=True))

    @property
    def street(self) -> str:
        """The street the spot starts on: ``"preflop"``, ``"flop"``, ``"turn"`` or ``"river"``."""
        return self.streets[0]

    @property
    def streets(self) -> tuple[str, ...]:
        """The streets played in this spot, from :attr:`street` to the river."""
        return ALL_STREETS if not self.board else STREETS[len(self.board) - 3 :]

    @property
    def deck(self) -> tuple[int, ...]:
        """The card ids of the spot's deck, ascending: ``52 - 4 * ranks`` to 51."""
        return tuple(range(N_CARDS - 4 * self.ranks, N_CARDS))

    def deck_text(self) -> str:
        """The deck in words for messages: ``"the 24-card deck of ranks 9 to A (ranks = 6)"``."""
        if self.ranks == 13:
            return "the 52-card deck"
        return (
            f"the {4 * self.ranks}-card deck of ranks {RANKS[13 - self.ranks]} to A "
            f"(ranks = {self.ranks})"
        )

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        """(OOP, IP) range weights, float64 arrays of shape (1326,) indexed by combo id, with
        every combo that holds a board card, or a card outside the deck (:attr:`ranks`), set
        to 0."""
        memo = self.__dict__["_weights"]  # parsed once, on construction: the spot is frozen
        return memo[0].copy(), memo[1].copy()

    def to_dict(self) -> dict[str, Any]:
        """The spot in the file layout (``docs/postflop-spots.md``); ``from_dict`` reads it back
        equal. Sizes both players share are written in the street table, the others in
        ``oop`` / ``ip`` subtables."""
        out: dict[str, Any] = {
            "board": format_cards(self.board),
            "pot": self.pot,
            "stack": self.stack,
            "oop_range": self.oop_range,
            "ip_range": self.ip_range,
            "rake_rate": self.rake_rate,
        }
        if self.rake_cap is not None:  # absent: no cap (TOML has no null)
            out["rake_cap"] = self.rake_cap
        if self.ranks != 13:  # absent: the full deck (full-deck spots' files stay as they were)
            out["ranks"] = self.ranks
        if self.blinds is not None:  # absent: a spot that starts on the flop or later
            out["blinds"] = list(self.blinds)
        for street in self.streets:
            oop, ip = self.sizes[(street, 0)], self.sizes[(street, 1)]
            table: dict[str, Any] = {}
            for key, attr in (("bet", "bet"), ("raise", "raise_")):
                mine, theirs = getattr(oop, attr), getattr(ip, attr)
                if mine == theirs:
                    table[key] = format_bet_sizes(mine)
                else:
                    table.setdefault("oop", {})[key] = format_bet_sizes(mine)
                    table.setdefault("ip", {})[key] = format_bet_sizes(theirs)
            if oop.donk is not None:
                table["donk"] = format_bet_sizes(oop.donk)
            out[street] = table
        out["tree"] = {
            "add_allin_threshold": self.tree.add_allin_threshold,
            "force_allin_threshold": self.tree.force_allin_threshold,
            "merging_threshold": self.tree.merging_threshold,
            "raise_limit": "none" if self.tree.raise_limit is None else self.tree.raise_limit,
        }
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SpotConfig:
        """Read a spot from the file layout (a parsed TOML or JSON document).

        Raises
        ------
        PokerlabError
            Naming the key at fault: an unknown key (with the known ones), a missing one, a value
            of the wrong type, a bad card, range or bet-size token (with street and player).
        """
        if not isinstance(data, Mapping):
            raise PokerlabError(f"a spot is a table of keys, got {type(data).__name__}")
        _check_keys(data, _TOP_KEYS, "the spot")
        for key in _REQUIRED:
            if key not in data:
                raise PokerlabError(f"the spot has no {key!r} (required: {', '.join(_REQUIRED)})")
        board = _board(data["board"])
        blinds = data.get("blinds")
        streets = STREETS[len(board) - 3 :] if 3 <= len(board) <= 5 else ()
        if blinds is not None and not board:
            streets = ALL_STREETS
        elif "preflop" in data:
            raise PokerlabError(
                "a [preflop] table needs a spot from before the flop (blinds, no board)"
            )
        sizes = {}
        for street in streets:
            table = data.get(street, {})
            if not isinstance(table, Mapping):
                raise PokerlabError(f"[{street}] must be a table, got {table!r}")
            _check_keys(table, _STREET_KEYS, f"[{street}]")
            for player_index, player in enumerate(PLAYERS):
                sub = table.get(player, {})
                if not isinstance(sub, Mapping):
                    raise PokerlabError(f"[{street}.{player}] must be a table, got {sub!r}")
                _check_keys(sub, _SIZE_KEYS, f"[{street}.{player}]")
                sizes[(street, player_index)] = _street_sizes(street, player_index, table, sub)
            _check_street_specs(street, table)  # also the specs both players override
        tree_table = data.get("tree", {})
        if not isinstance(tree_table, Mapping):
            raise PokerlabError(f"[tree] must be a table, got {tree_table!r}")
        _check_keys(tree_table, _TREE_KEYS, "[tree]")
        tree = TreeOptions(**{key: tree_table[key] for key in _TREE_KEYS if key in tree_table})
        return cls(
            board=board,
            pot=_finite("pot", data["pot"]),
            stack=_finite("stack", data["stack"]),
            oop_range=_text("oop_range", data["oop_range"]),
            ip_range=_text("ip_range", data["ip_range"]),
            sizes=sizes,
            tree=tree,
            rake_rate=_finite("rake_rate", data.get("rake_rate", 0.0)),
            rake_cap=None
            if data.get("rake_cap") is None
            else _finite("rake_cap", data["rake_cap"]),
            ranks=_deck_ranks(data.get("ranks"), data.get("deck")),
            blinds=None if blinds is None else tuple(blinds),
        )
