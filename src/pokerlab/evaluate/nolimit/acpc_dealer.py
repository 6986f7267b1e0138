"""A small ACPC dealer for heads-up no-limit hold'em over TCP (issue 25, "Playing"): plays a
match between two connected players as the reference server's ``dealer`` does, so an agent's
protocol client can be tested on loopback without the C server.

What it does (the ACPC ``dealer.c`` of ``project_acpc_server``, read for the behaviour; the
code is ours)
    - One listening port per seat (:attr:`AcpcDealer.ports`, port 0 picks free ones); seat ``k``
      is whoever connects to port ``k``, and sends ``VERSION:2.<minor>.<rev>`` first.
    - Hands are numbered from 0. Positions rotate: in hand ``h`` seat ``k`` sits in position
      ``(k - h) mod 2`` (``dealer.c``'s ``player0Seat`` moves one seat a hand), unless
      ``fixed_seats``.
    - Before every action, and once more when the hand is over, every seat receives its view
      of the hand (:class:`~pokerlab.interop.acpc.MatchState`); the seat on move answers.
    - An answer whose match state is not the one sent, or is not readable, is ignored and the
      dealer keeps reading, as ``dealer.c`` does; comment lines (``#``, ``;``) too.
    - An answer whose action is unreadable or not valid is played as a call, as ``dealer.c``
      does with its default unlimited number of invalid actions; a raise out of bounds is first
      brought to the nearest legal size (``isValidAction`` with ``tryFixing``). Each such fix is
      counted per seat and described in :attr:`DealerResult.fixes`; ``invalid="error"`` stops
      the match with a :class:`~pokerlab.errors.PokerlabError` naming the token instead.
    - A seat that sends nothing within ``timeout`` seconds, or disconnects, ends the match with
      an error (``dealer.c`` fails the match).

Cards are dealt by :func:`pokerlab.evaluate.nolimit.matches.deal_cards` from ``generator(seed)``
(not the C server's Mersenne Twister deal, so the same seed does not deal the C dealer's
cards): row ``h`` gives pokerlab seat ``s`` (0 the button) columns ``2s, 2s + 1``, so hand
``h`` is dealt exactly as deal ``h`` of pokerlab's own match engine with the same seed and can
be replayed there. Hands are settled by :func:`pokerlab.games.nolimit.rules.payoffs` (exact
fractions where a pot splits; ACPC prints doubles).
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, BinaryIO

from pokerlab._rng import generator, seed_int
from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit.rules import CALL, CHECK, FOLD, BettingState
from pokerlab.interop.acpc import (
    AcpcGame,
    MatchState,
    parse_matchstate,
    parse_response,
)

__all__ = ["AcpcDealer", "DealerHand", "DealerResult", "read_action"]

_VERSION = re.compile(r"VERSION:2\.[0-9]+\.[0-9]+")
# game.c's charToAction: f/F fold, c/C/k/K call, r/R/b/B raise
_ACTION = re.compile(r"([fFcCkKrRbB])(-?[0-9]*)")


@dataclass(frozen=True)
class DealerHand:
    """One hand of the match: its number, each seat's position, the final betting string, the
    cards (``deal_cards`` row: pokerlab seats, then the board) and each seat's net chips."""

    hand: int
    positions: tuple[int, int]
    betting: str
    cards: tuple[int, ...]
    chips: tuple[Fraction, Fraction]
    actions: tuple[tuple[int, int, int], ...]  # (pokerlab seat, kind, street amount)


@dataclass
class DealerResult:
    """The match: every hand, each seat's total (chips), and the invalid actions played as a
    call or resized (``fixes``: one line each, ``invalid``: counts per seat)."""

    hands: list[DealerHand] = field(default_factory=list)
    totals: list[Fraction] = field(default_factory=lambda: [Fraction(0), Fraction(0)])
    invalid: list[int] = field(default_factory=lambda: [0, 0])
    fixes: list[str] = field(default_factory=list)
    names: tuple[str, str] = ("seat0", "seat1")
    seconds: float = 0.0

    def score_line(self) -> str:
        """``SCORE:<chips>|<chips>:<name>|<name>``, the line ``dealer.c`` prints last."""
        values = "|".join(f"{float(t):.6f}".rstrip("0").rstrip(".") for t in self.totals)
        return f"SCORE:{values}:{'|'.join(self.names)}"

    def as_dict(self) -> dict[str, Any]:
        """JSON-able summary (no per-hand records)."""
        return {
            "hands": len(self.hands),
            "totals": [float(t) for t in self.totals],
            "names": list(self.names),
            "invalid": list(self.invalid),
            "seconds": self.seconds,
        }


def read_action(
    game: AcpcGame, state: BettingState, text: str
) -> tuple[tuple[int, int], str | None]:
    """The action the dealer plays for a player's answer ``text`` (after the match state's
    ``:``), and why it was changed (None when played as sent).

    ``game.c``'s ``readAction`` and ``isValidAction(tryFixing=1)``: ``f``, ``c``/``k``,
    ``r<N>``/``b<N>`` (either case); a raise below the smallest or above the largest legal size
    is resized to it; an unreadable action, a fold with nothing to call, a raise where none is
    allowed become a call."""
    rules = game.rules
    p = state.to_act
    call = (
        (CHECK, state.bets[p])
        if state.to_call() <= 0
        else (
            CALL,
            min(max(state.bets), state.bets[p] + state.behind(rules, p)),
        )
    )
    m = _ACTION.match(text)
    if m is None:
        return call, f"unreadable action {text[:40]!r}: played as a call"
    letter, digits = m.group(1).lower(), m.group(2)
    if letter == "f":
        if state.to_call() <= 0:
            return call, "a fold with nothing to call: played as a call"
        return (FOLD, 0), None
    if letter in "ck":
        return call, None
    if not digits or digits == "-":
        return call, f"a raise without a size {text[:40]!r}: played as a call"
    bounds = game.raise_bounds_total(state)
    if bounds is None:
        return call, f"a raise ({text[:40]!r}) where none is allowed: played as a call"
    total = int(digits)
    why = None
    if total < bounds[0]:
        why = f"raise {text[:40]!r} below the smallest, r{bounds[0]}: raised to it"
        total = bounds[0]
    elif total > bounds[1]:
        why = f"raise {text[:40]!r} above the largest, r{bounds[1]}: lowered to it"
        total = bounds[1]
    amount = total - (state.contrib[p] - state.bets[p])
    return (state.raise_kind(rules, amount), amount), why


def _same_state(a: MatchState, b: MatchState) -> bool:
    """``game.c``'s ``matchStatesEqual``: the same receiver, hand, betting and board, and the
    receiver's own cards (the others' are not compared)."""
    return (
        a.position == b.position
        and a.hand == b.hand
        and a.betting == b.betting
        and a.board == b.board
        and a.holes[a.position] == b.holes[b.position]
    )


class _Seat:
    """One connected player: its socket and a line reader."""

    def __init__(self, conn: socket.socket, timeout: float | None) -> None:
        conn.settimeout(timeout)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.conn = conn
        self.reader: BinaryIO = conn.makefile("rb")

    def send(self, line: str) -> None:
        self.conn.sendall((line + "\r\n").encode("ascii"))

    def read(self) -> str | None:
        raw = self.reader.readline()
        if not raw:
            return None
        return raw.decode("ascii", errors="replace").rstrip("\r\n")

    def close(self) -> None:
        try:
            self.reader.close()
        finally:
            self.conn.close()


class AcpcDealer:
    """A heads-up ACPC match of ``hands`` hands of ``game`` (module docstring).

    The listening sockets open here (``host``, ``ports``: 0 picks a free port; read the
    chosen ones from :attr:`ports`); :meth:`run` waits for both players, plays the match and
    closes every socket. ``timeout``: seconds to wait for a connection or an answer (None:
    forever); ``invalid``: ``"call"`` (ACPC) or ``"error"``; ``log``: called with each line
    sent (``TO k``) and received (``FROM k``)."""

    def __init__(
        self,
        game: AcpcGame,
        hands: int,
        seed: int = 0,
        *,
        host: str = "127.0.0.1",
        ports: Sequence[int] = (0, 0),
        fixed_seats: bool = False,
        timeout: float | None = 600.0,
        invalid: str = "call",
        names: Sequence[str] = ("seat0", "seat1"),
        log: Callable[[str], None] | None = None,
    ) -> None:
        if isinstance(hands, bool) or not isinstance(hands, int) or hands < 1:
            raise PokerlabError(f"ACPC dealer: hands must be a whole number >= 1, got {hands!r}")
        if invalid not in ("call", "error"):
            raise PokerlabError(f"ACPC dealer: invalid must be 'call' or 'error', got {invalid!r}")
        if len(ports) != 2 or len(names) != 2:
            raise PokerlabError("ACPC dealer: give two ports and two names, one per seat")
        self.game, self.hands, self.seed = game, hands, seed_int(seed)
        self.fixed_seats, self.timeout, self.invalid = fixed_seats, timeout, invalid
        self.names = (str(names[0]), str(names[1]))
        self.log = log
        self._listen: list[socket.socket] = []
        try:
            for port in ports:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                self._listen.append(s)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((host, int(port)))
                s.listen(1)
        except OSError as exc:
            self.close()
            raise PokerlabError(f"ACPC dealer: could not listen on {host} {ports}: {exc}") from None
        self.ports: tuple[int, ...] = tuple(s.getsockname()[1] for s in self._listen)

    def close(self) -> None:
        """Close the listening sockets (the match's connections close when :meth:`run` ends)."""
        for s in self._listen:
            s.close()

    def _accept(self) -> list[_Seat]:
        seats: list[_Seat] = []
        for k, s in enumerate(self._listen):
            s.settimeout(self.timeout)
            try:
                conn, _ = s.accept()
            except TimeoutError:
                for seat in seats:
                    seat.close()
                raise PokerlabError(
                    f"ACPC dealer: no player connected to seat {k}'s port {self.ports[k]} "
                    f"within {self.timeout} s"
                ) from None
            s.close()
            seats.append(_Seat(conn, self.timeout))
        return seats

    def _say(self, text: str) -> None:
        if self.log:
            self.log(text)

    def _read_line(self, seats: list[_Seat], k: int, what: str) -> str:
        try:
            line = seats[k].read()
        except TimeoutError:
            raise PokerlabError(
                f"ACPC dealer: seat {k} sent no {what} within {self.timeout} s"
            ) from None
        except OSError as exc:
            raise PokerlabError(f"ACPC dealer: reading seat {k} failed: {exc}") from None
        if line is None:
            raise PokerlabError(f"ACPC dealer: seat {k} closed the connection (waiting for {what})")
        self._say(f"FROM {k} {line}")
        return line

    def _message(self, h: int, position: int, state: BettingState, betting: list[list[str]],
                 cards: list[int]) -> MatchState:  # fmt: skip
        """Position ``position``'s view of hand ``h``: its own cards, the others' at a
        showdown, the board up to the round reached."""
        game = self.game
        rules = game.rules
        holes = []
        for pos in range(2):
            seat = game.seat(pos)
            show = pos == position or state.status == "showdown"
            holes.append(tuple(cards[2 * seat : 2 * seat + 2]) if show else ())
        board = [()] + [
            tuple(cards[4 + rules.board_size(r - 1) : 4 + rules.board_size(r)])
            for r in range(1, state.street + 1)
        ]
        rounds = tuple(tuple(b) for b in betting[: state.street + 1])
        rounds += ((),) * (state.street + 1 - len(rounds))
        return MatchState(position, h, rounds, tuple(holes), tuple(board))

    def _ask(self, seats: list[_Seat], k: int, sent: MatchState, state: BettingState,
             result: DealerResult) -> tuple[int, int]:  # fmt: skip
        """Seat ``k``'s action for the state ``sent`` (module docstring: ignored lines,
        fixes)."""
        while True:
            line = self._read_line(seats, k, "action")
            if not line or line[0] in "#;":
                continue
            try:
                got, text = parse_response(line)
            except PokerlabError:
                try:  # a state without ':' and an action: an unreadable action (a call)
                    got, text = parse_matchstate(line), ""
                except PokerlabError:
                    self._say(f"dealer: ignoring an unreadable answer from seat {k}")
                    continue
            if not _same_state(got, sent):
                self._say(f"dealer: ignoring an answer of seat {k} to another state")
                continue
            if self.invalid == "error":
                try:
                    return self.game.to_action(state, text)
                except PokerlabError as exc:
                    raise PokerlabError(
                        f"ACPC dealer: seat {k} (hand {sent.hand}): {exc}"
                    ) from None
            action, why = read_action(self.game, state, text)
            if why is not None:
                result.invalid[k] += 1
                result.fixes.append(f"hand {sent.hand}, seat {k}: {why}")
                self._say(f"dealer: WARNING {why}")
            return action

    def run(self) -> DealerResult:
        """Wait for both players, play the match, close every socket; the result holds every
        hand and each seat's total."""
        from pokerlab.evaluate.nolimit.matches import deal_cards, showdown_values
        from pokerlab.games.nolimit.rules import payoffs

        t0 = time.perf_counter()
        game, rules = self.game, self.game.rules
        result = DealerResult(names=self.names)
        seats = self._accept()
        try:
            for k in range(2):
                line = self._read_line(seats, k, "version line")
                if not _VERSION.match(line):
                    raise PokerlabError(
                        f"ACPC dealer: seat {k} sent {line[:60]!r}, not a version line "
                        "(VERSION:2.0.0)"
                    )
            deals = deal_cards(rules, self.hands, generator(self.seed))
            values = showdown_values(rules, deals)
            for h in range(self.hands):
                player0 = 0 if self.fixed_seats else h % 2  # the seat in position 0
                positions = tuple((k - player0) % 2 for k in range(2))
                cards = [int(c) for c in deals[h].tolist()]
                state = rules.initial_state()
                betting: list[list[str]] = [[]]
                history: list[tuple[int, int, int]] = []
                while True:
                    sent = [self._message(h, positions[k], state, betting, cards) for k in range(2)]
                    for k in range(2):
                        line = sent[k].text()
                        try:
                            seats[k].send(line)
                        except OSError as exc:
                            raise PokerlabError(
                                f"ACPC dealer: could not send to seat {k}: {exc}"
                            ) from None
                        self._say(f"TO {k} {line}")
                    if state.is_terminal():
                        break
                    k = positions.index(game.position(state.to_act))
                    kind, amount = self._ask(seats, k, sent[k], state, result)
                    token = game.action_token(state, (kind, amount))
                    history.append((state.to_act, kind, amount))
                    state = state.apply(rules, kind, amount)
                    betting[-1].append(token)
                    while len(betting) < state.street + 1:
                        betting.append([])
                shown = None if state.status == "fold" else values[h].tolist()
                chips = payoffs(rules, state, shown)
                by_seat = (chips[game.seat(positions[0])], chips[game.seat(positions[1])])
                for k in range(2):
                    result.totals[k] += by_seat[k]
                result.hands.append(
                    DealerHand(
                        h,
                        positions,  # type: ignore[arg-type]
                        "/".join("".join(r) for r in betting),
                        tuple(cards),
                        by_seat,
                        tuple(history),
                    )
                )
        finally:
            for seat in seats:
                seat.close()
            self.close()
        result.seconds = time.perf_counter() - t0
        return result
