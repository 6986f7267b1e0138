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
``Nc@M``       raises only: ``Nc`` offered only where exactly M bets and raises have been
               made on the street (pokerlab's own: a size at one depth of the raises, as
               real-time search inserts an opponent's actual size).
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
Errors are :class:`~pokerlab.errors.ParseError` naming the token and its character offset. What a
size means in chips at a node: :func:`~pokerlab.games.postflop.bet_amounts.resolve_bet`.

>>> parse_bet_sizes("33%, 2.5x, a", raise_sizes=True)[1]
BetSize(kind='prev', value=2.5, streets=0, raise_cap=0, at_raise=0)
>>> format_bet_sizes(parse_bet_sizes(" 50% ,100C, 3E200%,A "))
'50%, 100c, 3e200%, a'
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
    "MAX_STREETS",
    "MAX_SIZE_VALUE",
]

BetKind = Literal["pot", "prev", "chips", "geometric", "allin"]

MAX_STREETS = 100
"""Largest street count ``K`` a geometric token ``Ke`` may name (as in postflop-solver)."""

_MAX_RAISE_CAP = 100  # largest M of an ``NcMr`` (as in postflop-solver) or ``Nc@M`` token

MAX_SIZE_VALUE = 1e9
"""Largest number a size may hold: a pot fraction (1e9 = 100,000,000,000%), a multiple of the
previous bet, a chip amount, a geometric cap. Times the largest pot
(:data:`~pokerlab.games.postflop.spot.MAX_CHIPS`) it stays far inside a float."""

# ASCII digits only: ``\d`` would take any Unicode digit (``٣٣%`` read as 33%)
_NUM = r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
_POT = re.compile(rf"^({_NUM})%$")
_PREV = re.compile(rf"^({_NUM})x$")
_CHIPS = re.compile(rf"^({_NUM})c(?:([0-9]+)r|@([0-9]+))?$")
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
    at_raise:
        Chips only (``Nc@M``, raises): offered only where exactly this many bets and raises
        have been made on the street; 0 means at every depth.
    """

    kind: BetKind
    value: float = 0.0
    streets: int = 0
    raise_cap: int = 0
    at_raise: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ("pot", "prev", "chips", "geometric", "allin"):
            raise PokerlabError(f"unknown bet-size kind {self.kind!r}")
        if isinstance(self.value, bool) or not isinstance(self.value, numbers.Real):
            raise PokerlabError(f"bet size value must be a number, got {self.value!r}")
        if isinstance(self.streets, bool) or not isinstance(self.streets, numbers.Integral):
            raise PokerlabError(f"geometric street count must be an integer, got {self.streets!r}")
        object.__setattr__(self, "value", float(self.value))
        object.__setattr__(self, "streets", int(self.streets))
        for field, what in (("raise_cap", "raise cap (NcMr)"), ("at_raise", "raise depth (Nc@M)")):
            cap = getattr(self, field)
            if isinstance(cap, bool) or not isinstance(cap, numbers.Integral):
                raise PokerlabError(f"{what} must be an integer, got {cap!r}")
            if cap != 0 and self.kind != "chips":
                raise PokerlabError(f"only chip sizes have a {what}")
            if not 0 <= cap <= _MAX_RAISE_CAP:
                raise PokerlabError(f"{what} {cap} is not in 0..{_MAX_RAISE_CAP}")
            object.__setattr__(self, field, int(cap))
        if self.raise_cap and self.at_raise:
            raise PokerlabError(
                "a chip size has a raise cap (NcMr) or a raise depth (Nc@M), not both"
            )
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

    def __str__(self) -> str:
        return _format_one(self)

    def offered_at(self, made: int) -> bool:
        """Whether this raise size is offered where ``made`` bets and raises have been made on
        the street, the one faced included (the blinds count as one before the flop): ``NcMr``
        while ``made <= M``, ``Nc@M`` where ``made == M``, every other size anywhere."""
        if self.raise_cap and made > self.raise_cap:
            return False
        return self.at_raise in (0, made)


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
        caps = [0, 0]  # NcMr, Nc@M
        for i, what in enumerate(("a raise cap ('NcMr')", "a raise depth ('Nc@M')")):
            if m.group(2 + i) is None:
                continue
            if not raise_sizes:
                raise ParseError(f"{what} is only allowed for raises", token, position)
            digits = m.group(2 + i).lstrip("0") or "0"
            caps[i] = (
                int(digits) if len(digits) <= 3 else _MAX_RAISE_CAP + 1
            )  # no int() of a huge text
            if not 1 <= caps[i] <= _MAX_RAISE_CAP:
                raise ParseError(
                    f"{what[2:]} is a whole number from 1 to {_MAX_RAISE_CAP}", token, position
                )
        value = _number(m.group(1), token, position)
        return BetSize("chips", value, raise_cap=caps[0], at_raise=caps[1])
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
        cap = (
            f"{size.raise_cap}r" if size.raise_cap else f"@{size.at_raise}" if size.at_raise else ""
        )
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
