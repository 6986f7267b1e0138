"""The by-board abstract best response (no S x S tables) against the table path, which stays the
independent reference: small decks, both recalls, both seats, best response and own value."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab import load_game
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.limit_abstract import (
    MAX_SEQUENCES,
    BoardTables,
    abstract_exploitability_mbb,
    abstract_value,
    abstract_value_by_board,
    board_tables,
    joint_bucket_tables,
)
from pokerlab.games.limit_holdem import DECISION
from pokerlab.solvers.limit_holdem import LimitPCSSolver


@pytest.fixture(scope="module")
def setup():
    # 16 cards, one raise preflop, flop and turn and two on the river (river subtrees of
    # several shapes of fold and showdown terminals); 3 buckets per round: 81 river sequences
    game = load_game("limit-holdem", ranks=4, raise_caps=[1, 1, 1, 2])
    abstraction = build_abstraction(4, (3, 3, 3, 3), "ehs", cache=False)
    return game, abstraction, joint_bucket_tables(abstraction), board_tables(abstraction)


def _both(solver, probs, joint, boards, player: int, best: bool) -> tuple[float, float]:
    args = (solver.tree,)
    rest = (probs, solver.offset, solver.num_states, solver.recall, player, best)
    return abstract_value(*args, joint, *rest), abstract_value_by_board(*args, boards, *rest)


def test_board_tables_are_probabilities(setup) -> None:
    _, abstraction, joint, boards = setup
    # every ordered (hand, hand, board) deal once: the weights of all pairs sum to 1
    live = np.diff(boards.board_start)
    pairs = live * (live - 1) - 0  # ordered pairs of live hands, some sharing a card
    assert np.all(live == 55)  # 16 - 5 = 11 cards left: C(11, 2) hands
    assert (boards.board_weight * 55 * 36).sum() == pytest.approx(1.0)  # 36 = C(9, 2)
    assert pairs.sum() > 0
    # the marginal tables equal the table path's marginals (built from other boards)
    for r in range(3):
        np.testing.assert_allclose(boards.marginals[r], joint.marginal(r), atol=1e-15)
    # within each board, hands come in increasing strength
    s = boards.strength.reshape(len(live), 55)
    assert np.all(np.diff(s, axis=1) >= 0)


@pytest.mark.parametrize("recall", ["perfect", "imperfect"])
def test_by_board_equals_tables(setup, recall: str) -> None:
    game, abstraction, joint, boards = setup
    solver = LimitPCSSolver(game, abstraction, recall=recall, seed=1)
    solver.step(30)
    probs = solver.average_strategy().probs
    for player in (0, 1):
        for best in (True, False):
            table, board = _both(solver, probs, joint, boards, player, best)
            assert board == pytest.approx(table, abs=1e-9), (player, best, table, board)
    # the exploitability through either path
    via_tables = abstract_exploitability_mbb(solver, joint)
    via_boards = abstract_exploitability_mbb(solver, boards)
    assert via_boards == pytest.approx(via_tables, abs=1e-6)
    assert via_tables > 100  # 30 iterations: far from an equilibrium


def test_a_mutated_strategy_changes_both_paths_alike(setup) -> None:
    """Change one river decision of one bucket sequence: the best response against it changes,
    by the same amount in both paths (so the comparison above can fail)."""
    game, abstraction, joint, boards = setup
    solver = LimitPCSSolver(game, abstraction, recall="perfect", seed=2)
    solver.step(20)
    probs = solver.average_strategy().probs
    tree = solver.tree
    node = int(np.flatnonzero((tree.kind == DECISION) & (tree.round == 3) & (tree.player == 1))[0])
    na = int(tree.child_start[node + 1] - tree.child_start[node])
    ns = int(solver.num_states[3])
    block = probs[solver.offset[node] : solver.offset[node] + na * ns].reshape(na, ns)
    before = _both(solver, probs, joint, boards, 0, True)
    mutated = probs.copy()
    mblock = mutated[solver.offset[node] : solver.offset[node] + na * ns].reshape(na, ns)
    mblock[:] = 0.0
    mblock[0] = 1.0  # every sequence takes the first action (the sample's block was mixed)
    assert not np.allclose(block, mblock)
    after = _both(solver, mutated, joint, boards, 0, True)
    assert abs(after[1] - before[1]) > 1e-4
    assert after[1] == pytest.approx(after[0], abs=1e-9)


def test_imperfect_recall_with_unused_buckets() -> None:
    # 12 cards, 8 preflop buckets asked and fewer used: the solver has fewer states there than
    # the sequences have digits
    game = load_game("limit-holdem", ranks=3, raise_caps=[1, 1, 1, 1])
    abstraction = build_abstraction(3, (8, 3, 3, 3), "ehs", cache=False)
    assert abstraction.num_buckets[0] < 8
    joint, boards = joint_bucket_tables(abstraction), board_tables(abstraction)
    solver = LimitPCSSolver(game, abstraction, recall="imperfect", seed=1)
    solver.step(30)
    probs = solver.average_strategy().probs
    for player in (0, 1):
        table, board = _both(solver, probs, joint, boards, player, True)
        assert board == pytest.approx(table, abs=1e-9)


def test_beyond_the_tables_limit() -> None:
    """10 buckets per round (10,000 river sequences) on 12 cards: the tables refuse, the
    by-board path gives the exploitability, and it falls with training."""
    game = load_game("limit-holdem", ranks=3, raise_caps=[1, 1, 1, 1])
    abstraction = build_abstraction(3, (10, 10, 10, 10), "ehs", cache=False)
    assert int(np.prod(abstraction.buckets)) > MAX_SEQUENCES
    with pytest.raises(PokerlabError, match="sequences"):
        joint_bucket_tables(abstraction)
    solver = LimitPCSSolver(game, abstraction, recall="perfect", seed=0)
    start = abstract_exploitability_mbb(solver)  # the by-board path, chosen by itself
    solver.step(100)
    after = abstract_exploitability_mbb(solver)
    assert start > 1000 and 0 < after < start / 2


def test_memory_limit_refused_by_name(setup) -> None:
    _, abstraction, _, _ = setup
    with pytest.raises(PokerlabError, match="by-board abstract best response needs"):
        board_tables(abstraction, max_bytes=1000)
    assert isinstance(board_tables(abstraction), BoardTables)
