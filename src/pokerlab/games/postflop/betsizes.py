"""Bet-size specs for no-limit postflop trees: ``"33%, 75%, 2.5x, 100c, 2e150%, a"``.

The grammar is the one users of postflop-solver (b-inary, ``bet_size.rs``) know. A spec is a
comma-separated list of tokens; whitespace around tokens is ignored and letters may be upper or
lower case. ``N`` is a non-negative decimal (``50``, ``112.5``, ``.5``; no sign, no exponent).

=============  ==========================================================================
token          meaning
=============  ==========================================================================
``N%``         N percent of the pot. For a raise, of the pot *after calling*: a raise of
               X% is a call followed by a bet of X% of the new pot.
``Nx``         raises only: raise to N times the previous bet (N > 1).
``Nc``         N chips on top of calling: a bet of N, or a raise to (previous bet + N).
``NcMr``       raises only: ``Nc`` offered while at most M bets and raises have been made
               on the street (the one faced included; M a positive integer, at most
               100), postflop-solver's fixed-limit raise cap.
``e``          geometric: the fraction of the pot that, bet on every street left
               (this one included) and called, puts both players all-in on the last one.
``Ke``         the same over K streets (K a positive integer, at most 100). As a raise,
               over ``max(K - B + 1, 1)`` streets, B the bets and raises already made on
               the street (postflop-solver's rule; see :func:`resolve_bet`).
``KeM%``       the same, capped at M% of the pot (``eM%`` with the default K).
``a``          all-in (``allin`` and ``all-in`` are accepted too).
=============  ==========================================================================

Digits are ASCII (``٣٣%`` is refused). Every number is at most :data:`MAX_SIZE_VALUE` (pot
fractions and caps as fractions: ``100000000000%``; a size past the stack is all-in anyway).

The empty spec (or only whitespace) is the empty list: the player may only check or call.
Errors are :class:`~pokerlab.errors.ParseError` naming the token and its character offset.

>>> parse_bet_sizes("33%, 2.5x, a", raise_sizes=True)[1]
BetSize(kind='prev', value=2.5, streets=0, raise_cap=0)
>>> format_bet_sizes(parse_bet_sizes(" 50% ,100C, 3E200%,A "))
'50%, 100c, 3e200%, a'
>>> resolve_bet(BetSize("pot", 0.6), pot=350.0, prev_bet=150.0, to_call=150.0, stack=900.0,
...             streets_left=1)
300.0
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Literal

from pokerlab.errors import ParseError, PokerlabError

__all__ = [
    "BetSize",
    "parse_bet_sizes",
    "size_tokens",
    "format_bet_sizes",
    "resolve_bet",
    "MAX_STREETS",
    "MAX_SIZE_VALUE",
]

BetKind = Literal["pot", "prev", "chips", "geometric", "allin"]

MAX_STREETS = 100
"""Largest street count ``K`` a geometric token ``Ke`` may name (as in postflop-solver)."""

_MAX_RAISE_CAP = 100  # largest M of an ``NcMr`` token (as in postflop-solver)

MAX_SIZE_VALUE = 1e9
"""Largest number a size may hold: a pot fraction (1e9 = 100,000,000,000%), a multiple of the
previous bet, a chip amount, a geometric cap. Times the largest pot
(:data:`~pokerlab.games.postflop.spot.MAX_CHIPS`) it stays far inside a float."""

# ASCII digits only: ``\d`` would take any Unicode digit (``٣٣%`` read as 33%)
_NUM = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_POT = re.compile(rf"^({_NUM})%$")
_PREV = re.compile(rf"^({_NUM})x$")
_CHIPS = re.compile(rf"^({_NUM})c(?:([0-9]+)r)?$")
_GEOM = re.compile(rf"^([0-9]*)e(?:({_NUM})%)?$")
_ALLIN = ("a", "allin", "all-in")


@dataclass(frozen=True)
class BetSize:
    """One bet-size option, as written in a spec.

    Attributes
    ----------
    kind:
        ``"pot"`` (``N%``), ``"prev"`` (``Nx``), ``"chips"`` (``Nc``), ``"geometric"`` (``e``
        forms) or ``"allin"`` (``a``).
    value:
        pot: the fraction of the pot (0.33 for ``33%``); prev: the multiple of the previous bet
        (2.5); chips: the amount in chips; geometric: the cap as a fraction of the pot
        (``math.inf`` for none); allin: 0.
    streets:
        Geometric only: the street count ``K``; 0 means the streets left, this one included.
    raise_cap:
        Chips only (``NcMr``, raises): offered while at most this many bets and raises have
        been made on the street; 0 means no cap.
    """

    kind: BetKind
    value: float = 0.0
    streets: int = 0
    raise_cap: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("pot", "prev", "chips", "geometric", "allin"):
            raise PokerlabError(f"unknown bet-size kind {self.kind!r}")
        if isinstance(self.value, bool) or not isinstance(self.value, numbers.Real):
            raise PokerlabError(f"bet size value must be a number, got {self.value!r}")
        if isinstance(self.streets, bool) or not isinstance(self.streets, numbers.Integral):
            raise PokerlabError(f"geometric street count must be an integer, got {self.streets!r}")
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "streets", int(self.streets))
        cap = self.raise_cap
        if isinstance(cap, bool) or not isinstance(cap, numbers.Integral):
            raise PokerlabError(f"raise cap must be an integer, got {cap!r}")
        object.__setattr__(self, "raise_cap", int(cap))
        if math.isnan(self.value) or self.value < 0:
            raise PokerlabError(f"bet size {self.value!r} must be a non-negative number")
        if self.kind != "geometric" and math.isinf(self.value):
            raise PokerlabError(f"bet size {self.value!r} must be finite")
        if not math.isinf(self.value) and self.value > MAX_SIZE_VALUE:
            raise PokerlabError(f"bet size {self.value!r} is above the largest {MAX_SIZE_VALUE:g}")
        if self.kind == "prev" and self.value <= 1.0:
            raise PokerlabError(f"a raise to {self.value!r}x the previous bet is not a raise")
        if self.streets != 0 and self.kind != "geometric":
            raise PokerlabError("only geometric sizes have a street count")
        if not 0 <= self.streets <= MAX_STREETS:
            raise PokerlabError(f"geometric street count {self.streets} is not in 0..{MAX_STREETS}")
        if self.raise_cap != 0 and self.kind != "chips":
            raise PokerlabError("only chip sizes (NcMr) have a raise cap")
        if not 0 <= self.raise_cap <= _MAX_RAISE_CAP:
            raise PokerlabError(f"raise cap {self.raise_cap} is not in 0..{_MAX_RAISE_CAP}")

    def __str__(self) -> str:
        return _format_one(self)


def _percent_fraction(digits: str) -> float:
    """The fraction of the pot that the percent text ``digits`` names (``"33"`` -> 0.33)."""
    with localcontext() as ctx:
        ctx.prec = 40
        return float(Decimal(digits) / 100)


def _plain(value: float) -> str:
    """Shortest plain decimal (no exponent) that reads back as ``value``."""
    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _percent_text(fraction: float) -> str:
    """Shortest plain decimal ``d`` with ``_percent_fraction(d) == fraction``."""
    for sig in range(1, 18):
        text = _plain(float(f"{fraction * 100:.{sig}g}"))
        if _percent_fraction(text) == fraction:
            return text
    with localcontext() as ctx:  # exact decimal expansion: always reads back
        ctx.prec = 2000
        text = format(Decimal(fraction) * 100, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _number(text: str, token: str, position: int) -> float:
    """Float of a matched decimal, refusing values too large to be finite."""
    value = float(text)
    if not value <= MAX_SIZE_VALUE:
        raise ParseError(f"bet size too large (at most {MAX_SIZE_VALUE:g})", token, position)
    return value


_TOO_LARGE_PCT = f"bet size too large (at most {100 * MAX_SIZE_VALUE:.0f}% of the pot)"


def _parse_one(token: str, position: int, raise_sizes: bool) -> BetSize:
    """One stripped token at character offset ``position`` of the spec."""
    low = token.lower()
    if low in _ALLIN:
        return BetSize("allin")
    if low.startswith(("-", "+")):
        raise ParseError("bet sizes cannot be signed or negative", token, position)
    if m := _POT.match(low):
        fraction = _percent_fraction(m.group(1))
        if not fraction <= MAX_SIZE_VALUE:
            raise ParseError(_TOO_LARGE_PCT, token, position)
        return BetSize("pot", fraction)
    if m := _PREV.match(low):
        if not raise_sizes:
            raise ParseError(
                "'x' (a multiple of the previous bet) is only allowed for raises", token, position
            )
        multiple = _number(m.group(1), token, position)
        if multiple <= 1.0:
            raise ParseError("a raise must be more than 1x the previous bet", token, position)
        return BetSize("prev", multiple)
    if m := _CHIPS.match(low):
        cap = 0
        if m.group(2) is not None:
            if not raise_sizes:
                raise ParseError("a raise cap ('NcMr') is only allowed for raises", token, position)
            digits = m.group(2).lstrip("0") or "0"
            cap = int(digits) if len(digits) <= 3 else _MAX_RAISE_CAP + 1  # no int() of a huge text
            if not 1 <= cap <= _MAX_RAISE_CAP:
                raise ParseError(
                    f"a raise cap is a whole number from 1 to {_MAX_RAISE_CAP}", token, position
                )
        return BetSize("chips", _number(m.group(1), token, position), raise_cap=cap)
    if m := _GEOM.match(low):
        digits = m.group(1).lstrip("0")
        if len(digits) > len(str(MAX_STREETS)):  # before int(): thousands of digits raise
            raise ParseError(f"at most {MAX_STREETS} streets in a geometric size", token, position)
        streets = int(digits or "0")
        if m.group(1) and streets == 0:
            raise ParseError("a geometric size needs at least 1 street", token, position)
        if streets > MAX_STREETS:
            raise ParseError(f"at most {MAX_STREETS} streets in a geometric size", token, position)
        cap = math.inf
        if m.group(2) is not None:
            cap = _percent_fraction(m.group(2))
            if not cap <= MAX_SIZE_VALUE:
                raise ParseError(_TOO_LARGE_PCT, token, position)
        return BetSize("geometric", cap, streets)
    if "%%" in low:
        raise ParseError("one '%' per size", token, position)
    raise ParseError("bad bet size (expected N%, Nx, Nc, NcMr, e, Ke, KeM% or a)", token, position)


def parse_bet_sizes(text: str, *, raise_sizes: bool = False) -> tuple[BetSize, ...]:
    """Parse a bet-size spec such as ``"33%, 75%, a"`` into :class:`BetSize` options, in order.

    Parameters
    ----------
    text:
        The spec (grammar in this module's docstring). Empty or blank: no sizes.
    raise_sizes:
        True for a raise list, where ``Nx`` is allowed; False for bet and donk lists.

    Raises
    ------
    ParseError
        For an empty token (``"33%,,a"``, a trailing comma), an unknown or malformed token
        (``"33%%"``, ``"-50%"``, ``"0e"``, ``"1x"``), or ``Nx`` in a bet list; the message names
        the token and its character offset in ``text``.
    """
    if not isinstance(text, str):
        raise PokerlabError(f"a bet-size spec is a string, not {type(text).__name__}: {text!r}")
    return tuple(_parse_one(token, position, raise_sizes) for token, position in size_tokens(text))


def size_tokens(text: str) -> list[tuple[str, int]]:
    """The comma-separated tokens of a size list, stripped, each with its character offset in
    ``text`` (none for a blank text). An empty token (two commas in a row, a comma at an end)
    raises :class:`~pokerlab.errors.ParseError` at the comma."""
    if not text.strip():
        return []
    tokens: list[tuple[str, int]] = []
    offset = 0
    pieces = text.split(",")
    for n, raw in enumerate(pieces):
        token = raw.strip()
        if not token:
            comma = offset + len(raw) if n < len(pieces) - 1 else offset - 1
            raise ParseError(
                "empty bet size (two commas in a row, or a comma at an end)", ",", comma
            )
        tokens.append((token, offset + len(raw) - len(raw.lstrip())))
        offset += len(raw) + 1
    return tokens


def _format_one(size: BetSize) -> str:
    """The canonical token of one size."""
    if size.kind == "pot":
        return f"{_percent_text(size.value)}%"
    if size.kind == "prev":
        return f"{_plain(size.value)}x"
    if size.kind == "chips":
        cap = f"{size.raise_cap}r" if size.raise_cap else ""
        return f"{_plain(size.value)}c{cap}"
    if size.kind == "geometric":
        streets = str(size.streets) if size.streets else ""
        cap = "" if math.isinf(size.value) else f"{_percent_text(size.value)}%"
        return f"{streets}e{cap}"
    return "a"


def format_bet_sizes(sizes: Sequence[BetSize]) -> str:
    """Write sizes as a spec that :func:`parse_bet_sizes` reads back to the same sizes.

    Tokens are lower case, joined by ``", "``; numbers are the shortest plain decimals that read
    back exactly (``BetSize("pot", 0.33)`` -> ``"33%"``). No sizes -> ``""``.
    """
    return ", ".join(_format_one(size) for size in sizes)


def resolve_bet(
    size: BetSize,
    *,
    pot: float,
    prev_bet: float,
    to_call: float,
    stack: float,
    streets_left: int,
    bets: int | None = None,
) -> float:
    """Chips the actor adds on top of matching the previous bet (for a bet: the bet itself).

    Amounts are not rounded, and the thresholds of the tree (add all-in, force all-in, merging)
    are not applied here; the only limit is the stack: the result is capped at the all-in
    increment ``stack - to_call``.

    Parameters
    ----------
    size:
        The option.
    pot:
        Chips in the middle now, every bet of this street included (the bet being faced too).
    prev_bet:
        The previous bet or raise on this street as the opponent's street total, in chips
        (0 when nobody has bet on this street).
    to_call:
        Chips the actor must add to match ``prev_bet`` (0 for a bet).
    stack:
        The actor's chips behind, before this action (effective stack).
    streets_left:
        Streets still to be dealt or played, this one included (river = 1, turn = 2, flop = 3).
    bets:
        Bets and raises already made on this street, the one faced included (0 for a bet, 1
        facing the first bet, 2 facing a raise, ...); default: 1 when ``prev_bet > 0``, else 0.
        Only geometric sizes read it.

    Returns
    -------
    float
        With ``p = pot + to_call`` (the pot after calling) and ``s = stack - to_call`` (the stack
        after calling), the increment ``d`` over the call is

        - ``N%``: ``d = N/100 * p`` (a raise of X% is a call, then X% of the new pot);
        - ``Nx``: ``d = (N - 1) * prev_bet`` (the raise is *to* ``N * prev_bet``);
        - ``Nc``: ``d = N``;
        - geometric over ``n`` streets: ``d = f * p`` with ``f`` solving
          ``p * (1 + 2 f)^n = p + 2 s``, i.e. ``f = ((1 + 2 s / p)^(1/n) - 1) / 2``, then
          ``f = min(f, cap)``: bet ``f`` of the pot on each of n streets, called every time, and
          both players are all-in at the end. With ``K`` the spec's street count
          (``streets_left`` when it names none), ``n = K`` for a bet and
          ``n = max(K - bets + 1, 1)`` for a raise (postflop-solver's rule, ``action_tree.rs``:
          each bet or raise already made on the street uses up one of the K "streets");
        - all-in: ``d = s``;

        each then capped at ``s``.

    Raises
    ------
    PokerlabError
        For negative chip counts, ``streets_left < 1`` with a geometric size that names no
        street count, or an ``Nx`` size when there is no previous bet.
    """
    chips = (("pot", pot), ("prev_bet", prev_bet), ("to_call", to_call), ("stack", stack))
    for name, amount in chips:
        if not amount >= 0.0:
            raise PokerlabError(f"{name} must be >= 0 chips, got {amount!r}")
    if bets is None:
        bets = 1 if prev_bet > 0.0 else 0
    if isinstance(bets, bool) or not isinstance(bets, numbers.Integral) or bets < 0:
        raise PokerlabError(f"bets must be a non-negative integer, got {bets!r}")
    behind = max(stack - to_call, 0.0)
    after_call = pot + to_call
    if size.kind == "pot":
        add = size.value * after_call
    elif size.kind == "prev":
        if prev_bet <= 0.0:
            raise PokerlabError(f"{_format_one(size)!r} needs a previous bet to multiply")
        add = (size.value - 1.0) * prev_bet
    elif size.kind == "chips":
        add = size.value
    elif size.kind == "geometric":
        streets = size.streets or streets_left
        if streets < 1:
            raise PokerlabError(
                f"{_format_one(size)!r} needs at least one street left, got {streets_left}"
            )
        if bets > 0:  # a raise: each bet made on this street uses up one street
            streets = max(streets - bets + 1, 1)
        if after_call <= 0.0:
            add = behind
        else:
            fraction = ((1.0 + 2.0 * behind / after_call) ** (1.0 / streets) - 1.0) / 2.0
            add = min(fraction, size.value) * after_call
    else:
        add = behind
    return min(add, behind)
