"""Bucketing on the small variant: monotone percentile buckets, EMD embedding, recall ids."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.abstraction.buckets import (
    bucket_sequence_ids,
    build_abstraction,
    percentile_buckets,
)
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.abstraction.kmeans import emd_embedding, weighted_kmeans
from pokerlab.abstraction.strength import class_weights, strength_tables
from pokerlab.errors import PokerlabError


@pytest.fixture(scope="module")
def strength():
    return strength_tables(6, cache=False)


@pytest.mark.parametrize("method", ["ehs", "ehs2"])
def test_percentile_buckets_are_monotone_and_balanced(strength, method: str) -> None:
    abstraction = build_abstraction(6, (8, 8, 8, 8), method, cache=False, strength=strength)
    values = strength.ehs if method == "ehs" else strength.ehs2
    for r in range(4):
        labels = abstraction.labels[r]
        order = np.argsort(values[r], kind="stable")
        assert np.all(np.diff(labels[order]) >= 0)  # stronger class, bucket at least as high
        assert labels.max() == 7
        if r >= 1:  # thousands of classes: each bucket holds about 1/8 of the hands
            mass = np.bincount(labels, weights=class_weights(r, 6)) / class_weights(r, 6).sum()
            assert np.all(np.abs(mass - 1 / 8) < 0.02)


def test_percentile_edge_cases() -> None:
    values = np.array([0.1, 0.1, 0.5, 0.9])
    assert percentile_buckets(values, np.ones(4), 10).tolist() == [0, 0, 1, 2]  # lossless
    assert percentile_buckets(values, np.ones(4), 2).tolist() == [0, 0, 1, 1]
    assert percentile_buckets(values, np.array([1.0, 1.0, 0.0, 2.0]), 2).tolist() == [0, 0, 1, 1]


def test_lossless_preflop_and_bucket_of(strength) -> None:
    pre = round_indexer(0, 6)
    abstraction = build_abstraction(6, (pre.size, 4, 4, 4), "ehs", cache=False, strength=strength)
    assert len(np.unique(abstraction.labels[0])) == pre.size
    kings = abstraction.bucket_of(0, np.array([[44, 45], [46, 47], [28, 33]]))
    assert kings[0] == kings[1] == pre.size - 1  # the strongest class in 9..A
    assert kings[2] == 0


def test_emd_embedding_is_the_earth_movers_distance() -> None:
    from scipy.stats import wasserstein_distance

    rng = np.random.default_rng(3)
    positions = np.sort(rng.random(7))
    hist = rng.integers(0, 5, size=(6, 7)) + 1
    x = emd_embedding(hist.astype(float), positions)
    for i in range(6):
        for j in range(6):
            emd = wasserstein_distance(positions, positions, hist[i], hist[j])
            assert np.abs(x[i] - x[j]).sum() == pytest.approx(emd, abs=1e-6)


def test_emd_buckets(strength) -> None:
    a = build_abstraction(6, (8, 8, 8, 8), "emd", cache=False, strength=strength, seed=1)
    for r in range(4):
        w = class_weights(r, 6)
        means = np.bincount(a.labels[r], weights=w * strength.ehs[r]) / np.bincount(
            a.labels[r], weights=w
        )
        assert np.all(np.diff(means) > 0)  # numbered by strength
    assert a.num_buckets == (8, 8, 8, 8)
    # potential matters: on the turn, E[HS] alone does not determine the EMD bucket
    turn = a.labels[2]
    ehs_bucket = build_abstraction(6, (8, 8, 8, 8), "ehs", cache=False, strength=strength)
    assert not np.array_equal(turn, ehs_bucket.labels[2])


def test_kmeans_seeded() -> None:
    rng = np.random.default_rng(0)
    x = rng.random((300, 5))
    w = rng.random(300)
    first = weighted_kmeans(x, w, 6, seed=4)
    np.testing.assert_array_equal(first, weighted_kmeans(x, w, 6, seed=4))
    assert sorted(np.unique(first).tolist()) == list(range(6))


def test_cache_and_errors(tmp_path, strength) -> None:
    first = build_abstraction(6, (4, 4, 4, 4), "ehs2", cache=tmp_path, strength=strength)
    again = build_abstraction(6, (4, 4, 4, 4), "ehs2", cache=tmp_path)
    assert again.seconds == [0.0] * 4
    for r in range(4):
        np.testing.assert_array_equal(first.labels[r], again.labels[r])
    with pytest.raises(PokerlabError, match="bucketing"):
        build_abstraction(6, (4, 4, 4, 4), "kmeans", cache=False)
    with pytest.raises(PokerlabError, match="four"):
        build_abstraction(6, (4, 4, 4), "ehs", cache=False)


def test_recall_ids() -> None:
    labels = [np.array([0, 1]), np.array([2, 0]), np.array([1, 1]), np.array([0, 2])]
    perfect = bucket_sequence_ids(labels, (2, 3, 2, 3), "perfect")
    assert perfect[1].tolist() == [2, 3]
    assert perfect[3].tolist() == [((0 * 3 + 2) * 2 + 1) * 3 + 0, ((1 * 3 + 0) * 2 + 1) * 3 + 2]
    imperfect = bucket_sequence_ids(labels, (2, 3, 2, 3), "imperfect")
    assert imperfect[3].tolist() == [0, 2]
    with pytest.raises(PokerlabError):
        bucket_sequence_ids(labels, (2, 3, 2, 3), "total")
