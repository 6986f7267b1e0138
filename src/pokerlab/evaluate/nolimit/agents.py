"""Agents for no-limit hold'em matches and local best response (issue 24, "Judging it").

An agent sees a :class:`PublicView` (the rules, the betting state of
:mod:`pokerlab.games.nolimit.rules`, the board showing and the actions so far) and its own hole
cards, and returns a probability distribution over legal actions: a dict ``{(kind, amount):
probability}``. ``kind`` is one of the rules' ``FOLD``, ``CHECK``, ``CALL``, ``BET``, ``RAISE``,
``ALLIN``; ``amount`` is the actor's chips on the street after the action ("raise to", as in
the rules; 0 for a fold). Any raise-to amount between the smallest and largest legal one may be
played; :func:`normalize_action` maps an action to its canonical form (the call's amount, the
raise's kind from the amount) or raises an error naming it.

Local best response also asks for the agent's probability of one action for every hand of the
opponent's range at once (:meth:`NoLimitAgent.action_probability`); the default asks
:meth:`NoLimitAgent.policy` hand by hand, and the baselines answer vectorised. Agents must be
pure functions of what they are shown (one instance may sit in several seats).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from pokerlab._rng import seed_state
from pokerlab.errors import PokerlabError
from pokerlab.evaluate import _limit_equity_kernels as EK
from pokerlab.games.nolimit.rules import (
    ALLIN,
    BET,
    CALL,
    CHECK,
    FOLD,
    RAISE,
    BettingState,
    NoLimitRules,
)

__all__ = [
    "Action",
    "PublicView",
    "NoLimitAgent",
    "AlwaysFold",
    "AlwaysCall",
    "PotRaise",
    "HandStrengthRule",
    "normalize_action",
    "check_policy",
    "pot_raise_to",
    "passive_action",
    "deck_combos",
    "KIND_NAMES",
]

#: ``(kind, amount)``: an action of the rules (amount = the actor's street total after it).
Action = tuple[int, int]

KIND_NAMES = ("fold", "check", "call", "bet", "raise", "allin")


@dataclass(frozen=True)
class PublicView:
    """What every player sees at a decision: ``rules``, ``state`` (the seat on move is
    ``state.to_act``), ``board`` (the cards showing, 0, 3, 4 or 5) and ``history`` (every
    action so far as ``(seat, kind, amount)``)."""

    rules: NoLimitRules
    state: BettingState
    board: tuple[int, ...]
    history: tuple[tuple[int, int, int], ...] = ()

    @property
    def seat(self) -> int:
        """The seat on move."""
        return self.state.to_act

    def legal(self) -> list[Action]:
        """Fold (facing a bet), check or call, and the smallest and largest raise-to amounts;
        every amount in between is legal too."""
        return [(int(k), int(a)) for k, a in self.state.legal_actions(self.rules)]


def passive_action(view: PublicView) -> Action:
    """Check when nothing is to call, else call (the amount capped by the stack)."""
    return view.legal()[1] if view.state.to_call() > 0 else view.legal()[0]


def pot_raise_to(view: PublicView) -> Action | None:
    """The pot-size raise: call, then raise by the pot after the call (the pot counts every
    chip in the middle); raise-to = highest bet + pot + amount to call, clamped into the legal
    range (all-in above it). None when the seat may not raise."""
    state, rules = view.state, view.rules
    bounds = state.raise_bounds(rules)
    if bounds is None:
        return None
    top = max(state.bets)
    amount = min(max(top + state.pot() + state.to_call(), bounds[0]), bounds[1])
    return state.raise_kind(rules, amount), amount


def normalize_action(view: PublicView, action: Action, who: str = "agent") -> Action:
    """The canonical form of ``action`` at ``view`` (a call's capped amount, a check's amount,
    a raise's kind read from its amount); :class:`~pokerlab.errors.PokerlabError` naming the
    action and the legal ones when it is illegal."""
    try:
        kind, amount = int(action[0]), int(action[1])
    except (TypeError, ValueError, IndexError):
        raise PokerlabError(f"{who} returned {action!r}, not a (kind, amount) action") from None
    state, rules = view.state, view.rules
    legal = view.legal()
    if kind in (FOLD, CHECK, CALL):
        for k, a in legal:
            if k == kind:
                return (k, a)
    elif kind in (BET, RAISE, ALLIN):
        bounds = state.raise_bounds(rules)
        if bounds is not None and bounds[0] <= amount <= bounds[1]:
            return state.raise_kind(rules, amount), amount
    shown = ", ".join(f"{KIND_NAMES[k]} {a}" for k, a in legal)
    name = KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else f"kind {kind}"
    raise PokerlabError(
        f"{who} returned an illegal action ({name}, {amount}) for seat {state.to_act} on "
        f"street {state.street}: legal are {shown} (raises: any amount between the two)"
    )


def check_policy(view: PublicView, policy: Mapping[Action, float], who: str) -> dict[Action, float]:
    """``policy`` with its actions normalised (equal actions merged), checked: legal actions,
    probabilities >= 0 summing to 1 (within 1e-9). Errors name the agent and the action."""
    out: dict[Action, float] = {}
    for action, p in policy.items():
        p = float(p)
        if not p >= 0.0:
            raise PokerlabError(f"{who} gave action {action!r} the probability {p!r}")
        key = normalize_action(view, action, who)
        out[key] = out.get(key, 0.0) + p
    total = sum(out.values())
    if abs(total - 1.0) > 1e-9:
        raise PokerlabError(f"{who}'s action probabilities sum to {total!r}, not 1")
    return out


def deck_combos(rules: NoLimitRules) -> np.ndarray:
    """Every hole-card pair of the rules' deck (the top ``ranks`` ranks, cards ``4 * rank +
    suit``), int64 ``(H, 2)``, lower card first, in ``itertools.combinations`` order."""
    return _combos(rules.ranks)


@lru_cache(maxsize=4)
def _combos(ranks: int) -> np.ndarray:
    deck = np.arange(52 - 4 * ranks, 52, dtype=np.int64)
    i, j = np.triu_indices(len(deck), k=1)
    out = np.stack([deck[i], deck[j]], axis=1)
    out.setflags(write=False)
    return out


class NoLimitAgent:
    """Base class of no-limit agents: subclasses set ``name`` and implement :meth:`policy`."""

    name: str = "agent"

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[Action, float]:
        """The probability of each action of the seat on move holding ``hole``."""
        raise NotImplementedError

    def action_probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        """The probability that the seat on move plays ``action`` holding each row of ``hands``
        (int ``(H, 2)``), float64 ``(H,)``. Default: :meth:`policy` hand by hand."""
        key = normalize_action(view, action, self.name)
        out = np.empty(len(hands), dtype=np.float64)
        for i, (a, b) in enumerate(np.asarray(hands).tolist()):
            got = check_policy(view, self.policy(view, (a, b)), self.name)
            out[i] = got.get(key, 0.0)
        return out


class _CardBlind(NoLimitAgent):
    """An agent whose choice ignores its cards: one action per public state."""

    def choose(self, view: PublicView) -> Action:
        raise NotImplementedError

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[Action, float]:
        return {self.choose(view): 1.0}

    def action_probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        same = normalize_action(view, action, self.name) == self.choose(view)
        return np.full(len(hands), 1.0 if same else 0.0)


class AlwaysFold(_CardBlind):
    """Folds to every bet and checks when it may (Lisy and Bowling 2017's reference agent)."""

    name = "always-fold"

    def choose(self, view: PublicView) -> Action:
        return view.legal()[0]  # fold facing a bet, else check


class AlwaysCall(_CardBlind):
    """Checks or calls every time (never folds, never raises)."""

    name = "always-call"

    def choose(self, view: PublicView) -> Action:
        return passive_action(view)


class PotRaise(_CardBlind):
    """Bets or raises the pot (:func:`pot_raise_to`) whenever it may, else calls."""

    name = "pot-raise"

    def choose(self, view: PublicView) -> Action:
        return pot_raise_to(view) or passive_action(view)


class HandStrengthRule(NoLimitAgent):
    """The E[HS] rule bot: raises the pot (:func:`pot_raise_to`; calls when it may not raise)
    with E[HS] >= ``raise_above``, checks or calls with E[HS] >= ``call_above``, else checks or
    folds. E[HS] is the hand's probability of beating a uniform random opponent hand (ties
    half) at the showdown, averaged over the board's completions (the river: HS), the same
    feature as limit hold'em's ``ehs_rule`` (defaults 0.65 and 0.45 as there).

    Computed on the fly: on the turn and river exactly for every hand of the deck at once
    (:func:`~pokerlab.evaluate.nolimit.strength.board_strengths`, cached per board; in a game of
    fewer rounds, on its last board and the one before, the showdown coming there); preflop and
    on the flop with the LBR equity kernel, exactly whenever (completions x opponent hands) is
    at most ``exact_limit``, else (the full deck's flop) over ``rollouts`` completions drawn
    from a generator seeded by the hole cards and board, so the bot stays a fixed function of
    its cards."""

    def __init__(
        self,
        raise_above: float = 0.65,
        call_above: float = 0.45,
        *,
        exact_limit: int = 100_000,
        rollouts: int = 64,
    ) -> None:
        if not 0.0 <= call_above <= raise_above <= 1.0:
            raise PokerlabError(
                "HandStrengthRule: need 0 <= call_above <= raise_above <= 1, got "
                f"call_above={call_above!r}, raise_above={raise_above!r}"
            )
        self.raise_above = float(raise_above)
        self.call_above = float(call_above)
        self.exact_limit = int(exact_limit)
        self.rollouts = int(rollouts)
        self.name = f"hs-rule({raise_above:g},{call_above:g})"

    def strength(self, rules: NoLimitRules, hole: tuple[int, int], board: tuple[int, ...]) -> float:
        """E[HS] of ``hole`` on ``board`` against a uniform random hand (see the class)."""
        if self._tabled(rules, board):
            return float(self._strengths(rules, np.asarray([hole]), board)[0])
        return _ehs(rules.ranks, (int(hole[0]), int(hole[1])), tuple(int(c) for c in board),
                    self.exact_limit, self.rollouts)  # fmt: skip

    @staticmethod
    def _tabled(rules: NoLimitRules, board: tuple[int, ...]) -> bool:
        """Whether ``board`` is the game's last or one card short of it (the turn and river of
        four rounds; the flop of a game that ends on it or on the turn): every hand at once,
        exactly, by :func:`~pokerlab.evaluate.nolimit.strength.board_strengths`."""
        final = rules.board_size(rules.rounds - 1)
        return len(board) >= 3 and len(board) >= final - 1

    @staticmethod
    def _strengths(rules: NoLimitRules, hands: np.ndarray, board: tuple[int, ...]) -> np.ndarray:
        """E[HS] of each row of ``hands`` on a ``board`` that :meth:`_tabled` takes."""
        from pokerlab.evaluate.nolimit.strength import board_strengths

        final = rules.board_size(rules.rounds - 1)
        table = board_strengths(rules.ranks, tuple(int(c) for c in board), final)
        base = 52 - 4 * rules.ranks
        m = 4 * rules.ranks
        lo = np.minimum(hands[:, 0], hands[:, 1]).astype(np.int64) - base
        hi = np.maximum(hands[:, 0], hands[:, 1]).astype(np.int64) - base
        return table[lo * m - lo * (lo + 1) // 2 + (hi - lo - 1)]

    def _pick(self, view: PublicView, ehs: float) -> Action:
        if ehs >= self.raise_above:
            return pot_raise_to(view) or passive_action(view)
        if ehs >= self.call_above or view.state.to_call() == 0:
            return passive_action(view)
        return (FOLD, 0)

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[Action, float]:
        return {self._pick(view, self.strength(view.rules, hole, view.board)): 1.0}

    def action_probability(self, view: PublicView, hands: np.ndarray, action: Action) -> np.ndarray:
        """1 where the hand's E[HS] leads to ``action`` (the same rule as :meth:`policy`)."""
        key = normalize_action(view, action, self.name)
        if self._tabled(view.rules, view.board):
            ehs = self._strengths(view.rules, np.asarray(hands), view.board)
        else:
            ehs = np.array([self.strength(view.rules, (a, b), view.board)
                            for a, b in np.asarray(hands).tolist()])  # fmt: skip
        raise_, low = self._pick(view, 1.0), self._pick(view, 0.0)
        middle = passive_action(view)
        out = np.where(ehs >= self.raise_above, key == raise_, key == middle)
        return np.where(ehs < self.call_above, key == low, out).astype(np.float64)


def _ehs_raw(
    ranks: int, hole: tuple[int, int], board: tuple[int, ...], exact_limit: int, rollouts: int
) -> float:
    from pokerlab.evaluate.limit_lbr import _eval_args, preflop_equities

    hands = _combos(ranks)
    known = np.array(hole + board, dtype=np.int64)
    weights = (~np.isin(hands, known).any(axis=1)).astype(np.float64)
    if not board:
        a, b = sorted(hole)
        row = preflop_equities(ranks)[np.flatnonzero((hands[:, 0] == a) & (hands[:, 1] == b))[0]]
        return float(row @ weights / weights.sum())
    deck = np.arange(52 - 4 * ranks, 52, dtype=np.int64)
    mask = (np.uint64(1) << hands[:, 0].astype(np.uint64)) | (
        np.uint64(1) << hands[:, 1].astype(np.uint64)
    )
    rh = EK.RangeHands(hands, mask, deck, np.zeros((1, 1)))
    eq = np.zeros(len(hands))
    full = np.zeros(5, dtype=np.int64)
    full[: len(board)] = board
    key = sum(int(c) << (6 * k) for k, c in enumerate(sorted(hole) + list(board)))
    EK.hand_equities(
        hole[0], hole[1], full, len(board), weights, rh, _eval_args(), float(exact_limit),
        np.int64(rollouts), seed_state(key), eq, np.zeros(len(hands)),
        np.zeros(len(hands), dtype=np.int64),
    )  # fmt: skip
    ok = (weights > 0) & (eq >= 0)
    return float(eq[ok].mean())


_ehs = lru_cache(maxsize=65536)(_ehs_raw)
