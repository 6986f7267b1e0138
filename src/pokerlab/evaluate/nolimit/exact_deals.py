"""The deals of the exact best response (:mod:`pokerlab.evaluate.nolimit.exact`): per round,
every board of the round (one per suit class with isomorphism) with the hole-card pairs it
leaves, the showdown signs of the last round, and the size estimate made before any work."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations, permutations
from math import comb
from typing import Any

import numpy as np

from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit.agents import deck_combos
from pokerlab.games.nolimit.actions import ActionAbstraction, abstract_actions
from pokerlab.games.nolimit.rules import BettingState, NoLimitRules

_SHOWN = (0, 3, 4, 5)


@dataclass
class _Level:
    """The boards of one round (canonical ones under suit isomorphism) and how their values
    fold back into the previous round's boards."""

    boards: np.ndarray  # int64 (B, shown)
    valid: np.ndarray  # bool (B, H): hands meeting no board card
    idx: np.ndarray  # int64 (B, n): the valid hands of each board
    parent: np.ndarray | None = None  # int64 (B,): board of the previous round
    starts: np.ndarray | None = None  # int64: first fold row of each parent board
    fold_child: np.ndarray | None = None  # int64 (P,): child board of each fold row
    fold_perm: np.ndarray | None = None  # int64 (P, H): hand relabelling (None: identity)
    weight: float = 1.0  # chance probability of one deal of this round
    stab: list[list[int]] = field(default_factory=list)  # suit permutations fixing each board
    sign: np.ndarray | None = None  # float64 (B, n, n): showdown sign of valid hand pairs

    @property
    def board_tuples(self) -> list[tuple[int, ...]]:
        """The boards as tuples (built once)."""
        got = self.__dict__.get("_tuples")
        if got is None:
            got = self.__dict__["_tuples"] = [tuple(b) for b in self.boards.tolist()]
        return got


class _Deck:
    """Cards, hole pairs and suit permutations of a ``ranks``-rank deck."""

    def __init__(self, rules: NoLimitRules) -> None:
        self.cards = np.arange(52 - 4 * rules.ranks, 52, dtype=np.int64)
        self.hands = deck_combos(rules)
        self.H = len(self.hands)
        index = np.full((52, 52), -1, dtype=np.int64)
        index[self.hands[:, 0], self.hands[:, 1]] = np.arange(self.H)
        index[self.hands[:, 1], self.hands[:, 0]] = np.arange(self.H)
        self.index = index
        low = int(self.cards[0])
        self.local = self.hands - low  # hole cards as positions in the deck
        self.incidence = np.zeros((self.H, len(self.cards)), dtype=np.float64)  # hand x card
        self.incidence[np.arange(self.H), self.local[:, 0]] = 1.0
        self.incidence[np.arange(self.H), self.local[:, 1]] = 1.0
        self.suit_perms = [tuple(p) for p in permutations(range(4))]  # identity first
        card_maps = []
        for p in self.suit_perms:
            m = np.arange(52, dtype=np.int64)
            m = 4 * (m >> 2) + np.asarray(p, dtype=np.int64)[m & 3]
            card_maps.append(m)
        self.card_map = np.stack(card_maps)  # (24, 52)
        # hand_map[s][h]: the hand that suit permutation s makes of hand h
        self.hand_map = np.stack(
            [index[m[self.hands[:, 0]], m[self.hands[:, 1]]] for m in card_maps]
        )
        inverse = []
        for p in self.suit_perms:
            inv = tuple(p.index(k) for k in range(4))
            inverse.append(self.suit_perms.index(inv))
        self.inverse = inverse


def _first_level(deck: _Deck) -> _Level:
    valid = np.ones((1, deck.H), dtype=bool)
    return _Level(
        boards=np.zeros((1, 0), dtype=np.int64),
        valid=valid,
        idx=np.arange(deck.H, dtype=np.int64)[None, :],
        stab=[list(range(len(deck.suit_perms)))],
    )


def _next_level(deck: _Deck, prev: _Level, street: int, iso: bool) -> _Level:
    """The boards of ``street`` dealt onto ``prev``'s (one class per orbit of the deals under
    the suit permutations fixing the parent board when ``iso``)."""
    d = _SHOWN[street] - _SHOWN[street - 1]
    boards: list[tuple[int, ...]] = []
    parents: list[int] = []
    stabs: list[list[int]] = []
    fold_child: list[int] = []
    fold_sigma: list[int] = []
    starts: list[int] = []
    cmap = deck.card_map
    for b, row in enumerate(prev.boards.tolist()):
        starts.append(len(fold_child))
        used = set(row)
        left = [int(c) for c in deck.cards if int(c) not in used]
        group = prev.stab[b] if iso else [0]
        seen: dict[tuple[int, ...], int] = {}
        for deal in combinations(left, d):
            if len(group) > 1:
                rep = min(tuple(sorted(int(cmap[s, c]) for c in deal)) for s in group)
            else:
                rep = deal
            child = seen.get(rep)
            if child is None:
                child = seen[rep] = len(boards)
                boards.append((*row, *rep))
                parents.append(b)
                stabs.append(
                    [s for s in group if tuple(sorted(int(cmap[s, c]) for c in rep)) == rep]
                )
            # a permutation of the group taking the representative to this deal
            sigma = 0
            if rep != deal:
                sigma = next(
                    s for s in group if tuple(sorted(int(cmap[s, c]) for c in rep)) == deal
                )
            fold_child.append(child)
            fold_sigma.append(sigma)
    arr = np.asarray(boards, dtype=np.int64).reshape(len(boards), _SHOWN[street])
    valid = ~deck.incidence[:, arr - int(deck.cards[0])].astype(bool).any(axis=2).T  # (B, H)
    n = comb(len(deck.cards) - _SHOWN[street], 2)
    idx = np.nonzero(valid)[1].reshape(len(arr), n)
    level = _Level(
        boards=arr,
        valid=valid,
        idx=idx,
        parent=np.asarray(parents, dtype=np.int64),
        starts=np.asarray(starts, dtype=np.int64),
        fold_child=np.asarray(fold_child, dtype=np.int64),
        weight=1.0 / comb(len(deck.cards) - 4 - _SHOWN[street - 1], d),
        stab=stabs,
    )
    if any(fold_sigma):
        # v_{P + sigma(rep)}(h) = v_{P + rep}(sigma^-1(h)): gather the representative's values
        inv = np.asarray([deck.inverse[s] for s in fold_sigma], dtype=np.int64)
        level.fold_perm = deck.hand_map[inv]
    return level


def _showdown_signs(deck: _Deck, level: _Level) -> np.ndarray:
    """sign(value(h) - value(o)) for every pair of valid hands of every final board (0 where
    the two share a card), float64 (B, n, n)."""
    boards, idx = level.boards, level.idx
    count, n = idx.shape
    cards = np.concatenate(
        [deck.hands[idx], np.broadcast_to(boards[:, None, :], (count, n, boards.shape[1]))], 2
    )
    values = evaluate_batch(cards.reshape(count * n, -1)).reshape(count, n).astype(np.int64)
    sign = np.sign(values[:, :, None] - values[:, None, :]).astype(np.float64)
    hands = deck.hands[idx]  # (B, n, 2)
    clash = (hands[:, :, None, :, None] == hands[:, None, :, None, :]).any(axis=(3, 4))
    sign[clash] = 0.0
    return sign


# -- estimate ------------------------------------------------------------------------------


def _decisions_per_street(rules: NoLimitRules, abstraction: ActionAbstraction) -> list[int]:
    """Decision nodes of the game's betting tree per street (a walk over betting states)."""
    counts = [0] * rules.rounds
    memo: dict[BettingState, list[int]] = {}

    def walk(state: BettingState) -> list[int]:
        got = memo.get(state)
        if got is not None:
            return got
        out = [0] * rules.rounds
        out[state.street] += 1
        for kind, amount in abstract_actions(rules, abstraction, state):
            child = state.apply(rules, kind, amount)
            if child.status == "act":
                for k, c in enumerate(walk(child)):
                    out[k] += c
        memo[state] = out
        return out

    for k, c in enumerate(walk(rules.initial_state())):
        counts[k] += c
    return counts


def _boards_per_street(cards: int, rounds: int) -> list[int]:
    """Boards of each round on a deck of ``cards`` (the flop a set, then turn and river)."""
    out = [1]
    for street in range(1, rounds):
        d = _SHOWN[street] - _SHOWN[street - 1]
        out.append(out[-1] * comb(cards - _SHOWN[street - 1], d))
    return out


def estimate_exact_best_response(game: Any, suit_isomorphism: bool = False) -> dict[str, Any]:
    """What :func:`exact_best_response` would walk, before any work: decision nodes and boards
    per round, public decision states (their products, summed), and bytes of the per-board
    arrays. With ``suit_isomorphism`` the boards are a lower bound (the deals over the 24
    permutations of the suits)."""
    rules, abstraction = _check_game(game)
    cards = 4 * rules.ranks
    decisions = _decisions_per_street(rules, abstraction)
    plain = _boards_per_street(cards, rules.rounds)
    boards = [max(1, -(-b // 24)) for b in plain] if suit_isomorphism else plain
    states = sum(d * b for d, b in zip(decisions, boards, strict=True))
    hands = comb(cards, 2)
    valid = [comb(cards - _SHOWN[k], 2) for k in range(rules.rounds)]
    depth = _max_depth(rules, abstraction)
    # per round: values and reach on the walk's stack; the last round's showdown signs
    stack_bytes = 8 * hands * max(boards) * (3 * depth + 6)
    level_bytes = sum(
        8 * b * (hands + 2 * v) + 8 * b * hands for b, v in zip(boards, valid, strict=True)
    )
    sign_bytes = 16 * boards[-1] * valid[-1] ** 2  # the signs and their temporaries
    if suit_isomorphism:  # one relabelling of the hands per deal
        level_bytes += sum(8 * b * hands for b in plain)
    return {
        "decisions": decisions,
        "boards": boards,
        "public_states": states,
        "bytes": stack_bytes + level_bytes + sign_bytes,
    }


def _max_depth(rules: NoLimitRules, abstraction: ActionAbstraction) -> int:
    memo: dict[BettingState, int] = {}

    def walk(state: BettingState) -> int:
        got = memo.get(state)
        if got is None:
            got = 1 + max(
                (
                    walk(c)
                    for c in (
                        state.apply(rules, k, a)
                        for k, a in abstract_actions(rules, abstraction, state)
                    )
                    if c.status == "act"
                ),
                default=0,
            )
            memo[state] = got
        return got

    return walk(rules.initial_state())


def _check_game(game: Any) -> tuple[NoLimitRules, ActionAbstraction]:
    rules = getattr(game, "rules", None)
    abstraction = getattr(game, "abstraction", None)
    if not isinstance(rules, NoLimitRules) or not isinstance(abstraction, ActionAbstraction):
        raise PokerlabError(
            f"exact best response: needs a nolimit-holdem game, got {getattr(game, 'name', game)!r}"
        )
    if rules.players != 2:
        raise PokerlabError(
            f"exact best response: heads-up only; this game has {rules.players} players"
        )
    return rules, abstraction


# -- the walk ------------------------------------------------------------------------------
