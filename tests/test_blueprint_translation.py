"""A blueprint in the real game (issue 24): off-tree bets read onto its tree with the
pseudo-harmonic probabilities, the same reading at every later decision of a hand, answers
played back in real chips (a pot raise equals the baselines' independent pot raise), a lost line
played passively, and local best response with pot-sized bets against a blueprint whose tree has
no pot-sized bets (before translation it was refused)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import pokerlab
from pokerlab.evaluate.nolimit.agents import NoLimitAgent, PotRaise, PublicView, passive_action
from pokerlab.evaluate.nolimit.blueprint import BlueprintAgent, bucket_state, node_probs
from pokerlab.evaluate.nolimit.lbr import local_best_response
from pokerlab.evaluate.nolimit.matches import duplicate_match
from pokerlab.evaluate.nolimit.translation import (
    _uniform,
    _uniforms,
    read_line,
    read_lines,
    read_split,
)
from pokerlab.games.nolimit.actions import abstract_actions
from pokerlab.games.nolimit.rules import ALLIN, BET, CALL, CHECK, FOLD, RAISE
from pokerlab.solvers.blueprint import BlueprintSolver, lossless_abstraction

ACTIONS = {"preflop": "100%, a", "flop": "50%, a", "raise_cap": 2}


@pytest.fixture(scope="module")
def trained():
    """Heads-up, 12 cards, two rounds, stacks 2,000 (20 big blinds), preflop pot / all-in,
    flop half pot / all-in; lossless buckets, 20,000 iterations."""
    game = pokerlab.load_game("nolimit-holdem", ranks=3, rounds=2, stack=2000, actions=ACTIONS)
    abstraction = lossless_abstraction(3)
    solver = BlueprintSolver(game, abstraction, seed=1)
    solver.step(20_000)
    return game, abstraction, solver.average_strategy()


def _view(game, history, board=()) -> PublicView:
    state = game.rules.initial_state()
    for _, kind, amount in history:
        state = state.apply(game.rules, kind, amount)
    return PublicView(game.rules, state, tuple(board), tuple(history))


def _holes(n: int) -> list[tuple[int, int]]:
    """The first ``n`` hole-card pairs of the 12-card deck (cards 40..51: tens to aces)."""
    return [(a, b) for a in range(40, 52) for b in range(a + 1, 52)][:n]


def test_a_raise_reads_as_its_neighbours_with_the_pseudo_harmonic_split(trained) -> None:
    """The small blind raises to 500 (400 beyond the call into a pot of 200 after it: x = 2)
    where the tree has the pot raise to 300 (A = 1) and the all-in to 2,000 (B = 9.5): it reads
    as the pot raise with probability (B - x)(1 + A) / ((B - A)(1 + x)) = 15 / 25.5 over seeds
    and hands (within 4 standard errors of 6,600 draws), and on-tree lines translate nothing."""
    game, _, strategy = trained
    tree = strategy.layout.tree
    history = ((0, RAISE, 500),)
    pot_node = tree.find("r300")
    allin_node = tree.find("r2000")
    reads = [
        read_line(tree, game.rules, game.abstraction, history, hole, seed).node
        for seed in range(100)
        for hole in _holes(66)
    ]
    assert set(reads) == {pot_node, allin_node}
    share = reads.count(pot_node) / len(reads)
    want = (9.5 - 2.0) * (1.0 + 1.0) / ((9.5 - 1.0) * (1.0 + 2.0))
    assert abs(share - want) < 4 * math.sqrt(want * (1 - want) / len(reads))
    on_tree = read_line(tree, game.rules, game.abstraction, ((0, RAISE, 300), (1, CALL, 300)))
    assert on_tree.translated == 0 and on_tree.node == tree.find("r300c/")
    assert read_line(tree, game.rules, game.abstraction, ((0, ALLIN, 2000),)).node == allin_node


def test_the_draws_of_a_line_are_one_per_hand_and_uniform() -> None:
    """The translation's draws for many hands at once equal the draws hand by hand, do not
    depend on the order of the two cards, change with the seed and the line, and spread
    uniformly: over all 1,326 hands on 20 lines each tenth of [0, 1) holds its share within
    4 standard errors."""
    combos = np.array([(i, j) for i in range(52) for j in range(i + 1, 52)], dtype=np.int64)
    line = ((0, RAISE, 500), (1, CALL, 500))
    many = _uniforms(3, combos, line)
    assert np.array_equal(many[:50], [_uniform(3, tuple(h), line) for h in combos[:50].tolist()])
    assert np.array_equal(many, _uniforms(3, combos[:, ::-1], line))
    assert not np.array_equal(many, _uniforms(4, combos, line))
    assert not np.array_equal(many, _uniforms(3, combos, line[:1]))
    draws = np.concatenate(
        [_uniforms(seed, combos, ((0, RAISE, 300 + 10 * k),)) for seed in (1, 2) for k in range(10)]
    )
    assert draws.min() >= 0.0 and draws.max() < 1.0
    counts = np.histogram(draws, bins=10, range=(0.0, 1.0))[0]
    expected = draws.size / 10
    assert np.all(np.abs(counts - expected) < 4 * math.sqrt(expected * 0.9))


def test_the_agent_answers_in_real_chips_and_keeps_its_reading(trained) -> None:
    """Where the raise to 500 reads as the pot raise, the big blind plays the tree's
    probabilities at ``r300`` for its cards, mapped to real actions: fold, call 500, the pot
    re-raise (the tree's 100% in real chips: to 1,500, as the independent PotRaise baseline
    computes) and the all-in; the same hand reads the raise the same way after the flop."""
    game, abstraction, strategy = trained
    agent = BlueprintAgent(strategy, abstraction, seed=7)
    tree = strategy.layout.tree
    history = ((0, RAISE, 500),)
    view = _view(game, history)
    hole = next(
        h for h in _holes(66) if agent.read(view, h).node == tree.find("r300")
    )  # fmt: skip
    policy = agent.policy(view, hole)
    pot_raise = PotRaise().policy(view, hole)
    assert list(pot_raise) == [(RAISE, 1500)]
    assert set(policy) == {(FOLD, 0), (CALL, 500), (RAISE, 1500), (ALLIN, 2000)}
    node = tree.find("r300")
    ns = int(strategy.layout.num_states[0])
    s = bucket_state(strategy, abstraction, 0, list(hole))
    want = strategy.probs[int(strategy.layout.offset[node]) + np.arange(4) * ns + s]
    got = [policy[a] for a in [(FOLD, 0), (CALL, 500), (RAISE, 1500), (ALLIN, 2000)]]
    np.testing.assert_allclose(got, want, atol=1e-12)
    later = history + ((1, CALL, 500),)
    flop = _view(game, later, board=tuple(c for c in range(40, 52) if c not in hole)[:3])
    line = agent.read(flop, hole)
    assert line.node == tree.find("r300c/") and line.translated == 2
    assert flop.state.pot() == 1000 and line.abstract is not None
    assert line.abstract.pot() == 600


def test_a_line_the_tree_has_ended_is_played_passively(trained) -> None:
    """A raise to 500 read as the all-in and called: the tree's hand is over (all-in called),
    the real one goes on to the flop, so the agent checks or calls from there on."""
    game, abstraction, strategy = trained
    agent = BlueprintAgent(strategy, abstraction, seed=7)
    tree = strategy.layout.tree
    view = _view(game, ((0, RAISE, 500),))
    hole = next(h for h in _holes(66) if agent.read(view, h).node == tree.find("r2000"))
    flop = _view(
        game,
        ((0, RAISE, 500), (1, CALL, 500)),
        board=tuple(c for c in range(40, 52) if c not in hole)[:3],
    )
    assert flop.state.to_act >= 0 and agent.read(flop, hole).lost
    assert agent.policy(flop, hole) == {(CHECK, 0): 1.0}


def test_matches_against_off_tree_sizes_are_repeatable(trained) -> None:
    """PotRaise bets sizes the tree lacks on the flop (pot against half pot / all-in): the
    duplicate match plays through, repeats exactly with the same seeds, and the blueprint
    beats PotRaise beyond the interval (2,000 games)."""
    game, abstraction, strategy = trained
    agent = BlueprintAgent(strategy, abstraction, seed=3)
    first = duplicate_match(game.rules, agent, PotRaise(), 1000, seed=5)
    again = duplicate_match(
        game.rules, BlueprintAgent(strategy, abstraction, seed=3), PotRaise(), 1000, seed=5
    )
    assert first.mbb_per_game == again.mbb_per_game
    assert first.mbb_per_game - first.ci95_mbb > 0


def test_lbr_with_pot_sized_bets_plays_against_a_blueprint() -> None:
    """Four rounds, 12 cards, half-pot trees after the preflop: LBR's pot bets are off the
    tree; before translation the agent refused them, now every game is played."""
    streets = {"preflop": "100%, a", "flop": "50%, a", "turn": "50%, a", "river": "50%, a"}
    game = pokerlab.load_game(
        "nolimit-holdem", ranks=3, rounds=4, stack=2000, actions={**streets, "raise_cap": 2}
    )
    abstraction = lossless_abstraction(3)
    solver = BlueprintSolver(game, abstraction, seed=1)
    solver.step(5_000)
    agent = BlueprintAgent(solver.average_strategy(), abstraction)
    result = local_best_response(game.rules, agent, 4, 1, actions="fcpa")
    assert result.pairs == 4 and result.counts["pot"] > 0
    assert math.isfinite(result.mbb_per_game)


#: Off-tree lines (with the board they reach): a raise to 500 split between the tree's pot raise
#: and all-in (seat 1 to act, randomised); a raise to 250 below the pot raise (deterministic);
#: the split raise called (the all-in readings are lost on the flop); a pot bet on the flop
#: split between half pot and all-in (seat 0 to act); the raise to 250 called and a real half
#: pot bet that is not the tree's (deterministic, every action translated).
OFF_TREE = [
    (((0, RAISE, 500),), ()),
    (((0, RAISE, 250),), ()),
    (((0, RAISE, 500), (1, CALL, 500)), (40, 45, 50)),
    (((0, CALL, 100), (1, CHECK, 0), (1, BET, 200)), (41, 46, 51)),
    (((0, RAISE, 250), (1, CALL, 250), (1, BET, 250)), (42, 47, 48)),
]


def _belief_hand_by_hand(agent, view, hole, key) -> float:
    """:meth:`BlueprintAgent.belief_probability` for one hand, as it was computed hand by hand:
    the hand's own translated line, the pseudo-harmonic split of ``key`` there."""
    strategy = agent.strategy
    game = strategy.game
    line = agent.read(view, hole)
    if line.lost:
        return 1.0 if key == passive_action(view) else 0.0
    acts = abstract_actions(game.rules, game.abstraction, line.abstract)
    split = read_split(game.rules, acts, line.abstract, view.state, *key)
    rnd = int(strategy.layout.tree.round[line.node])
    probs = node_probs(strategy, line.node, bucket_state(strategy, agent.abstraction, rnd,
                                                         [*hole, *view.board]))  # fmt: skip
    return sum(w * probs[j] for j, w in split)


@pytest.mark.parametrize("seed", [3, 7])
@pytest.mark.parametrize(("history", "board"), OFF_TREE)
def test_off_tree_probabilities_grouped_by_line_equal_the_hand_by_hand_path(
    trained, history, board, seed
) -> None:
    """Off the tree the agent groups the hands by the line they read (the translation's draws
    are the only thing that depends on the cards) and looks each group up at once: every
    hand's line equals :func:`read_line`'s, and every action's probability equals the policy's
    hand by hand (and the belief's) to 1e-12, on lines read at random and deterministically, in
    both seats, lost lines included; hands meeting the board get 0."""
    game, abstraction, strategy = trained
    agent = BlueprintAgent(strategy, abstraction, seed=seed)
    tree = strategy.layout.tree
    view = _view(game, history, board)
    hands = np.array(_holes(66), dtype=np.int64)
    live = ~np.isin(hands, board).any(axis=1)
    holes = [tuple(h) for h in hands[live].tolist()]
    groups = read_lines(tree, game.rules, game.abstraction, history, holes, seed)
    assert sorted(r for _, rows in groups for r in rows) == list(range(len(holes)))
    for line, rows in groups:
        for r in rows:
            assert read_line(tree, game.rules, game.abstraction, history, holes[r], seed) == line
    split = history[0][2] == 500 or history[-1][2] == 200
    assert len(groups) >= 2 if split else len(groups) == 1
    assert all(line.translated > 0 for line, _ in groups)
    actions = {a for h in holes for a in agent.policy(view, h)} | set(view.legal()[:2])
    assert len(actions) >= 3
    for action in sorted(actions):
        got = agent.action_probability(view, hands, action)
        want = NoLimitAgent.action_probability(agent, view, hands[live], action)
        np.testing.assert_allclose(got[live], want, rtol=0, atol=1e-12)
        assert not got[~live].any()
        belief = agent.belief_probability(view, hands, action)
        want = [_belief_hand_by_hand(agent, view, h, action) for h in holes]
        np.testing.assert_allclose(belief[live], want, rtol=0, atol=1e-12)
        assert not belief[~live].any()
    if history[-1] == (1, CALL, 500):  # the all-in readings are lost: they check
        assert any(line.lost for line, _ in groups) and not all(line.lost for line, _ in groups)


def test_belief_probabilities_with_a_memo_equal_them_without(trained) -> None:
    """A projection's memo (the hands live on each board, their buckets per board, each line's
    readings) gives the same numbers bit for bit as reading each view alone: off-tree lines and
    on-tree ones, one memo for all, each line on two boards (its readings reused across
    boards, the live hands and buckets not)."""
    game, abstraction, strategy = trained
    agent = BlueprintAgent(strategy, abstraction, seed=7)
    hands = np.array(_holes(66), dtype=np.int64)
    on_tree = [(((0, CALL, 100), (1, CHECK, 0)), (40, 45, 50))]
    memo: dict = {}
    views = 0
    for history, board in [*OFF_TREE, *on_tree]:
        other = tuple(c for c in range(40, 52) if c not in board)[: len(board)]
        boards = [board, other] if board else [board]
        for cards in boards:
            view = _view(game, history, cards)
            actions = view.legal()
            alone = agent.belief_probabilities(view, hands, actions)
            shared = agent.belief_probabilities(view, hands, actions, memo)
            assert np.array_equal(alone, shared), (history, cards)
            live = ~np.isin(hands, cards).any(axis=1)
            assert not shared[:, ~live].any() and shared[:, live].any()
            views += 1
    assert views == 2 * len(OFF_TREE)  # the two preflop lines have one board, the others two
    assert any(key[0] == "plan" for key in memo) and any(key[0] == "states" for key in memo)


@pytest.mark.parametrize("seed", [3, 7])
def test_written_beliefs_equal_the_normalised_beliefs_bit_for_bit(trained, seed) -> None:
    """What a projection writes into a spot's profile (the compiled path: each board's block of
    actions x hands, normalised over the actions, 1 / A where they sum to 0) equals
    :meth:`BlueprintAgent.belief_boards` normalised in float64 and copied, bit for bit: lines on
    the tree and off it (random and lost readings included), each on three boards, and the
    float32 entries between the blocks left as they were."""
    game, abstraction, strategy = trained
    agent = BlueprintAgent(strategy, abstraction, seed=seed)
    hands = np.array(_holes(66), dtype=np.int64)
    on_tree = [(((0, CALL, 100), (1, CHECK, 0)), (40, 45, 50))]
    written = 0
    for history, board in [*OFF_TREE, *on_tree]:
        if not board:
            continue
        rest = [c for c in range(40, 52) if c not in board]
        boards = [board, tuple(rest[:3]), tuple(rest[3:6])]
        view = _view(game, history, board)
        actions = view.legal()
        probs = agent.belief_boards(view, boards, hands, actions)  # (A, B, H)
        total = probs.sum(axis=0)
        want = np.where(total > 0, probs / np.where(total > 0, total, 1.0), 1.0 / len(actions))
        block = len(actions) * len(hands)
        offsets = np.arange(len(boards)) * (block + 5) + 3
        out = np.full(int(offsets[-1]) + block + 5, -7.0, dtype=np.float32)
        agent.write_belief_boards(view, boards, hands, actions, offsets, out, {})
        for b, off in enumerate(offsets.tolist()):
            got = out[off : off + block].reshape(len(actions), len(hands))
            assert np.array_equal(got, want[:, b].astype(np.float32)), (history, b)
        gaps = np.ones(out.size, dtype=bool)
        for off in offsets.tolist():
            gaps[off : off + block] = False
        assert np.all(out[gaps] == -7.0)
        written += 1
    assert written == 4
