"""The ACPC dealer protocol for heads-up no-limit hold'em (issue 25, "Playing"): match-state
messages parsed and written and mapped onto pokerlab's rules. The TCP client that plays an agent
(:func:`pokerlab.evaluate.nolimit.acpc.play_acpc`) and a local dealer
(:mod:`pokerlab.evaluate.nolimit.acpc_dealer`) sit with the agents, a layer above.

What this follows
    The ACPC protocol specification, version 2.0.0 (October 2010), and the reference server's
    ``game.c`` and ``dealer.c`` (the University of Alberta's ``project_acpc_server``), read for
    the grammar and the game logic; the code here is ours.

Messages
    Their grammar (match states, answers, cards) is :mod:`pokerlab.interop.acpc_messages`;
    this module replays a match state on the rules. Its names are importable from here too.

Positions and seats
    ``position`` 0 is the first player of the game definition. In the ACPC heads-up no-limit
    game (``holdem.nolimit.2p.reverse_blinds.game``: ``blind = 100 50``, ``firstPlayer =
    2 1 1 1``) position 0 posts the big blind and acts first after the flop, position 1 is the
    button: it posts the small blind and acts first before the flop. pokerlab's heads-up seat 0
    is the button (small blind), seat 1 the big blind, so with reverse blinds (the default of
    :class:`AcpcGame`) seat = 1 - position; a game definition with ``blind = 50 100``,
    ``firstPlayer = 1 2 2 2`` has seat = position (``reverse_blinds=False``).
    :meth:`AcpcGame.gamedef` writes the game definition that matches the rules.

Chips
    An ACPC raise size is the raiser's total over the hand (``spent`` in ``game.c``); a
    pokerlab amount is the raiser's total on the current street
    (:class:`~pokerlab.games.nolimit.rules.BettingState`): the two differ by what the raiser put
    in on earlier streets, ``contrib - bets``. Stacks are whole-hand stacks in both (the blinds
    come out of them). The game logic agrees with the rules module's heads-up: a bet is at least
    the big blind, a raise raises by at least the largest bet or raise of the round, an all-in
    may be smaller, and a player may not fold when checking is free. ACPC games have no antes:
    rules with an ante are refused, as are more than two players (ring games are outside this
    module) and fixed-limit betting strings.

Errors
    A malformed message, an action that is illegal in the rules (a raise beyond the stack: the
    dealer's game is not the agent's), or cards outside the game's deck raise
    :class:`~pokerlab.errors.PokerlabError` naming the bad token.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from pokerlab.cards.deck import RANKS
from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit.rules import (
    CALL,
    CHECK,
    FOLD,
    BettingState,
    NoLimitRules,
    payoffs,
)
from pokerlab.interop.acpc_messages import (
    _NUMBER,
    VERSION,
    MatchState,
    _shown,
    format_cards,
    parse_card_run,
    parse_matchstate,
    parse_response,
)

#: ``(kind, amount)``: an action of the rules (amount = the actor's street total after it).
Action = tuple[int, int]

__all__ = [
    "VERSION",
    "AcpcGame",
    "MatchState",
    "Replay",
    "parse_matchstate",
    "parse_response",
    "format_cards",
    "parse_card_run",
]


# -- the game -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Replay:
    """A match state replayed on the rules: what the receiver's agent is shown.

    ``seat``: the receiver's pokerlab seat; ``state``: the betting state after the actions;
    ``board``: the cards showing; ``history``: every action as ``(seat, kind, amount)`` in
    pokerlab seats and street amounts (what an agent's ``PublicView`` holds); ``hole``: the
    receiver's cards; ``shown``: every seat's cards where the message shows them (``None``
    where not)."""

    message: MatchState
    rules: NoLimitRules
    seat: int
    state: BettingState
    board: tuple[int, ...]
    history: tuple[tuple[int, int, int], ...]
    hole: tuple[int, int]
    shown: tuple[tuple[int, int] | None, ...]

    @property
    def finished(self) -> bool:
        """Whether the hand is over."""
        return self.state.is_terminal()

    @property
    def on_move(self) -> bool:
        """Whether the receiver must answer with an action."""
        return not self.finished and self.state.to_act == self.seat

    def chips(self) -> list[Fraction]:
        """Each seat's net chips at the end of the hand (:func:`~pokerlab.games.nolimit.rules.
        payoffs`; a showdown needs both hands, which the final message shows)."""
        state, rules = self.state, self.rules
        if not state.is_terminal():
            raise PokerlabError(f"hand {self.message.hand} is not over")
        if state.status == "fold":
            return payoffs(rules, state)
        from pokerlab.cards.evaluator import evaluate_batch

        if any(h is None for h in self.shown):
            raise PokerlabError(
                f"hand {self.message.hand} ends in a showdown but the message does not show "
                f"every hand: {_shown(self.message.text())!r}"
            )
        rows = np.asarray([[*h, *self.board] for h in self.shown], dtype=np.uint8)  # type: ignore[misc]
        values = [int(v) for v in evaluate_batch(rows)]
        return payoffs(rules, state, values)


@dataclass(frozen=True)
class AcpcGame:
    """A heads-up no-limit game of pokerlab's rules as an ACPC game (module docstring):
    ``reverse_blinds`` (default, the ACPC HUNL game) puts the big blind in position 0."""

    rules: NoLimitRules
    reverse_blinds: bool = True

    def __post_init__(self) -> None:
        rules = self.rules
        if rules.players != 2:
            raise PokerlabError(
                f"ACPC: heads-up games only, and this game has {rules.players} players"
            )
        if rules.ante:
            raise PokerlabError(f"ACPC: games have no antes, and this one has {rules.ante}")

    def seat(self, position: int) -> int:
        """pokerlab's seat of an ACPC position."""
        return 1 - position if self.reverse_blinds else position

    def position(self, seat: int) -> int:
        """The ACPC position of a pokerlab seat (the map is its own inverse)."""
        return self.seat(seat)

    def gamedef(self) -> str:
        """The ACPC game definition of these rules (``game.c``'s ``readGame`` keys), for the
        ACPC dealer: stacks and blinds in position order, 1-based first players per round."""
        r = self.rules
        order = [self.seat(p) for p in range(2)]
        first = [self.position(r.first_to_act(k)) + 1 for k in range(r.rounds)]
        board = [r.board_size(k) - (r.board_size(k - 1) if k else 0) for k in range(r.rounds)]
        return (
            "GAMEDEF\nnolimit\nnumPlayers = 2\n"
            f"numRounds = {r.rounds}\n"
            f"stack = {' '.join(str(r.stacks[s]) for s in order)}\n"
            f"blind = {' '.join(str(r.blind(s)) for s in order)}\n"
            f"firstPlayer = {' '.join(map(str, first))}\n"
            f"numSuits = 4\nnumRanks = {r.ranks}\nnumHoleCards = 2\n"
            f"numBoardCards = {' '.join(map(str, board))}\nEND GAMEDEF\n"
        )

    # -- actions --------------------------------------------------------------------------
    def raise_bounds_total(self, state: BettingState) -> tuple[int, int] | None:
        """The smallest and largest legal raise of the seat on move in ACPC chips (totals over
        the hand), or None when it may not raise."""
        bounds = state.raise_bounds(self.rules)
        if bounds is None:
            return None
        before = state.contrib[state.to_act] - state.bets[state.to_act]
        return bounds[0] + before, bounds[1] + before

    def to_action(self, state: BettingState, token: str) -> Action:
        """The rules' ``(kind, amount)`` of an ACPC action token (``f``, ``c``, ``r<N>``) for
        the seat on move; :class:`~pokerlab.errors.PokerlabError` naming the token when it is
        not legal there (a fold with nothing to call, a raise out of bounds or over the
        stack)."""
        rules = self.rules
        if state.is_terminal():
            raise PokerlabError(f"ACPC action {token!r} after the end of the hand")
        p = state.to_act
        if token == "f":
            if state.to_call() <= 0:
                raise PokerlabError(
                    "ACPC action 'f': a fold is not valid when checking is free (protocol 2.0)"
                )
            return (FOLD, 0)
        if token == "c":
            if state.to_call() <= 0:
                return (CHECK, state.bets[p])
            return (CALL, min(max(state.bets), state.bets[p] + state.behind(rules, p)))
        if not (token.startswith("r") and _NUMBER.fullmatch(token[1:])):
            raise PokerlabError(f"ACPC action {token!r} is not f, c or r<chips>")
        total = int(token[1:])
        if total > rules.stacks[p]:
            raise PokerlabError(
                f"ACPC action {token!r} raises to more than the stack of {rules.stacks[p]:,} "
                f"chips of position {self.position(p)}: is the dealer's game definition this "
                "game's (stacks, blinds)?"
            )
        bounds = self.raise_bounds_total(state)
        if bounds is None:
            raise PokerlabError(
                f"ACPC action {token!r}: position {self.position(p)} may not raise here"
            )
        if not bounds[0] <= total <= bounds[1]:
            raise PokerlabError(
                f"ACPC action {token!r} is outside the legal raises r{bounds[0]}..r{bounds[1]}"
            )
        amount = total - (state.contrib[p] - state.bets[p])
        return state.raise_kind(rules, amount), amount

    def replay(self, message: MatchState) -> Replay:
        """Replay ``message``'s betting on the rules from the blinds, checking every action,
        the round separators and the cards (counts per round, the deck, no card twice);
        errors name the bad token."""
        rules = self.rules
        state = rules.initial_state()
        history: list[tuple[int, int, int]] = []
        for rnd, tokens in enumerate(message.betting):
            for token in tokens:
                if state.is_terminal() or state.street != rnd:
                    raise PokerlabError(
                        f"match state {_shown(message.text())!r}: the action {token!r} is in "
                        f"round {rnd + 1}, but "
                        + (
                            "the hand is over"
                            if state.is_terminal()
                            else f"the betting is in round {state.street + 1}"
                        )
                    )
                kind, amount = self.to_action(state, token)
                history.append((state.to_act, kind, amount))
                state = state.apply(rules, kind, amount)
        if len(message.betting) != state.street + 1:
            raise PokerlabError(
                f"match state {_shown(message.text())!r}: the betting "
                f"{message.betting_text()!r} is in round {state.street + 1} but has "
                f"{len(message.betting)} round(s) separated by '/'"
            )
        shown_rounds = state.street + 1
        for rnd in range(shown_rounds):
            want = rules.board_size(rnd) - (rules.board_size(rnd - 1) if rnd else 0)
            if len(message.board[rnd]) != want:
                raise PokerlabError(
                    f"match state {_shown(message.text())!r}: round {rnd + 1} shows "
                    f"{len(message.board[rnd])} board card(s), this game deals {want}"
                )
        board = tuple(c for part in message.board for c in part)
        seat = self.seat(message.position)
        shown: list[tuple[int, int] | None] = [None, None]
        for pos, cards in enumerate(message.holes):
            if cards:
                if len(cards) != 2:
                    raise PokerlabError(
                        f"match state {_shown(message.text())!r}: position {pos} shows "
                        f"{len(cards)} hole card(s), not 2"
                    )
                shown[self.seat(pos)] = (cards[0], cards[1])
        if shown[seat] is None:
            raise PokerlabError(
                f"match state {_shown(message.text())!r}: no hole cards for the receiver's "
                f"position {message.position}"
            )
        other = 1 - seat
        if shown[other] is not None and not (state.status == "showdown"):
            raise PokerlabError(
                f"match state {_shown(message.text())!r}: the opponent's cards show before a "
                "showdown"
            )
        every = [c for h in shown if h is not None for c in h] + list(board)
        lowest = 4 * (13 - rules.ranks)
        for c in every:
            if c < lowest:
                raise PokerlabError(
                    f"match state {_shown(message.text())!r}: the card "
                    f"{format_cards([c])!r} is not in this game's deck of {4 * rules.ranks} "
                    f"cards ({RANKS[13 - rules.ranks]} to A)"
                )
        if len(set(every)) != len(every):
            twice = sorted({c for c in every if every.count(c) > 1})
            raise PokerlabError(
                f"match state {_shown(message.text())!r}: the card "
                f"{format_cards(twice[:1])!r} is dealt twice"
            )
        hole = shown[seat]
        return Replay(message, rules, seat, state, board, tuple(history), hole, tuple(shown))  # type: ignore[arg-type]

    def action_token(self, state: BettingState, action: Action) -> str:
        """The ACPC token of the rules' action ``(kind, amount)`` of the seat on move:
        ``f``, ``c`` (check or call) or ``r<N>``, N the seat's total over the hand; an
        illegal action raises :class:`~pokerlab.errors.PokerlabError` naming it."""
        kind, amount = int(action[0]), int(action[1])
        if state.is_terminal():
            raise PokerlabError(f"action {action!r} after the end of the hand")
        p = state.to_act
        if kind == FOLD and state.to_call() > 0:
            return "f"
        if kind in (CHECK, CALL) and (kind == CHECK) == (state.to_call() <= 0):
            return "c"
        if kind not in (FOLD, CHECK, CALL):
            bounds = state.raise_bounds(self.rules)
            if bounds is not None and bounds[0] <= amount <= bounds[1]:
                return f"r{state.contrib[p] - state.bets[p] + amount}"
        raise PokerlabError(
            f"action {action!r} is not legal for seat {p} on street {state.street} "
            f"(legal: {state.legal_actions(self.rules)}; raises any amount between the two)"
        )
