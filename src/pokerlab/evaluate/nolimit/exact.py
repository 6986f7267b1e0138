"""Exact best response to a heads-up no-limit hold'em agent on small decks (issues 24 and 25).

The walk is the public-tree best response of Johanson, Waugh, Bowling and Zinkevich
("Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011): one pass over
the public states (betting line and board) carrying, for every board of the current round at
once, a vector over the opponent's hole-card pairs (the agent's reach: the product of its action
probabilities along the line) down, and a vector over the responder's hole-card pairs
(counterfactual values, chips) up. At the responder's decisions each of its hands takes the
best of the game's actions; at the agent's decisions the children are summed; at the ends the
values count every opponent hand that shares no card with the responder's hand or the board.

The agent (:class:`~pokerlab.evaluate.nolimit.agents.NoLimitAgent`) is asked
:meth:`~pokerlab.evaluate.nolimit.agents.NoLimitAgent.action_probability` once per public state
of its own and action of the game (``abstract_actions`` of the game's action abstraction), for
the hands it still holds there with positive probability; public states it reaches with
probability 0 are never shown to it. An agent with a ``board_probabilities`` method (the
averaged translation of :mod:`.translated`) is asked once per betting state for every board.
An agent that puts probability on any other action is refused with the action named.

Chance: every triple (responder hand, opponent hand, board) of disjoint cards is equally likely
(the flop a set of three, then the turn and river cards), so a terminal's value for hand ``h``
sums the opponent's reach over compatible hands and each deal of a round weighs one over the
number of deals left. Payoffs are :func:`pokerlab.games.nolimit.rules.payoffs` (chips; showdowns
by the hand evaluator, ties split).

Suit isomorphism (an option, off by default; on by default only for agents that declare
``suit_blind = True``): an agent whose probabilities do not change when the suits of its cards
and of the board are permuted together gives equal values on boards that one permutation of the
suits fixing the board so far maps to each other, so each round's deals are walked once per
class (Waugh et al.'s suit isomorphism) and the others' values are the representative's with the
hands relabelled. It is exact for such agents (a blueprint on suit-canonical buckets, baselines
that ignore suits) and wrong for others.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from math import comb
from typing import Any

import numpy as np

from pokerlab._system import memory_available_or_physical
from pokerlab.cards.deck import format_cards
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import (
    KIND_NAMES,
    NoLimitAgent,
    PublicView,
    normalize_action,
)
from pokerlab.evaluate.nolimit.exact_deals import (
    _check_game,
    _Deck,
    _first_level,
    _Level,
    _next_level,
    _showdown_signs,
    estimate_exact_best_response,
)
from pokerlab.games.nolimit.actions import ActionAbstraction, abstract_actions
from pokerlab.games.nolimit.rules import STREETS, BettingState, NoLimitRules, payoffs
from pokerlab.games.nolimit.size import format_bytes

__all__ = [
    "ExactBestResponse",
    "exact_best_response",
    "estimate_exact_best_response",
    "mbb_per_game",
    "MAX_PUBLIC_STATES",
]

#: Default refusal threshold: public decision states (betting decisions times boards of their
#: round, after suit isomorphism when it is on) that one walk may visit.
MAX_PUBLIC_STATES = 20_000_000


def mbb_per_game(chips: float, big_blind: int) -> float:
    """Milli-big-blinds per game from chips per game (``big_blind`` chips to the big blind)."""
    return 1000.0 * float(chips) / float(big_blind)


@dataclass(frozen=True, eq=False)
class ExactBestResponse:
    """The exact best responses to an agent, in chips per game.

    ``best_response_values[p]``: what a best response in seat ``p`` wins per game against the
    agent in the other seat (chips, from seat ``p``'s side); ``exploitability``: their mean
    (the game is zero-sum, so the mean is 0 exactly when the agent is a Nash equilibrium of the
    game it plays); ``hand_values[p]``: seat ``p``'s best-response value given each of its hole
    pairs (:func:`~pokerlab.evaluate.nolimit.agents.deck_combos` order, chips).
    ``public_states``: the agent's decision states shown to it (betting line and board, the
    boards counted per class when suit isomorphism is on); ``queries``: its
    ``action_probability`` calls; ``seconds``: wall time of both walks.
    """

    best_response_values: tuple[float, float]
    exploitability: float
    big_blind: int
    hand_values: tuple[np.ndarray, np.ndarray] = field(repr=False)
    public_states: int
    queries: int
    suit_isomorphism: bool
    seconds: float

    @property
    def mbb_per_game(self) -> float:
        """Exploitability in milli-big-blinds per game."""
        return mbb_per_game(self.exploitability, self.big_blind)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready numbers (hand values left out)."""
        return {
            "best_response_values": list(self.best_response_values),
            "exploitability": self.exploitability,
            "mbb_per_game": self.mbb_per_game,
            "big_blind": self.big_blind,
            "public_states": self.public_states,
            "queries": self.queries,
            "suit_isomorphism": self.suit_isomorphism,
            "seconds": self.seconds,
        }


# -- boards per round ----------------------------------------------------------------------


class _Walk:
    def __init__(
        self,
        rules: NoLimitRules,
        abstraction: ActionAbstraction,
        agent: NoLimitAgent,
        deck: _Deck,
        levels: list[_Level],
    ) -> None:
        self.rules = rules
        self.abstraction = abstraction
        self.agent = agent
        self.deck = deck
        self.levels = levels
        self.name = getattr(agent, "name", type(agent).__name__)
        self.public_states = 0
        self.queries = 0
        self._actions: dict[BettingState, list[tuple[int, int]]] = {}

    def actions(self, state: BettingState) -> list[tuple[int, int]]:
        got = self._actions.get(state)
        if got is None:
            got = self._actions[state] = abstract_actions(self.rules, self.abstraction, state)
        return got

    # values of the ends ------------------------------------------------------------------
    def compatible_mass(self, reach: np.ndarray) -> np.ndarray:
        """For each board and hand h: the reach of the opponent hands sharing no card with h
        (the board's own cards are already out of ``reach``), float64 (B, H)."""
        d = self.deck
        per_card = reach @ d.incidence  # (B, cards)
        total = reach.sum(axis=1, keepdims=True)
        return total - per_card[:, d.local[:, 0]] - per_card[:, d.local[:, 1]] + reach

    def fold_value(self, k: int, reach: np.ndarray, pay: float) -> np.ndarray:
        return pay * self.compatible_mass(reach) * self.levels[k].valid

    def showdown_value(self, reach: np.ndarray, win: float, lose: float) -> np.ndarray:
        level = self.levels[-1]
        mass = self.compatible_mass(reach) * level.valid
        r = np.take_along_axis(reach, level.idx, axis=1)
        diff = np.matmul(level.sign, r[:, :, None])[:, :, 0]  # (B, n)
        out = 0.5 * (win + lose) * mass
        rows = np.arange(len(r))[:, None]
        out[rows, level.idx] += 0.5 * (win - lose) * diff
        return out

    def deal(self, k: int, reach: np.ndarray) -> np.ndarray:
        """The reach on round ``k``'s boards from round ``k - 1``'s."""
        level = self.levels[k]
        return reach[level.parent] * level.valid

    def fold_back(self, k: int, values: np.ndarray) -> np.ndarray:
        """Round ``k``'s values summed (chance-weighted) into round ``k - 1``'s boards."""
        level = self.levels[k]
        if level.fold_perm is None:
            rows = values[level.fold_child]
        else:
            rows = values[level.fold_child[:, None], level.fold_perm]
        return level.weight * np.add.reduceat(rows, level.starts, axis=0)

    def runout(self, k: int, reach: np.ndarray, win: float, lose: float) -> np.ndarray:
        if k == len(self.levels) - 1:
            return self.showdown_value(reach, win, lose)
        child = self.runout(k + 1, self.deal(k + 1, reach), win, lose)
        return self.fold_back(k + 1, child)

    # betting -----------------------------------------------------------------------------
    def child(
        self,
        state: BettingState,
        history: tuple[tuple[int, int, int], ...],
        k: int,
        reach: np.ndarray,
        action: tuple[int, int],
        responder: int,
    ) -> np.ndarray:
        kind, amount = action
        nxt = state.apply(self.rules, kind, amount)
        line = (*history, (state.to_act, kind, amount))
        if nxt.status == "fold":
            pay = float(payoffs(self.rules, nxt)[responder])
            return self.fold_value(k, reach, pay)
        if nxt.status == "showdown":
            strengths = [0, 0]
            strengths[responder] = 1
            win = payoffs(self.rules, nxt, strengths)[responder]
            strengths = [1 - s for s in strengths]
            lose = payoffs(self.rules, nxt, strengths)[responder]
            tie = payoffs(self.rules, nxt, [0, 0])[responder]
            if 2 * tie != win + lose:  # heads-up: a tie returns each seat's own chips
                raise PokerlabError(f"exact best response: uneven split at the showdown {line}")
            return self.runout(k, reach, float(win), float(lose))
        if nxt.street > state.street:
            values = self.walk(nxt, line, k + 1, self.deal(k + 1, reach), responder)
            return self.fold_back(k + 1, values)
        return self.walk(nxt, line, k, reach, responder)

    def walk(
        self,
        state: BettingState,
        history: tuple[tuple[int, int, int], ...],
        k: int,
        reach: np.ndarray,
        responder: int,
    ) -> np.ndarray:
        actions = self.actions(state)
        if state.to_act == responder:
            best: np.ndarray | None = None
            for action in actions:
                value = self.child(state, history, k, reach, action, responder)
                best = value if best is None else np.maximum(best, value)
            assert best is not None
            return best
        probs = self.agent_probs(state, history, k, reach, actions)
        total = np.zeros_like(reach)
        for a, action in enumerate(actions):
            sub = reach * probs[a]
            if sub.any():
                total += self.child(state, history, k, sub, action, responder)
        return total

    def agent_probs(
        self,
        state: BettingState,
        history: tuple[tuple[int, int, int], ...],
        k: int,
        reach: np.ndarray,
        actions: list[tuple[int, int]],
    ) -> np.ndarray:
        """The agent's probability of each action for each board and hand, (A, B, H); asked
        only on boards where some hand reaches this state."""
        level = self.levels[k]
        probs = np.zeros((len(actions), *reach.shape))
        held_mask = reach > 0
        batch = getattr(self.agent, "board_probabilities", None)
        if batch is not None:  # one question for every board (translated.py)
            rows = np.flatnonzero(held_mask.any(axis=1))
            held = held_mask[rows]
            got = batch(
                self.rules, state, history, level.boards[rows], self.deck.hands, held, actions
            )
            probs[:, rows] = got
            self.public_states += len(rows)
            self.queries += len(rows) * len(actions)
            bad = (got < -1e-12).any(axis=(0, 2)) | (got > 1 + 1e-12).any(axis=(0, 2))
            bad |= (np.abs(got.sum(axis=0) - held) > 1e-9).any(axis=1)
            for i in np.flatnonzero(bad)[:1].tolist():
                view = PublicView(self.rules, state, level.board_tuples[rows[i]], history)
                self.refuse(view, actions, got[:, i], held[i])
            return probs
        boards = level.board_tuples
        hands_all = self.deck.hands
        ask = self.agent.action_probability
        for b in np.flatnonzero(held_mask.any(axis=1)).tolist():
            held = np.flatnonzero(held_mask[b])
            hands = hands_all[held]
            view = PublicView(self.rules, state, boards[b], history)
            self.public_states += 1
            row = probs[:, b]
            for a, action in enumerate(actions):
                got = np.asarray(ask(view, hands, action), dtype=np.float64)
                if got.shape != held.shape:
                    raise PokerlabError(
                        f"exact best response: {self.name} gave {got.shape} probabilities of "
                        f"{_name(action)} for {len(held)} hands {_where(view)}"
                    )
                row[a, held] = got
            self.queries += len(actions)
            if not self.checked(probs[:, b], held_mask[b]):
                self.refuse(view, actions, probs[:, b], held_mask[b])
        return probs

    @staticmethod
    def checked(probs: np.ndarray, held: np.ndarray) -> bool:
        """Whether the probabilities (A, H) of the held hands are in [0, 1] and sum to 1."""
        lo, hi = probs.min(), probs.max()
        if not (lo >= -1e-12 and hi <= 1 + 1e-12):
            return False
        return bool(np.abs(probs.sum(axis=0) - held).max() <= 1e-9)

    def refuse(
        self,
        view: PublicView,
        actions: list[tuple[int, int]],
        probs: np.ndarray,
        held: np.ndarray,
    ) -> None:
        """Raise the error naming what is wrong with the agent's answers at ``view``: an action
        outside the game's that it plays, or probabilities out of range."""
        where = _where(view)
        shown = ", ".join(_name(a) for a in actions)
        bad = (probs < -1e-12) | (probs > 1 + 1e-12)
        if bad.any():
            a, h = (int(x[0]) for x in np.nonzero(bad))
            raise PokerlabError(
                f"exact best response: {self.name} gave the probability {probs[a, h]!r} to "
                f"{_name(actions[a])} with {_cards(self.deck.hands[h])} {where}"
            )
        total = probs.sum(axis=0)
        h = int(np.flatnonzero(held & (np.abs(total - 1.0) > 1e-9))[0])
        hole = (int(self.deck.hands[h, 0]), int(self.deck.hands[h, 1]))
        try:
            policy = self.agent.policy(view, hole)
        except NotImplementedError:
            policy = {}
        for action, p in policy.items():
            key = normalize_action(view, action, self.name)
            if float(p) > 0 and key not in actions:
                raise PokerlabError(
                    f"exact best response: {self.name} plays {_name(key)} {where}, not one of "
                    f"the game's actions ({shown})"
                )
        raise PokerlabError(
            f"exact best response: {self.name}'s probabilities of the game's actions ({shown}) "
            f"sum to {total[h]!r}, not 1, with {_cards(self.deck.hands[h])} {where}"
        )


def _cards(cards: Any) -> str:
    return format_cards(int(c) for c in cards)


def _name(action: tuple[int, int]) -> str:
    kind, amount = action
    return f"{KIND_NAMES[kind]} {amount}" if kind > 0 else KIND_NAMES[kind]


def _where(view: PublicView) -> str:
    line = " ".join(f"{s}:{_name((k, a))}" for s, k, a in view.history) or "(none)"
    board = _cards(view.board) or "none"
    return f"(seat {view.seat}, {STREETS[view.state.street]}, line {line}, board {board})"


def exact_best_response(
    game: Any,
    agent: NoLimitAgent,
    *,
    suit_isomorphism: bool | None = None,
    max_public_states: int = MAX_PUBLIC_STATES,
    max_bytes: int | None = None,
) -> ExactBestResponse:
    """Each seat's exact best-response value against ``agent`` in the other seat and their
    mean, the exploitability (chips per game; :attr:`ExactBestResponse.mbb_per_game`).

    ``game``: a heads-up ``nolimit-holdem`` game (:func:`pokerlab.load_game`) on a small deck;
    the responder plays the game's actions and the agent must too. ``suit_isomorphism``: walk
    one board per class of suit permutations (exact only for agents blind to suits; default:
    the agent's ``suit_blind`` attribute, else off). Refused with the estimate
    (:func:`estimate_exact_best_response`) above ``max_public_states`` public decision states
    or ``max_bytes`` (default: this machine's free memory). Follows Johanson et al. 2011's
    public-tree walk (module docstring).
    """
    rules, abstraction = _check_game(game)
    if not isinstance(agent, NoLimitAgent):
        raise PokerlabError(f"exact best response: {agent!r} is not a NoLimitAgent")
    iso = (
        bool(getattr(agent, "suit_blind", False))
        if suit_isomorphism is None
        else bool(suit_isomorphism)
    )
    info = estimate_exact_best_response(game, iso)
    limit_bytes = memory_available_or_physical() if max_bytes is None else max_bytes
    free = format_bytes(limit_bytes) if limit_bytes is not None else "unknown"
    if info["public_states"] > max_public_states or (
        limit_bytes is not None and info["bytes"] > limit_bytes
    ):
        raise PokerlabError(
            f"exact best response: the game is too large: {info['public_states']:,} public "
            f"decision states (limit {max_public_states:,}) and about "
            f"{format_bytes(info['bytes'])} of arrays ({free} free); use fewer ranks, rounds or "
            "bet sizes, or suit_isomorphism for a suit-blind agent"
        )
    start = time.perf_counter()
    deck = _Deck(rules)
    levels = [_first_level(deck)]
    for street in range(1, rules.rounds):
        levels.append(_next_level(deck, levels[-1], street, iso))
    levels[-1].sign = _showdown_signs(deck, levels[-1])
    states = sum(d * len(lv.boards) for d, lv in zip(info["decisions"], levels, strict=True))
    if states > max_public_states:
        raise PokerlabError(
            f"exact best response: the game is too large: {states:,} public decision states "
            f"after suit isomorphism (limit {max_public_states:,})"
        )
    walker = _Walk(rules, abstraction, agent, deck, levels)
    n_opp = comb(4 * rules.ranks - 2, 2)
    values: list[float] = []
    hands: list[np.ndarray] = []
    for responder in (0, 1):
        root = walker.walk(rules.initial_state(), (), 0, np.ones((1, deck.H)), responder)[0]
        per_hand = root / n_opp
        hands.append(per_hand)
        values.append(float(per_hand.mean()))
    return ExactBestResponse(
        best_response_values=(values[0], values[1]),
        exploitability=0.5 * (values[0] + values[1]),
        big_blind=rules.big_blind,
        hand_values=(hands[0], hands[1]),
        public_states=walker.public_states,
        queries=walker.queries,
        suit_isomorphism=iso,
        seconds=time.perf_counter() - start,
    )
