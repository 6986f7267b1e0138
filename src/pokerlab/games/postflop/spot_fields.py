"""The fields of a postflop spot: streets, players, bet sizes per street (:class:`StreetSizes`),
tree options (:class:`TreeOptions`), the limits on chips and sizes, and the checks of each key
that :class:`~pokerlab.games.postflop.spot_config.SpotConfig` runs (errors name the key)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pokerlab.cards.deck import parse_card
from pokerlab.errors import ParseError, PokerlabError
from pokerlab.games.nolimit.config import DECKS
from pokerlab.games.postflop.betsizes import BetSize, parse_bet_sizes

__all__ = [
    "DECKS",
    "DEFAULT_SIZES",
    "MAX_CHIPS",
    "PLAYERS",
    "STREETS",
    "ALL_STREETS",
    "StreetSizes",
    "TreeOptions",
]

STREETS = ("flop", "turn", "river")
"""Street names in order; a board of 3, 4 or 5 cards starts on ``STREETS[len(board) - 3]``."""

ALL_STREETS = ("preflop", *STREETS)
"""With the betting before the flop: a spot with ``blinds`` and no board starts there."""

PLAYERS = ("oop", "ip")
"""Player names in the file; index 0 (out of position, acts first) and 1 (in position)."""

_TOP_KEYS = (
    "board",
    "pot",
    "stack",
    "oop_range",
    "ip_range",
    "rake_rate",
    "rake_cap",
    "ranks",
    "deck",
    "blinds",
    *ALL_STREETS,
    "tree",
)
_REQUIRED = ("board", "pot", "stack", "oop_range", "ip_range")
_SIZE_KEYS = ("bet", "raise", "donk")
_STREET_KEYS = (*_SIZE_KEYS, *PLAYERS)
_TREE_KEYS = ("add_allin_threshold", "force_allin_threshold", "merging_threshold", "raise_limit")


@dataclass(frozen=True)
class StreetSizes:
    """One player's bet-size options on one street.

    Attributes
    ----------
    bet:
        Options for the first bet of the street (``parse_bet_sizes(..., raise_sizes=False)``).
    raise_:
        Options when facing a bet or raise (``Nx`` allowed).
    donk:
        Turn and river, out-of-position player only: the options for leading into the player who
        was the aggressor on the previous street (postflop-solver's "donk" sizes). ``None``: such
        a lead uses the ordinary ``bet`` options; ``()``: no lead, OOP may only check there.
    """

    bet: tuple[BetSize, ...]
    raise_: tuple[BetSize, ...]
    donk: tuple[BetSize, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("bet", "raise_", "donk"):
            sizes = getattr(self, name)
            if sizes is None and name == "donk":
                continue
            if not isinstance(sizes, Sequence) or isinstance(sizes, str):
                raise PokerlabError(f"{name} sizes must be a sequence of BetSize, got {sizes!r}")
            sizes = tuple(sizes)
            for size in sizes:
                if not isinstance(size, BetSize):
                    raise PokerlabError(f"{name} sizes must be BetSize values, got {size!r}")
                if size.kind == "prev" and name != "raise_":
                    raise PokerlabError(f"{name} sizes cannot be multiples of a previous bet")
                if size.raise_cap and name != "raise_":
                    raise PokerlabError(f"{name} sizes cannot have a raise cap (NcMr)")
                if size.at_raise and name != "raise_":
                    raise PokerlabError(f"{name} sizes cannot have a raise depth (Nc@M)")
            object.__setattr__(self, name, sizes)


DEFAULT_SIZES = StreetSizes(bet=(BetSize("pot", 0.5),), raise_=(BetSize("allin"),), donk=None)
"""The sizes of a street whose table is absent: bet ``"50%"``, raise ``"a"``, no donk sizes."""


#: Largest spot file read, bytes (the shipped spots are under 1 KiB).
MAX_SPOT_BYTES = 1 << 20

#: Largest raise limit (raises per street).
MAX_RAISE_LIMIT = 100

#: Largest tree threshold (a multiple of the pot; anything this large already means "always").
MAX_THRESHOLD = 1e9

#: Largest pot, stack or rake cap of a spot, chips. The solver's arrays are float32 (whole chips
#: exact up to 2**24, finite up to about 3.4e38): a billion chips keeps every value and regret sum
#: of any run far inside that range, where a stack of 1e39 chips solved to NaN.
MAX_CHIPS = 1e9


def _finite(key: str, value: Any) -> float:
    """``value`` as a float, refusing booleans, strings and non-finite numbers (an integer too
    large for a float included)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise PokerlabError(f"{key} must be a number, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise PokerlabError(
            f"{key} must be a finite number, got an integer too large for a float"
        ) from None
    if not math.isfinite(number):
        raise PokerlabError(f"{key} must be a finite number, got {value!r}")
    return number


@dataclass(frozen=True)
class TreeOptions:
    """How the tree builder turns sizes into actions (postflop-solver's names and meanings).

    Attributes
    ----------
    add_allin_threshold:
        Add an all-in action when going all-in puts in at most this times the pot (the pot after
        calling, for a raise) on top of the call.
    force_allin_threshold:
        A bet or raise becomes all-in when the stack left after it is called would be at most
        this times the pot then (a stack-to-pot ratio).
    merging_threshold:
        Merge bet sizes that are close: from the largest size (X of the pot) down, drop the sizes
        Y with ``(1 + X) / (1 + Y) < 1 + merging_threshold``.
    raise_limit:
        Most raises per street (a non-negative integer; the first bet is not a raise), or
        ``None`` for no limit (postflop-solver has none: ``None`` reproduces its trees). In a
        file, ``raise_limit = "none"`` (TOML has no null; JSON ``null`` works too).

    The tree builder applies them; the spot only checks that the thresholds are finite and
    non-negative.
    """

    add_allin_threshold: float = 1.5
    force_allin_threshold: float = 0.15
    merging_threshold: float = 0.1
    raise_limit: int | None = 3

    def __post_init__(self) -> None:
        for key in _TREE_KEYS[:3]:
            value = _finite(key, getattr(self, key))
            if value < 0.0:
                raise PokerlabError(f"{key} must be >= 0, got {value!r}")
            if value > MAX_THRESHOLD:  # times a pot of up to MAX_CHIPS: stays a finite float
                raise PokerlabError(f"{key} {value:g} is above the largest {MAX_THRESHOLD:g}")
            object.__setattr__(self, key, value)
        limit = self.raise_limit
        if limit is None or (isinstance(limit, str) and limit.strip().lower() == "none"):
            object.__setattr__(self, "raise_limit", None)
            return
        if isinstance(limit, bool | np.bool_) or not isinstance(limit, numbers.Integral):
            raise PokerlabError(
                f"raise_limit must be a non-negative integer or 'none' (no limit), got {limit!r}"
            )
        if not 0 <= limit <= MAX_RAISE_LIMIT:  # deeper lines would overflow Python's stack
            raise PokerlabError(
                f"raise_limit must be an integer from 0 to {MAX_RAISE_LIMIT} or 'none' (no "
                f"limit), got {limit!r}"
            )
        object.__setattr__(self, "raise_limit", int(limit))


def _deck_ranks(ranks: Any = None, deck: Any = None) -> int:
    """The ranks a spot's deck keeps, from ``ranks`` (an integer, 2 to 13) and/or ``deck`` (a
    name of :data:`DECKS`, ``"full"`` 13, ``"small"`` 6, ``"tiny"`` 4, ``"micro"`` 3, or an
    integer): the no-limit game's deck options. Neither: 13 (the full deck). Both: they must
    agree. Raises :class:`~pokerlab.errors.PokerlabError` naming the key and the value."""
    found: list[tuple[str, int]] = []
    if deck is not None:
        if isinstance(deck, str):
            name = deck.strip().lower()
            if name not in DECKS:
                raise PokerlabError(
                    f"unknown deck {deck!r}; known: {', '.join(DECKS)} (or a number of ranks, "
                    "2 to 13)"
                )
            found.append(("deck", DECKS[name]))
        else:
            found.append(("deck", _rank_count("deck", deck)))
    if ranks is not None:
        found.append(("ranks", _rank_count("ranks", ranks)))
    if len(found) == 2 and found[0][1] != found[1][1]:
        raise PokerlabError(
            f"deck {deck!r} keeps {found[0][1]} ranks but ranks = {found[1][1]}: give one of them"
        )
    return found[-1][1] if found else 13


def _rank_count(key: str, value: Any) -> int:
    """``value`` as a whole number of ranks from 2 to 13, else an error naming ``key``."""
    whole = isinstance(value, numbers.Integral) or (
        isinstance(value, float) and math.isfinite(value) and value == int(value)
    )
    if isinstance(value, bool | np.bool_) or not whole or not 2 <= int(value) <= 13:
        names = f", or a deck name ({', '.join(DECKS)})" if key == "deck" else ""
        raise PokerlabError(
            f"{key} must be a whole number of ranks from 2 to 13 (the top ranks kept){names}, "
            f"got {value!r}"
        )
    return int(value)


def _range_error(player: str, exc: PokerlabError) -> PokerlabError:
    """A range error prefixed with the player's key, keeping the token and position."""
    err = ParseError(f"{player}_range: {exc}")
    err.token = getattr(exc, "token", "")
    err.position = getattr(exc, "position", -1)
    return err


def _check_keys(table: Mapping[str, Any], known: Sequence[str], where: str) -> None:
    """Refuse a key of ``table`` that is not in ``known``, naming it and the known ones."""
    for key in table:
        if key not in known:
            raise PokerlabError(f"unknown key {key!r} in {where}; known keys: {', '.join(known)}")


def _text(key: str, value: Any) -> str:
    """``value`` if it is a string, else an error naming ``key``."""
    if not isinstance(value, str):
        raise PokerlabError(f"{key} must be a string, got {value!r}")
    return value


def _board(value: Any) -> tuple[int, ...]:
    """Card ids of a board written ``"Td9d6h"`` / ``"Td 9d 6h"`` or ``["Td", "9d", "6h"]``."""
    if isinstance(value, str):
        text = value
    elif isinstance(value, Sequence) and all(isinstance(card, str) for card in value):
        text = " ".join(value)
    else:
        raise PokerlabError(f"board must be cards like 'Td9d6h', got {value!r}")
    cards: list[int] = []
    i = 0
    while i < len(text):
        if text[i] in " ,\t":
            i += 1
            continue
        try:
            card = parse_card(text[i : i + 2], i)
        except ParseError as exc:
            raise _prefixed(exc, "board") from None
        if card in cards:
            raise ParseError("board card given twice", text[i : i + 2], i)
        cards.append(card)
        i += 2
    if not 3 <= len(cards) <= 5 and cards:
        raise PokerlabError(f"a board has 3, 4 or 5 cards, got {len(cards)} in {text!r}")
    return tuple(cards)


def _prefixed(exc: PokerlabError, prefix: str) -> PokerlabError:
    """Copy of ``exc`` (same class, token and position) with ``prefix: `` before its message."""
    err: PokerlabError
    if isinstance(exc, ParseError):
        err = ParseError(f"{prefix}: {exc}")
        err.token, err.position = exc.token, exc.position
    else:
        err = type(exc)(f"{prefix}: {exc}")
    return err


def _check_street_specs(street: str, table: Mapping[str, Any]) -> None:
    """Parse the street-level specs of ``[street]`` even where both players override them: a
    bad one is an error in the file whether or not it is used."""
    for key in ("bet", "raise", "donk"):
        if key not in table or isinstance(table[key], Mapping):
            continue
        text, where = table[key], f"[{street}] {key}"
        if not isinstance(text, str):
            raise PokerlabError(f"{where} must be a bet-size string like '33%, a', got {text!r}")
        try:
            parse_bet_sizes(text, raise_sizes=key == "raise")
        except PokerlabError as exc:
            raise _prefixed(exc, where) from None


def _street_sizes(
    street: str, player: int, table: Mapping[str, Any], sub: Mapping[str, Any]
) -> StreetSizes:
    """One player's sizes on one street: the player's subtable, else the street table, else
    the default."""
    name = PLAYERS[player]

    def spec(key: str) -> tuple[Any, str] | None:
        if key in sub:
            return sub[key], f"[{street}.{name}] {key}"
        if key in table:
            return table[key], f"[{street}] {key}"
        return None

    def parse(key: str, default: tuple[BetSize, ...]) -> tuple[BetSize, ...]:
        found = spec(key)
        if found is None:
            return default
        text, where = found
        if not isinstance(text, str):
            raise PokerlabError(f"{where} must be a bet-size string like '33%, a', got {text!r}")
        try:
            return parse_bet_sizes(text, raise_sizes=key == "raise")
        except PokerlabError as exc:
            raise _prefixed(exc, f"{where} ({name.upper()})") from None

    donk: tuple[BetSize, ...] | None = None
    if "donk" in sub and player == 1:
        raise PokerlabError(
            f"[{street}.ip] donk: donk bets are the out-of-position player's; "
            f"put them in [{street}] or [{street}.oop]"
        )
    if player == 0 and spec("donk") is not None:
        if street == "flop":
            raise PokerlabError("[flop] donk: donk sizes exist on the turn and river only")
        donk = parse("donk", ())
    return StreetSizes(
        bet=parse("bet", DEFAULT_SIZES.bet),
        raise_=parse("raise", DEFAULT_SIZES.raise_),
        donk=donk,
    )
