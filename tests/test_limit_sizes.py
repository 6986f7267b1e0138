"""Issue 29, item 1: the limit hold'em layout's sizes are exact Python integers; counts whose
storage does not fit are refused with the estimate before any array is made."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from pokerlab import load_game
from pokerlab.abstraction.buckets import MAX_BUCKETS, CardAbstraction, bucket_sequence_ids
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.cli.main import main
from pokerlab.errors import PokerlabError
from pokerlab.games.limit_holdem import DECISION
from pokerlab.solvers.limit_holdem import LimitPCSSolver, layout_size, state_counts
from pokerlab.solvers.limit_mccfr import LimitESSolver

RANKS = 3  # the micro deck (12 cards)


@pytest.fixture(scope="module")
def game():
    return load_game("limit-holdem", variant="micro")


def _abstraction(counts: tuple[int, int, int, int]) -> CardAbstraction:
    """Labels without a build: class i of round r in bucket i mod counts[r]."""
    labels = [
        (np.arange(round_indexer(r, RANKS).size) % counts[r]).astype(np.int32) for r in range(4)
    ]
    return CardAbstraction(RANKS, "ehs", counts, labels)


def test_layout_size_is_the_sum_over_decisions_of_actions_times_states(game) -> None:
    counts = (2, 3, 4, 5)
    abstraction = _abstraction(counts)
    states = state_counts(abstraction, "perfect")
    assert states == (2, 6, 24, 120)
    tree = game.betting_tree
    expected = 0
    for n in np.flatnonzero(tree.kind == DECISION):
        na = int(tree.child_start[n + 1] - tree.child_start[n])
        expected += na * states[int(tree.round[n])]
    assert layout_size(tree, states) == expected
    solver = LimitPCSSolver(game, abstraction, recall="perfect")
    assert solver.size == expected
    assert solver.regrets.size == expected
    assert list(solver.num_states) == [2, 6, 24, 120]


@pytest.mark.parametrize("solver_class", [LimitPCSSolver, LimitESSolver])
def test_the_largest_legal_bucket_counts_are_refused_with_the_estimate(game, solver_class) -> None:
    counts = (MAX_BUCKETS,) * 4
    abstraction = _abstraction(counts)
    size = layout_size(game.betting_tree, state_counts(abstraction, "perfect"))
    assert size > 2**124  # far past int64: the old cumprod wrapped here
    start = time.perf_counter()
    with pytest.raises(PokerlabError, match=r"needs about 10\^\d+ GiB .*information-set actions"):
        solver_class(game, abstraction, recall="perfect")
    assert time.perf_counter() - start < 5.0
    # the same counts with imperfect recall use at most the classes of each round: they fit
    solver = solver_class(game, abstraction, recall="imperfect")
    assert solver.size == layout_size(game.betting_tree, abstraction.num_buckets)


def test_a_product_just_past_int64_is_refused_not_wrapped(game) -> None:
    # 2 * 2 * 2 * 2**62 = 2**65 wraps to 0 in int64
    abstraction = _abstraction((2, 2, 2, 2**62))
    assert state_counts(abstraction, "perfect")[3] == 2**65
    with pytest.raises(PokerlabError, match="needs about"):
        LimitPCSSolver(game, abstraction, recall="perfect")


def test_bucket_sequence_ids_refuse_ids_past_int64() -> None:
    labels = [np.zeros(3, dtype=np.int32)] * 4
    with pytest.raises(PokerlabError, match="bucket sequences"):
        bucket_sequence_ids(labels, (2**16, 2**16, 2**16, 2**16), "perfect")
    ids = bucket_sequence_ids(
        [np.array([1]), np.array([2]), np.array([0]), np.array([4])], (2, 3, 4, 5)
    )
    assert [int(x[0]) for x in ids] == [1, 1 * 3 + 2, (1 * 3 + 2) * 4, ((1 * 3 + 2) * 4) * 5 + 4]


@pytest.mark.parametrize(
    "buckets,needle",
    [
        (",".join([str(MAX_BUCKETS)] * 4), "needs about 10^"),
        ("2,2,2,4611686018427387904", "above the largest 2,147,483,647"),
        ("2,2,2," + "9" * 5000, "above the largest"),
        ("2,2,2,\u0663", "is not a whole number"),
        ("2,2,2,0x10", "is not a whole number"),
    ],
)
def test_train_refuses_huge_bucket_counts_before_the_tables(capsys, buckets, needle) -> None:
    start = time.perf_counter()
    code = main(
        [
            "train",
            "limit-holdem",
            "--variant",
            "micro",
            "--buckets",
            buckets,
            "--recall",
            "perfect",
            "-n",
            "2",
            "--no-exploitability",
            "--no-cache",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("error: ")
    assert needle in err
    assert time.perf_counter() - start < 10.0  # no E[HS] tables were built


def test_imperfect_recall_exploitability_check_uses_exact_products(capsys) -> None:
    # the river sequences' count 2**31-1 squared used to wrap in np.prod
    big = MAX_BUCKETS
    code = main(
        [
            "train",
            "limit-holdem",
            "--variant",
            "micro",
            "--buckets",
            f"2,2,{big},{big}",
            "-n",
            "2",
            "--no-cache",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{4 * big * big:,} river bucket sequences" in err
    assert math.prod((2, 2, big, big)) == 4 * big * big
