"""Local best response for heads-up no-limit (issue 24): the always-fold oracles (Lisy and
Bowling 2017: 750 mbb/g with fcpa, 250 with fc at blinds 50/100), a clear win against
always-call, seeded determinism against a card-dependent stochastic agent, errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from pokerlab._rng import generator
from pokerlab.cards.evaluator import evaluate
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.nolimit import (
    AlwaysCall,
    AlwaysFold,
    NoLimitAgent,
    PublicView,
    deal_cards,
    lbr_difference,
    local_best_response,
    pot_raise_to,
)
from pokerlab.evaluate.nolimit.agents import passive_action
from pokerlab.games.nolimit.rules import ALLIN, FOLD, NoLimitRules

HUNL = NoLimitRules(2, (20_000, 20_000), 50, 100)


class PairsRaise(NoLimitAgent):
    """Pot-raises with a pocket pair; otherwise folds to a raise half the time, else calls."""

    name = "pairs-raise"

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[tuple[int, int], float]:
        pot = pot_raise_to(view)
        if hole[0] // 4 == hole[1] // 4 and pot is not None:
            return {pot: 1.0}
        if view.state.to_call() > 0:
            return {(FOLD, 0): 0.5, passive_action(view): 0.5}
        return {passive_action(view): 1.0}


@pytest.mark.parametrize("rounds", ["3-4", "1-4"])
def test_lbr_fcpa_against_always_fold_is_exactly_750(rounds: str) -> None:
    result = local_best_response(HUNL, AlwaysFold(), 20, seed=4, actions="fcpa", rounds=rounds)
    assert result.mbb_per_game == 750.0 and result.ci95_mbb == 0.0
    assert result.seat_means == (1000.0, 500.0)  # the pot bet takes the big blind; SB folds
    assert result.counts == {"fold": 0, "call": 0, "pot": 20, "allin": 0}


def test_lbr_fc_against_always_fold_is_250_plus_the_checked_down_showdowns() -> None:
    pairs, seed = 60, 9
    result = local_best_response(HUNL, AlwaysFold(), pairs, seed=seed, actions="fc")
    # seat 1: the agent folds its small blind, +50 chips every game
    assert result.seat_means[1] == 500.0
    # seat 0: LBR limps and checks down; +-1 bb by the showdown, computed here by hand
    cards = deal_cards(HUNL, pairs, generator(seed))
    won = [
        np.sign(evaluate(row[[0, 1, 4, 5, 6, 7, 8]].tolist()) - evaluate(row[2:9].tolist()))
        for row in cards
    ]
    assert result.seat_means[0] == pytest.approx(1000.0 * float(np.mean(won)))
    assert result.mbb_per_game == pytest.approx(250.0 + 500.0 * float(np.mean(won)))
    low, high = result.interval
    assert low < 250.0 < high  # 250 in expectation (BLUEPRINT.md C3)


def test_lbr_beats_always_call_by_a_clear_margin() -> None:
    short = NoLimitRules(2, (2000, 2000), 50, 100)
    result = local_best_response(short, AlwaysCall(), 100, seed=1, actions="fcpa")
    assert result.interval[0] > 2000.0  # mbb/g; the agent never folds, LBR shoves its edges
    assert result.counts["fold"] == 0 and result.counts["allin"] > 0


class PairsRaiseRiverCall(PairsRaise):
    """:class:`PairsRaise` until the river; there it checks or calls every hand."""

    name = "pairs-raise-river-call"

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[tuple[int, int], float]:
        if view.state.street == 3:
            return {passive_action(view): 1.0}
        return super().policy(view, hole)


def test_lbr_difference_pairs_two_runs_on_their_common_deals() -> None:
    pairs = 60
    a = local_best_response(HUNL, PairsRaise(), pairs, seed=5)
    b = local_best_response(HUNL, PairsRaiseRiverCall(), pairs, seed=5)
    mean, half = lbr_difference(a, b)
    assert mean == pytest.approx(a.mbb_per_game - b.mbb_per_game)
    # the agents play alike before the river, so those games are the same games and the paired
    # interval is narrower than the two runs' intervals taken as independent
    assert 0.0 < half < 0.8 * float(np.hypot(a.ci95_mbb, b.ci95_mbb))
    # one agent twice: the same deals and the same draws, every pair the same
    assert lbr_difference(a, local_best_response(HUNL, PairsRaise(), pairs, seed=5)) == (0.0, 0.0)
    for key, value in (("seed", 6), ("pairs", pairs + 1), ("actions", "fc"), ("rounds", "1-4")):
        with pytest.raises(PokerlabError, match=key):
            lbr_difference(a, dataclasses.replace(b, **{key: value}))


def test_lbr_is_seeded_and_deterministic() -> None:
    a = local_best_response(HUNL, PairsRaise(), 4, seed=2, actions="fcpa")
    b = local_best_response(HUNL, PairsRaise(), 4, seed=2, actions="fcpa")
    c = local_best_response(HUNL, PairsRaise(), 4, seed=3, actions="fcpa")
    assert np.array_equal(a.pair_values, b.pair_values) and a.counts == b.counts
    assert not np.array_equal(a.pair_values, c.pair_values)


def test_lbr_on_processes_equals_the_serial_run() -> None:
    """Every pair has its own deal and seed: 2 or 3 worker processes give the serial run's
    pair values and counts exactly."""
    serial = local_best_response(HUNL, PairsRaise(), 7, seed=4, actions="fcpa")
    for workers in (2, 3):
        split = local_best_response(HUNL, PairsRaise(), 7, seed=4, actions="fcpa", workers=workers)
        np.testing.assert_array_equal(split.pair_values, serial.pair_values)
        assert split.counts == serial.counts and split.mbb_per_game == serial.mbb_per_game
    with pytest.raises(PokerlabError, match="workers must be >= 1, got 0"):
        local_best_response(HUNL, PairsRaise(), 2, workers=0)


def test_lbr_on_ray_equals_the_serial_run() -> None:
    pytest.importorskip("ray")
    from pokerlab.distributed.ray_executor import RayExecutor

    serial = local_best_response(HUNL, AlwaysCall(), 4, seed=6, actions="fcpa")
    executor = RayExecutor()
    try:
        split = local_best_response(
            HUNL, AlwaysCall(), 4, seed=6, actions="fcpa", workers=2, executor=executor
        )
    finally:
        executor.shutdown()
    np.testing.assert_array_equal(split.pair_values, serial.pair_values)
    assert split.counts == serial.counts


class Inconsistent(AlwaysCall):
    """Plays like always-call but claims no hand ever plays what it plays."""

    name = "liar"

    def action_probability(
        self, view: PublicView, hands: np.ndarray, action: tuple[int, int]
    ) -> np.ndarray:
        return np.zeros(len(hands))


def test_lbr_errors_name_the_bad_input() -> None:
    with pytest.raises(PokerlabError, match="agent 'liar': no hand of its range plays the action"):
        local_best_response(HUNL, Inconsistent(), 2)
    with pytest.raises(PokerlabError, match="heads-up only, got 3 players"):
        local_best_response(NoLimitRules(3, (1000,) * 3, 5, 10), AlwaysCall(), 2)
    with pytest.raises(PokerlabError, match="unknown LBR actions 'fcp'"):
        local_best_response(HUNL, AlwaysCall(), 2, actions="fcp")
    with pytest.raises(PokerlabError, match="unknown LBR rounds '2-4'"):
        local_best_response(HUNL, AlwaysCall(), 2, rounds="2-4")
    with pytest.raises(PokerlabError, match="pairs must be an integer >= 2, got 1"):
        local_best_response(HUNL, AlwaysCall(), 1)


def test_lbr_keeps_the_range_by_bayes_rule() -> None:
    from pokerlab.cards.deck import COMBO_INDEX, parse_cards
    from pokerlab.cards.preflop import equity_matrix
    from pokerlab.evaluate.nolimit.lbr import _lbr_action, _Range

    hole = tuple(sorted(parse_cards("7c2d")))
    range_ = _Range(HUNL, hole)
    agent = PairsRaise()
    view = PublicView(HUNL, HUNL.initial_state(), ())
    raise_ = pot_raise_to(view)
    assert raise_ == (4, 300)
    live = range_.weights > 0
    probs = np.zeros(len(range_.hands))
    probs[live] = agent.action_probability(view, range_.hands[live], raise_)
    range_.update(probs, "pairs-raise")
    # the range is now the 72 pocket pairs that miss 7c and 2d, with equal weights
    kept = range_.hands[range_.weights > 0]
    assert len(kept) == 72 and all(a // 4 == b // 4 for a, b in kept.tolist())
    mine = COMBO_INDEX[hole[0], hole[1]]
    expect = np.mean([equity_matrix()[mine, COMBO_INDEX[a, b]] for a, b in kept.tolist()])
    assert range_.wp(()) == pytest.approx(expect, abs=1e-12)
    # u(call) = WP * 400 - (1 - WP) * 200 < 0 (WP < 1/3 against pairs): LBR folds
    assert expect < 1 / 3
    after = PublicView(HUNL, view.state.apply(HUNL, *raise_), (), ((0, *raise_),))
    assert _lbr_action(HUNL, after, range_, agent, "fcpa") == ((FOLD, 0), "fold")
    # against the whole range it would not: 7-2 offsuit has more than 1/3 against a random hand
    uniform = _Range(HUNL, hole)
    assert uniform.wp(()) > 1 / 3
    assert _lbr_action(HUNL, after, uniform, agent, "fc")[1] == "call"


TINY = NoLimitRules(2, (2000, 2000), 50, 100, ranks=4)  # 16 cards, four rounds


class Graded(NoLimitAgent):
    """A card-dependent mixed agent whose folds go with weak hands (``s``: the hand's E[HS]):
    facing a bet it folds with probability ``(1 - s)^2`` and pot-raises with ``s^4`` (else
    calls); unbet, it bets the pot with ``s^2``, else checks."""

    name = "graded"

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[tuple[int, int], float]:
        from pokerlab.evaluate.nolimit import HandStrengthRule

        s = HandStrengthRule().strength(view.rules, hole, view.board)
        pot, passive = pot_raise_to(view), passive_action(view)
        if view.state.to_call() > 0:
            out = {(FOLD, 0): (1.0 - s) ** 2}
            up = s**4 if pot is not None else 0.0
            out[passive] = 1.0 - out[(FOLD, 0)] - up
            if up:
                out[pot] = up
            return out
        if pot is None:
            return {passive: 1.0}
        return {pot: s**2, passive: 1.0 - s**2}


def _brute_force_utilities(
    view: PublicView, hole: tuple[int, int], agent: NoLimitAgent
) -> dict[str, float]:
    """LBR's utilities at ``view`` computed from scratch: the agent's range by replaying its
    policy hand by hand over the history, each hand's equity by enumerating every completion
    of the board with the 7-card evaluator, each raise valued hand by hand (the agent folds
    with its own probability, else the hand is checked down)."""
    import itertools

    from pokerlab.cards.evaluator import evaluate_batch

    rules, state = view.rules, view.state
    deck = [c for c in range(52 - 4 * rules.ranks, 52) if c not in (*hole, *view.board)]
    hands = list(itertools.combinations(deck, 2))
    weights = np.ones(len(hands))
    replay = rules.initial_state()
    for k, (seat, kind, amount) in enumerate(view.history):
        if seat != state.to_act:
            shown = view.board[: rules.board_size(replay.street)]
            past = PublicView(rules, replay, shown, view.history[:k])
            for i, h in enumerate(hands):
                weights[i] *= agent.policy(past, h).get((kind, amount), 0.0)
        replay = replay.apply(rules, kind, amount)
    assert replay == state
    equity = np.zeros(len(hands))
    for i, h in enumerate(hands):
        rest = [c for c in deck if c not in h]
        boards = [
            list(view.board) + list(b) for b in itertools.combinations(rest, 5 - len(view.board))
        ]
        mine = evaluate_batch(np.array([list(hole) + b for b in boards], dtype=np.uint8))
        theirs = evaluate_batch(np.array([list(h) + b for b in boards], dtype=np.uint8))
        equity[i] = np.mean((mine > theirs) + 0.5 * (mine == theirs))
    total = weights.sum()
    p = state.pot()
    a = min(state.to_call(), state.behind(rules, state.to_act))
    wp = weights @ equity / total
    out = {"call": wp * p - (1 - wp) * a}
    me = state.to_act
    pot = pot_raise_to(view)
    allin = (ALLIN, state.bets[me] + state.behind(rules, me))
    raises = (
        [] if pot is None else [("pot", pot)] + ([("allin", allin)] if allin[1] != pot[1] else [])
    )
    for name, raise_ in raises:
        after = state.apply(rules, *raise_)
        add = raise_[1] - state.bets[me]
        call = min(raise_[1] - state.bets[after.to_act], state.behind(rules, after.to_act))
        then = PublicView(rules, after, view.board, (*view.history, (me, *raise_)))
        fold = np.array([agent.policy(then, h).get((FOLD, 0), 0.0) for h in hands])
        each = fold * p + (1 - fold) * (equity * (p + add + call) - add)
        out[name] = float(weights @ each / total)
    return out


@pytest.mark.parametrize(("rounds", "seed"), [("1-4", 5), ("3-4", 6)])
def test_lbr_utilities_equal_a_brute_force_computation(rounds: str, seed: int) -> None:
    """Every utility LBR computes in real games on a 16-card deck equals the brute force above:
    the range by Bayes' rule, exact equities, chip accounting, and a raise's WP against the
    hands that do not fold (the paper's Algorithm 1), not against the whole range."""
    from pokerlab._rng import child_seeds
    from pokerlab.evaluate.nolimit.lbr import _play_game
    from pokerlab.evaluate.nolimit.matches import showdown_values

    agent, pairs = Graded(), 4
    cards = deal_cards(TINY, pairs, generator(seed))
    values = showdown_values(TINY, cards)
    seeds = child_seeds(seed, pairs)
    trace: list = []
    counts = {"fold": 0, "call": 0, "pot": 0, "allin": 0}
    first = {"1-4": 0, "3-4": 2}[rounds]
    for i in range(pairs):
        for seat in (0, 1):
            _play_game(TINY, agent, seat, cards[i].tolist(), values[i].tolist(),
                       generator(seeds[i]), "fcpa", first, counts, trace)  # fmt: skip
    assert len(trace) >= 8
    raises = 0
    for view, hole, options in trace:
        want = _brute_force_utilities(view, hole, agent)
        got = {name: u for _, name, u in options}
        assert got.keys() == want.keys()
        for name in got:
            assert got[name] == pytest.approx(want[name], rel=1e-9, abs=1e-7), (view, name)
        raises += len(got) - 1
    assert raises >= 8


class Nit(NoLimitAgent):
    """Checks and calls on the preflop and flop; on the turn and river folds to any bet unless
    its E[HS] is at least 0.85 (then calls); never bets."""

    name = "nit"

    def policy(self, view: PublicView, hole: tuple[int, int]) -> dict[tuple[int, int], float]:
        from pokerlab.evaluate.nolimit import HandStrengthRule

        strong = HandStrengthRule().strength(view.rules, hole, view.board) >= 0.85
        if view.state.street >= 2 and view.state.to_call() > 0 and not strong:
            return {(FOLD, 0): 1.0}
        return {passive_action(view): 1.0}


def test_lbr_bets_small_into_a_nit_instead_of_shoving_into_its_calls() -> None:
    """The nit folds 85% of its range to any bet and calls with the rest: the pot bet wins the
    small pot; an all-in of 95 big blinds is called only by the hands that beat LBR. Valuing
    the all-in with WP against the whole range (the bug before the fix) shoved 66 times in
    these 200 games and lost -1,200 +- 1,945 mbb/g; with WP against the calling hands LBR wins."""
    deep = NoLimitRules(2, (10_000, 10_000), 50, 100, ranks=4)
    result = local_best_response(deep, Nit(), 100, seed=0, actions="fcpa")
    assert result.interval[0] > 500.0  # mbb/g (740 +- 130 here)
    assert result.counts["pot"] > 20 * result.counts["allin"]
