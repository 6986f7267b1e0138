"""No-limit hold'em rules for 2 to 6 players: seats, blinds, antes, the betting state machine,
and the payoffs of a finished hand with side pots.

Seats and order
    Seat 0 posts the small blind, seat 1 the big blind, seats 2.. follow clockwise; the last
    seat is the button. With three or more players the first seat after the big blind (seat 2,
    "under the gun") acts first before the flop and seat 0 first after it. Heads-up the button
    posts the small blind: seat 0 acts first before the flop and last after it (seat 1 first),
    as in the ACPC heads-up rules (whose HUNL game string numbers the big blind seat 0: here
    it is seat 1, so an equal gamedef says ``blind = 50 100``, ``firstPlayer = 1 2 2 2``).
    Every seat posts the ante first; antes are dead money (not part of a street's bets).

Amounts
    Integer chips. An action's amount is the actor's chips for the street after it ("raise to",
    the blinds included before the flop); :attr:`BettingState.contrib` is what each seat has put
    in the pot during the hand.

Minimum raise and reopening (the Poker Tournament Directors Association rules, 2019 and 2022
editions: rule 43 "Raise Amounts" and rule 47 "Re-Opening the Bet", with its addendum's example 1)
    A bet is at least the big blind; a raise raises by at least the largest full bet or raise
    increment made on the street (the big blind before any). A player may always go all-in for
    less. An all-in short of a full raise does not reopen the betting to a player who has already
    acted on the street: that player may only fold or call, unless the bets made since they last
    acted add up to at least a full raise (several short all-ins together); the minimum raise stays
    the last full increment. A player whose opponents are all all-in or folded may not raise.

A betting round ends when every player still able to act (not folded, not all-in) has acted on
the street and matched the highest bet. When at most one player can act, the board runs out
without betting. The hand ends when all but one player have folded, or with a showdown after the
last round; :func:`payoffs` splits the main and side pots.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from pokerlab.errors import PokerlabError
from pokerlab.games.postflop.actions import ALLIN, BET, CALL, CHECK, FOLD, RAISE

__all__ = [
    "FOLD",
    "CHECK",
    "CALL",
    "BET",
    "RAISE",
    "ALLIN",
    "STREETS",
    "NoLimitRules",
    "BettingState",
    "payoffs",
]

STREETS = ("preflop", "flop", "turn", "river")
MAX_PLAYERS = 6


@dataclass(frozen=True)
class NoLimitRules:
    """The table: players, stacks and blinds in chips, the deck and the rounds played.

    Attributes
    ----------
    players:
        2 to 6.
    stacks:
        Chips of each seat at the start of the hand (one per seat).
    small_blind, big_blind, ante:
        Chips posted by seat 0, seat 1 and every seat.
    ranks:
        Ranks of the deck, the top ones (13: 52 cards; 3: Q..A, 12 cards).
    rounds:
        Betting rounds played, 2 to 4 (fewer ends the hand with a showdown on the flop or turn).
    short_allin_reopens:
        False (default): the TDA rule above. True: every raise, a short all-in too, reopens the
        betting, as OpenSpiel's ``universal_poker`` (the ACPC dealer's game logic) does: for
        cross-checks; the two differ only where stacks are unequal.
    """

    players: int
    stacks: tuple[int, ...]
    small_blind: int
    big_blind: int
    ante: int = 0
    ranks: int = 13
    rounds: int = 4
    short_allin_reopens: bool = False

    def __post_init__(self) -> None:
        if not 2 <= self.players <= MAX_PLAYERS:
            raise PokerlabError(
                f"nolimit-holdem: players must be 2 to {MAX_PLAYERS}, got {self.players}"
            )
        if len(self.stacks) != self.players:
            raise PokerlabError(
                f"nolimit-holdem: {len(self.stacks)} stacks given for {self.players} players"
            )
        if not 0 <= self.small_blind <= self.big_blind or self.big_blind <= 0:
            raise PokerlabError(
                "nolimit-holdem: blinds must satisfy 0 <= small blind <= big blind and big blind"
                f" > 0, got ({self.small_blind}, {self.big_blind})"
            )
        if self.ante < 0:
            raise PokerlabError(f"nolimit-holdem: the ante must be >= 0, got {self.ante}")
        for seat, stack in enumerate(self.stacks):
            posted = self.ante + self.blind(seat)
            if stack <= posted:
                raise PokerlabError(
                    f"nolimit-holdem: blinds above the stack: seat {seat} has {stack} chips, "
                    f"not more than its ante and blind ({posted})"
                )
        if not 2 <= self.ranks <= 13:
            raise PokerlabError(f"nolimit-holdem: ranks must be 2 to 13, got {self.ranks}")
        if not 2 <= self.rounds <= 4:
            raise PokerlabError(f"nolimit-holdem: rounds must be 2 to 4, got {self.rounds}")
        need = 2 * self.players + self.board_size(self.rounds - 1)
        if need > 4 * self.ranks:
            raise PokerlabError(
                f"nolimit-holdem: a deck of {4 * self.ranks} cards is too small for "
                f"{self.players} players: they need {2 * self.players} hole cards plus "
                f"{self.board_size(self.rounds - 1)} board cards"
            )

    def blind(self, seat: int) -> int:
        """Blind posted by ``seat`` (chips)."""
        return self.small_blind if seat == 0 else self.big_blind if seat == 1 else 0

    def position(self, seat: int) -> str:
        """The seat's table position: ``SB``, ``BB``, then counting back from the button
        ``UTG``, ``HJ``, ``CO``, ``BTN`` (6 players: UTG HJ CO BTN; 3: BTN); heads-up seat 0 is
        ``BTN/SB``."""
        if not 0 <= seat < self.players:
            raise PokerlabError(f"no seat {seat} at a table of {self.players}")
        if self.players == 2:
            return ("BTN/SB", "BB")[seat]
        if seat < 2:
            return ("SB", "BB")[seat]
        return ("BTN", "CO", "HJ", "UTG")[self.players - 1 - seat]

    def board_size(self, street: int) -> int:
        """Board cards showing during ``street`` (0 preflop, 3 flop, 4 turn, 5 river)."""
        return (0, 3, 4, 5)[street]

    def first_to_act(self, street: int) -> int:
        """The seat that acts first on ``street`` when able (see the module docstring)."""
        if self.players == 2:
            return 0 if street == 0 else 1
        return 2 % self.players if street == 0 else 0

    def initial_state(self) -> BettingState:
        """The state after the antes and blinds, the first player to act on move."""
        bets = tuple(self.blind(s) for s in range(self.players))
        contrib = tuple(self.ante + b for b in bets)
        state = BettingState(
            street=0,
            contrib=contrib,
            bets=bets,
            folded=(False,) * self.players,
            acted=(-1,) * self.players,
            to_act=-1,
            min_raise=self.big_blind,
            raises=0,
        )
        return state._next(self, self.first_to_act(0) - 1)


@dataclass(frozen=True)
class BettingState:
    """Public betting state; the state is its own memo key (equal states, equal subtrees).

    ``contrib``: chips each seat has put in during the hand; ``bets``: chips each seat has put in
    on this street (blinds included preflop, antes not); ``acted``: -1 for a seat that has not
    acted on this street, else the highest street bet right after its last action;
    ``to_act``: the seat on move, -1 when the hand is over (``street`` is then the last street
    reached with betting or the last round for a showdown); ``min_raise``: the last full bet or
    raise increment on the street; ``raises``: bets and raises made on the street (full or not;
    the blinds are not counted). ``status``: ``"act"``, ``"fold"`` or ``"showdown"``.
    """

    street: int
    contrib: tuple[int, ...]
    bets: tuple[int, ...]
    folded: tuple[bool, ...]
    acted: tuple[int, ...]
    to_act: int
    min_raise: int
    raises: int
    status: str = "act"

    # -- queries ---------------------------------------------------------------------------
    def behind(self, rules: NoLimitRules, seat: int) -> int:
        """Chips ``seat`` still has."""
        return rules.stacks[seat] - self.contrib[seat]

    def is_terminal(self) -> bool:
        return self.status != "act"

    def pot(self) -> int:
        """Chips in the middle (antes, blinds and every bet so far)."""
        return sum(self.contrib)

    def to_call(self) -> int:
        """Chips the seat on move must add to match the highest bet (before any all-in cap)."""
        return max(self.bets) - self.bets[self.to_act]

    def can_raise(self, rules: NoLimitRules) -> bool:
        """Whether the seat on move may bet or raise (module docstring: reopening rule)."""
        p = self.to_act
        top = max(self.bets)
        if self.behind(rules, p) <= top - self.bets[p]:
            return False  # calling puts it all in
        others = [
            s
            for s in range(rules.players)
            if s != p and not self.folded[s] and self.behind(rules, s) > 0
        ]
        if not others:
            return False
        if self.acted[p] < 0 or rules.short_allin_reopens and top > self.acted[p]:
            return True
        return top - self.acted[p] >= self.min_raise

    def raise_bounds(self, rules: NoLimitRules) -> tuple[int, int] | None:
        """(smallest, largest) legal raise-to amounts of the seat on move, or None; the smallest
        is the all-in when the stack is short of a full raise."""
        if not self.can_raise(rules):
            return None
        p = self.to_act
        allin = self.bets[p] + self.behind(rules, p)
        return min(max(self.bets) + self.min_raise, allin), allin

    def legal_actions(self, rules: NoLimitRules) -> list[tuple[int, int]]:
        """Every legal (kind, amount) but the raises, plus the smallest and largest raise."""
        p = self.to_act
        out: list[tuple[int, int]] = []
        if self.to_call() > 0:
            out.append((FOLD, 0))
            out.append((CALL, min(max(self.bets), self.bets[p] + self.behind(rules, p))))
        else:
            out.append((CHECK, self.bets[p]))
        bounds = self.raise_bounds(rules)
        if bounds is not None:
            for amount in sorted(set(bounds)):
                out.append((self.raise_kind(rules, amount), amount))
        return out

    def raise_kind(self, rules: NoLimitRules, amount: int) -> int:
        """BET, RAISE or ALLIN for a raise to ``amount`` by the seat on move."""
        if amount == self.bets[self.to_act] + self.behind(rules, self.to_act):
            return ALLIN
        return RAISE if max(self.bets) > 0 else BET

    # -- transitions -----------------------------------------------------------------------
    def apply(self, rules: NoLimitRules, kind: int, amount: int = 0) -> BettingState:
        """The state after the seat on move plays ``kind`` (raises: to ``amount`` chips on the
        street). Illegal actions raise :class:`~pokerlab.errors.PokerlabError`."""
        if self.status != "act":
            raise PokerlabError("the hand is over: no action can be played")
        p = self.to_act
        top = max(self.bets)
        bets = list(self.bets)
        contrib = list(self.contrib)
        folded = list(self.folded)
        min_raise, raises = self.min_raise, self.raises
        if kind == FOLD:
            if self.to_call() <= 0:
                raise PokerlabError("fold is not offered when there is nothing to call")
            folded[p] = True
        elif kind in (CHECK, CALL):
            if (kind == CHECK) != (self.to_call() <= 0):
                raise PokerlabError("check only with nothing to call, call only facing a bet")
            add = min(top - bets[p], self.behind(rules, p))
            bets[p] += add
            contrib[p] += add
        elif kind in (BET, RAISE, ALLIN):
            bounds = self.raise_bounds(rules)
            if bounds is None:
                raise PokerlabError(f"seat {p} may not raise here")
            if not bounds[0] <= amount <= bounds[1]:
                raise PokerlabError(
                    f"a raise to {amount} is outside the legal {bounds[0]}..{bounds[1]}"
                )
            if amount - top >= min_raise:
                min_raise = amount - top  # a full raise sets the new increment
            raises += 1
            contrib[p] += amount - bets[p]
            bets[p] = amount
        else:
            raise PokerlabError(f"unknown action kind {kind!r}")
        acted = list(self.acted)
        acted[p] = max(bets)
        state = BettingState(
            self.street,
            tuple(contrib),
            tuple(bets),
            tuple(folded),
            tuple(acted),
            p,
            min_raise,
            raises,
        )
        return state._next(rules, p)

    def _moved(self, to_act: int, status: str = "act", street: int | None = None) -> BettingState:
        """This state with another seat on move (direct construction: the count's hot path)."""
        return BettingState(
            self.street if street is None else street,
            self.contrib,
            self.bets,
            self.folded,
            self.acted,
            to_act,
            self.min_raise,
            self.raises,
            status,
        )

    def _needs_to_act(self, rules: NoLimitRules, seat: int) -> bool:
        if self.folded[seat] or self.behind(rules, seat) == 0:
            return False
        return self.acted[seat] < 0 or self.bets[seat] < max(self.bets)

    def _next(self, rules: NoLimitRules, last: int) -> BettingState:
        """Move to the next seat that must act after ``last``, or close the round."""
        if self.folded.count(False) == 1:
            return self._moved(-1, "fold")
        n = rules.players
        for k in range(1, n + 1):
            seat = (last + k) % n
            if self._needs_to_act(rules, seat):
                return self._moved(seat)
        return self._close_round(rules)

    def _close_round(self, rules: NoLimitRules) -> BettingState:
        able = [s for s in range(rules.players) if not self.folded[s] and self.behind(rules, s)]
        if self.street + 1 >= rules.rounds or len(able) <= 1:
            # the board runs out without betting
            return self._moved(-1, "showdown", street=rules.rounds - 1)
        fresh = BettingState(
            self.street + 1,
            self.contrib,
            (0,) * rules.players,
            self.folded,
            (-1,) * rules.players,
            -1,
            rules.big_blind,
            0,
        )
        return fresh._next(rules, rules.first_to_act(fresh.street) - 1)


def payoffs(
    rules: NoLimitRules, state: BettingState, strengths: Sequence[int] | None = None
) -> list[Fraction]:
    """Net chips won by each seat at the end of the hand (sums to zero).

    A fold ends the hand: the last seat in wins every chip. At a showdown (``strengths``: one
    hand value per seat, higher wins; folded seats' values are ignored) the pot is split into the
    main pot and side pots, one per distinct contribution level: the pot of level ``L`` (above
    the level below it) holds every seat's chips between the two levels and goes to the best
    hand among the seats still in that put in at least ``L``; equal best hands split it in equal
    shares (exact fractions; no odd-chip rule).
    """
    if state.status == "act":
        raise PokerlabError("the hand is not over")
    n = rules.players
    won = [Fraction(0)] * n
    if state.status == "fold":
        winner = state.folded.index(False)
        won[winner] = Fraction(state.pot())
    else:
        if strengths is None or len(strengths) != n:
            raise PokerlabError(f"a showdown needs {n} hand values, got {strengths!r}")
        below = 0
        for level in sorted(set(state.contrib)):
            layer = sum(min(c, level) - min(c, below) for c in state.contrib)
            eligible = [s for s in range(n) if not state.folded[s] and state.contrib[s] >= level]
            if not eligible:  # cannot happen: a seat folds only facing a larger bet
                raise PokerlabError(f"no seat still in reaches the pot level {level}")
            best = max(strengths[s] for s in eligible)
            winners = [s for s in eligible if strengths[s] == best]
            for s in winners:
                won[s] += Fraction(layer, len(winners))
            below = level
    return [won[s] - state.contrib[s] for s in range(n)]
