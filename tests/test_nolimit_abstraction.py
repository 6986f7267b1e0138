"""The no-limit blueprint's card abstraction (issue 24): labels, lossless preflop, sampled
k-means, the on-disk cache and resuming an interrupted build. Small decks only (the full deck's
build is measured by benchmarks/nolimit_abstraction.py)."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from pokerlab.abstraction.buckets import build_abstraction
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.abstraction.kmeans import _cluster_round, assign_nearest, sampled_kmeans
from pokerlab.abstraction.strength import class_weights, strength_tables
from pokerlab.errors import PokerlabError
from pokerlab.games.nolimit import NoLimitHoldemGame
from pokerlab.games.nolimit.abstraction import card_abstraction


@pytest.mark.parametrize("deck, ranks", [("micro", 3), ("tiny", 4)])
def test_labels_cover_every_class(tmp_path, deck: str, ranks: int) -> None:
    game = NoLimitHoldemGame("hunl-100", deck=deck, buckets=[169, 12, 12, 12])
    build = game.card_abstraction(cache=tmp_path)
    a = build.abstraction
    assert a.ranks == ranks and a.method == "emd" and a.buckets == (169, 12, 12, 12)
    assert not build.from_cache and build.seconds > 0 and build.peak_bytes > 0
    strength = strength_tables(ranks, cache=tmp_path)  # written by the build: read back
    for r in range(4):
        labels = a.labels[r]
        assert labels.dtype == np.int32
        assert labels.size == round_indexer(r, ranks).size  # one label per canonical class
        assert labels.min() == 0
        w = class_weights(r, ranks)
        used = np.bincount(labels, weights=w)
        assert np.all(used > 0)  # buckets 0..m-1 all hold hands
        np.testing.assert_array_equal(a.hands[r], used)
        mean = np.bincount(labels, weights=w * strength.ehs[r]) / used
        assert np.all(np.diff(mean) >= 0)  # numbered by strength (equal-E[HS] classes tie)
        if r in (1, 2):
            assert np.all(np.diff(mean) > 0)
    # preflop lossless: as many buckets as the deck's suit classes (9 on 12 cards, 16 on 16)
    pre = round_indexer(0, ranks).size
    assert sorted(a.labels[0].tolist()) == list(range(pre))
    assert a.num_buckets[1] == a.num_buckets[2] == 12  # k-means rounds use every bucket
    assert a.num_buckets[3] <= 12  # river percentiles: equal-HS classes share a bucket
    assert np.isnan(a.objective[0]) and a.objective[1] > 0 and a.objective[2] > 0
    # every dealt flop of the deck has a bucket, the same for suit-isomorphic hands
    cards = np.array(game.cards)
    hands = np.array([np.random.default_rng(s).choice(cards, 5, replace=False) for s in range(40)])
    got = a.bucket_of(1, hands)
    swapped = (hands & ~3) | (3 - (hands & 3))  # suits relabelled: the same class
    np.testing.assert_array_equal(got, a.bucket_of(1, swapped))
    assert got.min() >= 0 and got.max() < 12


def test_lossless_preflop_is_the_169_classes_of_the_full_deck() -> None:
    """The lossless preflop path on the full deck's indexer, numbered by E[HS] (preflop E[HS]
    is the exact all-in equity against a uniform random hand)."""
    from pokerlab.cards.deck import COMBO_CARDS, COMBO_CLASS, class_id
    from pokerlab.cards.orderings import combo_equity_vs_random

    pre = round_indexer(0, 13)
    assert pre.size == 169
    cls = pre.index(COMBO_CARDS)  # the indexer's class of each of the 1,326 combos
    ehs = np.zeros(169)
    ehs[cls] = combo_equity_vs_random()
    w = class_weights(0, 13).astype(np.float64)
    labels, objective = _cluster_round(np.zeros((169, 2)), np.arange(2.0), w, ehs, 169, 0)
    assert np.isnan(objective)
    assert sorted(labels.tolist()) == list(range(169))
    per_combo = labels[cls]
    # two combos share a bucket exactly when they are the same hand class (AKs, 72o, ...)
    same_bucket = per_combo[:, None] == per_combo[None, :]
    same_class = COMBO_CLASS[:, None] == COMBO_CLASS[None, :]
    np.testing.assert_array_equal(same_bucket, same_class)
    by_class = np.zeros(169, np.int64)
    by_class[COMBO_CLASS] = per_combo
    assert by_class[class_id(12, 12, False)] == 168  # AA: the top bucket
    assert by_class[class_id(1, 0, False)] == 0  # 32o: the weakest against a random hand


def test_assign_nearest_is_brute_force() -> None:
    rng = np.random.default_rng(2)
    x = rng.random((1000, 6)).astype(np.float32)
    c = rng.random((7, 6))
    w = rng.random(1000)
    labels, total, sums, mass = assign_nearest(x, c, w, chunk=128)
    d = ((x[:, None, :].astype(np.float64) - c[None]) ** 2).sum(axis=2)
    np.testing.assert_array_equal(labels, d.argmin(axis=1))
    assert total == pytest.approx((d.min(axis=1) * w).sum(), rel=1e-5)
    np.testing.assert_allclose(mass, np.bincount(labels, weights=w, minlength=7))
    np.testing.assert_allclose(sums[3], (x[labels == 3] * w[labels == 3, None]).sum(0), rtol=1e-5)


def test_sampled_kmeans_passes_lower_the_objective() -> None:
    rng = np.random.default_rng(5)
    centres = rng.random((12, 4)) * 10
    x = centres[rng.integers(0, 12, 20_000)] + rng.normal(size=(20_000, 4))
    w = rng.integers(1, 5, 20_000).astype(np.float64)
    labels, history = sampled_kmeans(x, w, 12, seed=0, sample=2000, passes=4, n_init=3)
    assert len(history) == 5 and labels.shape == (20_000,)
    assert np.all(np.diff(history) <= 1e-6 * history[0])  # Lloyd passes never raise it
    # the recorded objective is the partition's: each point to its cluster's weighted mean
    means = np.stack(
        [np.average(x[labels == j], axis=0, weights=w[labels == j]) for j in range(12)]
    )
    exact = (((x - means[labels]) ** 2).sum(1) * w).sum() / w.sum()
    assert history[-1] == pytest.approx(exact, rel=1e-4)
    # within 2% of scikit-learn's k-means on all 20,000 points (best of 3 starts)
    from sklearn.cluster import KMeans

    full = KMeans(n_clusters=12, n_init=3, random_state=0).fit(x, sample_weight=w)
    assert history[-1] < 1.02 * full.inertia_ / w.sum()


def test_sampled_turn_costs_little_against_exact_kmeans(tmp_path) -> None:
    """On 16 cards (5,766 turn classes) the turn clustered on 1,000 weighted draws and refined
    over every class is within 10% of exact k-means' objective over every class."""
    strength = strength_tables(4, cache=tmp_path)
    exact = build_abstraction(4, (16, 20, 20, 20), "emd", cache=False, strength=strength)
    sampled = build_abstraction(
        4, (16, 20, 20, 20), "emd", cache=False, strength=strength, kmeans_sample=1000
    )
    assert 0 < exact.objective[2] <= sampled.objective[2] * 1.02
    assert sampled.objective[2] < 1.10 * exact.objective[2]
    assert sampled.num_buckets[1:3] == (20, 20)


def test_cache_hit_and_corrupted_file_rebuilt(tmp_path) -> None:
    first = card_abstraction(3, (169, 8, 8, 8), cache=tmp_path)
    assert not first.from_cache and first.path is not None and first.path.is_file()
    assert first.path.parent == tmp_path
    again = card_abstraction(3, (169, 8, 8, 8), cache=tmp_path)
    assert again.from_cache and again.abstraction.seconds == [0.0] * 4
    for r in range(4):
        np.testing.assert_array_equal(first.abstraction.labels[r], again.abstraction.labels[r])
    np.testing.assert_allclose(again.abstraction.objective, first.abstraction.objective)
    for r, board in enumerate((0, 3, 4, 5)):  # hands per bucket, stored: C(12,2) C(10,board)
        assert again.abstraction.hands[r].sum() == 66 * comb(10, board)
        np.testing.assert_array_equal(again.abstraction.hands[r], first.abstraction.hands[r])
    # damage the stored labels: the checksum fails, the tables are rebuilt and saved again
    data = bytearray(first.path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    first.path.write_bytes(bytes(data))
    rebuilt = card_abstraction(3, (169, 8, 8, 8), cache=tmp_path)
    assert not rebuilt.from_cache
    for r in range(4):
        np.testing.assert_array_equal(first.abstraction.labels[r], rebuilt.abstraction.labels[r])
    assert card_abstraction(3, (169, 8, 8, 8), cache=tmp_path).from_cache
    # other buckets, method or seed: another file
    other = card_abstraction(3, (169, 8, 8, 8), "ehs", cache=tmp_path)
    assert not other.from_cache and other.path != first.path


def test_interrupted_build_resumes_after_the_last_finished_round(tmp_path) -> None:
    strength_tables(3, cache=tmp_path)

    def stop_at_flop(stage: str, done: int, total: int) -> None:
        if stage == "flop":  # the flop's histograms: the turn's k-means has finished
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        card_abstraction(3, (169, 6, 6, 6), cache=tmp_path, progress=stop_at_flop)
    partial = list(tmp_path.glob("*.partial.npz"))
    assert len(partial) == 1
    stages: list[str] = []
    resumed = card_abstraction(
        3, (169, 6, 6, 6), cache=tmp_path, progress=lambda s, d, t: stages.append(s)
    )
    assert "turn" not in stages and "flop" in stages  # the turn was read back, not redone
    assert not list(tmp_path.glob("*.partial.npz"))  # removed once the tables are saved
    fresh = card_abstraction(3, (169, 6, 6, 6), cache=False)
    for r in range(4):
        np.testing.assert_array_equal(resumed.abstraction.labels[r], fresh.abstraction.labels[r])


def test_bad_input() -> None:
    with pytest.raises(PokerlabError, match="'kmeans'"):
        card_abstraction(3, (169, 6, 6, 6), "kmeans", cache=False)
    with pytest.raises(PokerlabError, match="four positive"):
        card_abstraction(3, (169, 6, 6), cache=False)
    with pytest.raises(PokerlabError, match="rounds=2"):
        NoLimitHoldemGame("fcpa", deck="micro", rounds=2).card_abstraction(cache=False)
