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
import os
import stat
import tomllib
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.spot_config import SpotConfig
from pokerlab.games.postflop.spot_fields import (
    _REQUIRED,
    _TREE_KEYS,
    ALL_STREETS,
    DEFAULT_SIZES,
    MAX_CHIPS,
    MAX_SPOT_BYTES,
    PLAYERS,
    STREETS,
    StreetSizes,
    TreeOptions,
    _board,
    _check_keys,
    _prefixed,
)

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
    "ranks",
    "deck",
    "blinds",
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
    ranks, deck:
        The deck, as the no-limit game's: ``ranks`` the number of top ranks kept (2 to 13,
        default 13: the full deck), or ``deck`` a name (``"full"``, ``"small"`` 6 ranks,
        ``"tiny"`` 4, ``"micro"`` 3) or a number of ranks; the board must lie in it and range
        combos outside it are dropped (:attr:`SpotConfig.ranks`).
    blinds:
        ``(small, big)`` with ``board=""``: the spot starts before the flop
        (:attr:`SpotConfig.blinds`; ``bets`` may then name ``"preflop"``).

    The file layout (:meth:`SpotConfig.to_dict`: street tables ``flop``, ``turn``, ``river`` and
    ``tree``) is accepted too: it is what a postflop game's ``params`` hold, so
    ``load_game("postflop", **game.params)`` rebuilds the game (saved strategies do this).
    """
    if any(key in params for key in (*ALL_STREETS, "tree")):
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
    for key in ("board", "pot", "stack", "rake_rate", "rake_cap", "ranks", "deck", "blinds"):
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
        _check_keys(bets, STREETS if board else ALL_STREETS, "bets")
    raises, donks = params.get("raises"), params.get("donks")
    for street in STREETS[len(board) - 3 :] if board else ALL_STREETS:
        if isinstance(bets, Mapping):
            table = bets.get(street, {})
            if not isinstance(table, Mapping):
                raise PokerlabError(f"bets[{street!r}] must be a table, got {table!r}")
            table = dict(table)
        else:
            table = {} if bets is None else {"bet": bets}
        if raises is not None:
            table.setdefault("raise", raises)
        if donks is not None and street not in ("preflop", "flop"):
            table.setdefault("donk", donks)
        if table:
            data[street] = table
    tree = {key: params[key] for key in _TREE_KEYS if params.get(key) is not None}
    if "raise_limit" in params and params["raise_limit"] is None:
        tree["raise_limit"] = None  # given as None: no limit (absent: the default, 3)
    if tree:
        data["tree"] = tree
    return SpotConfig.from_dict(data)
