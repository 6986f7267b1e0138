"""EMD k-means of a round's card classes, the clustering behind the ``"emd"`` buckets of
:func:`pokerlab.abstraction.buckets.build_abstraction`.

It holds the earth mover's distance embedding of histograms (:func:`emd_embedding`), exact
weighted k-means over the distinct classes (:func:`weighted_kmeans`), the sampled k-means of
rounds too large for it (:func:`sampled_kmeans`: a fit on a weighted sample, then Lloyd passes
over every class by :func:`assign_nearest`), and the round-by-round build of the turn, flop and
preflop buckets that resumes from the rounds an interrupted build finished
(:func:`emd_rounds`). Clusters are numbered by increasing mean E[HS].
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np

from pokerlab._rng import generator
from pokerlab.abstraction.strength import Progress, StrengthTables, next_round_histograms

__all__ = [
    "emd_embedding",
    "unique_rows",
    "weighted_kmeans",
    "assign_nearest",
    "sampled_kmeans",
    "emd_rounds",
]

ROUND = ("preflop", "flop", "turn", "river")


def emd_embedding(hist: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Vectors whose L1 distance is the earth mover's distance between the histograms.

    ``hist`` (n, m): counts over m points on a line at ``positions`` (increasing). In one
    dimension EMD(p, q) = sum_i |P_i - Q_i| (x_{i+1} - x_i) with P, Q the cumulative
    distributions, so the embedding is the CDF scaled by the gaps.
    """
    p = hist / np.maximum(hist.sum(axis=1, keepdims=True), 1)
    cdf = np.cumsum(p, axis=1)[:, :-1]
    gaps = np.diff(positions).astype(p.dtype)  # float32 histograms: float32 throughout
    return (cdf * gaps).astype(np.float32)


def unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a 2-D array and the row of each input row (a byte view: much faster
    than ``np.unique(axis=0)``)."""
    a = np.ascontiguousarray(a)
    view = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(view, return_index=True, return_inverse=True)
    return a[first], inverse.reshape(-1)


def weighted_kmeans(
    x: np.ndarray, weights: np.ndarray, k: int, seed: int, inverse: np.ndarray | None = None
) -> np.ndarray:
    """Cluster labels (0..k-1) of the rows of ``x`` by weighted k-means; with ``inverse``, the
    rows of ``x`` are distinct points and input row i is point ``inverse[i]`` (weights per input
    row), and labels are returned per input row.

    scikit-learn's KMeans is used because it is a well-kept, compiled (Cython, OpenMP) Lloyd/Elkan
    implementation with k-means++ seeding and sample weights; a numba k-means was not written
    (the issue asks for one only if shown faster). It minimises squared Euclidean distance in
    the EMD embedding, whereas EMD is the L1 distance there: the clusters are k-means clusters of
    the cumulative distributions, the usual practical stand-in for EMD k-means. Duplicate rows
    are merged first (summing weights), which is exact for k-means and saves most of the work.
    """
    from sklearn.cluster import KMeans

    if inverse is None:
        x, inverse = unique_rows(x)
    w = np.bincount(inverse, weights=weights, minlength=x.shape[0])
    if x.shape[0] <= k:
        return inverse.astype(np.int32)
    model = KMeans(n_clusters=k, n_init=3, random_state=seed, max_iter=100)
    model.fit(x, sample_weight=w)
    return model.labels_[inverse].astype(np.int32)


def assign_nearest(
    x: np.ndarray,
    centres: np.ndarray,
    weights: np.ndarray,
    *,
    chunk: int = 1 << 15,
    transform: Callable[[np.ndarray], np.ndarray] | None = None,
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Nearest centre (squared Euclidean distance) of every row of ``x``, in chunks.

    ``transform`` maps a chunk of ``x``'s rows to the points (e.g. histograms to their EMD
    embedding), so that the points of every class need not be held at once. Returns the labels
    (int32), the weighted sum of squared distances, and per centre the weighted sum of its
    points and their weight (one Lloyd update is ``sums / mass``). Distances are expanded as
    ``|x|^2 - 2 x.c + |c|^2`` in float32 matrix products (BLAS).
    """
    from scipy import sparse

    c = np.ascontiguousarray(centres, dtype=np.float32)
    k, d = c.shape
    c_sq = (c * c).sum(axis=1)
    n = x.shape[0]
    labels = np.empty(n, np.int32)
    sums = np.zeros((k, d), np.float64)
    mass = np.zeros(k, np.float64)
    total = 0.0
    for a in range(0, n, chunk):
        b = min(n, a + chunk)
        pts = x[a:b] if transform is None else transform(x[a:b])
        pts = np.ascontiguousarray(pts, dtype=np.float32)
        dist = pts @ c.T
        dist *= -2.0
        dist += c_sq[None, :]
        lab = np.argmin(dist, axis=1)
        labels[a:b] = lab
        w = np.asarray(weights[a:b], dtype=np.float64)
        best = dist[np.arange(b - a), lab].astype(np.float64) + (pts * pts).sum(axis=1)
        total += float((np.maximum(best, 0.0) * w).sum())
        member = sparse.csr_matrix((w, (lab, np.arange(b - a))), shape=(k, b - a))
        sums += member @ pts.astype(np.float64)
        mass += np.bincount(lab, weights=w, minlength=k)
    return labels, total, sums, mass


def sampled_kmeans(
    x: np.ndarray,
    weights: np.ndarray,
    k: int,
    seed: int,
    *,
    sample: int,
    passes: int = 3,
    n_init: int = 1,
    transform: Callable[[np.ndarray], np.ndarray] | None = None,
    progress: Progress | None = None,
    stage: str = "k-means",
) -> tuple[np.ndarray, list[float]]:
    """Weighted k-means of many points: fitted on a sample, refined on every point.

    1. ``sample`` draws of rows with probability proportional to ``weights`` (the hands'
       distribution; a row drawn m times gets weight m);
    2. scikit-learn's k-means (k-means++ seeding, the best of ``n_init`` starts, Lloyd) on the
       sample (on the full deck's turn one start on 100,000 draws beat three on 50,000 by 0.6%
       of the objective, in less time: a larger sample is worth more than more starts);
    3. ``passes`` Lloyd iterations over every row (:func:`assign_nearest`: each row to its
       nearest centre, then every centre to its members' weighted mean; a centre left empty
       stays where it was);
    4. a last assignment of every row to its nearest centre.

    The sample stands in for the full data while the centres move far (Sculley 2010's
    mini-batch argument); the passes over every row then make the result a point that full
    Lloyd iterations improve only slowly. Returns the labels (int32, one per row of ``x``) and
    the objective over every row after each assignment (weighted mean squared distance of each
    row to its cluster's weighted mean): the first for the sample's centres, the last for the
    result. ``transform`` as in
    :func:`assign_nearest`.
    """
    from sklearn.cluster import KMeans

    n = x.shape[0]
    w = np.asarray(weights, dtype=np.float64)
    rng = generator(seed)  # for an integer seed, the stream numpy gives that seed
    draws = rng.choice(n, size=int(sample), p=w / w.sum())
    rows, counts = np.unique(draws, return_counts=True)
    pts = x[rows] if transform is None else transform(x[rows])
    pts = np.asarray(pts, dtype=np.float64)
    if rows.size <= k:
        centres = pts
    else:
        model = KMeans(n_clusters=k, n_init=n_init, random_state=seed, max_iter=100)
        model.fit(pts, sample_weight=counts.astype(np.float64))
        centres = model.cluster_centers_
    total_w = float(w.sum())
    history: list[float] = []
    for p in range(passes + 1):
        labels, inertia, sums, mass = assign_nearest(x, centres, w, transform=transform)
        full = mass > 0
        means = np.array(centres, dtype=np.float64, copy=True)
        means[full] = sums[full] / mass[full, None]
        # the partition's objective: sum w |x - m|^2 = sum w |x - c|^2 - mass |m - c|^2
        shift = (mass * ((means - np.asarray(centres, dtype=np.float64)) ** 2).sum(axis=1)).sum()
        history.append(max(inertia - float(shift), 0.0) / total_w)
        if progress is not None:
            progress(stage, p + 1, passes + 1)
        centres = means
    return labels, history


def _order_by_strength(labels: np.ndarray, ehs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Renumber clusters 0..m-1 by increasing weighted mean E[HS]."""
    _, dense = np.unique(labels, return_inverse=True)
    m = int(dense.max()) + 1
    mass = np.bincount(dense, weights=weights, minlength=m)
    mean = np.bincount(dense, weights=weights * ehs, minlength=m) / np.maximum(mass, 1e-300)
    rank = np.empty(m, np.int32)
    rank[np.argsort(mean, kind="stable")] = np.arange(m, dtype=np.int32)
    return rank[dense]


def _cluster_means(labels: np.ndarray, ehs: np.ndarray, weights: np.ndarray) -> np.ndarray:
    m = int(labels.max()) + 1
    mass = np.bincount(labels, weights=weights, minlength=m)
    return np.bincount(labels, weights=weights * ehs, minlength=m) / np.maximum(mass, 1e-300)


def _cluster_round(
    hist: np.ndarray,
    positions: np.ndarray,
    weights: np.ndarray,
    ehs: np.ndarray,
    k: int,
    seed: int,
    name: str = "",
    *,
    sample: int | None = None,
    passes: int = 3,
    progress: Progress | None = None,
) -> tuple[np.ndarray, float]:
    """k-means of the EMD embeddings of ``hist`` (lossless when k >= classes), numbered by
    strength, and the k-means objective over every class (NaN when lossless)."""
    if k >= hist.shape[0]:
        return _order_by_strength(np.arange(hist.shape[0]), ehs, weights), float("nan")
    order = np.argsort(positions, kind="stable")
    pos = positions[order]
    if sample is not None and hist.shape[0] > sample:
        # the EMD embedding of every class, once (float32, in chunks: no float64 copy)
        identity = np.array_equal(order, np.arange(order.size))
        x = np.empty((hist.shape[0], max(hist.shape[1] - 1, 1)), np.float32)
        step = 1 << 16
        for a in range(0, hist.shape[0], step):
            rows = hist[a : a + step] if identity else hist[a : a + step, order]
            x[a : a + step] = emd_embedding(rows.astype(np.float32), pos)
        labels, history = sampled_kmeans(
            x,
            weights,
            k,
            seed,
            sample=sample,
            passes=passes,
            progress=progress,
            stage=f"{name} k-means",
        )
        return _order_by_strength(labels, ehs, weights), history[-1]
    distinct, inverse = unique_rows(hist[:, order])
    x = emd_embedding(distinct.astype(np.float64), pos)
    labels = weighted_kmeans(x, weights, k, seed, inverse)
    return _order_by_strength(labels, ehs, weights), _objective(x, inverse, labels, weights)


def _objective(
    x: np.ndarray, inverse: np.ndarray, labels: np.ndarray, weights: np.ndarray
) -> float:
    """Weighted mean squared distance of each class's point to its cluster's weighted mean
    (``x``: distinct points, class i is point ``inverse[i]`` with label ``labels[i]``)."""
    m = int(labels.max()) + 1
    w = np.bincount(inverse, weights=np.asarray(weights, dtype=np.float64), minlength=len(x))
    point_label = np.zeros(len(x), np.int64)
    point_label[inverse] = labels
    pts = np.asarray(x, dtype=np.float64)
    mass = np.bincount(point_label, weights=w, minlength=m)
    means = (
        np.stack(
            [
                np.bincount(point_label, weights=w * pts[:, j], minlength=m)
                for j in range(x.shape[1])
            ],
            axis=1,
        )
        / np.maximum(mass, 1e-300)[:, None]
    )
    return float((((pts - means[point_label]) ** 2).sum(axis=1) * w).sum() / w.sum())


def emd_rounds(
    strength: StrengthTables,
    weights: Sequence[np.ndarray],
    counts: Sequence[int],
    river: np.ndarray,
    *,
    ranks: int,
    seed: int,
    hist_bins: int,
    sample: int | None,
    passes: int,
    progress: Progress | None,
    done: dict[str, np.ndarray],
    checkpoint: Callable[[dict[str, np.ndarray]], None] | None = None,
) -> tuple[list[np.ndarray], list[float], list[float]]:
    """The ``"emd"`` buckets of every round given the river's (``river``: percentile buckets
    of its HS): the labels per round, the seconds each of the turn, flop and preflop took to
    build (0 for the river and for a round resumed) and each round's k-means objective (NaN for
    the river and for a lossless round).

    Turn: k-means of the histograms of the river HS over the river cards in ``hist_bins`` equal
    bins (distribution-aware). Flop and preflop: k-means of the histograms over the next
    round's buckets, placed on a line at their mean E[HS] (potential-aware). ``sample`` and
    ``passes`` as in :func:`sampled_kmeans` (None: exact k-means). Resume: a round whose
    ``labels{r}`` and ``objective{r}`` are in ``done`` (the tables of an interrupted build) is
    taken from it; each round clustered is added to ``done``, and after the turn and the flop
    ``checkpoint(done)`` is called to save them.
    """
    labels: list[np.ndarray] = [np.empty(0, np.int32)] * 4
    seconds = [0.0] * 4
    objective = [float("nan")] * 4
    labels[3] = river
    kmeans = {"sample": sample, "passes": passes, "progress": progress}

    def finished(r: int, lab: np.ndarray, obj: float) -> None:
        labels[r] = lab
        objective[r] = obj
        done[f"labels{r}"] = lab
        done[f"objective{r}"] = np.array([obj])
        if checkpoint is not None and r > 0:
            checkpoint(done)

    def resumed(r: int) -> bool:
        if f"labels{r}" not in done:
            return False
        labels[r] = done[f"labels{r}"]
        objective[r] = float(done[f"objective{r}"][0])
        return True

    # turn: distribution of the river HS over the river cards (distribution-aware)
    if not resumed(2):
        t = time.perf_counter()
        bins = np.minimum((strength.ehs[3] * hist_bins).astype(np.int64), hist_bins - 1)
        hist = next_round_histograms(2, bins, hist_bins, ranks, progress)
        del bins
        centres = (np.arange(hist_bins) + 0.5) / hist_bins
        finished(
            2,
            *_cluster_round(
                hist, centres, weights[2], strength.ehs[2], counts[2], seed, "turn", **kmeans
            ),
        )
        del hist
        seconds[2] = time.perf_counter() - t
    # flop and preflop: distribution over the next round's buckets (potential-aware), the
    # buckets placed on a line at their mean E[HS]
    for r in (1, 0):
        if resumed(r):
            continue
        t = time.perf_counter()
        nxt = labels[r + 1]
        means = _cluster_means(nxt, strength.ehs[r + 1], weights[r + 1])
        hist = next_round_histograms(r, nxt, int(nxt.max()) + 1, ranks, progress)
        finished(
            r,
            *_cluster_round(
                hist, means, weights[r], strength.ehs[r], counts[r], seed, ROUND[r], **kmeans
            ),
        )
        seconds[r] = time.perf_counter() - t
    return labels, seconds, objective
