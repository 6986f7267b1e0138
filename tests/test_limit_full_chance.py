"""CFR on abstracted limit hold'em with every board per iteration (``chance="full"``).

The 12-card deck (Q..A) with one raise per round and 3 buckets per round: 786 suit-canonical
ordered boards, 21 live hole-card pairs each.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from _limit_states import limit_pcs_state
from pokerlab import load_game
from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.errors import PokerlabError
from pokerlab.evaluate.limit_abstract import abstract_exploitability_mbb, joint_bucket_tables
from pokerlab.games.limit_holdem import LimitHoldemGame
from pokerlab.solvers.limit_holdem import LimitPCSSolver, full_chance_bytes


@pytest.fixture(scope="module")
def game() -> LimitHoldemGame:
    return load_game("limit-holdem", variant="micro", raise_caps=[1, 1, 1, 1])


@pytest.fixture(scope="module")
def abstraction():
    return build_abstraction(3, (3, 3, 3, 3), "ehs", cache=False)


def _ordered_boards(game: LimitHoldemGame) -> np.ndarray:
    """Every ordered board (flop as a set, turn, river) of the deck, with no isomorphism."""
    deck = [int(c) for c in game.rules.cards]
    rows = []
    for flop in itertools.combinations(deck, 3):
        rest = [c for c in deck if c not in flop]
        for turn in rest:
            for river in rest:
                if river != turn:
                    rows.append((*flop, turn, river))
    return np.array(rows, dtype=np.int64)


@pytest.mark.parametrize("recall", ["imperfect", "perfect"])
def test_canonical_boards_equal_every_ordered_board(game, abstraction, recall: str) -> None:
    """Two iterations over the 786 canonical boards weighted by class size update the regrets
    and sums as one batch of all 15,840 ordered boards (no isomorphism) does, up to float32
    sums in another order (up to 1e-3 relative: a preflop state adds some 10^5 entries);
    the same boards unweighted (every class once) are off by far more."""
    full = LimitPCSSolver(game, abstraction, recall=recall, chance="full")
    unweighted = LimitPCSSolver(game, abstraction, recall=recall, chance="full")
    unweighted.state._full_reach[:] = 1.0
    unweighted.state._scale *= float(unweighted.state._full_weights.sum()) / unweighted.full_boards
    boards = _ordered_boards(game)
    assert full.full_boards == 786 and len(boards) == 15_840
    every = LimitPCSSolver(game, abstraction, recall=recall, boards_per_iteration=len(boards))
    entries = every.state._board_arrays(boards)
    for t in (1, 2):
        full.step(1)
        unweighted.step(1)
        every.state._begin_iteration(t)
        every.state._pass(entries, 0, update=True)
        every.state._pass(entries, 1, update=True)
        every.iterations = t
        for name in ("regrets", "sums"):
            theirs = getattr(every, name)
            scale = float(np.abs(theirs).max())
            assert scale > 0
            close = {"rtol": 2e-3, "atol": 1e-4 * scale}
            np.testing.assert_allclose(getattr(full, name), theirs, **close)
            assert not np.allclose(getattr(unweighted, name), theirs, **close)
    # and it is not a copy of a one-board iteration: a sampled board's regrets differ
    sampled = LimitPCSSolver(game, abstraction, recall=recall)
    sampled.step(2)
    assert not np.allclose(sampled.regrets, full.regrets, rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize(
    "recall,algorithm", [("imperfect", "dcfr"), ("perfect", "cfr+"), ("perfect", "pcfr+")]
)
def test_split_passes_equal_one_worker(game, abstraction, recall: str, algorithm: str) -> None:
    """The head's cut passes and the workers' subtree passes give one worker's numbers
    exactly (regrets, sums, predictions, root values), split after the preflop (7 subtrees)
    or the flop (16 with one raise); with the regret floor and the predictive update too."""
    runs = {}
    for workers, split in ((1, 0), (2, 0), (2, 1), (3, 1)):
        solver = LimitPCSSolver(
            game, abstraction, recall=recall, algorithm=algorithm, chance="full",
            workers=workers, split_round=split,
        )  # fmt: skip
        solver.step(3)
        runs[workers, split] = (
            solver.regrets.copy(), solver.sums.copy(), solver.prediction.copy(),
            solver.state._root.copy(),
        )  # fmt: skip
    ref = runs[1, 0]
    for key, arrays in runs.items():
        for mine, theirs in zip(arrays, ref, strict=True):
            assert np.array_equal(mine, theirs), key


def test_exploitability_falls_without_sampling_noise(game, abstraction) -> None:
    """CFR+ over every board, perfect recall: the exact abstract exploitability falls from
    1,632 mbb/g after one iteration to 14.9 after 50 and 1.43 after 200 (measured; it is
    deterministic). Public chance sampling with the same work (200 iterations of 786 sampled
    boards) stops at 2.81: the sampling noise is what the full walk removes."""
    tables = joint_bucket_tables(abstraction)
    solver = LimitPCSSolver(game, abstraction, recall="perfect", chance="full", workers=2)
    solver.step(1)
    first = abstract_exploitability_mbb(solver, tables)
    solver.step(49)
    mid = abstract_exploitability_mbb(solver, tables)
    solver.step(150)
    last = abstract_exploitability_mbb(solver, tables)
    assert first > 1000 and 10 < mid < 20 and last < 2.0
    sampled = LimitPCSSolver(game, abstraction, recall="perfect", boards_per_iteration=786)
    sampled.step(200)
    assert abstract_exploitability_mbb(sampled, tables) > 1.5 * last


@pytest.mark.parametrize(
    "algorithm,recall,workers",
    [("cfr+", "perfect", 1), ("dcfr", "imperfect", 2), ("cfr+", "perfect", 2)],
)
def test_board_chunks_equal_one_pass(game, abstraction, algorithm, recall, workers) -> None:
    """Boards in chunks (each reading the iteration's regrets from a frozen copy, the floor
    after the last chunk) give the one-pass numbers bit for bit: the same additions in the
    same order."""
    kwargs = {"recall": recall, "algorithm": algorithm, "chance": "full", "workers": workers}
    one = LimitPCSSolver(game, abstraction, split_round=1, **kwargs)
    chunked = LimitPCSSolver(game, abstraction, split_round=1, board_chunk=100, **kwargs)
    assert len(chunked.state._full_chunks) == 8  # 786 boards: 7 of 100 and one of 86
    one.step(3)
    chunked.step(3)
    assert np.array_equal(one.regrets, chunked.regrets)
    assert np.array_equal(one.sums, chunked.sums)
    if algorithm == "cfr+":
        assert chunked.regrets.min() == 0.0  # the floor, applied after the chunks


@pytest.mark.parametrize("workers", [1, 2])
def test_root_values_of_one_board(game, abstraction, workers: int) -> None:
    """``root_values`` on a full solver: one board at the one-board scale, the same numbers as
    a sampled solver holding the same regrets (and with workers, no split rows needed)."""
    full = LimitPCSSolver(
        game, abstraction, recall="perfect", chance="full", workers=workers, split_round=1
    )
    full.step(2)
    sampled = LimitPCSSolver(game, abstraction, recall="perfect")
    sampled.state._set_arrays(full.regrets, full.sums, None)
    board = full.state._full_boards[100]
    for seat in (0, 1):
        mine = full.root_values(board, seat)
        assert np.array_equal(mine, sampled.root_values(board, seat))
        assert np.count_nonzero(mine) == 21 and float(np.abs(mine).max()) > 0.05


def test_resume_is_exact_and_refuses_a_sampled_checkpoint(game, abstraction) -> None:
    one = LimitPCSSolver(game, abstraction, recall="perfect", chance="full")
    one.step(4)
    two = LimitPCSSolver(game, abstraction, recall="perfect", chance="full")
    two.step(2)
    state = two.state_dict()
    assert state["config"]["chance"] == "full"
    three = LimitPCSSolver(game, abstraction, recall="perfect", chance="full")
    three.load_state_dict(state)
    three.step(2)
    assert np.array_equal(one.regrets, three.regrets) and np.array_equal(one.sums, three.sums)
    sampled = LimitPCSSolver(game, abstraction, recall="perfect")
    with pytest.raises(PokerlabError, match="chance 'full', this run 'sampled'"):
        sampled.load_state_dict(state)
    old = limit_pcs_state(sampled.state_dict())
    del old["chance"]  # a file from before chance="full": sampled
    with pytest.raises(PokerlabError, match="chance 'sampled', this run 'full'"):
        three.load_state_dict(old)


def test_refusals(game, abstraction) -> None:
    with pytest.raises(PokerlabError, match="'everything'"):
        LimitPCSSolver(game, abstraction, chance="everything")
    with pytest.raises(PokerlabError, match="boards_per_iteration"):
        LimitPCSSolver(game, abstraction, chance="full", boards_per_iteration=4)
    need = full_chance_bytes(game, 2, 1)
    assert 20 << 20 < need < 80 << 20  # 16,506 entries on two workers
    with pytest.raises(PokerlabError, match="786 canonical boards"):
        LimitPCSSolver(game, abstraction, chance="full", workers=2, max_bytes=need // 2)
    with pytest.raises(PokerlabError, match="board_chunk is an option"):
        LimitPCSSolver(game, abstraction, board_chunk=10)
    with pytest.raises(PokerlabError, match="predictive"):
        LimitPCSSolver(game, abstraction, chance="full", algorithm="pcfr+", board_chunk=10)
    with pytest.raises(PokerlabError, match="board_chunk must be"):
        LimitPCSSolver(game, abstraction, chance="full", board_chunk=0)
    small = load_game("limit-holdem", variant="small")
    assert full_chance_bytes(small) > 8 << 30  # 41,460 boards x 171 hands: refused by default
    # in chunks of 1,000 boards the scratch is the entries' 0.7 GB and a chunk's passes
    assert full_chance_bytes(small, 2, 1, board_chunk=1000) < 2 << 30
