"""No-limit agents and duplicate matches (issue 24, "Judging it"): hand-computed hands, side
pots, exact cancellation of an agent against itself, errors naming the bad input."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab._rng import generator
from pokerlab.cards.deck import parse_cards
from pokerlab.cards.evaluator import evaluate
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit import (
    AlwaysCall,
    AlwaysFold,
    HandStrengthRule,
    NoLimitAgent,
    PotRaise,
    PublicView,
    deal_cards,
    duplicate_match,
    play_hand,
    pot_raise_to,
)
from pokerlab.evaluate.nolimit.agents import check_policy, passive_action
from pokerlab.games.nolimit.rules import ALLIN, BET, CALL, CHECK, FOLD, RAISE, NoLimitRules

HUNL = NoLimitRules(2, (20_000, 20_000), 50, 100)


def _cards(*seats: str, board: str) -> np.ndarray:
    return np.array([c for s in seats for c in parse_cards(s)] + parse_cards(board))


class Mixed(NoLimitAgent):
    """Calls or pot-raises with probability 1/2 each (folds nothing): a stochastic agent."""

    name = "mixed"

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[tuple[int, int], float]:
        pot = pot_raise_to(view)
        if pot is None:
            return {passive_action(view): 1.0}
        return {passive_action(view): 0.5, pot: 0.5}


class Illegal(NoLimitAgent):
    name = "min-raiser"

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[tuple[int, int], float]:
        return {(RAISE, 10): 1.0}


def test_pot_raise_against_always_call_hand_computed() -> None:
    # stacks 5,000: raise to 300, then pot bets 600 and 1,800 and the last 2,300 all-in
    rules = NoLimitRules(2, (5000, 5000), 50, 100)
    cards = _cards("AsAh", "7c2d", board="Kd9s5h3cJd")
    record = play_hand(rules, [PotRaise(), AlwaysCall()], cards, generator(0))
    assert record.actions == (
        (0, RAISE, 300), (1, CALL, 300),
        (1, CHECK, 0), (0, BET, 600), (1, CALL, 600),
        (1, CHECK, 0), (0, BET, 1800), (1, CALL, 1800),
        (1, CHECK, 0), (0, ALLIN, 2300), (1, CALL, 2300),
    )  # fmt: skip
    assert record.chips == (5000.0, -5000.0)
    # seats swapped, same cards: the caller limps, the raiser in the big blind bets the pot
    swapped = play_hand(rules, [AlwaysCall(), PotRaise()], cards, generator(0))
    assert swapped.actions[:3] == ((0, CALL, 100), (1, RAISE, 300), (0, CALL, 300))
    assert swapped.chips == (5000.0, -5000.0)


def test_three_players_side_pots_hand_computed() -> None:
    # UTG raises the pot to 350; the SB (1,000) and BB (3,000) shove; UTG may only call.
    rules = NoLimitRules(3, (1000, 3000, 5000), 50, 100)
    cards = _cards("AsAh", "KsKh", "7c2d", board="Qd9c5h3s8d")
    record = play_hand(rules, [PotRaise()] * 3, cards, generator(0))
    assert record.actions == ((2, RAISE, 350), (0, ALLIN, 1000), (1, ALLIN, 3000), (2, CALL, 3000))
    # main pot 3 x 1,000 to the aces; side pot 2 x 2,000 to the kings
    assert record.chips == (2000.0, 1000.0, -3000.0)


def test_split_pot_and_fold_hand_computed() -> None:
    # the board plays (a royal flush): the two seats split; always-fold folds its small blind
    cards = _cards("2c3d", "4h5c", board="AsKsQsJsTs")
    assert play_hand(HUNL, [AlwaysCall(), AlwaysCall()], cards, generator(0)).chips == (0.0, 0.0)
    folded = play_hand(HUNL, [AlwaysFold(), PotRaise()], cards, generator(0))
    assert folded.actions == ((0, FOLD, 0),) and folded.chips == (-50.0, 50.0)


def test_duplicate_cancels_exactly_against_itself() -> None:
    for rules, agent in (
        (HUNL, Mixed()),
        (HUNL, HandStrengthRule()),
        (NoLimitRules(6, (10_000,) * 6, 50, 100, ante=10), Mixed()),
    ):
        result = duplicate_match(rules, agent, agent, 6, seed=11)
        assert result.group_values.tolist() == [0.0] * 6
        assert result.mbb_per_game == 0.0 and result.ci95_mbb == 0.0
        assert result.as_dict()["games"] == 6 * rules.players


def test_pot_raise_against_always_call_is_zero_per_pair() -> None:
    # both seatings reach the same pot (8,100 chips each at 200 bb): the card luck cancels
    result = duplicate_match(HUNL, PotRaise(), AlwaysCall(), 40, seed=3)
    assert result.group_values.tolist() == [0.0] * 40


def test_match_is_seeded_and_the_rule_bot_beats_always_call() -> None:
    a = duplicate_match(HUNL, HandStrengthRule(), Mixed(), 30, seed=5)
    b = duplicate_match(HUNL, HandStrengthRule(), Mixed(), 30, seed=5)
    c = duplicate_match(HUNL, HandStrengthRule(), Mixed(), 30, seed=6)
    assert np.array_equal(a.group_values, b.group_values)
    assert not np.array_equal(a.group_values, c.group_values)
    short = NoLimitRules(2, (2000, 2000), 50, 100)
    win = duplicate_match(short, HandStrengthRule(), AlwaysCall(), 150, seed=1)
    assert win.interval[0] > 0.0  # value-betting beats a calling station


def test_matches_on_worker_processes_equal_one_process() -> None:
    """Each deal keeps its cards and seed: 2 or 3 processes give the serial group values, heads
    up and at six seats."""
    serial = duplicate_match(HUNL, HandStrengthRule(), Mixed(), 9, seed=5)
    for workers in (2, 3):
        split = duplicate_match(HUNL, HandStrengthRule(), Mixed(), 9, seed=5, workers=workers)
        np.testing.assert_array_equal(split.group_values, serial.group_values)
    six = NoLimitRules(6, (10_000,) * 6, 50, 100)
    one = duplicate_match(six, PotRaise(), Mixed(), 5, seed=1)
    two = duplicate_match(six, PotRaise(), Mixed(), 5, seed=1, workers=2)
    np.testing.assert_array_equal(one.group_values, two.group_values)
    assert one.seat_means == two.seat_means
    with pytest.raises(PokerlabError, match="workers must be >= 1"):
        duplicate_match(HUNL, PotRaise(), Mixed(), 2, workers=0)


def test_six_player_rotation_sums_the_hero_over_every_seat() -> None:
    rules = NoLimitRules(6, (10_000,) * 6, 50, 100)
    pairs, seed = 12, 2
    result = duplicate_match(rules, AlwaysFold(), AlwaysCall(), pairs, seed=seed)
    # always-fold loses its small blind in seat 0; in the big blind everyone limps, it checks
    # down and wins the 600 chips (+500) with the best hand or loses its 100; elsewhere it folds
    # preflop for nothing
    expect = []
    for row in deal_cards(rules, pairs, generator(seed)).tolist():
        values = [evaluate(row[2 * s : 2 * s + 2] + row[12:17]) for s in range(6)]
        best = max(values)
        share = 600 / values.count(best) - 100 if values[1] == best else -100
        expect.append((-50 + share) / 100)
    assert result.group_values.tolist() == pytest.approx(expect, abs=1e-12)
    assert len(set(expect)) == 2  # both outcomes occur in these deals
    assert result.seat_means[0] == -500.0 and result.seat_means[2:] == (0.0,) * 4
    assert result.mbb_per_game == pytest.approx(1000 * float(np.mean(expect)) / 6)


def test_hand_strength_rule_thresholds() -> None:
    bot = HandStrengthRule()
    aces = bot.strength(HUNL, (51, 50), ())
    assert aces == pytest.approx(0.85204, abs=1e-4)  # AA against a random hand, all-in preflop
    royal = tuple(parse_cards("AsKsQsJs2d"))
    assert bot.strength(HUNL, tuple(parse_cards("Ts3c")), royal) == 1.0
    view = PublicView(HUNL, HUNL.initial_state(), ())
    assert bot.policy(view, (51, 50)) == {(RAISE, 300): 1.0}
    assert bot.policy(view, tuple(parse_cards("7c2d"))) == {(FOLD, 0): 1.0}
    # the vectorised default answers as the policy does, hand by hand
    hands = np.array([[51, 50], [20, 0], [44, 40]])
    probs = bot.action_probability(view, hands, (RAISE, 300))
    expect = [1.0 if bot.strength(HUNL, (int(a), int(b)), ()) >= 0.65 else 0.0 for a, b in hands]
    assert probs.tolist() == expect


@pytest.mark.parametrize(("ranks", "cards"), [(13, 5), (13, 4), (6, 4), (6, 5)])
def test_turn_and_river_strengths_of_every_hand_equal_the_per_hand_kernel(ranks, cards) -> None:
    """``board_strengths`` (every hand at once, counted by sorting) against the LBR equity
    kernel's E[HS] hand by hand (an enumeration over opponents and river cards); the rule bot
    reads the table, and its vectorised probabilities equal its policy."""
    from pokerlab.evaluate.nolimit.agents import _ehs_raw, deck_combos
    from pokerlab.evaluate.nolimit.strength import board_strengths

    rng = generator(ranks * 10 + cards)
    deck = np.arange(52 - 4 * ranks, 52)
    board = tuple(int(c) for c in rng.choice(deck, cards, replace=False))
    rules = NoLimitRules(2, (20_000, 20_000), 50, 100, ranks=ranks)
    hands = deck_combos(rules)
    table = board_strengths(ranks, board)
    free = ~np.isin(hands, board).any(axis=1)
    assert np.isnan(table[~free]).all() and not np.isnan(table[free]).any()
    for k in rng.choice(np.flatnonzero(free), 25, replace=False):
        a, b = (int(x) for x in hands[k])
        assert table[k] == pytest.approx(_ehs_raw(ranks, (a, b), board, 100_000, 64), abs=1e-12)
    bot = HandStrengthRule()
    state = rules.initial_state()
    while state.street < cards - 2:  # checked and called down to the turn or the river
        state = state.apply(rules, *passive_action(PublicView(rules, state, ())))
    view = PublicView(rules, state, board)
    assert view.state.street == cards - 2 and view.state.to_call() == 0
    live = hands[free]
    for action in (view.legal()[0], pot_raise_to(view)):
        probs = bot.action_probability(view, live, action)
        policy = [bot.policy(view, (int(a), int(b))).get(action, 0.0) for a, b in live[:60]]
        assert probs[:60].tolist() == policy


def test_deals_are_distinct_cards_of_the_deck() -> None:
    rules = NoLimitRules(2, (1000, 1000), 5, 10, ranks=3, rounds=2)
    cards = deal_cards(rules, 50, generator(0))
    assert cards.shape == (50, 9)
    live = cards[:, :7]
    assert live.min() >= 40 and all(len(set(row)) == 7 for row in live.tolist())
    assert evaluate(list(parse_cards("AsAhKdKcQs"))) > evaluate(list(parse_cards("AsAhKdQcJs")))


def test_errors_name_the_bad_input() -> None:
    with pytest.raises(PokerlabError, match=r"'min-raiser' \(seat 0\) returned an illegal action"):
        duplicate_match(HUNL, Illegal(), AlwaysCall(), 2)
    with pytest.raises(PokerlabError, match="illegal action \\(raise, 10\\).*legal are fold 0"):
        play_hand(HUNL, [Illegal(), AlwaysCall()], _cards("AsAh", "7c2d", board="Kd9s5h3cJd"),
                  generator(0))  # fmt: skip
    with pytest.raises(PokerlabError, match="pairs must be an integer >= 2, got 1"):
        duplicate_match(HUNL, AlwaysCall(), AlwaysCall(), 1)
    view = PublicView(HUNL, HUNL.initial_state(), ())
    with pytest.raises(PokerlabError, match="'x''s action probabilities sum to 0.5"):
        check_policy(view, {(CALL, 100): 0.5}, "'x'")
    with pytest.raises(PokerlabError, match="2 agents for 3 seats"):
        play_hand(NoLimitRules(3, (1000,) * 3, 5, 10), [AlwaysCall()] * 2, np.arange(11),
                  generator(0))  # fmt: skip
    with pytest.raises(PokerlabError, match="call_above"):
        HandStrengthRule(0.4, 0.6)
