"""The ACPC dealer protocol's messages (issue 25, "Playing"), syntax only: match states and
players' answers parsed and written, cards read and written. :mod:`pokerlab.interop.acpc` replays
a parsed match state on pokerlab's rules (:class:`~pokerlab.interop.acpc.AcpcGame`).

What this follows
    The ACPC protocol specification, version 2.0.0 (October 2010), and the reference server's
    ``game.c`` (the University of Alberta's ``project_acpc_server``), read for the grammar; the
    code here is ours.

Messages
    The dealer sends ``MATCHSTATE:<position>:<hand>:<betting>:<cards>`` lines ended by ``\\r\\n``
    to every player after every action, the first state of a hand and its final state included;
    lines starting with ``#`` or ``;`` are comments. A player first sends ``VERSION:2.0.0``; when
    it is on move it answers the line it received followed by ``:`` and its action. ``betting``
    lists every action, the rounds separated by ``/``: ``f`` fold, ``c`` check or call, and (no
    limit) ``r<N>`` a bet or raise *to* N chips, N counting every chip the player has put in
    during the hand, blinds and earlier rounds included. ``cards`` are the hole cards of each
    position separated by ``|`` (empty where unseen; the others' cards show only at a showdown),
    then the board of each round from the second on, each after a ``/``: ``|JdTc/6dJc9c/Kh``.
    Cards are a rank of ``23456789TJQKA`` and a suit of ``cdhs``; ``game.c`` numbers a card
    ``4 * rank + suit``, pokerlab's own encoding, and a deck of fewer ranks keeps the top ones,
    as :class:`~pokerlab.games.nolimit.rules.NoLimitRules` does.

Errors
    A malformed message or card raises :class:`~pokerlab.errors.ParseError` naming the bad
    token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pokerlab.cards.deck import RANKS, SUITS
from pokerlab.errors import ParseError

__all__ = [
    "VERSION",
    "MatchState",
    "parse_matchstate",
    "parse_response",
    "format_cards",
    "parse_card_run",
]

#: The protocol version a player announces first (``VERSION:2.0.0``).
VERSION = "2.0.0"

_HEADER = "MATCHSTATE:"
_NUMBER = re.compile(r"[0-9]{1,10}")


def _shown(text: str) -> str:
    return text if len(text) <= 80 else text[:60] + f"... ({len(text):,} characters)"


# -- cards --------------------------------------------------------------------------------------
def parse_card_run(text: str, what: str = "cards") -> tuple[int, ...]:
    """Cards written back to back (``"9s8h"``) as pokerlab card ids; the rank may be upper or
    lower case and the suit either case, as ``game.c``'s ``readCard`` reads them. Errors name
    the bad card."""
    if len(text) % 2:
        raise ParseError(f"{what}: cards are two characters each", text)
    out = []
    for i in range(0, len(text), 2):
        card = text[i : i + 2]
        rank = RANKS.find(card[0].upper())
        suit = SUITS.find(card[1].lower())
        if rank < 0 or suit < 0:
            raise ParseError(f"{what}: not a card (rank of {RANKS}, suit of {SUITS})", card)
        out.append(4 * rank + suit)
    return tuple(out)


def format_cards(cards: tuple[int, ...] | list[int]) -> str:
    """Card ids as the protocol writes them, back to back (``"9s8h"``)."""
    return "".join(RANKS[int(c) >> 2] + SUITS[int(c) & 3] for c in cards)


# -- match states -------------------------------------------------------------------------------
@dataclass(frozen=True)
class MatchState:
    """One match-state message, syntax only (:meth:`~pokerlab.interop.acpc.AcpcGame.replay` checks
    it against a game).

    ``position``: the receiver's position; ``hand``: the hand's number; ``betting``: the action
    tokens of each round so far (``(("r300", "r900", "c"), ("r1800",))``); ``holes``: each
    position's hole cards (``()`` where unseen); ``board``: the board cards of each round
    (round 0 first, empty in hold'em), as many rounds as ``betting``."""

    position: int
    hand: int
    betting: tuple[tuple[str, ...], ...]
    holes: tuple[tuple[int, ...], ...]
    board: tuple[tuple[int, ...], ...]

    def betting_text(self) -> str:
        """The betting field (``r300r900c/r1800``)."""
        return "/".join("".join(r) for r in self.betting)

    def cards_text(self) -> str:
        """The cards field (``|JdTc/6dJc9c``)."""
        holes = "|".join(format_cards(h) for h in self.holes)
        return (
            holes
            + format_cards(self.board[0])
            + "".join("/" + format_cards(b) for b in self.board[1:])
        )

    def text(self) -> str:
        """The message as the dealer writes it (without ``\\r\\n``)."""
        return f"{_HEADER}{self.position}:{self.hand}:{self.betting_text()}:{self.cards_text()}"

    def viewer_cards(self) -> tuple[int, ...]:
        """The receiver's own hole cards."""
        return self.holes[self.position]


def _parse_fields(line: str, fields: int) -> list[str]:
    text = line.rstrip("\r\n")
    if not text.startswith(_HEADER):
        raise ParseError("not an ACPC match state (it must start with MATCHSTATE:)", text)
    parts = text[len(_HEADER) :].split(":")
    if len(parts) != fields:
        raise ParseError(
            f"an ACPC match state has {'five' if fields == 4 else 'six'} fields separated by "
            f"':', this one has {len(parts) + 1}",
            _shown(text),
        )
    return parts


def _round_tokens(text: str) -> tuple[str, ...]:
    """The action tokens of one round's betting (``"r300r900c"``); errors name the bad one."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in "fc":
            out.append(ch)
            i += 1
            continue
        if ch == "r":
            digits = re.match(r"[0-9]*", text[i + 1 :]).group(0)  # type: ignore[union-attr]
            if not digits:
                raise ParseError(
                    "match state: a raise without a size (fixed-limit betting is not "
                    "supported; no-limit raises are r<chips>)",
                    text[i : i + 2],
                )
            if len(digits) > 10:
                raise ParseError("match state: a raise size of more than 10 digits", "r" + digits)
            out.append("r" + digits)
            i += 1 + len(digits)
            continue
        raise ParseError("match state: not an action (f, c or r<chips>)", text[i:][:20])
    return tuple(out)


def _parse_state_fields(parts: list[str], players: int) -> MatchState:
    pos_text, hand_text, betting_text, cards_text = parts
    if not _NUMBER.fullmatch(pos_text):
        raise ParseError("match state: the position is not a whole number", pos_text)
    if not _NUMBER.fullmatch(hand_text):
        raise ParseError("match state: the hand number is not a whole number", hand_text)
    position = int(pos_text)
    if position >= players:
        raise ParseError(f"match state: position {position} in a game of {players}", pos_text)
    rounds = tuple(_round_tokens(r) for r in betting_text.split("/"))
    sections = cards_text.split("/")
    holes_text = sections[0].split("|")
    if len(holes_text) != players:
        raise ParseError(
            f"match state: {len(holes_text)} hole-card sections for {players} positions",
            sections[0],
        )
    holes = tuple(parse_card_run(h, "match state hole cards") for h in holes_text)
    board = ((),) + tuple(parse_card_run(b, "match state board") for b in sections[1:])
    if len(board) != len(rounds):
        raise ParseError(
            f"match state: the betting has {len(rounds)} round(s) and the cards "
            f"{len(board)} board section(s)",
            cards_text,
        )
    return MatchState(position, int(hand_text), rounds, holes, board)


def parse_matchstate(line: str, players: int = 2) -> MatchState:
    """A dealer's message (trailing ``\\r\\n`` allowed) as a :class:`MatchState`; errors name
    the bad token (grammar of the protocol specification, no-limit betting)."""
    return _parse_state_fields(_parse_fields(line, 4), players)


def parse_response(line: str, players: int = 2) -> tuple[MatchState, str]:
    """A player's answer: the match state it answers and its action text (``"r300"``,
    ``"c"``), unchecked: :meth:`~pokerlab.interop.acpc.AcpcGame.to_action` reads it strictly,
    the dealer as the ACPC dealer does
    (:func:`pokerlab.evaluate.nolimit.acpc_dealer.read_action`)."""
    parts = _parse_fields(line, 5)
    return _parse_state_fields(parts[:4], players), parts[4]
