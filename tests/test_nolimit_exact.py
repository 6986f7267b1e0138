"""Exact best response to a heads-up no-limit agent (pokerlab.evaluate.nolimit.exact): against the
engine's best response over the history interface, against a per-hand reference walk on a
four-round game, the always-fold oracle, the agent's queries, and the refusals."""

from __future__ import annotations

import zlib
from functools import cache
from itertools import combinations

import numpy as np
import pytest

import pokerlab
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.exploitability import best_response_values
from pokerlab.evaluate.nolimit.agents import (
    CALL,
    CHECK,
    RAISE,
    AlwaysCall,
    AlwaysFold,
    NoLimitAgent,
    PublicView,
    deck_combos,
    normalize_action,
)
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent, history_strategy
from pokerlab.evaluate.nolimit.exact import (
    estimate_exact_best_response,
    exact_best_response,
    mbb_per_game,
)
from pokerlab.games.nolimit.actions import abstract_actions
from pokerlab.games.nolimit.rules import payoffs
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction


def _tiny() -> pokerlab.HistoryGame:
    """conftest's TINY_BLUEPRINT: 8 cards, two rounds, fold / call / pot / all-in, 3 bb deep."""
    return pokerlab.load_game("nolimit-holdem", config="fcpa", ranks=2, rounds=2, stack=300)


def _four_rounds() -> pokerlab.HistoryGame:
    """12 cards, preflop to river, fcpa, 4 big blinds deep (80 decisions, 49 showdowns)."""
    return pokerlab.load_game("nolimit-holdem", config="fcpa", ranks=3, rounds=4, stack=400)


class Uniform(NoLimitAgent):
    """Every action of the game's abstraction equally likely, whatever the cards."""

    name = "uniform"

    def __init__(self, game: pokerlab.HistoryGame) -> None:
        self.game = game
        self.seen: dict = {}

    def _actions(self, view: PublicView) -> list[tuple[int, int]]:
        got = self.seen.get(view.state)
        if got is None:
            got = self.seen[view.state] = abstract_actions(
                view.rules, self.game.abstraction, view.state
            )
        return got

    def policy(self, view, hole):
        acts = self._actions(view)
        return {a: 1.0 / len(acts) for a in acts}

    def action_probability(self, view, hands, action):
        acts = self._actions(view)
        p = 1.0 / len(acts) if normalize_action(view, action) in acts else 0.0
        return np.full(len(hands), p)


class Recording(NoLimitAgent):
    """Another agent's answers, with every (line, board, action) it was asked about."""

    def __init__(self, inner: NoLimitAgent) -> None:
        self.inner = inner
        self.name = inner.name
        self.asked: list[tuple] = []

    def policy(self, view, hole):
        return self.inner.policy(view, hole)

    def action_probability(self, view, hands, action):
        self.asked.append((view.history, view.board, action))
        return self.inner.action_probability(view, hands, action)


class ClassHash(Uniform):
    """Card-dependent and blind to suits: each action's weight is a hash of the line and of
    the suit-isomorphism class of the hole cards and board (round_indexer)."""

    name = "class-hash"

    def action_probability(self, view, hands, action):
        acts = self._actions(view)
        street = view.state.street
        board = np.asarray(view.board, dtype=np.int64)
        rows = np.concatenate([hands, np.broadcast_to(board, (len(hands), len(board)))], 1)
        index = round_indexer(street, view.rules.ranks).index(rows).astype(np.int64)
        line = zlib.crc32(repr(view.history).encode())
        weights = np.stack(
            [(index * 2654435761 + line * 97 + 131 * a) % 1009 + 1 for a in range(len(acts))]
        )
        key = normalize_action(view, action)
        return weights[acts.index(key)] / weights.sum(axis=0)


class MinRaiser(NoLimitAgent):
    """Raises the minimum (to 200 preflop), which fcpa does not offer, else checks or calls."""

    name = "min-raiser"

    def policy(self, view, hole):
        bounds = view.state.raise_bounds(view.rules)
        if bounds is not None and bounds[0] < bounds[1]:
            return {(RAISE, bounds[0]): 1.0}
        return AlwaysCall().policy(view, hole)


def _reference(game, agent: NoLimitAgent, seat: int, hole: tuple[int, int]) -> float:
    """Seat ``seat``'s best-response value holding ``hole`` against a card-blind ``agent`` whose
    play depends only on the betting state: a scalar walk over betting states and board card
    sets (the opponent's hand uniform over the cards left, each showdown counted hand by hand
    with the evaluator and :func:`payoffs`)."""
    rules = game.rules
    rest = [c for c in range(52 - 4 * rules.ranks, 52) if c not in hole]
    final = rules.board_size(rules.rounds - 1)

    @cache
    def counts(board: frozenset[int]) -> tuple[int, int, int]:
        mine = game.hand_value(hole, board)
        won = tied = lost = 0
        for opp in combinations([c for c in rest if c not in board], 2):
            theirs = game.hand_value(opp, board)
            won += mine > theirs
            tied += mine == theirs
            lost += mine < theirs
        return won, tied, lost

    @cache
    def ends(state) -> tuple[float, float, float]:
        """(tie, win, lose) of ``seat`` at a showdown."""
        tie, first, second = (
            float(payoffs(rules, state, s)[seat]) for s in ([1, 1], [1, 0], [0, 1])
        )
        return (tie, first, second) if seat == 0 else (tie, second, first)

    @cache
    def value(state, board: frozenset[int]) -> float:
        if state.status == "fold":
            return float(payoffs(rules, state)[seat])
        need = final if state.status == "showdown" else rules.board_size(state.street)
        if len(board) < need:
            deals = list(combinations([c for c in rest if c not in board], need - len(board)))
            return sum(value(state, board | frozenset(d)) for d in deals) / len(deals)
        if state.status == "showdown":
            won, tied, lost = counts(board)
            tie, win, lose = ends(state)
            return (won * win + tied * tie + lost * lose) / (won + tied + lost)
        acts = abstract_actions(rules, game.abstraction, state)
        kids = [value(state.apply(rules, k, a), board) for k, a in acts]
        if state.to_act == seat:
            return max(kids)
        other = tuple(c for c in rest if c not in board)[:2]
        policy = agent.policy(PublicView(rules, state, tuple(sorted(board))), other)
        return sum(policy.get(a, 0.0) * v for a, v in zip(acts, kids, strict=True))

    return value(rules.initial_state(), frozenset())


@pytest.fixture(scope="module")
def tiny_blueprint():
    game = _tiny()
    abstraction = lossless_abstraction(2)
    solver = BlueprintSolver(game, abstraction, seed=1)
    solver.step(2000)
    return game, abstraction, solver.average_strategy()


@pytest.mark.parametrize("iso", [False, True])
def test_blueprint_equals_the_engines_best_response(tiny_blueprint, iso: bool) -> None:
    """A short blueprint run on the 8-card two-round game: each seat's best-response value and
    the exploitability equal the engine's over the history interface to 1e-9 (measured: the
    two agree to 1e-14 chips), with and without suit isomorphism."""
    game, abstraction, strategy = tiny_blueprint
    on_history = history_strategy(strategy, abstraction)
    engine = best_response_values(game, on_history)
    got = exact_best_response(game, BlueprintAgent(strategy, abstraction), suit_isomorphism=iso)
    assert got.suit_isomorphism is iso
    np.testing.assert_allclose(got.best_response_values, engine, rtol=1e-9, atol=1e-12)
    assert got.exploitability == pytest.approx(pokerlab.exploitability(game, on_history), rel=1e-9)
    assert got.exploitability > 0.1  # 2,000 iterations are far from an equilibrium
    assert got.mbb_per_game == pytest.approx(1000.0 * got.exploitability / 100.0)
    assert mbb_per_game(got.exploitability, game.rules.big_blind) == got.mbb_per_game
    for seat in (0, 1):
        assert got.hand_values[seat].mean() == pytest.approx(got.best_response_values[seat])


@pytest.mark.parametrize("agent_name", ["uniform", "always-call"])
def test_four_rounds_equal_a_per_hand_reference(agent_name: str) -> None:
    """Preflop to river on 12 cards with suit isomorphism: each hand's best-response value
    against a card-blind agent equals a scalar per-hand walk over the rules (for a spread of
    hands), and the seat values are the hands' means."""
    game = _four_rounds()
    agent = Uniform(game) if agent_name == "uniform" else AlwaysCall()
    got = exact_best_response(game, agent, suit_isomorphism=True)
    hands = deck_combos(game.rules)
    for seat in (0, 1):
        assert got.hand_values[seat].mean() == pytest.approx(got.best_response_values[seat])
        for h in (0, 23, 65):
            hole = (int(hands[h, 0]), int(hands[h, 1]))
            want = _reference(game, agent, seat, hole)
            assert got.hand_values[seat][h] == pytest.approx(want, rel=1e-9, abs=1e-9)
    if agent_name == "always-call":
        # the best response bets its strong hands: it wins more than the blinds it risks
        assert min(got.best_response_values) > 0


@pytest.mark.parametrize("agent_name", ["uniform", "always-call"])
def test_suit_isomorphism_changes_nothing_for_suit_blind_agents(agent_name: str) -> None:
    """Three rounds on 12 cards: every hand's value is the same with and without suit
    isomorphism, which asks the agent far fewer questions."""
    game = pokerlab.load_game("nolimit-holdem", config="fcpa", ranks=3, rounds=3, stack=400)
    agent = Uniform(game) if agent_name == "uniform" else AlwaysCall()
    plain = exact_best_response(game, agent, suit_isomorphism=False)
    iso = exact_best_response(game, agent, suit_isomorphism=True)
    np.testing.assert_allclose(iso.best_response_values, plain.best_response_values, rtol=1e-12)
    for seat in (0, 1):
        np.testing.assert_allclose(iso.hand_values[seat], plain.hand_values[seat], atol=1e-9)
    assert iso.queries < plain.queries / 5


def test_suit_isomorphism_with_a_card_dependent_agent() -> None:
    """An agent that plays every suit-isomorphism class of its cards differently (but equal
    classes alike, as a blueprint on lossless buckets): on 12 cards and three rounds its
    best-response values are the same with and without suit isomorphism, hand by hand."""
    game = pokerlab.load_game("nolimit-holdem", config="fcpa", ranks=3, rounds=3, stack=400)
    agent = ClassHash(game)
    plain = exact_best_response(game, agent, suit_isomorphism=False)
    iso = exact_best_response(game, agent, suit_isomorphism=True)
    for seat in (0, 1):
        np.testing.assert_allclose(iso.hand_values[seat], plain.hand_values[seat], atol=1e-9)
        spread = plain.hand_values[seat].max() - plain.hand_values[seat].min()
        assert spread > 50.0  # the hands' values differ: the test sees the relabelling
    assert iso.exploitability == pytest.approx(plain.exploitability, rel=1e-12)
    assert iso.queries < plain.queries / 5


def test_always_fold_oracle() -> None:
    """Against always-fold a best response raises first in as the small blind (+100 chips) and
    as the big blind collects the small blind (+50): 750 mbb/g, the issue's LBR oracle."""
    game = _four_rounds()
    got = exact_best_response(game, AlwaysFold(), suit_isomorphism=True)
    assert got.best_response_values == pytest.approx((100.0, 50.0), abs=1e-9)
    assert got.mbb_per_game == pytest.approx(750.0)


def test_agent_is_asked_once_per_public_state_it_reaches() -> None:
    """Always-call never raises: no line it is shown holds a raise of its own, and every
    (line, board, action) is asked exactly once."""
    game = _four_rounds()
    agent = Recording(AlwaysCall())
    got = exact_best_response(game, agent, suit_isomorphism=True)
    assert len(agent.asked) == got.queries > 0
    assert len(set(agent.asked)) == len(agent.asked)
    seats = set()
    for history, board, _ in agent.asked:
        state = _state_after(game, history)
        seats.add(state.to_act)
        assert all(kind in (CHECK, CALL) for s, kind, _ in history if s == state.to_act)
        assert len(board) == game.rules.board_size(state.street)
    assert seats == {0, 1}


def _state_after(game, history):
    state = game.rules.initial_state()
    for _, kind, amount in history:
        state = state.apply(game.rules, kind, amount)
    return state


def test_refusals() -> None:
    """Three players, an agent off the game's actions (named), a game too large (with its
    estimate), another game."""
    three = pokerlab.load_game("nolimit-holdem", config="fcpa", players=3, ranks=3, rounds=2)
    with pytest.raises(PokerlabError, match="heads-up only; this game has 3 players"):
        exact_best_response(three, AlwaysCall())
    with pytest.raises(
        PokerlabError, match=r"min-raiser plays raise 200 \(seat 1, preflop, line 0:call 100"
    ):
        exact_best_response(_tiny(), MinRaiser())
    with pytest.raises(PokerlabError, match="too large"):
        exact_best_response(pokerlab.load_game("nolimit-holdem", config="fcpa"), AlwaysCall())
    info = estimate_exact_best_response(_four_rounds())
    assert info["boards"] == [1, 220, 1980, 15840]
    with pytest.raises(PokerlabError, match=f"{info['public_states']:,} public"):
        exact_best_response(_four_rounds(), AlwaysCall(), max_public_states=1000)
    with pytest.raises(PokerlabError, match="needs a nolimit-holdem game"):
        exact_best_response(pokerlab.load_game("kuhn"), AlwaysCall())
