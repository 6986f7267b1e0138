"""The information abstraction of the no-limit blueprint (issue 24): card buckets per street.

Preflop is lossless when the configuration asks for at least as many buckets as the deck has
preflop classes (169 on the full deck); flop, turn and river are bucketed by
:func:`pokerlab.abstraction.buckets.build_abstraction` over every suit-canonical (hole cards,
board) class of the deck, by default ``"emd"`` as Pluribus' blueprint (Brown and Sandholm 2019,
supplement; Johanson et al. 2013; Ganzfried and Sandholm 2014): the river by percentiles of its
exact hand strength (E[HS] against a uniform opponent hand), the turn by k-means of the EMD
between histograms of river HS, the flop by k-means of the EMD between histograms over the turn's
buckets (potential-aware). The preflop classes are the 169 (or fewer on small decks) suit classes
of :func:`pokerlab.abstraction.isomorphism.round_indexer`.

Rounds with more classes than :data:`KMEANS_SAMPLE` (the full deck's flop, 1,286,792 classes,
and turn, 13,960,050) are clustered by :func:`~pokerlab.abstraction.kmeans.sampled_kmeans`
(k-means on a weighted sample, then Lloyd passes over every class and a last assignment of every
class to its nearest centre) so that the full deck's tables build within an hour on a 2-core
machine; smaller decks use exact k-means over every distinct class. Tables are cached on disk
with a sha256 checksum (:mod:`pokerlab.abstraction.store`); an interrupted build resumes: the
river strength table every minute, each finished k-means round.
"""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pokerlab.abstraction.buckets import (
    METHODS,
    CardAbstraction,
    abstraction_path,
    build_abstraction,
)
from pokerlab.abstraction.isomorphism import round_indexer
from pokerlab.abstraction.store import cache_dir
from pokerlab.abstraction.strength import Progress, strength_tables
from pokerlab.errors import PokerlabError

__all__ = ["KMEANS_SAMPLE", "KMEANS_PASSES", "AbstractionBuild", "card_abstraction"]

#: Weighted draws the k-means of a round with more classes is fitted on (``sampled_kmeans``).
KMEANS_SAMPLE = 200_000
#: Lloyd passes over every class after the sample's fit.
KMEANS_PASSES = 3

STREETS = ("preflop", "flop", "turn", "river")


@dataclass
class AbstractionBuild:
    """A card abstraction with how it was obtained.

    ``abstraction``: the labels per round (:class:`CardAbstraction`); ``path``: its cache file
    (None without a cache); ``from_cache``: read, not built; ``seconds``: wall time of this call
    (features and buckets; reading on a cache hit); ``cpu_seconds``: CPU time of this process
    meanwhile; ``peak_bytes``: the peak resident memory of this process so far (Linux
    ``ru_maxrss``), bytes.
    """

    abstraction: CardAbstraction
    path: Path | None
    from_cache: bool
    seconds: float
    cpu_seconds: float
    peak_bytes: int

    def bucket_sizes(self) -> list[dict[str, Any]]:
        """Per street: classes, buckets used, and the smallest / largest bucket in hands."""
        out = []
        a = self.abstraction
        for r, labels in enumerate(a.labels):
            if a.hands is not None:
                hands = a.hands[r]
            else:  # a cache file without the counts: slow on the full deck's river (a minute)
                weights = round_indexer(r, a.ranks).weights().astype(np.int64)
                hands = np.bincount(labels, weights=weights).astype(np.int64)
            out.append(
                {
                    "street": STREETS[r],
                    "classes": int(labels.size),
                    "buckets": int(labels.max()) + 1,
                    "requested": int(a.buckets[r]),
                    "min_hands": int(hands.min()),
                    "max_hands": int(hands.max()),
                    "objective": None if np.isnan(a.objective[r]) else float(a.objective[r]),
                }
            )
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON-able summary (no labels)."""
        a = self.abstraction
        return {
            "ranks": a.ranks,
            "method": a.method,
            "buckets": list(a.buckets),
            "cache": None if self.path is None else str(self.path),
            "from_cache": self.from_cache,
            "seconds": round(self.seconds, 3),
            "cpu_seconds": round(self.cpu_seconds, 3),
            "feature_seconds": round(a.feature_seconds, 3),
            "round_seconds": [round(s, 3) for s in a.seconds],
            "peak_bytes": self.peak_bytes,
            "streets": self.bucket_sizes(),
        }


def _peak_rss() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def card_abstraction(
    ranks: int,
    buckets: Sequence[int],
    method: str = "emd",
    *,
    seed: int = 0,
    cache: bool | str | os.PathLike[str] = True,
    progress: Progress | None = None,
    kmeans_sample: int = KMEANS_SAMPLE,
    kmeans_passes: int = KMEANS_PASSES,
) -> AbstractionBuild:
    """Card buckets per street for the deck of the top ``ranks`` ranks, built once and cached.

    ``buckets``: four counts (preflop, flop, turn, river); a preflop count of at least the
    deck's preflop classes keeps the preflop lossless. ``method``: ``"emd"`` (default),
    ``"ehs"`` or ``"ehs2"`` (:mod:`pokerlab.abstraction.buckets`). ``cache``: True (the default
    folder, ``$POKERLAB_CACHE_DIR/abstraction``), a folder, or False. ``progress(stage, done,
    total)`` is called as the strength tables, histograms and k-means passes advance.
    """
    key = str(method).lower()
    if key not in METHODS:
        raise PokerlabError(f"unknown card abstraction method {method!r}; known: emd, ehs, ehs2")
    counts = tuple(int(b) for b in buckets)
    if len(counts) != 4 or min(counts) < 1:
        raise PokerlabError(f"buckets must be four positive counts, got {list(buckets)!r}")
    if int(kmeans_sample) < 1 or int(kmeans_passes) < 0:
        raise PokerlabError("kmeans_sample must be >= 1 and kmeans_passes >= 0")
    path = None
    if cache:
        folder = cache_dir() if cache is True else Path(cache)
        path = abstraction_path(folder, ranks, counts, key, seed=seed, kmeans_sample=kmeans_sample)
    t0, c0 = time.perf_counter(), time.process_time()
    strength = None
    if path is None or not path.is_file():
        resume = None
        if cache:
            resume = Path(folder) / f"strength-r{ranks}.river-partial.npz"
        strength = strength_tables(ranks, cache=cache, progress=progress, resume_path=resume)
        if resume is not None:
            resume.unlink(missing_ok=True)
    abstraction = build_abstraction(
        ranks,
        counts,
        key,
        seed=seed,
        cache=cache,
        progress=progress,
        strength=strength,
        kmeans_sample=kmeans_sample,
        kmeans_passes=kmeans_passes,
    )
    return AbstractionBuild(
        abstraction,
        path,
        abstraction.from_cache,
        time.perf_counter() - t0,
        time.process_time() - c0,
        _peak_rss(),
    )
