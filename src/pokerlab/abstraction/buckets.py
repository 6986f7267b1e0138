"""Card abstraction: per-round buckets of the suit-canonical (hole cards, board) classes.

Three methods, chosen by name (SPEC 4.5):

- ``"ehs"``: buckets of equal probability mass by E[HS] (percentile bucketing; Johanson 2007);
- ``"ehs2"``: the same on E[HS^2], which ranks drawing hands above made hands of equal E[HS];
- ``"emd"``: distribution-aware and potential-aware k-means (Johanson et al. 2013; Ganzfried and
  Sandholm 2014). River: percentile buckets of HS (a single number: clustering it is
  one-dimensional). Turn: the histogram, over the river cards, of the river HS in ``hist_bins``
  equal bins. Flop: the histogram, over the turn cards, of the turn's buckets (potential-aware).
  Preflop: the histogram over the flops of the flop's buckets (or lossless when there are at
  least as many buckets as classes). Histograms are compared with the earth mover's distance
  (EMD), see :func:`pokerlab.abstraction.kmeans.emd_embedding`.

Every method is computed exactly over every class of a round, weighted by the number of hands
in the class. The k-means of a round with more distinct classes than ``kmeans_sample`` (the
full deck's flop and turn) is fitted on a weighted sample, then refined by Lloyd passes over
every class, each class finally going to its nearest centre
(:func:`pokerlab.abstraction.kmeans.sampled_kmeans`); smaller rounds use exact k-means over every
class. With as many buckets as a round has classes, the round is lossless. Buckets are numbered
by increasing mean E[HS], so bucket order means strength order.

Recall is not a property of the tables: a perfect-recall solver keys information sets on the
sequence of a hand's buckets in rounds 0..r, an imperfect-recall solver on round r's bucket only
(:func:`bucket_sequence_ids`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.abstraction.kmeans import emd_rounds
from pokerlab.abstraction.store import cache_dir, load_tables, save_tables
from pokerlab.abstraction.strength import (
    Progress,
    StrengthTables,
    class_weights,
    strength_tables,
)
from pokerlab.errors import PokerlabError

__all__ = [
    "MAX_BUCKETS",
    "METHODS",
    "CardAbstraction",
    "build_abstraction",
    "percentile_buckets",
    "abstraction_path",
    "bucket_sequence_ids",
]

METHODS = ("ehs", "ehs2", "emd")

#: The most buckets a round may ask for: bucket labels are int32.
MAX_BUCKETS = 2**31 - 1
#: The most bucket sequences whose ids :func:`bucket_sequence_ids` numbers (int64).
MAX_SEQUENCE_ID = 2**63 - 1


@dataclass
class CardAbstraction:
    """Bucket of every canonical class of each round (``labels[r][class]``, int32).

    ``seconds[r]``: time to build round r's buckets (features excluded; 0 from the cache);
    ``feature_seconds``: time of the exact E[HS] tables (0 from the cache); ``objective[r]``:
    the k-means objective of round r over every class (weighted mean squared distance to the
    class's centre in the EMD embedding; NaN for a round not clustered); ``from_cache``: read
    from the table cache; ``hands[r]``: hands (hole cards and board) in each bucket of round r
    (None where the cache file predates it).
    """

    ranks: int
    method: str
    buckets: tuple[int, int, int, int]
    labels: list[np.ndarray]
    seconds: list[float] = field(default_factory=lambda: [0.0] * 4)
    feature_seconds: float = 0.0
    objective: list[float] = field(default_factory=lambda: [float("nan")] * 4)
    from_cache: bool = False
    hands: list[np.ndarray] | None = None

    def bucket_of(self, rnd: int, cards: np.ndarray) -> np.ndarray:
        """Bucket of each row of ``cards`` (n, 2 + board cards of round ``rnd``)."""
        return self.labels[rnd][round_indexer(rnd, self.ranks).index(cards)]

    @property
    def num_buckets(self) -> tuple[int, int, int, int]:
        """Buckets actually used per round (at most the requested counts)."""
        return tuple(int(lab.max()) + 1 for lab in self.labels)  # type: ignore[return-value]


def percentile_buckets(values: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray:
    """Buckets 0..k-1 of equal weight by increasing ``values`` (equal values share a bucket;
    with at least as many buckets as distinct values, one bucket per value)."""
    distinct, inverse = np.unique(values, return_inverse=True)
    if k >= distinct.size:
        return inverse.astype(np.int32)
    mass = np.bincount(inverse, weights=weights, minlength=distinct.size)
    below = np.cumsum(mass) - mass  # weight strictly below each distinct value
    per_value = np.minimum((below / mass.sum() * k).astype(np.int64), k - 1)
    # renumber so that the used buckets are 0..m-1 (a very heavy value can skip one)
    _, dense = np.unique(per_value, return_inverse=True)
    return dense[inverse].astype(np.int32)


def abstraction_path(
    folder: str | os.PathLike[str],
    ranks: int,
    buckets: Sequence[int],
    method: str,
    *,
    seed: int = 0,
    hist_bins: int = 50,
    kmeans_sample: int | None = None,
) -> Path:
    """The cache file of :func:`build_abstraction`'s tables for these parameters."""
    key = str(method).lower()
    name = "-".join(str(int(b)) for b in buckets)
    extra = f"-s{seed}-h{hist_bins}" if key == "emd" else ""
    if key == "emd" and kmeans_sample is not None:
        extra += f"-k{int(kmeans_sample)}"
    return Path(folder) / f"buckets-r{ranks}-{key}-{name}{extra}.npz"


def build_abstraction(
    ranks: int,
    buckets: Sequence[int],
    method: str = "ehs",
    *,
    seed: int = 0,
    hist_bins: int = 50,
    cache: bool | str | os.PathLike[str] = True,
    progress: Progress | None = None,
    strength: StrengthTables | None = None,
    kmeans_sample: int | None = None,
    kmeans_passes: int = 3,
) -> CardAbstraction:
    """Buckets of every canonical class of each round for a deck of the top ``ranks`` ranks.

    Parameters
    ----------
    buckets:
        Bucket counts per round (preflop, flop, turn, river).
    method:
        ``"ehs"``, ``"ehs2"`` or ``"emd"`` (module docstring).
    seed:
        Seed of the k-means initialisation (``"emd"``).
    hist_bins:
        Equal-width HS bins of the turn's river histograms (``"emd"``).
    cache:
        True (default folder), a folder, or False; features and buckets are both cached. While
        ``"emd"`` builds, each finished round's labels are saved beside the final file
        (``*.partial.npz``), so that an interrupted build resumes after the last finished round.
    kmeans_sample:
        ``"emd"``: rounds with more classes than this are clustered by
        :func:`~pokerlab.abstraction.kmeans.sampled_kmeans` (a sample of this many weighted
        draws, then ``kmeans_passes`` Lloyd passes over every class); None (default): exact
        k-means over every distinct class.
    """
    key = str(method).lower()
    if key not in METHODS:
        raise PokerlabError(f"unknown bucketing {method!r}; known: {', '.join(METHODS)}")
    counts = tuple(int(b) for b in buckets)
    if len(counts) != 4 or min(counts) < 1:
        raise PokerlabError(f"buckets must be four positive counts, got {list(buckets)!r}")
    if max(counts) > MAX_BUCKETS:
        raise PokerlabError(f"buckets: at most {MAX_BUCKETS:,} per round, got {max(counts):,}")
    if kmeans_sample is not None and int(kmeans_sample) < 1:
        raise PokerlabError(f"kmeans_sample must be a positive count, got {kmeans_sample!r}")
    if key != "emd":
        kmeans_sample = None
    path: Path | None = None
    partial: Path | None = None
    params = {"kind": "buckets", "ranks": ranks, "method": key, "buckets": list(counts)}
    if key == "emd":
        params.update(seed=seed, hist_bins=hist_bins)
        if kmeans_sample is not None:
            params.update(kmeans_sample=int(kmeans_sample), kmeans_passes=int(kmeans_passes))
    done: dict[str, np.ndarray] = {}
    if cache:
        folder = cache_dir() if cache is True else Path(cache)
        path = abstraction_path(
            folder, ranks, counts, key, seed=seed, hist_bins=hist_bins, kmeans_sample=kmeans_sample
        )
        saved = load_tables(path, **params)
        if saved is not None:
            objective = [float(v) for v in saved.get("objective", np.full(4, np.nan))]
            hands = [saved[f"hands{r}"] for r in range(4)] if "hands0" in saved else None
            return CardAbstraction(
                ranks,
                key,
                counts,
                [saved[f"labels{r}"] for r in range(4)],
                objective=objective,
                from_cache=True,
                hands=hands,
            )
        if key == "emd":
            partial = path.with_name(path.name[: -len(".npz")] + ".partial.npz")
            done = load_tables(partial, **params, stage="partial") or {}
    if strength is None:
        strength = strength_tables(ranks, cache=cache, progress=progress)
    feature_seconds = sum(strength.seconds) if any(strength.seconds) else 0.0
    weights = [class_weights(r, ranks).astype(np.float64) for r in range(4)]
    labels: list[np.ndarray] = [np.empty(0, np.int32)] * 4
    seconds = [0.0] * 4
    objective = [float("nan")] * 4
    if key in ("ehs", "ehs2"):
        values = strength.ehs if key == "ehs" else strength.ehs2
        for r in range(4):
            t = time.perf_counter()
            labels[r] = percentile_buckets(values[r], weights[r], counts[r])
            seconds[r] = time.perf_counter() - t
    else:
        t = time.perf_counter()
        river = percentile_buckets(strength.ehs[3], weights[3], counts[3])
        river_seconds = time.perf_counter() - t

        def checkpoint(tables: dict[str, np.ndarray]) -> None:
            assert partial is not None
            save_tables(partial, tables, **params, stage="partial")

        labels, seconds, objective = emd_rounds(
            strength,
            weights,
            counts,
            river,
            ranks=ranks,
            seed=seed,
            hist_bins=hist_bins,
            sample=kmeans_sample,
            passes=kmeans_passes,
            progress=progress,
            done=done,
            checkpoint=None if partial is None else checkpoint,
        )
        seconds[3] = river_seconds
    hands = [np.bincount(labels[r], weights=weights[r]).astype(np.int64) for r in range(4)]
    abstraction = CardAbstraction(
        ranks, key, counts, labels, seconds, feature_seconds, objective, hands=hands
    )
    if path is not None:
        arrays = {f"labels{r}": labels[r] for r in range(4)}
        arrays["objective"] = np.array(objective, dtype=np.float64)
        arrays.update({f"hands{r}": hands[r] for r in range(4)})
        save_tables(path, arrays, **params)
        if partial is not None:
            partial.unlink(missing_ok=True)
    return abstraction


def bucket_sequence_ids(
    labels: Sequence[np.ndarray], counts: Sequence[int], recall: str = "perfect"
) -> list[np.ndarray]:
    """Per round, the private-state id of a hand whose bucket in round r is ``labels[r]``:
    perfect recall numbers the bucket sequences b_0..b_r (mixed radix, ``prod counts[:r+1]``
    states), imperfect recall keeps b_r (``counts[r]`` states). ``labels[r]``: (n,) buckets of
    the same n hands in each round."""
    if recall not in ("perfect", "imperfect"):
        raise PokerlabError(f"recall must be 'perfect' or 'imperfect', got {recall!r}")
    if recall == "perfect":
        product = 1
        for c in counts[: len(labels)]:
            product *= int(c)
        if product > MAX_SEQUENCE_ID:
            raise PokerlabError(
                f"{product:,} bucket sequences: their ids do not fit a 64-bit integer"
            )
    out = []
    seq = np.zeros_like(np.asarray(labels[0]), dtype=np.int64)
    for r, lab in enumerate(labels):
        seq = seq * int(counts[r]) + np.asarray(lab, dtype=np.int64)
        out.append(seq.copy() if recall == "perfect" else np.asarray(lab, dtype=np.int64))
    return out
