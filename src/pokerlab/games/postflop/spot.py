"""Postflop spot configuration: board, ranges, pot, stack, bet sizes, tree options, rake.

A spot is read from a TOML or JSON file (:func:`load_spot`, layout in ``docs/postflop-spots.md``)
or from keyword parameters (:func:`spot_from_params`, what ``load_game("postflop", ...)``
receives), and is checked completely before any tree is built: every error is one
:class:`~pokerlab.errors.PokerlabError` that names the key, street, player or token at fault.

>>> spot = spot_from_params(board="Td9d6hQc", ranges=("66+", "QQ-22"), pot=200, stack=900,
...                         bets="50%, a", raises="a")
>>> spot.street, spot.to_dict()["river"]
('turn', {'bet': '50%, a', 'raise': 'a'})
"""

from __future__ import annotations

import errno
import json
import math
import numbers
import os
import stat
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.cards.deck import N_CARDS, format_card, format_cards, parse_card
from pokerlab.cards.ranges import parse_range, remove_blocked
from pokerlab.errors import ParseError, PokerlabError
from pokerlab.games.postflop.betsizes import BetSize, format_bet_sizes, parse_bet_sizes

__all__ = [
    "MAX_CHIPS",
    "STREETS",
    "PLAYERS",
    "DEFAULT_SIZES",
    "StreetSizes",
    "TreeOptions",
    "SpotConfig",
    "load_spot",
    "spot_from_params",
    "builtin_spots",
    "resolve_spot",
]

STREETS = ("flop", "turn", "river")
"""Street names in order; a board of 3, 4 or 5 cards starts on ``STREETS[len(board) - 3]``."""

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
    *STREETS,
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


def _range_error(player: str, exc: PokerlabError) -> PokerlabError:
    """A range error prefixed with the player's key, keeping the token and position."""
    err = ParseError(f"{player}_range: {exc}")
    err.token = getattr(exc, "token", "")
    err.position = getattr(exc, "position", -1)
    return err


@dataclass(frozen=True)
class SpotConfig:
    """A postflop spot, checked on construction (see :func:`spot_from_params` for the defaults).

    Attributes
    ----------
    board:
        3, 4 or 5 distinct card ids (:mod:`pokerlab.cards`); the spot starts on the flop, turn or
        river.
    pot:
        Chips in the pot at the start of the spot, > 0.
    stack:
        Effective stack behind, chips, >= 0.
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

    def __post_init__(self) -> None:
        board = tuple(self.board)
        if not 3 <= len(board) <= 5:
            raise PokerlabError(f"a board has 3, 4 or 5 cards, got {len(board)}")
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
        pot = _finite("pot", self.pot)
        if pot <= 0.0:
            raise PokerlabError(f"pot must be > 0 chips, got {self.pot!r}")
        stack = _finite("stack", self.stack)
        if stack < 0.0:
            raise PokerlabError(f"stack must be >= 0 chips, got {self.stack!r}")
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
        """The street the spot starts on: ``"flop"``, ``"turn"`` or ``"river"``."""
        return STREETS[len(self.board) - 3]

    @property
    def streets(self) -> tuple[str, ...]:
        """The streets played in this spot, from :attr:`street` to the river."""
        return STREETS[len(self.board) - 3 :]

    def weights(self) -> tuple[np.ndarray, np.ndarray]:
        """(OOP, IP) range weights, float64 arrays of shape (1326,) indexed by combo id, with
        every combo that holds a board card set to 0."""
        return (
            remove_blocked(parse_range(self.oop_range), self.board),
            remove_blocked(parse_range(self.ip_range), self.board),
        )

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
        streets = STREETS[len(board) - 3 :] if 3 <= len(board) <= 5 else ()
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
        )


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
    if not 3 <= len(cards) <= 5:
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


def _line_of(data: bytes, offset: int) -> int:
    """1-based line number of byte ``offset`` in ``data``."""
    return data[:offset].count(b"\n") + 1


def _builtin_folder() -> Path:
    """The folder of the spots shipped with the package (``pokerlab/data/spots``)."""
    return Path(str(resources.files("pokerlab") / "data" / "spots"))


def _is_file(path: Path) -> bool:
    """``path.is_file()``, False also for a name the file system refuses (too long)."""
    try:
        return path.is_file()
    except OSError:
        return False


def builtin_spots() -> list[str]:
    """Names of the spots shipped with the package (``"flop"``, ``"river"``, ``"turn"``: the
    three spots of benchmark B6), usable wherever a spot file is asked for."""
    return sorted(p.stem for p in _builtin_folder().glob("*.toml"))


def resolve_spot(spot: str | os.PathLike[str]) -> Path:
    """The file of ``spot``: a path to a spot file, or the name of a built-in spot.

    A file that exists wins; otherwise a name without a suffix or a folder (``"turn"``) is looked
    up among :func:`builtin_spots`. Raises :class:`~pokerlab.errors.PokerlabError` for a name
    that is neither, listing the built-in spots. A path with a suffix is returned as is, for
    :func:`load_spot` to read (or refuse).
    """
    target = Path(spot)
    if _is_file(target):
        return target
    text = os.fspath(spot)
    if target.suffix == "" and target.name == text:
        builtin = _builtin_folder() / f"{text.lower()}.toml"
        if text and _is_file(builtin):
            return builtin
        raise PokerlabError(
            f"unknown spot {text!r}: not a file and not a built-in spot; built-in spots: "
            f"{', '.join(builtin_spots())} (or give a .toml or .json file)"
        )
    return target


def load_spot(path: str | os.PathLike[str]) -> SpotConfig:
    """Read a spot file: TOML (``.toml``, read with :mod:`tomllib`) or JSON (``.json``), or a
    built-in spot by name (``"river"``, ``"turn"``, ``"flop"``; see :func:`resolve_spot`).

    Raises
    ------
    PokerlabError
        For an unknown name, a missing or unreadable file, another suffix, text that is not UTF-8
        or not valid TOML/JSON (with the file name and line), and every error of
        :meth:`SpotConfig.from_dict` (prefixed with the file name).
    """
    target = resolve_spot(path)
    suffix = target.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise PokerlabError(f"{target}: a spot file ends in .toml or .json, not {suffix!r}")
    try:
        info = target.stat()
        if not stat.S_ISREG(info.st_mode):  # a FIFO or a device would block or never end
            raise PokerlabError(f"{target}: not a regular file (a spot file is a .toml or .json)")
        if info.st_size > MAX_SPOT_BYTES:
            raise PokerlabError(
                f"{target}: {info.st_size:,} bytes is too large for a spot file (at most "
                f"{MAX_SPOT_BYTES:,})"
            )
        raw = target.read_bytes()
    except OSError as exc:
        hint = ""
        if exc.errno == errno.ENOENT:
            hint = f" (built-in spots: {', '.join(builtin_spots())})"
        raise PokerlabError(
            f"cannot read spot file {target}: {exc.strerror or exc}{hint}"
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = _line_of(raw, exc.start)
        raise PokerlabError(f"{target}: line {line}: not UTF-8 text ({exc.reason})") from None
    try:
        if suffix == ".toml":
            data: Any = tomllib.loads(text)
        else:
            data = json.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PokerlabError(f"{target}: not valid TOML: {exc}") from None
    except json.JSONDecodeError as exc:
        raise PokerlabError(
            f"{target}: line {exc.lineno}, column {exc.colno}: not valid JSON: {exc.msg}"
        ) from None
    except RecursionError:
        raise PokerlabError(f"{target}: nested too deeply to be a spot file") from None
    except ValueError as exc:  # an integer of thousands of digits (int() refuses it)
        raise PokerlabError(f"{target}: {' '.join(str(exc).split())[:120]}") from None
    try:
        return SpotConfig.from_dict(data)
    except PokerlabError as exc:
        raise _prefixed(exc, str(target)) from None


_PARAMS = (
    "spot",
    "board",
    "ranges",
    "oop_range",
    "ip_range",
    "pot",
    "stack",
    "bets",
    "raises",
    "donks",
    *_TREE_KEYS,
    "rake_rate",
    "rake_cap",
)


def spot_from_params(**params: Any) -> SpotConfig:
    """A spot from keyword parameters (what ``load_game("postflop", ...)`` passes on).

    Parameters
    ----------
    spot:
        Path of a spot file, or the name of a built-in spot (``"river"``, ``"turn"``,
        ``"flop"``; a path that exists wins); when given, no other parameter may be.
    board:
        ``"Td9d6hQc"`` (or a list of card names).
    ranges:
        ``(oop_range, ip_range)``; or give ``oop_range`` and ``ip_range`` separately.
    pot, stack:
        Starting pot and effective stack behind, chips.
    bets:
        A bet-size string used on every street by both players (default ``"50%"``), or a dict
        of street tables in the file layout, e.g. ``{"turn": {"bet": "50%, a"}, "river":
        {"bet": "33%, 75%, a", "oop": {"raise": "2.5x"}}}``.
    raises:
        Raise sizes for every street and player that ``bets`` leaves open (default ``"a"``).
    donks:
        Donk sizes for OOP on the turn and river where ``bets`` leaves them open (default none:
        a lead uses the bet sizes).
    add_allin_threshold, force_allin_threshold, merging_threshold, raise_limit:
        Tree options (:class:`TreeOptions`; defaults 1.5, 0.15, 0.1, 3; ``raise_limit=None``
        or ``"none"`` for no limit).
    rake_rate, rake_cap:
        Rake as a fraction of the pot and its cap in chips (default 0 and no cap).

    The file layout (:meth:`SpotConfig.to_dict`: street tables ``flop``, ``turn``, ``river`` and
    ``tree``) is accepted too: it is what a postflop game's ``params`` hold, so
    ``load_game("postflop", **game.params)`` rebuilds the game (saved strategies do this).
    """
    if any(key in params for key in (*STREETS, "tree")):
        # the file layout (SpotConfig.to_dict(), what a game's params hold; saved files carry it)
        return SpotConfig.from_dict(params)
    for key in params:
        if key not in _PARAMS:
            raise PokerlabError(f"unknown postflop parameter {key!r}; known: {', '.join(_PARAMS)}")
    if "spot" in params:
        others = sorted(key for key in params if key != "spot")
        if others:
            raise PokerlabError(f"spot= is a whole spot file; drop {', '.join(others)}")
        return load_spot(params["spot"])
    data: dict[str, Any] = {}
    for key in ("board", "pot", "stack", "rake_rate", "rake_cap"):
        if params.get(key) is not None:
            data[key] = params[key]
    if "ranges" in params:
        if "oop_range" in params or "ip_range" in params:
            raise PokerlabError("give ranges=(oop, ip) or oop_range= and ip_range=, not both")
        ranges = params["ranges"]
        if isinstance(ranges, str) or not isinstance(ranges, Sequence) or len(ranges) != 2:
            raise PokerlabError(f"ranges must be a pair (oop_range, ip_range), got {ranges!r}")
        data["oop_range"], data["ip_range"] = ranges
    for key in ("oop_range", "ip_range"):
        if key in params:
            data[key] = params[key]
    for key in _REQUIRED:
        if key not in data:
            name = "ranges" if key.endswith("_range") else key
            raise PokerlabError(f"the postflop game needs {name}=")
    board = _board(data["board"])
    bets = params.get("bets")
    if bets is not None and not isinstance(bets, str | Mapping):
        raise PokerlabError(f"bets must be a bet-size string or a dict of streets, got {bets!r}")
    if isinstance(bets, Mapping):
        _check_keys(bets, STREETS, "bets")
    raises, donks = params.get("raises"), params.get("donks")
    for street in STREETS[len(board) - 3 :]:
        if isinstance(bets, Mapping):
            table = bets.get(street, {})
            if not isinstance(table, Mapping):
                raise PokerlabError(f"bets[{street!r}] must be a table, got {table!r}")
            table = dict(table)
        else:
            table = {} if bets is None else {"bet": bets}
        if raises is not None:
            table.setdefault("raise", raises)
        if donks is not None and street != "flop":
            table.setdefault("donk", donks)
        if table:
            data[street] = table
    tree = {key: params[key] for key in _TREE_KEYS if params.get(key) is not None}
    if "raise_limit" in params and params["raise_limit"] is None:
        tree["raise_limit"] = None  # given as None: no limit (absent: the default, 3)
    if tree:
        data["tree"] = tree
    return SpotConfig.from_dict(data)
