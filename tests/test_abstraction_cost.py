"""The exact cost of the action and card abstraction (evaluate/nolimit/translated.py and
abstraction_cost.py): the averaged translation against the hashed agent's readings one by one,
against BlueprintAgent on its own tree, and the richer game's best response never below the
abstract game's, seat by seat."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from pokerlab.evaluate.nolimit import translation
from pokerlab.evaluate.nolimit.agents import CALL, RAISE, NoLimitAgent, PublicView, deck_combos
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent
from pokerlab.evaluate.nolimit.exact import exact_best_response
from pokerlab.evaluate.nolimit.translated import AveragedTranslationAgent
from pokerlab.games.nolimit.actions import abstract_actions
from pokerlab.solvers.abstraction_cost import (
    BASE_SIZES,
    abstraction_cost,
    sized_game,
)
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction


@cache
def _blueprint(stack: int):
    """12 cards, four rounds, fold / call / pot / all-in, lossless, 3,000 iterations."""
    game = sized_game(3, stack, BASE_SIZES)
    cards = lossless_abstraction(3)
    solver = BlueprintSolver(game, cards, seed=1)
    solver.step(3000)
    return game, cards, solver.average_strategy()


def test_averaged_agent_is_the_blueprint_on_its_own_tree() -> None:
    # In the blueprint's own game no line leaves the tree: the batched averaged agent must give
    # BlueprintAgent's exact best response to the bit, hand by hand.
    game, cards, strategy = _blueprint(300)
    plain = exact_best_response(game, BlueprintAgent(strategy, cards), suit_isomorphism=True)
    averaged = exact_best_response(game, AveragedTranslationAgent(strategy, cards))
    assert averaged.suit_isomorphism
    assert averaged.best_response_values == plain.best_response_values
    for p in (0, 1):
        assert np.array_equal(averaged.hand_values[p], plain.hand_values[p])
    assert averaged.public_states == plain.public_states
    assert plain.mbb_per_game > 0


def _pseudo_harmonic(a: float, b: float, x: float) -> float:
    """Ganzfried and Sandholm 2013: the probability of reading x as the smaller size a."""
    return (b - x) * (1 + a) / ((b - a) * (1 + x))


def test_averaged_translation_is_the_mixture_of_the_hashed_readings(monkeypatch) -> None:
    # 10 bb: the small blind raises 200% (to 500; the tree has pot, to 300, and all-in, 1000),
    # the big blind (the agent) calls, and acts first on the flop. Reading the raise as the pot
    # keeps the tree's line, as all-in ends it (the agent then checks). The averaged agent must
    # weigh the two readings by the pseudo-harmonic split times the chance that the agent
    # called under each: the hashed BlueprintAgent with its draw forced, read hand by hand.
    game, cards, strategy = _blueprint(1000)
    rules = game.rules
    hashed = BlueprintAgent(strategy, cards)
    averaged = AveragedTranslationAgent(strategy, cards)
    s0 = rules.initial_state()
    raise_move = (0, RAISE, 500)
    s1 = s0.apply(rules, RAISE, 500)
    call_move = (1, CALL, 500)
    s2 = s1.apply(rules, CALL, 500)
    assert s2.street == 1 and s2.to_act == 1
    board = (40, 44, 49)
    pre = PublicView(rules, s1, (), (raise_move,))
    flop = PublicView(rules, s2, board, (raise_move, call_move))
    w_pot = _pseudo_harmonic(1.0, 4.5, 2.0)  # fractions of the pot after the call (200 chips)
    hands = [h for h in deck_combos(rules).tolist() if not set(h) & set(board)]
    reference: dict[tuple[int, int], dict] = {}
    for hole in map(tuple, hands):
        num: dict = {}
        den = 0.0
        seen = set()
        for u in (0.0, 1.0 - 1e-12):
            monkeypatch.setattr(translation, "_uniform", lambda *_a, u=u: u)
            line = hashed.read(flop, hole)
            seen.add(line.lost)
            w = w_pot if not line.lost else 1.0 - w_pot
            rho = hashed.policy(pre, hole).get((CALL, 500), 0.0) * w
            den += rho
            for action, p in hashed.policy(flop, hole).items():
                num[action] = num.get(action, 0.0) + rho * p
        assert seen == {False, True}  # both readings were played
        reference[hole] = {a: v / den for a, v in num.items()} if den > 0 else {}
    monkeypatch.undo()
    arr = np.asarray(hands, dtype=np.int64)
    actions = sorted({a for ref in reference.values() for a in ref})
    assert len(actions) >= 2
    called = [hole for hole, ref in reference.items() if ref]
    assert len(called) > 10
    for action in actions:
        got = averaged.action_probability(flop, arr, action)
        want = np.asarray([reference[tuple(h)].get(action, 0.0) for h in hands])
        mask = np.asarray([bool(reference[tuple(h)]) for h in hands])
        np.testing.assert_allclose(got[mask], want[mask], rtol=0, atol=1e-12)
    for hole in called[:5]:
        policy = averaged.policy(flop, hole)
        assert set(policy) == {a for a, p in reference[hole].items() if p > 0}
        for a, p in policy.items():
            assert p == pytest.approx(reference[hole][a], abs=1e-12)


def test_richer_game_best_response_is_never_below_the_abstract_one() -> None:
    # The measurement on a fast configuration (12 cards, 3 bb, 2,000 iterations): in the rich
    # game the responder keeps every base action where the agent is on its tree, so each seat
    # gains at least as much as in the base game, for the lossless and the bucketed blueprint.
    out = abstraction_cost(
        ranks=3, stack=300, rich="50%, 100%, 200%, a", buckets=(9, 3, 3, 3), iterations=2000
    )
    rows = {r["case"]: r for r in out["rows"]}
    assert sorted(rows) == ["a", "b", "c", "d", "e"]
    for abstract, real in (("a", "b"), ("c", "d")):
        for p in (0, 1):
            assert (
                rows[real]["best_response_values"][p]
                >= rows[abstract]["best_response_values"][p] - 1e-12
            )
        assert rows[real]["public_states"] > rows[abstract]["public_states"]
    # the bet sizes the responder adds are used: the translation costs something here
    assert out["costs"]["action"] > 1.0
    assert out["costs"]["card"] == pytest.approx(
        rows["c"]["mbb_per_game"] - rows["a"]["mbb_per_game"]
    )
    for r in rows.values():
        assert r["mbb_per_game"] > 0


@pytest.mark.parametrize("seed", [0, 5])
def test_hashed_agent_answers_off_tree_lines_for_every_hand_as_hand_by_hand(seed) -> None:
    # BlueprintAgent.action_probability off its tree (grouped by each hand's draws) must be the
    # base class's question of policy() hand by hand, to the bit, for every action of the rich
    # game, on lines with a split raise, a raise below the tree's sizes and a lost line.
    game, cards, strategy = _blueprint(1000)
    rules = game.rules
    agent = BlueprintAgent(strategy, cards, seed=seed)
    rich = sized_game(3, 1000, "25%, 50%, 100%, 150%, 200%, a")
    s0 = rules.initial_state()
    lines = [
        ((), ((0, RAISE, 500),)),  # 200%: pot or all-in
        ((40, 44, 49), ((0, RAISE, 500), (1, CALL, 500))),  # then the flop, BB first
        ((), ((0, RAISE, 250), (1, RAISE, 700))),  # 75% (read as pot), BB re-raises
    ]
    checked = 0
    for board, history in lines:
        state = s0
        for _, kind, amount in history:
            state = state.apply(rules, kind, amount)
        view = PublicView(rules, state, board, history)
        assert agent._walk(history)[0] < 0  # off the tree
        hands = np.asarray(
            [h for h in deck_combos(rules).tolist() if not set(h) & set(board)], dtype=np.int64
        )
        total = np.zeros(len(hands))
        for action in abstract_actions(rich.rules, rich.abstraction, state):
            want = NoLimitAgent.action_probability(agent, view, hands, action)
            got = agent.action_probability(view, hands, action)
            assert np.array_equal(got, want)
            total += got
            checked += int((got > 0).sum())
        np.testing.assert_allclose(total, 1.0, atol=1e-9)
    assert checked > 100


def test_averaged_agent_is_suit_blind_in_the_rich_game() -> None:
    # The readings are public and the buckets suit-canonical: walking one board per suit class
    # must give every hand's value of the walk over all boards.
    _, cards, strategy = _blueprint(300)
    rich = sized_game(3, 300, "50%, 100%, 200%, a")
    agent = AveragedTranslationAgent(strategy, cards)
    iso = exact_best_response(rich, agent, suit_isomorphism=True)
    full = exact_best_response(rich, agent, suit_isomorphism=False)
    assert full.public_states > 10 * iso.public_states
    for p in (0, 1):
        np.testing.assert_allclose(iso.hand_values[p], full.hand_values[p], rtol=0, atol=1e-9)
    assert iso.exploitability == pytest.approx(full.exploitability, abs=1e-12)
