"""Hand isomorphism: published class counts and a brute-force check of the bijection."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.errors import PokerlabError


def test_published_counts_of_full_holdem() -> None:
    # Waugh (2013), table 1: canonical (hole cards, board) classes per round.
    assert [round_indexer(r).size for r in range(4)] == [169, 1_286_792, 13_960_050, 123_156_254]
    # the class sizes add up to every (hole cards, flop): 1326 x C(50, 3)
    assert int(round_indexer(1).weights().astype(np.int64).sum()) == 1326 * 19600


def _all_hands(groups: tuple[int, ...], ranks: int) -> np.ndarray:
    """Every hand: one set of cards per group, groups disjoint."""
    rows: list[tuple[int, ...]] = [()]
    for size in groups:
        rows = [
            row + part
            for row in rows
            for part in itertools.combinations(
                [c for c in range(52 - 4 * ranks, 52) if c not in row], size
            )
        ]
    return np.array(rows, dtype=np.int64)


def _canonical_codes(hands: np.ndarray, groups: tuple[int, ...]) -> np.ndarray:
    """Smallest code of each hand over the 24 suit permutations (groups sorted inside)."""
    best = None
    bounds = np.cumsum((0,) + groups)
    for perm in itertools.permutations(range(4)):
        mapped = (hands & ~3) | np.array(perm)[hands & 3]
        parts = [np.sort(mapped[:, a:b], axis=1) for a, b in itertools.pairwise(bounds)]
        code = np.zeros(len(hands), dtype=np.int64)
        for col in np.concatenate(parts, axis=1).T:
            code = code * 52 + col
        best = code if best is None else np.minimum(best, code)
    return best


@pytest.mark.parametrize(
    ("groups", "ranks"), [((2,), 13), ((2, 3), 5), ((2, 4), 4), ((2, 5), 3), ((2, 3, 1), 3)]
)
def test_bijection_against_brute_force(groups: tuple[int, ...], ranks: int) -> None:
    indexer = HandIndexer(groups, ranks)
    hands = _all_hands(groups, ranks)
    index = indexer.index(hands)
    codes = _canonical_codes(hands, groups)
    # same class <=> same index, and the indices are exactly 0..size-1
    assert len(np.unique(codes)) == indexer.size
    assert np.array_equal(np.unique(index), np.arange(indexer.size))
    assert len(np.unique(codes * indexer.size + index)) == indexer.size
    # unindex gives a member of the class and its number of hands
    canon, weights = indexer.unindex(np.arange(indexer.size))
    assert np.array_equal(indexer.index(canon), np.arange(indexer.size))
    assert np.array_equal(np.bincount(index, minlength=indexer.size), weights)
    assert np.array_equal(indexer.weights(), weights)
    assert np.array_equal(indexer.weights(3, 9), weights[3:9])


def test_full_deck_round_trip_and_suit_invariance() -> None:
    rng = np.random.default_rng(7)
    for rnd in (1, 2, 3):
        indexer = round_indexer(rnd)
        hands = np.array([rng.choice(52, indexer.num_cards, replace=False) for _ in range(2000)])
        index = indexer.index(hands)
        perm = rng.permutation(4)
        swapped = (hands & ~3) | perm[hands & 3]
        shuffled = np.concatenate(
            [rng.permuted(swapped[:, :2], axis=1), rng.permuted(swapped[:, 2:], axis=1)], axis=1
        )
        assert np.array_equal(indexer.index(shuffled), index)
        canon, _ = indexer.unindex(index)
        assert np.array_equal(indexer.index(canon), index)
    # weights of the preflop classes: pairs 6, suited 4, offsuit 12
    _, w = round_indexer(0).unindex(np.arange(169))
    assert sorted(np.bincount(w).nonzero()[0].tolist()) == [4, 6, 12]
    assert w.sum() == 1326


def test_bad_input() -> None:
    with pytest.raises(PokerlabError, match="outside the deck"):
        HandIndexer((2, 3), ranks=6).index(np.array([[0, 1, 48, 49, 50]]))
    with pytest.raises(PokerlabError, match="indices"):
        round_indexer(0).unindex(np.array([169]))
