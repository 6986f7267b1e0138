"""The action abstraction of no-limit hold'em: which bets and raises the abstract game offers.

Sizes are given per street and per raise depth in the bet-size syntax of postflop spots
(:mod:`pokerlab.games.postflop.betsizes`: ``33%``, ``3x``, ``100c``, ``e``, ``a``) plus one token
for any street, ``Nbb``: bet or raise *to* N big blinds on the street (``2.5bb`` opens to 2.5 big
blinds). The depth is the number of bets and raises already made on the street (the blinds are not
bets): depth 0 is the first bet (preflop: the open raise), depth 1 the first raise (preflop: the
3-bet), and so on; the last list given serves every deeper raise. A raise cap per street stops
the raising (fold, check and call stay).

Amounts follow :func:`~pokerlab.games.postflop.bet_amounts.resolve_bet` with the pot counting every
chip in the middle (antes and blinds included), then the tree thresholds of postflop spots
(:class:`~pokerlab.games.postflop.actions.ActionTreeOptions`, same meaning and defaults): amounts
are rounded to whole chips (halves away from zero) and clamped to [minimum raise, all-in]; an
amount leaving at most ``force_allin_threshold`` times the pot after it is called behind becomes
all-in; all-in is added when it is at most ``add_allin_threshold`` pots over the bet faced; sizes
within ``merging_threshold`` of a larger one are merged (PioSolver's rule as postflop-solver
states it). Fold is offered only facing a bet.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any

from pokerlab.errors import ParseError, PokerlabError
from pokerlab.games.nolimit.rules import (
    CALL,
    CHECK,
    FOLD,
    STREETS,
    BettingState,
    NoLimitRules,
)
from pokerlab.games.postflop.actions import (
    ActionTreeOptions,
    merge_close_sizes,
    round_half_away,
)
from pokerlab.games.postflop.bet_amounts import resolve_bet
from pokerlab.games.postflop.betsizes import (
    BetSize,
    format_bet_sizes,
    parse_bet_sizes,
    size_tokens,
)

__all__ = [
    "BigBlinds",
    "Size",
    "ActionAbstraction",
    "parse_street_sizes",
    "abstract_actions",
    "raise_to",
]

_THRESHOLDS = ("add_allin_threshold", "force_allin_threshold", "merging_threshold")
_DEFAULTS = {f.name: f.default for f in fields(ActionTreeOptions) if f.name in _THRESHOLDS}
_BB = re.compile(r"^((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))bb$")


@dataclass(frozen=True)
class BigBlinds:
    """``Nbb``: bet or raise to ``value`` big blinds on the street."""

    value: float

    def __str__(self) -> str:
        text = format(Decimal(repr(self.value)), "f")  # plain decimal: reads back exactly
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return f"{text}bb"


Size = BetSize | BigBlinds


def parse_street_sizes(text: str) -> tuple[Size, ...]:
    """Parse ``"2.5bb, 3x, a"``: the tokens of :func:`parse_bet_sizes` (raise form, so ``Nx`` is
    allowed) and ``Nbb``. Errors are :class:`~pokerlab.errors.ParseError` naming the token and
    its offset."""
    if not isinstance(text, str):
        raise PokerlabError(f"bet sizes are a string such as '2.5bb, a', not {text!r}")
    out: list[Size] = []
    for token, position in size_tokens(text):
        if m := _BB.match(token.lower()):
            value = float(m.group(1))
            if not 0 < value <= 1e9:
                raise ParseError("a size in big blinds must be above 0", token, position)
            out.append(BigBlinds(value))
            continue
        try:
            out.extend(parse_bet_sizes(token, raise_sizes=True))
        except ParseError as exc:
            full = str(exc)
            cut = full.rfind(f": {exc.token!r}")
            message = full[:cut] if cut >= 0 else full
            raise ParseError(message.replace("N%, Nx", "N%, Nbb, Nx"), token, position) from None
    return tuple(out)


def _format(sizes: Sequence[Size]) -> str:
    parts = [str(s) if isinstance(s, BigBlinds) else format_bet_sizes([s]) for s in sizes]
    return ", ".join(parts)


@dataclass(frozen=True)
class ActionAbstraction:
    """Sizes per street and raise depth, raise caps and thresholds.

    ``sizes[street][depth]``: the sizes offered with ``depth`` bets and raises already made on
    ``street`` (the last entry for deeper ones; an empty tuple: no bets on that street).
    ``raise_cap[street]``: most bets and raises on a street (None: no cap; all-in ends it).
    """

    sizes: tuple[tuple[tuple[Size, ...], ...], ...]
    raise_cap: tuple[int | None, ...] = (None, None, None, None)
    add_allin_threshold: float = _DEFAULTS["add_allin_threshold"]
    force_allin_threshold: float = _DEFAULTS["force_allin_threshold"]
    merging_threshold: float = _DEFAULTS["merging_threshold"]

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> ActionAbstraction:
        """From ``{"preflop": ["2.5bb, a", "3x, a", "a"], "flop": "50%, 100%, a", ...,
        "raise_cap": {"flop": 2} or 3, "add_allin_threshold": 1.5, ...}``; a street given as one
        string uses it at every depth; a street left out offers no bets. Unknown keys and bad
        tokens raise :class:`~pokerlab.errors.PokerlabError` naming them."""
        if not isinstance(spec, Mapping):
            raise PokerlabError(f"actions must be a table of streets, got {spec!r}")
        known = {*STREETS, "raise_cap", *_THRESHOLDS}
        for key in spec:
            if key not in known:
                raise PokerlabError(
                    f"unknown actions key {key!r}; known: {', '.join(sorted(known))}"
                )
        sizes = []
        for street in STREETS:
            value = spec.get(street, ())
            if not isinstance(value, str | list | tuple):
                raise PokerlabError(
                    f"actions.{street} must be a size list such as '50%, a' or a list of them "
                    f"(one per raise depth), got {value!r}"
                )
            lists = [value] if isinstance(value, str) else list(value)
            parsed = []
            for depth, text in enumerate(lists):
                try:
                    parsed.append(parse_street_sizes(text))
                except ParseError as exc:
                    raise PokerlabError(f"actions.{street}[{depth}]: {exc}") from None
            sizes.append(tuple(parsed))
        caps = spec.get("raise_cap", None)
        if caps is None or isinstance(caps, int):
            cap_list: list[int | None] = [caps] * 4
        elif isinstance(caps, Mapping):
            for key in caps:
                if key not in STREETS:
                    raise PokerlabError(f"unknown street {key!r} in raise_cap")
            cap_list = [caps.get(s) for s in STREETS]
        else:
            raise PokerlabError(f"raise_cap must be a number or a table of streets: {caps!r}")
        for cap in cap_list:
            if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
                raise PokerlabError(f"a raise cap must be a whole number >= 0, got {cap!r}")
        thresholds = {}
        for key in _THRESHOLDS:
            value = spec.get(key, _DEFAULTS[key])
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise PokerlabError(f"{key} must be a number >= 0, got {value!r}")
            if not (math.isfinite(value) and value >= 0):
                raise PokerlabError(f"{key} must be a number >= 0, got {value!r}")
            thresholds[key] = float(value)
        return cls(tuple(sizes), tuple(cap_list), **thresholds)

    def to_dict(self) -> dict[str, Any]:
        """The dictionary form (:meth:`from_dict` reads it back)."""
        out: dict[str, Any] = {
            street: [_format(depth) for depth in self.sizes[k]] for k, street in enumerate(STREETS)
        }
        out["raise_cap"] = {
            s: c for s, c in zip(STREETS, self.raise_cap, strict=True) if c is not None
        }
        for key in _THRESHOLDS:
            out[key] = getattr(self, key)
        return out

    def sizes_at(self, street: int, depth: int) -> tuple[Size, ...]:
        lists = self.sizes[street]
        if not lists:
            return ()
        return lists[min(depth, len(lists) - 1)]


def raise_to(size: Size, rules: NoLimitRules, state: BettingState) -> int:
    """Raise-to amount (chips, the street total) of one size for the seat on move at ``state``,
    before clamping to the legal raises and before the tree thresholds."""
    p = state.to_act
    top = max(state.bets)
    if isinstance(size, BigBlinds):
        return round_half_away(size.value * rules.big_blind)
    behind = state.behind(rules, p)
    if size.kind == "allin":
        return state.bets[p] + behind
    add = resolve_bet(
        size,
        pot=float(state.pot()),
        prev_bet=float(top),
        to_call=float(top - state.bets[p]),
        stack=float(behind),
        streets_left=rules.rounds - state.street,
        bets=state.raises + (1 if state.street == 0 else 0),  # preflop the blind is faced
    )
    return top + round_half_away(add)


def abstract_actions(
    rules: NoLimitRules, abstraction: ActionAbstraction, state: BettingState
) -> list[tuple[int, int]]:
    """The abstract game's actions at ``state``: (kind, amount) pairs, fold, check or call
    first, then the bets or raises by amount; amounts are the actor's street total after the
    action (module docstring). All-in is added by the threshold only where some size is
    offered: a street or depth with no sizes offers no bet."""
    p = state.to_act
    top = max(state.bets)
    out = [a for a in state.legal_actions(rules) if a[0] in (FOLD, CHECK, CALL)]
    bounds = state.raise_bounds(rules)
    cap = abstraction.raise_cap[state.street]
    if bounds is None or (cap is not None and state.raises >= cap):
        return out
    low, allin = bounds
    pot_after_call = state.pot() + (min(top, allin) - state.bets[p])
    candidates: set[int] = set()
    made = state.raises + (state.street == 0)  # bets and raises, the one faced (the blinds) in
    for size in abstraction.sizes_at(state.street, state.raises):
        if isinstance(size, BetSize) and not size.offered_at(made):
            continue  # NcMr past its cap, Nc@M at another depth
        if isinstance(size, BetSize) and size.kind == "prev" and top == 0:
            continue  # Nx needs a bet to multiply
        amount = min(max(raise_to(size, rules, state), low), allin)
        new_pot = pot_after_call + 2 * (amount - top)
        if allin <= amount + round_half_away(new_pot * abstraction.force_allin_threshold):
            amount = allin
        candidates.add(amount)
    if candidates and allin - top <= round_half_away(
        pot_after_call * abstraction.add_allin_threshold
    ):
        candidates.add(allin)
    raises = [(state.raise_kind(rules, a), a) for a in sorted(candidates)]
    if pot_after_call > 0:
        raises = merge_close_sizes(raises, pot_after_call, top, abstraction.merging_threshold)
    return out + raises
