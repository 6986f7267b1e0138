"""Public-chance-sampling CFR on abstracted limit hold'em (small deck, caps of one raise)."""

from __future__ import annotations

import itertools
from math import comb

import numpy as np
import pytest

from _limit_states import limit_pcs_state
from pokerlab import load_game
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import DECISION, LimitHoldemGame
from pokerlab.solvers.base import STATE_FORMAT
from pokerlab.solvers.factory import restore_solver
from pokerlab.solvers.limit_holdem import LimitPCSSolver
from pokerlab.solvers.schedule import LazyScale, discount_factors
from pokerlab.tree.backend import SubtreeSeam
from pokerlab.tree.betting import _kernels as K

BOARD = np.array([28, 33, 41, 46, 51])  # 9c Td Jd Qh As


@pytest.fixture(scope="module")
def game() -> LimitHoldemGame:
    return load_game("limit-holdem", variant="small", raise_caps=[1, 1, 1, 1])


@pytest.fixture(scope="module")
def abstraction():
    return build_abstraction(6, (8, 8, 8, 8), "ehs", cache=False)


def _uniform_value(history, player: int) -> float:
    """Expected payoff of ``player`` when both play uniformly (cards already dealt)."""
    if history.is_terminal():
        return history.terminal_utility(player)
    if history.is_chance():
        raise AssertionError("cards are dealt in advance")
    actions = history.legal_actions()
    return sum(_uniform_value(history.child(a), player) for a in actions) / len(actions)


def _deal(game: LimitHoldemGame, mine: tuple[int, int], theirs: tuple[int, int], seat: int):
    h = game.initial_history()
    holes = (mine + theirs) if seat == 0 else (theirs + mine)
    for c in holes:
        h = h.child(c)

    class Dealt:
        """Deals the board whenever the history asks for a card."""

        def __init__(self, inner) -> None:
            self.inner = inner

        def _settle(self):
            inner = self.inner
            while inner.is_chance():
                inner = inner.child(int(BOARD[len(inner.cards) - 4]))
            return inner

        def is_terminal(self) -> bool:
            return self._settle().is_terminal()

        def is_chance(self) -> bool:
            return False

        def terminal_utility(self, p: int) -> float:
            return self._settle().terminal_utility(p)

        def legal_actions(self):
            return self._settle().legal_actions()

        def child(self, a: int):
            return Dealt(self._settle().child(a))

    return Dealt(h)


@pytest.mark.parametrize("seat", [0, 1])
def test_root_values_equal_enumeration(game, abstraction, seat: int) -> None:
    solver = LimitPCSSolver(game, abstraction, recall="imperfect")
    values = solver.root_values(BOARD, seat)
    deck = [int(c) for c in game.rules.cards if c not in BOARD]
    scale = 1.0 / comb(len(deck) - 2, 2)
    for mine in [(48, 49), (34, 44)]:  # aces (a set), T-K
        h = next(i for i, pair in enumerate(solver.hands) if tuple(pair) == mine)
        expected = 0.0
        for theirs in itertools.combinations([c for c in deck if c not in mine], 2):
            expected += _uniform_value(_deal(game, mine, theirs, seat), seat)
        assert values[h] == pytest.approx(expected * scale, rel=1e-5, abs=1e-6)
    # hands meeting the board have no value; the game is zero-sum
    assert np.all(values[np.isin(solver.hands, BOARD).any(axis=1)] == 0)
    other = solver.root_values(BOARD, 1 - seat)
    assert values.sum() == pytest.approx(-other.sum(), rel=1e-5)


@pytest.mark.parametrize("seat", [0, 1])
def test_terminal_values_equal_pairwise_sums(game, abstraction, seat: int) -> None:
    """Showdown and fold values of a 3-board batch against the O(hands^2) sums they stand for:
    per board, every opponent entry whose cards miss the hand's, its reach times the pot times
    the sign of the strength comparison (showdown) or times the fold stake. One board makes a
    straight on the table (most hands tie), so tie groups of every size are covered."""
    boards = np.array([BOARD, [28, 33, 38, 43, 45], [29, 35, 39, 47, 50]])  # 9 T J Q K: a straight
    solver = LimitPCSSolver(game, abstraction, recall="imperfect", boards_per_iteration=3)
    entries = solver.state._board_arrays(boards)
    assert np.diff(entries.ranked[:, 2]).min() >= 0  # tie-group ends never go backwards
    t = solver.tree
    width = entries.states.shape[1]
    rng = np.random.default_rng(seat)
    reach = rng.random(width).astype(np.float32)
    reach[rng.random(width) < 0.3] = 0.0
    for kind in (K.SHOWDOWN_END, K.FOLD_END):
        node = int(np.flatnonzero(t.kind == kind)[-1])
        out = np.zeros(width, dtype=np.float32)
        K.terminal_values(
            solver.state._tree_arrays, entries, np.int64(node), np.int64(kind), solver.state._scale,
            np.int64(seat), reach, out, np.zeros(104),
        )  # fmt: skip
        amount = t.payoff_table[t.payoff_id[node]] * solver.state._scale
        expected = np.zeros(width)
        for b in range(len(boards)):
            seg = np.arange(entries.segments[b], entries.segments[b + 1])
            cards = entries.cards[seg]
            disjoint = ~(cards[:, None, :, None] == cards[None, :, None, :]).any(axis=(2, 3))
            if kind == K.SHOWDOWN_END:
                s = entries.strength[seg].astype(np.int64)
                weight = np.sign(s[:, None] - s[None, :]) * amount
            else:
                stake = -amount if t.player[node] == seat else amount
                weight = np.full((seg.size, seg.size), stake)
            expected[seg] = (weight * disjoint) @ reach[seg].astype(np.float64)
        np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-7)
    assert (entries.ranked[:, 2] - np.arange(width) > 2).any()  # tie groups of three or more


def test_training_plays_sensibly_and_resumes(game, abstraction) -> None:
    solver = LimitPCSSolver(game, abstraction, recall="imperfect", seed=3)
    solver.step(150)
    probs = solver.average_strategy().probs
    tree = game.betting_tree
    n = tree.find("rc/cc/cc/r")  # seat 0 faces a river bet
    assert tree.actions(n) == [0, 1]  # fold or call: one raise per round
    ns = int(solver.num_states[3])
    sums = solver.sums[solver.offset[n] : solver.offset[n] + 2 * ns].reshape(2, ns)
    river_bucket = np.arange(ns) % 8  # the last digit of the bucket sequence
    fold_share = [
        sums[0, river_bucket == b].sum() / sums[:, river_bucket == b].sum() for b in (0, 7)
    ]
    # weighted over every sequence: the best river bucket (almost) never folds, the worst folds
    # much more often
    assert fold_share[1] < 0.01
    assert fold_share[0] > 0.8
    assert probs.min() >= 0 and probs.max() <= 1

    # exact resume (perfect recall): 10 + 20 iterations equal a run that reloads at 10
    solver = LimitPCSSolver(game, abstraction, recall="perfect", seed=3)
    solver.step(10)
    state = solver.state_dict()
    solver.step(20)
    again = LimitPCSSolver(game, abstraction, recall="perfect", seed=99)
    again.load_state_dict(state)
    again.step(20)
    np.testing.assert_array_equal(again.regrets, solver.regrets)
    np.testing.assert_array_equal(again.sums, solver.sums)
    # the engine's state schema; a checkpoint in the older flat limit-pcs layout resumes the same
    assert state["format"] == STATE_FORMAT and state["representation"] == "bucketed"
    assert state["config"]["sampling"] == "pcs" and sorted(state["arrays"]) == ["regrets", "sums"]
    legacy = LimitPCSSolver(game, abstraction, recall="perfect", seed=99)
    legacy.load_state_dict(limit_pcs_state(state))
    legacy.step(20)
    np.testing.assert_array_equal(legacy.regrets, solver.regrets)
    np.testing.assert_array_equal(legacy.sums, solver.sums)
    with pytest.raises(PokerlabError, match="format 'limit-zz'"):
        legacy.load_state_dict({**limit_pcs_state(state), "format": "limit-zz"})
    # restore_solver rebuilds the run from either form (game and abstraction from its fields)
    for form in (state, limit_pcs_state(state)):
        back = restore_solver(form, cache=False)
        assert isinstance(back, LimitPCSSolver) and back.iterations == 10
        back.step(20)
        np.testing.assert_array_equal(back.regrets, solver.regrets)
    with pytest.raises(PokerlabError, match="'limit-zz'"):
        restore_solver({**limit_pcs_state(state), "format": "limit-zz"}, cache=False)


def test_refusals(game, abstraction) -> None:
    with pytest.raises(PokerlabError, match="recall"):
        LimitPCSSolver(game, abstraction, recall="total")
    with pytest.raises(PokerlabError, match="unknown algorithm"):
        LimitPCSSolver(game, abstraction, algorithm="pcfr++")
    with pytest.raises(PokerlabError, match="GiB"):
        LimitPCSSolver(game, abstraction, recall="perfect", max_bytes=1 << 20)
    with pytest.raises(PokerlabError, match="deck"):
        LimitPCSSolver(load_game("limit-holdem"), abstraction)


def test_two_workers_equal_one(game, abstraction) -> None:
    """The subtree split (head: preflop; workers: the subtrees after it) changes nothing."""
    one = LimitPCSSolver(game, abstraction, recall="imperfect", seed=11)
    two = LimitPCSSolver(game, abstraction, recall="imperfect", seed=11, workers=2)
    one.step(4)
    two.step(4)
    np.testing.assert_array_equal(one.regrets, two.regrets)
    np.testing.assert_array_equal(one.sums, two.sums)
    assert len(two.subtrees) == len(game.betting_tree.flop_sequences()) == 3  # caps of one
    assert {w for _, _, w in two.subtrees} == {0, 1}
    assert isinstance(two.state, SubtreeSeam) and two.state.pool.workers == 2
    fine = LimitPCSSolver(game, abstraction, recall="imperfect", seed=11, workers=3, split_round=1)
    fine.step(4)
    np.testing.assert_array_equal(one.regrets, fine.regrets)
    assert len(fine.subtrees) > len(two.subtrees)


def _node_rows(
    solver: LimitPCSSolver, boards: np.ndarray, player: int
) -> tuple[np.ndarray, np.ndarray]:
    """Without updating: every node's reach rows (2, N, entries) under the current strategy (a
    numpy walk down the tree, float64) and, at ``player``'s decisions and their children, the
    value rows: a depth-first pass of the kernel over the subtree at the node from its reach
    rows there (NaN elsewhere)."""
    entries = solver.state._board_arrays(boards)
    tree = solver.tree
    width = entries.states.shape[1]
    match = solver.prediction if solver.schedule.predictive else solver.regrets
    reach = np.zeros((2, tree.num_nodes, width))
    reach[:, 0] = 1.0
    for n in range(tree.num_nodes):  # preorder: a parent before its children
        kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
        for c in kids:
            reach[:, c] = reach[:, n]
        if tree.kind[n] != DECISION:
            continue
        q, r = int(tree.player[n]), int(tree.round[n])
        ns = int(solver.num_states[r])
        block = match[solver.offset[n] : solver.offset[n] + len(kids) * ns]
        sigma = _regret_matching(block.reshape(len(kids), ns))[:, entries.states[r]]
        for j, c in enumerate(kids):
            reach[q, c] = reach[q, n] * sigma[j]
    values = np.full((tree.num_nodes, width), np.nan)
    for n in np.flatnonzero((tree.kind == DECISION) & (tree.player == player)):
        for m in (n, *tree.children[tree.child_start[n] : tree.child_start[n + 1]]):
            out = np.zeros(width, dtype=np.float32)
            root_reach = np.ascontiguousarray(reach[:, m].astype(np.float32))
            solver.state._subtree(
                entries, player, False, int(m), root_reach, out, solver.state._buffers[0]
            )
            values[m] = out
    return reach, values


def _regret_matching(x: np.ndarray) -> np.ndarray:
    """Regret matching over the first axis (actions) of ``x`` (actions x states), float64."""
    pos = np.maximum(x.astype(np.float64), 0.0)
    total = pos.sum(axis=0)
    return np.where(total > 0, pos / np.where(total > 0, total, 1.0), 1.0 / x.shape[0])


@pytest.mark.parametrize("algorithm", ["pcfr+", "pdcfr+", "hs-pcfr+"])
def test_predictive_update_equals_a_reference(game, abstraction, algorithm: str) -> None:
    """One update pass of a predictive schedule against a numpy reference of the rule

        R' = [R + r]+,  P' = [R' d_{t+1} + r]+,  S' = S + pi_own sigma(P)

    per (node, state), with r the state's instantaneous regret summed over the board's hands and
    the values and reach of a pass that does not update (which sees the same strategy)."""
    solver = LimitPCSSolver(game, abstraction, recall="perfect", algorithm=algorithm, seed=5)
    solver.step(3)  # predictions and regrets away from 0
    assert np.abs(solver.prediction).max() > 0
    # the first half of iteration 4: the discount (lazy: the stored arrays are held times the
    # scales, and this iteration's additions are weighted), then player 0's pass
    t = solver.iterations + 1
    solver.state._begin_iteration(t)
    na_, nb_, _ = discount_factors(solver.state._params, t + 1)
    assert solver.state._next == (na_, nb_)
    ws, wr = solver.state._weights
    if algorithm == "pdcfr+":
        assert wr > 1 and ws > 1  # both discounts are lazy here
    R = solver.regrets.astype(np.float64)
    P = solver.prediction.astype(np.float64)
    S = solver.sums.astype(np.float64)
    # values and reach under the current strategy (a pass that does not update sees it too)
    reach, values = _node_rows(solver, BOARD, 0)
    states, *_ = solver.state._board_arrays(BOARD)
    tree = solver.tree
    want_r, want_p, want_s = R.copy(), P.copy(), S.copy()
    for n in np.flatnonzero((tree.kind == DECISION) & (tree.player == 0)):
        kids = tree.children[tree.child_start[n] : tree.child_start[n + 1]]
        na, ns = len(kids), int(solver.num_states[tree.round[n]])
        block = slice(solver.offset[n], solver.offset[n] + na * ns)
        sigma = _regret_matching(P[block].reshape(na, ns))
        s = states[tree.round[n]]
        live = s >= 0
        inst = np.zeros((na, ns))
        for j, c in enumerate(kids):
            np.add.at(inst[j], s[live], values[c, live] - values[n, live])
        inst *= wr
        own = reach[0, n]
        strat = np.zeros((na, ns))
        for j in range(na):
            np.add.at(strat[j], s[live], own[live] * sigma[j, s[live]])
        r_new = np.maximum(R[block].reshape(na, ns) + inst, 0.0)
        d = np.where(r_new > 0, na_, nb_)
        want_r[block] = r_new.reshape(-1)
        want_p[block] = np.maximum(r_new * d + inst, 0.0).reshape(-1)
        want_s[block] += ws * strat.reshape(-1)
    solver.state._pass(BOARD, 0, update=True)
    scale = np.abs(want_r).max()
    np.testing.assert_allclose(solver.regrets, want_r, rtol=1e-5, atol=1e-6 * scale)
    np.testing.assert_allclose(solver.prediction, want_p, rtol=1e-5, atol=1e-6 * scale)
    np.testing.assert_allclose(solver.sums, want_s, rtol=1e-5, atol=1e-6 * np.abs(want_s).max())
    # player 1's regrets were not touched by player 0's pass
    ones = np.zeros(solver.size, dtype=bool)
    for n in np.flatnonzero((tree.kind == DECISION) & (tree.player == 1)):
        na = int(tree.child_start[n + 1] - tree.child_start[n])
        ones[solver.offset[n] : solver.offset[n] + na * int(solver.num_states[tree.round[n]])] = 1
    np.testing.assert_array_equal(solver.regrets[ones], R[ones].astype(np.float32))


@pytest.mark.parametrize("algorithm", ["pcfr+", "hs-dcfr"])
def test_predictive_and_scheduled_resume_exactly(game, abstraction, algorithm: str) -> None:
    """The prediction travels in the checkpoint: 5 + 7 iterations equal 12 straight ones; the
    hyperparameter schedule's exponents depend on the iteration count only."""
    straight = LimitPCSSolver(game, abstraction, algorithm=algorithm, seed=8, workers=2)
    straight.step(12)
    first = LimitPCSSolver(game, abstraction, algorithm=algorithm, seed=8)
    first.step(5)
    state = first.state_dict()
    assert ("prediction" in state["arrays"]) == (algorithm == "pcfr+")
    again = LimitPCSSolver(game, abstraction, algorithm=algorithm, seed=0)
    again.load_state_dict(state)
    again.step(7)
    np.testing.assert_array_equal(again.regrets, straight.regrets)
    np.testing.assert_array_equal(again.sums, straight.sums)
    np.testing.assert_array_equal(again.prediction, straight.prediction)
    if algorithm == "pcfr+":
        assert straight.bytes_per_infoset_action == 12
        del state["arrays"]["prediction"]
        with pytest.raises(PokerlabError, match="predicted regrets"):
            LimitPCSSolver(game, abstraction, algorithm=algorithm).load_state_dict(state)


BOARD_2 = np.array([29, 35, 38, 44, 50])  # a second board of the 24-card deck


@pytest.mark.parametrize("traverser", [0, 1])
def test_board_batch_is_the_mean_of_its_boards(game, abstraction, traverser: int) -> None:
    """A pass over a batch of two boards (one vector per board, the seed's board batch) equals
    the mean of the two single-board passes from the same strategy: root values per hand,
    regret updates and strategy sums (vanilla CFR: the update is added, not floored). Fails if
    the folds or showdowns mixed the hands of different boards."""
    boards = [BOARD, BOARD_2]
    warm = LimitPCSSolver(game, abstraction, recall="perfect", algorithm="cfr", seed=5)
    warm.step(3)  # a mixed strategy, not uniform
    state = warm.state_dict()

    def fresh(boards_per_iteration: int) -> LimitPCSSolver:
        s = LimitPCSSolver(
            game,
            abstraction,
            recall="perfect",
            algorithm="cfr",
            boards_per_iteration=boards_per_iteration,
        )
        s.state._set_arrays(state["arrays"]["regrets"], state["arrays"]["sums"], None)
        return s

    singles = []
    for board in boards:
        s = fresh(1)
        values = s.root_values(board, traverser)  # before the update
        root = s.state._pass(board, traverser, update=True)
        singles.append((root, values, s.regrets.copy(), s.sums.copy()))
    batch = fresh(2)
    root = batch.state._pass(np.stack(boards), traverser, update=True)
    entries = batch.state._board_arrays(np.stack(boards))  # each board's live hands, board by board
    per_hand = np.zeros((2, len(batch.hands)), dtype=np.float32)
    for b in range(2):
        seg = slice(entries.segments[b], entries.segments[b + 1])
        per_hand[b, entries.hand[seg]] = batch.state._root[seg]
    base_r, base_s = state["arrays"]["regrets"], state["arrays"]["sums"]
    assert root == pytest.approx((singles[0][0] + singles[1][0]) / 2, rel=1e-5, abs=1e-7)
    for b in range(2):
        np.testing.assert_allclose(per_hand[b] * 2, singles[b][1], rtol=1e-5, atol=1e-7)
    mean_r = base_r + ((singles[0][2] - base_r) + (singles[1][2] - base_r)) / 2
    np.testing.assert_allclose(batch.regrets, mean_r, rtol=1e-4, atol=1e-6)
    # strategy sums are reach-weighted, not scaled: the batch adds both boards' reach
    both_s = base_s + (singles[0][3] - base_s) + (singles[1][3] - base_s)
    np.testing.assert_allclose(batch.sums, both_s, rtol=1e-5, atol=1e-5)
    assert np.abs(batch.regrets - base_r).max() > 1e-3  # the pass did update


def test_board_batch_trains_resumes_and_is_refused_across_sizes(game, abstraction) -> None:
    from pokerlab.evaluate.limit_abstract import abstract_exploitability_mbb, joint_bucket_tables

    tables = joint_bucket_tables(build_abstraction(6, (4, 4, 4, 4), "ehs", cache=False))
    small = build_abstraction(6, (4, 4, 4, 4), "ehs", cache=False)
    solver = LimitPCSSolver(game, small, recall="imperfect", boards_per_iteration=4, seed=2)
    start = abstract_exploitability_mbb(solver, tables)
    solver.step(60)
    assert abstract_exploitability_mbb(solver, tables) < start / 4
    state = solver.state_dict()
    assert state["config"]["boards_per_iteration"] == 4
    solver.step(5)
    again = LimitPCSSolver(game, small, recall="imperfect", boards_per_iteration=4, seed=9)
    again.load_state_dict(state)
    again.step(5)
    np.testing.assert_array_equal(again.regrets, solver.regrets)
    np.testing.assert_array_equal(again.sums, solver.sums)
    other = LimitPCSSolver(game, small, recall="imperfect", boards_per_iteration=2)
    with pytest.raises(PokerlabError, match="boards_per_iteration 4, this run 2"):
        other.load_state_dict(state)
    with pytest.raises(PokerlabError, match="boards_per_iteration must be >= 1"):
        LimitPCSSolver(game, small, boards_per_iteration=0)
    # a checkpoint from before the batch (no field) is a one-board run
    old = limit_pcs_state(state)
    del old["boards_per_iteration"]
    with pytest.raises(PokerlabError, match="boards_per_iteration 1, this run 4"):
        again.load_state_dict(old)


@pytest.mark.parametrize("algorithm,recall", [("cfr+", "imperfect"), ("pdcfr+", "perfect")])
def test_split_pass_equals_the_whole_tree_pass(game, abstraction, algorithm, recall) -> None:
    """A pass split at the turn's subtree roots (the head's way down and up through the cut
    modes, three workers' subtrees in threads) and one depth-first pass over the whole tree,
    from the same state over a batch of two boards: the same root values, regrets, strategy
    sums and predictions, bit for bit, pass after pass."""
    one, split = (
        LimitPCSSolver(
            game, abstraction, recall=recall, algorithm=algorithm, seed=4, boards_per_iteration=2,
            **options,
        )
        for options in ({}, {"workers": 3, "split_round": 1})
    )  # fmt: skip
    assert len(split.subtrees) > 3
    one.step(3)
    split.load_state_dict(one.state_dict())
    boards = np.stack([BOARD, BOARD_2])
    for solver in (one, split):
        solver.state._begin_iteration(4)
    for traverser in (0, 1):
        assert one.state._pass(boards, traverser, update=True) == split.state._pass(
            boards, traverser, True
        )
        np.testing.assert_array_equal(one.state._root, split.state._root)
        np.testing.assert_array_equal(one.regrets, split.regrets)
        np.testing.assert_array_equal(one.sums, split.sums)
        np.testing.assert_array_equal(one.prediction, split.prediction)
    assert np.abs(one.regrets).max() > 0


# --- lazy discounts ---------------------------------------------------------------------------


def test_lazy_scale_equals_the_eager_discount() -> None:
    """LazyScale against the eager rule x <- x f_t + c_t in float64, over factors that stay
    uniform (kept lazily), differ by sign (applied eagerly) and reset to 0, with a small LIMIT
    so that the rescaling to w = 1 happens too."""

    class Small(LazyScale):
        LIMIT = 50.0

    rng = np.random.default_rng(3)
    eager = np.zeros(40)
    lazy = np.zeros(40)
    scale = Small()
    rescaled = differing = 0
    for t in range(1, 200):
        if t == 1 or t == 120:
            a = b = 0.0
        elif t % 37 == 0:
            a, b = 0.9, 0.5
        elif t % 2 == 0:
            a = b = 0.7
        else:
            a = b = (t - 1) / t
        a_now, b_now, w = scale.advance(a, b)
        rescaled += a == b and a > 0 and a_now != 1.0
        differing += a != b
        lazy = np.where(lazy > 0, lazy * a_now, lazy * b_now)
        eager = np.where(eager > 0, eager * a, eager * b)
        c = rng.normal(size=40) * (rng.random(40) < 0.3)  # most entries untouched
        eager += c
        lazy += w * c
        np.testing.assert_allclose(lazy / scale.weight, eager, rtol=1e-9, atol=1e-12)
    assert rescaled > 0 and differing > 0
    assert LazyScale(2.0).advance(1.0) == (1.0, 1.0, 2.0)  # no discount: nothing moves


@pytest.mark.parametrize("algorithm", ["cfr+", "linear", "dcfr", "dcfr+", "pdcfr+"])
def test_lazy_discounts_train_as_the_eager_rule(game, abstraction, algorithm: str) -> None:
    """Training with the lazy scales equals training with the discount applied to every stored
    number each iteration (up to float32 rounding): the same average strategy, and regrets and
    sums that differ from the eager ones by the scales only. ``dcfr`` (a_t != b_t) keeps the
    eager regret path; ``linear`` and ``dcfr+``/``pdcfr+`` have lazy regrets."""
    lazy = LimitPCSSolver(game, abstraction, recall="perfect", algorithm=algorithm, seed=6)
    eager = LimitPCSSolver(
        game, abstraction, recall="perfect", algorithm=algorithm, seed=6, lazy_discounts=False
    )
    # 12 iterations: the two round differently, and regret matching's jumps (a state whose
    # regrets are all 0 but one, by a rounding, plays that action) let the difference grow
    # after a few tens of iterations (PDCFR+ here: 1e-6 relative up to 19, 1e-3 at 22)
    lazy.step(12)
    eager.step(12)
    ws, wr = lazy.state._sum_scale.weight, lazy.state._regret_scale.weight
    assert ws > 1
    assert (wr > 1) == (algorithm in ("linear", "dcfr+", "pdcfr+"))
    assert eager.state._sum_scale.weight == eager.state._regret_scale.weight == 1.0
    scale_r = np.abs(eager.regrets).max()
    np.testing.assert_allclose(lazy.regrets / wr, eager.regrets, rtol=1e-3, atol=1e-4 * scale_r)
    scale = np.abs(eager.sums).max()
    np.testing.assert_allclose(lazy.sums / ws, eager.sums, rtol=1e-4, atol=1e-5 * scale)
    # the average strategy of every state that play reaches more than rarely (a state's sums are
    # its reach; where they are tiny, float32 rounding moves the ratio)
    reached = np.zeros(eager.size, dtype=bool)
    tree = eager.tree
    for n in np.flatnonzero(tree.kind == DECISION):
        na = int(tree.child_start[n + 1] - tree.child_start[n])
        ns = int(eager.num_states[tree.round[n]])
        block = slice(eager.offset[n], eager.offset[n] + na * ns)
        total = eager.sums[block].reshape(na, ns).sum(axis=0)
        reached[block] = np.tile(total > 1e-3 * scale, na)
    assert reached.sum() > 10_000
    np.testing.assert_allclose(
        lazy.average_strategy().probs[reached], eager.average_strategy().probs[reached], atol=2e-4
    )


def test_checkpoints_keep_the_lazy_scales(game, abstraction) -> None:
    """The scales travel with the arrays (exact resume across a rescaling to 1); a checkpoint
    without them (written before the lazy scales) holds the arrays at scale 1."""

    class Small(LazyScale):
        LIMIT = 30.0

    def solver() -> LimitPCSSolver:
        s = LimitPCSSolver(game, abstraction, recall="perfect", algorithm="dcfr+", seed=1)
        s.state._sum_scale, s.state._regret_scale = Small(), Small()
        return s

    straight = solver()
    straight.step(14)
    first = solver()
    first.step(6)
    state = first.state_dict()
    assert state["extra"]["scales"] == [
        first.state._sum_scale.weight,
        first.state._regret_scale.weight,
    ]
    again = solver()
    again.load_state_dict(state)
    again.step(8)
    np.testing.assert_array_equal(again.regrets, straight.regrets)
    np.testing.assert_array_equal(again.sums, straight.sums)
    old = limit_pcs_state(first.state_dict())
    del old["scales"]
    old["arrays"]["sums"] = old["arrays"]["sums"] / np.float32(first.state._sum_scale.weight)
    old["arrays"]["regrets"] = old["arrays"]["regrets"] / np.float32(
        first.state._regret_scale.weight
    )
    legacy = solver()
    legacy.load_state_dict(old)
    assert legacy.state._sum_scale.weight == legacy.state._regret_scale.weight == 1.0
    np.testing.assert_allclose(
        legacy.average_strategy().probs, first.average_strategy().probs, atol=1e-6
    )
