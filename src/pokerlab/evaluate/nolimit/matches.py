"""Duplicate matches between two no-limit hold'em agents, 2 to 6 players (issue 24).

One deal (every seat's hole cards and the five board cards, drawn from the rules' deck) is
played once per seat of the table with the cards staying with the seats: in game ``g`` the
*hero* sits in seat ``g`` and the *opponent* agent fills every other seat. Heads-up this is the
classic duplicate pair (cards dealt twice, seats swapped); with more players the hero rotates
through every seat over the same deck. The hero's winnings summed over the deal's games cancel
most of the card luck, so the deals (groups of games), not the games, are the independent
samples: the result is the hero's mean per game in milli big blinds with the 95% interval of
:func:`pokerlab.evaluate.duplicate.duplicate_estimate` (normal approximation over the groups).

Seeds (:mod:`pokerlab._rng`): ``generator(seed)`` deals the cards; deal ``i``'s agent draws
come from ``generator(child_seeds(seed, deals)[i])``, restarted for each game of the deal, so
identical agents make identical draws in every seat and an agent against itself wins exactly 0
per deal. Showdowns are settled by :func:`pokerlab.games.nolimit.rules.payoffs` (side pots, split
pots exactly) with the hand evaluator's 5-7 card values.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from pokerlab._rng import SeedLike, child_seeds, generator, seed_int
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.duplicate import DuplicateEstimate, duplicate_estimate
from pokerlab.evaluate.nolimit.agents import (
    Action,
    NoLimitAgent,
    PublicView,
    check_policy,
)
from pokerlab.evaluate.parallel import run_blocks
from pokerlab.games.nolimit.rules import NoLimitRules, payoffs

__all__ = [
    "HandRecord",
    "NoLimitMatchResult",
    "deal_cards",
    "showdown_values",
    "sample_action",
    "play_hand",
    "duplicate_match",
]


@dataclass(frozen=True)
class HandRecord:
    """One played hand: each seat's net chips (sums to 0) and the actions ``(seat, kind,
    amount)`` in order."""

    chips: tuple[float, ...]
    actions: tuple[tuple[int, int, int], ...]


def deal_cards(rules: NoLimitRules, deals: int, rng: np.random.Generator) -> np.ndarray:
    """``deals`` deals of the rules' deck, int64 ``(deals, 2 * players + 5)``: seat ``s``'s hole
    cards in columns ``2s, 2s + 1``, then five board cards (games with fewer rounds read the
    first ones). Each row is a uniformly random draw without replacement."""
    deck = np.arange(52 - 4 * rules.ranks, 52, dtype=np.int64)
    need = 2 * rules.players + 5
    if need > len(deck):  # fewer rounds need fewer cards: fill with unused board slots
        need = 2 * rules.players + rules.board_size(rules.rounds - 1)
    keys = rng.random((deals, len(deck)))
    cards = deck[np.argsort(keys, axis=1)[:, :need]]
    if cards.shape[1] < 2 * rules.players + 5:
        pad = np.full((deals, 2 * rules.players + 5 - cards.shape[1]), -1, dtype=np.int64)
        cards = np.concatenate([cards, pad], axis=1)
    return cards


def showdown_values(rules: NoLimitRules, cards: np.ndarray) -> np.ndarray:
    """Hand values (higher wins; :mod:`pokerlab.cards.evaluator`) of every seat of every deal
    at a showdown on the board of the rules' last round, int64 ``(deals, players)``."""
    cards = np.asarray(cards, dtype=np.int64)
    n, shown = rules.players, rules.board_size(rules.rounds - 1)
    board = cards[:, 2 * n : 2 * n + shown]
    rows = [np.concatenate([cards[:, 2 * s : 2 * s + 2], board], axis=1) for s in range(n)]
    values = evaluate_batch(np.concatenate(rows).astype(np.uint8))
    return values.reshape(n, len(cards)).T.astype(np.int64)


def sample_action(policy: dict[Action, float], u: float) -> Action:
    """The action whose cumulative probability first exceeds ``u`` in [0, 1), the actions
    taken in (kind, amount) order (a fixed order, so the draw is reproducible)."""
    acc = 0.0
    ordered = sorted(policy)
    for action in ordered:
        acc += policy[action]
        if u < acc:
            return action
    return next(a for a in reversed(ordered) if policy[a] > 0.0)


def play_hand(
    rules: NoLimitRules,
    agents: Sequence[NoLimitAgent],
    cards: np.ndarray,
    rng: np.random.Generator,
    values: Sequence[int] | None = None,
) -> HandRecord:
    """Play one hand: ``agents[s]`` in seat ``s``, ``cards`` one row of :func:`deal_cards`,
    one uniform of ``rng`` per decision; ``values``: the seats' showdown values (computed when
    None). Every policy is checked (:func:`~.agents.check_policy`): an illegal action or bad
    probabilities raise :class:`~pokerlab.errors.PokerlabError` naming the agent."""
    n = rules.players
    if len(agents) != n:
        raise PokerlabError(f"play_hand: {len(agents)} agents for {n} seats")
    row = [int(c) for c in np.asarray(cards).tolist()]
    state = rules.initial_state()
    history: list[tuple[int, int, int]] = []
    while not state.is_terminal():
        seat = state.to_act
        board = tuple(row[2 * n : 2 * n + rules.board_size(state.street)])
        view = PublicView(rules, state, board, tuple(history))
        agent = agents[seat]
        who = f"agent {agent.name!r} (seat {seat})"
        policy = check_policy(view, agent.policy(view, (row[2 * seat], row[2 * seat + 1])), who)
        kind, amount = sample_action(policy, float(rng.random()))
        history.append((seat, kind, amount))
        state = state.apply(rules, kind, amount)
    if state.status == "showdown" and values is None:
        values = showdown_values(rules, np.asarray([row]))[0].tolist()
    chips = payoffs(rules, state, None if state.status == "fold" else list(values or []))
    return HandRecord(tuple(float(c) for c in chips), tuple(history))


@dataclass
class NoLimitMatchResult(DuplicateEstimate):
    """The hero's duplicate result against the opponent: mean in mbb per game and the 95%
    interval half-width; ``pairs`` counts deals (groups of ``players`` games)."""

    hero: str
    opponent: str
    players: int
    pairs: int
    mbb_per_game: float
    ci95_mbb: float
    seed: int
    seconds: float
    group_values: np.ndarray = field(repr=False)  # hero's sum over each deal's games (bb)
    seat_means: tuple[float, ...] = ()  # hero's mean per game in each seat (mbb)

    def as_dict(self) -> dict[str, Any]:
        """JSON-able fields (no per-deal values); ``games`` is ``players x pairs``."""
        return {
            "hero": self.hero,
            "opponent": self.opponent,
            "players": self.players,
            **self.estimate_dict(),
            "games": self.players * self.pairs,
            "seat_mbb": list(self.seat_means),
            "seed": self.seed,
            "seconds": self.seconds,
        }


def _play_deals(job: tuple, lo: int, hi: int) -> np.ndarray:
    """The hero's winnings in big blinds, ``(hi - lo, players)``, on the deals ``lo .. hi - 1``
    of ``job`` (rules, hero, opponent, cards, showdown values, seeds), each seat in turn."""
    rules, hero, opponent, cards, values, seeds = job
    n = rules.players
    won = np.empty((hi - lo, n), dtype=np.float64)
    for i in range(lo, hi):
        for g in range(n):
            seats = [opponent] * n
            seats[g] = hero
            record = play_hand(rules, seats, cards[i], generator(seeds[i]), values[i].tolist())
            won[i - lo, g] = record.chips[g] / rules.big_blind
    return won


def duplicate_match(
    rules: NoLimitRules,
    hero: NoLimitAgent,
    opponent: NoLimitAgent,
    pairs: int,
    seed: SeedLike = 0,
    workers: int = 1,
    executor: Executor | None = None,
) -> NoLimitMatchResult:
    """Play ``pairs`` deals, each once per seat (module docstring), and return the hero's mean
    winnings in mbb per game (big blind = ``rules.big_blind`` chips) with a 95% interval.
    ``workers`` > 1: the deals in that many blocks on local processes, or on ``executor``
    (:func:`~pokerlab.evaluate.parallel.run_blocks`; the same numbers as one process; what an
    agent records while playing stays in the worker)."""
    if isinstance(pairs, bool) or not isinstance(pairs, int | np.integer) or pairs < 2:
        raise PokerlabError(f"duplicate_match: pairs must be an integer >= 2, got {pairs!r}")
    if isinstance(workers, bool) or not isinstance(workers, int | np.integer) or workers < 1:
        raise PokerlabError(f"duplicate_match: workers must be >= 1, got {workers!r}")
    t0 = time.perf_counter()
    n, pairs = rules.players, int(pairs)
    seed_value = seed_int(seed)
    cards = deal_cards(rules, pairs, generator(seed_value))
    values = showdown_values(rules, cards)
    seeds = child_seeds(seed_value, pairs)
    job = (rules, hero, opponent, cards, values, seeds)
    if workers == 1 and executor is None:
        won = _play_deals(job, 0, pairs)
    else:
        won = np.concatenate(run_blocks(_play_deals, job, pairs, int(workers), executor))
    groups = won.sum(axis=1)
    mean, half = duplicate_estimate(groups * 2.0 / n)  # a group of n games, not a pair of 2
    return NoLimitMatchResult(
        hero=hero.name,
        opponent=opponent.name,
        players=n,
        pairs=pairs,
        mbb_per_game=mean,
        ci95_mbb=half,
        seed=seed_value,
        seconds=time.perf_counter() - t0,
        group_values=groups,
        seat_means=tuple(1000.0 * float(x) for x in won.mean(axis=0)),
    )
