"""Exact E[HS] / E[HS^2] tables against brute-force enumeration on small decks, and the cache."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.abstraction.store import load_tables, save_tables
from pokerlab.abstraction.strength import (
    class_weights,
    next_round_histograms,
    river_strength,
    strength_tables,
)
from pokerlab.cards.evaluator import evaluate_batch


def _brute_hs(hole: tuple[int, ...], board: tuple[int, ...], deck: range) -> float:
    """River HS by enumerating every opponent hand."""
    rest = [c for c in deck if c not in hole and c not in board]
    opp = np.array(list(itertools.combinations(rest, 2)))
    mine = evaluate_batch(np.array([list(hole) + list(board)], dtype=np.uint8))[0]
    theirs = evaluate_batch(
        np.concatenate([opp, np.broadcast_to(board, (len(opp), len(board)))], axis=1)
    )
    return float(np.mean((mine > theirs) + 0.5 * (mine == theirs)))


def _brute_ehs(hole: tuple[int, ...], board: tuple[int, ...], deck: range) -> tuple[float, float]:
    rest = [c for c in deck if c not in hole and c not in board]
    values = [
        _brute_hs(hole, board + more, deck) for more in itertools.combinations(rest, 5 - len(board))
    ]
    return float(np.mean(values)), float(np.mean(np.square(values)))


@pytest.fixture(scope="module")
def tiny() -> object:
    return strength_tables(4, cache=False)  # 16 cards: J..A


@pytest.mark.parametrize("rnd", [0, 1, 2, 3])
def test_tables_equal_brute_force(tiny, rnd: int) -> None:
    deck = range(36, 52)
    indexer = round_indexer(rnd, 4)
    rng = np.random.default_rng(rnd)
    picks = rng.choice(indexer.size, size=3 if rnd else indexer.size, replace=False)
    if rnd == 0:
        picks = picks[:4]
    hands, _ = indexer.unindex(picks)
    for i, cards in zip(picks, hands, strict=True):
        hole, board = tuple(int(c) for c in cards[:2]), tuple(int(c) for c in cards[2:])
        ehs, ehs2 = _brute_ehs(hole, board, deck)
        assert tiny.ehs[rnd][i] == pytest.approx(ehs, abs=1e-6)
        assert tiny.ehs2[rnd][i] == pytest.approx(ehs2, abs=1e-6)


def test_known_values_small_variant() -> None:
    tables = strength_tables(6, cache=False)
    pre = round_indexer(0, 6)
    aces = pre.index(np.array([[48, 49]]))[0]  # AcAd
    kings = pre.index(np.array([[44, 45]]))[0]
    nines = pre.index(np.array([[28, 29]]))[0]
    nine_ten = pre.index(np.array([[28, 33]]))[0]  # 9c Td offsuit, the worst hand
    # In the 9..A deck kings beat aces: a king is in both straights (9-K and T-A), an ace in one.
    assert tables.ehs[0][kings] == tables.ehs[0].max()
    assert tables.ehs[0][kings] > tables.ehs[0][aces] > tables.ehs[0][nines]
    assert tables.ehs[0][nine_ten] == tables.ehs[0].min()
    # E[HS^2] >= E[HS]^2 (variance), equal on the river
    for r in range(4):
        assert np.all(tables.ehs2[r] >= tables.ehs[r] ** 2 - 1e-6)
    np.testing.assert_allclose(tables.ehs2[3], tables.ehs[3] ** 2)
    # a royal flush is the nuts: HS 1
    river = round_indexer(3, 6)
    royal = river.index(np.array([[51, 47, 43, 39, 35, 28, 29]]))[0]
    assert tables.ehs[3][royal] == 1.0
    # the average of E[HS] over all hands (weighted by class size) is 1/2 in every round
    for r in range(4):
        w = class_weights(r, 6)
        assert np.average(tables.ehs[r], weights=w) == pytest.approx(0.5, abs=1e-6)


def test_histograms_count_next_deals() -> None:
    turn = round_indexer(2, 4)
    labels = np.arange(round_indexer(3, 4).size) % 3
    hist = next_round_histograms(2, labels, 3, ranks=4)
    assert hist.shape == (turn.size, 3)
    assert np.all(hist.sum(axis=1) == 16 - 6)  # one count per river card


def test_cache_round_trip_and_damage(tmp_path) -> None:
    first = strength_tables(4, cache=tmp_path)
    again = strength_tables(4, cache=tmp_path)
    assert again.seconds == [0.0] * 4
    for r in range(4):
        np.testing.assert_array_equal(first.ehs[r], again.ehs[r])
    path = tmp_path / "strength-r4.npz"
    assert load_tables(path, kind="strength", ranks=5) is None  # other parameters
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    assert load_tables(path, kind="strength", ranks=4) is None
    save_tables(path, {"x": np.arange(3)}, kind="other")
    assert load_tables(path, kind="other")["x"].tolist() == [0, 1, 2]


def test_river_build_resumes(tmp_path) -> None:
    full = river_strength(4)
    part = tmp_path / "river.npz"
    river_strength(4, resume_path=part, board_range=(0, 40), chunk_boards=8)
    resumed = river_strength(4, resume_path=part, board_range=(0, 40))
    half = river_strength(4, board_range=(0, 40))
    np.testing.assert_array_equal(resumed, half)
    assert not np.isnan(full).any()
    covered = ~np.isnan(half)
    assert 0 < covered.sum() < full.size
    np.testing.assert_array_equal(half[covered], full[covered])
