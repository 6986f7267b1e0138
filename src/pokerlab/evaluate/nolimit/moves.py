"""A person's moves at a no-limit table, in words: what they type (``f``, ``c``, ``r 350``,
``2.5bb``, ``75%``, ``3x``, ``a``) read as a legal action, and actions described back
(:func:`parse_move`, :func:`describe_action`, :func:`legal_text`). Shared by the terminal game
(``pokerlab blueprint play``) and the viewer's table; errors name the typed token and the legal
range."""

from __future__ import annotations

import re
from fractions import Fraction

from pokerlab.errors import ParseError, PokerlabError
from pokerlab.evaluate.nolimit.agents import Action, PublicView
from pokerlab.games.nolimit.rules import (
    ALLIN,
    BET,
    CALL,
    CHECK,
    FOLD,
    NoLimitRules,
)

__all__ = ["HELP", "HELP_WORDS", "describe_action", "format_chips", "legal_text", "parse_move"]

_FOLD = {"f", "fold"}
_PASSIVE = {"c", "call", "k", "check", "x"}
_ALLIN = {"a", "allin", "all-in", "shove"}
_RAISE = {"b", "bet", "r", "raise"}
HELP_WORDS = {"?", "h", "help"}
_GLUED = re.compile(r"^(b|bet|r|raise)([0-9.].*)$")

HELP = (
    "type f (fold), c or k (check/call), b or r AMOUNT (bet or raise to AMOUNT: chips such as "
    "350, or 2.5bb, 75% of the pot, 3x the bet), a (all-in), q (quit)"
)


def format_chips(x: float | Fraction) -> str:
    """Chips as a whole number where they are whole, else with up to two decimals."""
    x = float(x)
    return f"{x:,.0f}" if x == int(x) else f"{x:,.2f}".rstrip("0")


def _bb(rules: NoLimitRules, chips: float | Fraction) -> str:
    return f"{float(chips) / rules.big_blind:g} bb"


def legal_text(view: PublicView) -> str:
    """The legal actions in the words the person types, e.g. ``f, c 50 (call), r 200..300
    (2-3 bb), a 300 (all-in)``: the call in chips added, raises as street totals (raise to)."""
    state, rules = view.state, view.rules
    legal = view.legal()
    parts: list[str] = []
    for kind, amount in legal:
        if kind == FOLD:
            parts.append("f")
        elif kind == CHECK:
            parts.append("k (check)")
        elif kind == CALL:
            allin = amount == state.bets[state.to_act] + state.behind(rules, state.to_act)
            owed = amount - state.bets[state.to_act]
            parts.append(f"c {owed:,} (call{', all-in' if allin else ''})")
    bounds = state.raise_bounds(rules)
    if bounds is not None:
        low, high = bounds
        word = "r" if max(state.bets) > 0 else "b"
        if low < high:
            parts.append(
                f"{word} {low:,}..{high:,} ({low / rules.big_blind:g}-{high / rules.big_blind:g}"
                " bb)"
            )
        parts.append(f"a {high:,} (all-in)")
    return ", ".join(parts)


def _amount(text: str, word: str, view: PublicView) -> int:
    """Raise-to chips of an amount token (chips, also ``1,000``; ``Nbb``, ``N%``, ``Nx``,
    ``a``); errors name ``word`` (what was typed) and the legal actions."""
    from pokerlab.games.nolimit.actions import parse_street_sizes, raise_to
    from pokerlab.games.postflop.actions import round_half_away

    legal = f"legal are {legal_text(view)}"
    if re.fullmatch(r"[0-9]{1,3}(?:,[0-9]{3})+", text):  # 1,000 as the prompts write it
        text = text.replace(",", "")
    if re.fullmatch(r"[0-9]{1,12}", text):
        return int(text)
    if re.fullmatch(r"[0-9]+\.[0-9]+", text):
        raise PokerlabError(
            f"{word!r}: chips are whole numbers, got {text!r} (2.5bb is 2.5 big blinds); {legal}"
        )
    try:
        sizes = parse_street_sizes(text)
    except ParseError:
        sizes = ()
    if len(sizes) != 1 or getattr(sizes[0], "kind", "") in ("chips", "geometric"):
        raise PokerlabError(
            f"{word!r}: {text!r} is not an amount: give chips (350), big blinds (2.5bb), a share "
            f"of the pot (75%) or a multiple of the bet (3x); {legal}"
        )
    if getattr(sizes[0], "kind", "") == "prev" and max(view.state.bets) == 0:
        raise PokerlabError(
            f"{word!r}: {text!r} multiplies the bet faced, and there is none; {legal}"
        )
    return round_half_away(raise_to(sizes[0], view.rules, view.state))


def parse_move(text: str, view: PublicView) -> Action:
    """The person's action at ``view`` from one typed line (module docstring), as a legal
    ``(kind, amount)`` of the rules; :class:`~pokerlab.errors.PokerlabError` naming the bad token
    and the legal actions otherwise. Quit and help words are the caller's."""
    state, rules = view.state, view.rules
    words = text.strip().lower().split()
    if not words:
        raise PokerlabError(f"no action typed: legal are {legal_text(view)}")
    head, rest = words[0], words[1:]
    if (m := _GLUED.match(head)) and not rest:
        head, rest = m.group(1), [m.group(2)]
    typed = " ".join(words)
    legal = view.legal()
    if head in _FOLD | _PASSIVE | _ALLIN and rest:
        raise PokerlabError(f"{typed!r}: {head!r} takes no amount; legal are {legal_text(view)}")
    if head in _FOLD:
        if state.to_call() <= 0:
            raise PokerlabError(
                f"{typed!r}: there is no bet to fold to (check with k); legal are "
                f"{legal_text(view)}"
            )
        return (FOLD, 0)
    if head in _PASSIVE:
        return legal[1] if state.to_call() > 0 else legal[0]
    bounds = state.raise_bounds(rules)
    if head in _ALLIN:
        if bounds is not None:
            return (ALLIN, bounds[1])
        call = legal[1] if state.to_call() > 0 else None
        if call is not None and call[1] == state.bets[state.to_act] + state.behind(
            rules, state.to_act
        ):
            return call  # calling puts every chip in
        raise PokerlabError(f"{typed!r}: no raise is possible here; legal are {legal_text(view)}")
    if head in _RAISE:
        if len(rest) != 1:
            raise PokerlabError(
                f"{typed!r}: {head!r} needs one amount, e.g. {head} 300 (raise to 300 chips); "
                f"legal are {legal_text(view)}"
            )
        amount_text = rest[0]
    elif not rest:
        amount_text = head  # a bare amount: 350, 2.5bb, 75%
        if not re.match(r"^[0-9.]", head):
            raise PokerlabError(f"{head!r} is not an action: {HELP}; legal are {legal_text(view)}")
    else:
        raise PokerlabError(f"{head!r} is not an action: {HELP}; legal are {legal_text(view)}")
    amount = _amount(amount_text, typed, view)
    if bounds is None:
        raise PokerlabError(f"{typed!r}: no raise is possible here; legal are {legal_text(view)}")
    low, high = bounds
    if amount < low:
        raise PokerlabError(
            f"{typed!r}: a raise to {amount:,} is below the smallest legal raise, {low:,}; legal "
            f"are {legal_text(view)}"
        )
    if amount > high:
        raise PokerlabError(
            f"{typed!r}: a raise to {amount:,} is above your all-in, {high:,}; legal are "
            f"{legal_text(view)}"
        )
    return state.raise_kind(rules, amount), amount


def describe_action(view: PublicView, action: Action, you: bool = False) -> str:
    """``action`` at ``view`` in words after its subject: ``folds``, ``checks``, ``calls 100``
    (chips added), ``bets 200``, ``raises to 600``, ``goes all-in to 1,000`` (street totals);
    with ``you`` the verbs are for "you" (``fold``, ``raise to 600``, ...)."""
    kind, amount = action
    state, seat = view.state, view.seat
    if kind == FOLD:
        return "fold" if you else "folds"
    if kind == CHECK:
        return "check" if you else "checks"
    if kind == CALL:
        allin = amount == state.bets[seat] + state.behind(view.rules, seat)
        verb = "call" if you else "calls"
        return f"{verb} {amount - state.bets[seat]:,}" + (" (all-in)" if allin else "")
    if kind == ALLIN:
        return f"{'go' if you else 'goes'} all-in to {amount:,}"
    if kind == BET:
        return f"{'bet' if you else 'bets'} {amount:,}"
    return f"{'raise' if you else 'raises'} to {amount:,}"
