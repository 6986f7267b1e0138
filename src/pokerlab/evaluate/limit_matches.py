"""Duplicate matches between heads-up limit hold'em agents, in mbb/g with a confidence interval.

Every deal is played twice with the same cards: in the first game agent A sits in seat 0 and B in
seat 1, in the second they swap seats and the cards stay with the seats, so A gets the cards B
had. The luck of the cards cancels in the pair's sum. Both games of a pair also share their
uniform draws (the k-th decision of a hand uses the pair's k-th number), so two agents that play
the same policy produce the same betting in both games and the pair sums to exactly 0.

Agents are tables (:class:`LimitAgent`): a probability of each action at each decision node of
the betting tree for each private state, and a function that maps (hole cards, board) to each
round's state. The trained abstract strategy's states are its buckets (or bucket sequences with
perfect recall) and its table is the average strategy (a ``BettingStrategy``); the simple bots
have one state (always call, always raise) or three (the E[HS] rule player: check/fold, call,
bet/raise by the hand's E[HS] in the abstraction's strength tables). One numba kernel plays all
games.

The result is A's mean per game over the pairs, in milli big blinds per game, with a 95%
confidence interval from the normal approximation over the pair sums (``1.96 * sd / sqrt(n)``).
Seeds follow :mod:`pokerlab._rng` (``generator(seed)`` draws the deals and the uniforms).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from pokerlab._rng import SeedLike, generator, seed_int
from pokerlab.abstraction.buckets import CardAbstraction, bucket_sequence_ids
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.duplicate import DuplicateEstimate, duplicate_estimate
from pokerlab.evaluate.limit_strategy import as_betting_strategy, strategy_abstraction
from pokerlab.games.limit_holdem import (
    CALL,
    DECISION,
    FOLD,
    RAISE,
    LimitHoldemGame,
)
from pokerlab.strategy import BettingStrategy

__all__ = [
    "LimitAgent",
    "MatchResult",
    "always_call",
    "always_raise",
    "ehs_rule",
    "strategy_agent",
    "duplicate_match",
    "deal_cards",
]

#: Uniform draws kept per hand: more than the longest betting sequence (4 rounds x (cap + 2)).
MAX_DECISIONS = 32

StatesFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass
class LimitAgent:
    """A limit hold'em agent as a table.

    ``probs[offset[n] + a * num_states[round[n]] + s]`` is the probability of node ``n``'s
    ``a``-th child action (in the tree's order: fold, call, raise where legal) in private state
    ``s``; ``states(hole, board)`` gives each hand's state per round, an int64 array
    ``(n, 4)``, from ``hole`` (n, 2) and ``board`` (n, 5) card ids.
    """

    name: str
    probs: np.ndarray
    offset: np.ndarray
    num_states: np.ndarray
    states: StatesFn

    def action_probs(self, node: int, state: int, tree: Any) -> np.ndarray:
        """Probabilities of node ``node``'s actions (the tree's child order) in ``state``."""
        na = int(tree.child_start[node + 1] - tree.child_start[node])
        ns = int(self.num_states[tree.round[node]])
        base = int(self.offset[node])
        return np.array([self.probs[base + a * ns + state] for a in range(na)], dtype=np.float64)


def _layout(game: LimitHoldemGame, num_states: np.ndarray) -> tuple[np.ndarray, int]:
    tree = game.betting_tree
    offset = np.full(tree.num_nodes, -1, dtype=np.int64)
    cursor = 0
    for n in np.flatnonzero(tree.kind == DECISION):
        offset[n] = cursor
        cursor += int(tree.child_start[n + 1] - tree.child_start[n]) * int(
            num_states[tree.round[n]]
        )
    return offset, cursor


def _rule_table(game: LimitHoldemGame, num_states: int, pick: Callable[[int, list[int]], int]):
    """Deterministic table: in state ``s`` at a node with legal ``actions`` play
    ``actions[pick(s, actions)]``."""
    tree = game.betting_tree
    ns = np.full(4, num_states, dtype=np.int64)
    offset, size = _layout(game, ns)
    probs = np.zeros(size, dtype=np.float64)
    for n in np.flatnonzero(tree.kind == DECISION):
        actions = tree.actions(int(n))
        for s in range(num_states):
            probs[offset[n] + pick(s, actions) * num_states + s] = 1.0
    return probs, offset, ns


def _no_states(hole: np.ndarray, board: np.ndarray) -> np.ndarray:
    return np.zeros((len(hole), 4), dtype=np.int64)


def always_call(game: LimitHoldemGame) -> LimitAgent:
    """Checks or calls at every decision."""
    probs, offset, ns = _rule_table(game, 1, lambda s, acts: acts.index(CALL))
    return LimitAgent("always-call", probs, offset, ns, _no_states)


def always_raise(game: LimitHoldemGame) -> LimitAgent:
    """Bets or raises when allowed, else calls."""
    probs, offset, ns = _rule_table(
        game, 1, lambda s, acts: acts.index(RAISE if RAISE in acts else CALL)
    )
    return LimitAgent("always-raise", probs, offset, ns, _no_states)


def ehs_rule(
    game: LimitHoldemGame,
    raise_above: float = 0.65,
    call_above: float = 0.45,
    *,
    strength: Any = None,
    cache: bool = True,
) -> LimitAgent:
    """The E[HS] rule player: bets or raises (calls at the cap) when the hand's E[HS] in this
    round is at least ``raise_above``, checks or calls when at least ``call_above``, else checks
    or folds. E[HS] (river: HS) against a uniform random hand, from
    :func:`pokerlab.abstraction.strength.strength_tables` of the game's deck (``strength``: the
    tables, if already built)."""
    if not 0.0 <= call_above <= raise_above <= 1.0:
        raise PokerlabError(
            f"ehs_rule: need 0 <= call_above <= raise_above <= 1, got call_above={call_above!r}, "
            f"raise_above={raise_above!r}"
        )
    ranks = game.rules.ranks
    if strength is None:
        from pokerlab.abstraction.strength import strength_tables

        strength = strength_tables(ranks, cache=cache)

    def pick(s: int, acts: list[int]) -> int:
        if s == 2 and RAISE in acts:
            return acts.index(RAISE)
        if s >= 1 or FOLD not in acts:
            return acts.index(CALL)
        return acts.index(FOLD)

    probs, offset, ns = _rule_table(game, 3, pick)
    tables = strength.ehs

    def states(hole: np.ndarray, board: np.ndarray) -> np.ndarray:
        out = np.empty((len(hole), 4), dtype=np.int64)
        for r, shown in enumerate((0, 3, 4, 5)):
            rows = np.concatenate([hole, board[:, :shown]], axis=1)
            ehs = tables[r][round_indexer(r, ranks).index(rows)]
            out[:, r] = (ehs >= call_above).astype(np.int64) + (ehs >= raise_above)
        return out

    return LimitAgent(f"ehs-rule({raise_above:g},{call_above:g})", probs, offset, ns, states)


def strategy_agent(
    strategy: BettingStrategy | Any,
    probs: np.ndarray | None = None,
    name: str = "agent",
    *,
    abstraction: CardAbstraction | None = None,
) -> LimitAgent:
    """The abstract strategy ``strategy`` (a :class:`~pokerlab.strategy.BettingStrategy`; a
    solver is still read through its ``average_strategy()``, deprecated) playing by the buckets
    of ``abstraction`` (default: its own) with its recall. ``probs``: another table in the same
    layout to play instead (a current strategy, a test's table)."""
    strategy = as_betting_strategy(strategy)
    layout = strategy.layout
    if probs is not None:
        table = np.asarray(probs, dtype=np.float64)
        if table.shape != (layout.size,):
            raise PokerlabError(
                f"strategy_agent: probs of {table.shape} for a layout of {layout.size} entries"
            )
        strategy = strategy.with_probs(table)
    abstraction = strategy_abstraction(strategy, abstraction)
    counts = tuple(int(b) for b in abstraction.buckets)
    ranks = strategy.game.rules.ranks
    recall = layout.recall

    def states(hole: np.ndarray, board: np.ndarray) -> np.ndarray:
        labels = []
        for r, shown in enumerate((0, 3, 4, 5)):
            rows = np.concatenate([hole, board[:, :shown]], axis=1)
            labels.append(abstraction.labels[r][round_indexer(r, ranks).index(rows)])
        return np.stack(bucket_sequence_ids(labels, counts, recall), axis=1).astype(np.int64)

    table = np.asarray(strategy.probs, dtype=np.float64)
    return LimitAgent(name, table, layout.offset, np.asarray(layout.num_states), states)


@dataclass
class MatchResult(DuplicateEstimate):
    """A duplicate match: A's mean result in mbb per game and the 95% interval half-width."""

    agent: str
    opponent: str
    pairs: int
    mbb_per_game: float
    ci95_mbb: float
    seed: int
    pair_values: np.ndarray  # A's sum over the two games of each pair, big blinds

    def as_dict(self) -> dict[str, Any]:
        """JSON-able fields (no per-pair values)."""
        return {
            "agent": self.agent,
            "opponent": self.opponent,
            **self.estimate_dict(),
            "seed": self.seed,
        }


def deal_cards(game: LimitHoldemGame, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` deals of nine distinct cards (seat 0's hole cards, seat 1's, the board), int64
    ``(n, 9)``; hole cards sorted."""
    deck = game.rules.cards
    keys = rng.random((n, deck.size))
    cards = deck[np.argsort(keys, axis=1)[:, :9]].astype(np.int64)
    cards[:, 0:2].sort(axis=1)
    cards[:, 2:4].sort(axis=1)
    return cards


@njit(cache=True)
def _play(
    kind, player, rnd, child_start, children, payoff_id, payoff_table,
    offset, probs, num_states, states, strength, uniforms, out,
):  # fmt: skip
    """Play every game: ``states[agent, deal, seat, round]``; game ``2i + swap`` seats agent
    ``seat ^ swap`` in each seat; ``out[g]``: agent 0's result (big blinds)."""
    num_deals = states.shape[1]
    for g in range(2 * num_deals):
        i = g // 2
        swap = g % 2
        n = 0
        k = 0
        while kind[n] < 2:  # DECISION or DEAL
            if kind[n] == 1:
                n = children[child_start[n]]
                continue
            seat = player[n]
            agent = seat ^ swap
            r = rnd[n]
            ns = num_states[agent, r]
            s = states[agent, i, seat, r]
            lo = child_start[n]
            na = child_start[n + 1] - lo
            u = uniforms[i, k]
            k += 1
            pick = na - 1
            acc = 0.0
            for a in range(na):
                acc += probs[offset[agent, n] + a * ns + s]
                if u < acc:
                    pick = a
                    break
            n = children[lo + pick]
        amount = payoff_table[payoff_id[n]]
        if kind[n] == 2:  # fold: player[n] loses amount
            seat0 = -amount if player[n] == 0 else amount
        else:
            a0 = strength[i, 0]
            a1 = strength[i, 1]
            seat0 = amount if a0 > a1 else (-amount if a0 < a1 else 0.0)
        out[g] = seat0 if swap == 0 else -seat0


def duplicate_match(
    game: LimitHoldemGame,
    agent: LimitAgent,
    opponent: LimitAgent,
    pairs: int,
    seed: SeedLike = 0,
) -> MatchResult:
    """Play ``pairs`` duplicate pairs (``2 * pairs`` games) of ``agent`` against ``opponent``;
    the result is ``agent``'s, in mbb per game with a 95% normal-approximation interval over the
    pairs."""
    if int(pairs) < 2:
        raise PokerlabError(f"duplicate_match: pairs must be at least 2, got {pairs!r}")
    if game.rules.rounds != 4:
        raise PokerlabError("duplicate_match: needs the four-round game")
    pairs = int(pairs)
    seed_value = seed_int(seed)
    rng = generator(seed_value)
    cards = deal_cards(game, pairs, rng)
    uniforms = rng.random((pairs, MAX_DECISIONS))
    board = cards[:, 4:9]
    states = np.empty((2, pairs, 2, 4), dtype=np.int64)
    for a, who in enumerate((agent, opponent)):
        for seat in (0, 1):
            got = np.asarray(who.states(cards[:, 2 * seat : 2 * seat + 2], board))
            if got.shape != (pairs, 4):
                raise PokerlabError(f"agent {who.name!r}: states of shape {got.shape}")
            states[a, :, seat, :] = got
    strength = np.empty((pairs, 2), dtype=np.int64)
    for seat in (0, 1):
        seven = np.concatenate([cards[:, 2 * seat : 2 * seat + 2], board], axis=1)
        strength[:, seat] = evaluate_batch(seven.astype(np.uint8))
    tree = game.betting_tree
    base = agent.probs.size
    probs = np.concatenate([agent.probs, opponent.probs]).astype(np.float64)
    offset = np.stack([agent.offset, np.where(opponent.offset >= 0, opponent.offset + base, -1)])
    num_states = np.stack([agent.num_states, opponent.num_states]).astype(np.int64)
    out = np.empty(2 * pairs, dtype=np.float64)
    _play(
        tree.kind, tree.player, tree.round, tree.child_start, tree.children,
        tree.payoff_id, tree.payoff_table, offset.astype(np.int64), probs, num_states,
        states, strength, uniforms, out,
    )  # fmt: skip
    pair_values = out[0::2] + out[1::2]
    mean, ci = duplicate_estimate(pair_values)
    return MatchResult(agent.name, opponent.name, pairs, mean, ci, seed_value, pair_values)


#: Opponent bots by name (the CLI's ``--opponents``).
BOTS: dict[str, Callable[[LimitHoldemGame], LimitAgent]] = {
    "call": always_call,
    "raise": always_raise,
    "ehs": ehs_rule,
}
