"""Exact hand-strength features of every suit-canonical (hole cards, board) class, per round.

- **HS** (river): the share of the opponent's hands (uniform over the cards left) that a hand
  beats on the final board, ties counting half.
- **E[HS]** (earlier rounds): HS averaged over every way the board can finish; **E[HS^2]**: the
  average of HS squared, which rewards hands whose strength varies (draws; Johanson 2007).

Computed exactly, not sampled: the river HS by one evaluation, sort and sweep per canonical
five-card board (card removal by per-card counts), then each earlier round from the next one by
averaging over the next card(s) through the canonical indices (:mod:`.isomorphism`). Per
canonical board the river costs O(H log H) for H = C(cards left, 2); the turn costs one index per
river card, the flop one per turn card, the preflop one per flop.

On the small variant (24 cards) everything takes about a second; the full deck's river
(123,156,254 classes) is the expensive part: :func:`estimate_seconds` measures a sample and
extrapolates, and :func:`river_strength` runs in chunks of boards that it can save and resume.
Tables are cached on disk (:mod:`.store`).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pokerlab.abstraction import _strength_kernels as SK
from pokerlab.abstraction.isomorphism import HandIndexer, round_indexer
from pokerlab.abstraction.store import cache_dir, load_tables, save_tables
from pokerlab.cards.evaluator import eval_tables

__all__ = [
    "Progress",
    "StrengthTables",
    "river_strength",
    "strength_tables",
    "next_round_histograms",
    "class_weights",
    "estimate_seconds",
]

#: ``progress(stage, done, total)``: called as work advances (stage: "river", "turn", ...).
Progress = Callable[[str, int, int], None]

ROUND_NAMES = ("preflop", "flop", "turn", "river")


def _deck(ranks: int) -> np.ndarray:
    return np.arange(52 - 4 * ranks, 52, dtype=np.int64)


def _eval_args() -> tuple:
    t = eval_tables()
    return (t.card_key, t.card_bit, t.flush, t.disp, t.values)


def river_strength(
    ranks: int = 13,
    *,
    chunk_boards: int = 512,
    progress: Progress | None = None,
    resume_path: str | os.PathLike[str] | None = None,
    save_every_seconds: float = 60.0,
    board_range: tuple[int, int] | None = None,
) -> np.ndarray:
    """River HS (float32) of every river class of the deck of the top ``ranks`` ranks.

    Parameters
    ----------
    chunk_boards:
        Canonical boards per kernel call (progress is reported between chunks).
    resume_path:
        A file where the partial table and the next board are saved every
        ``save_every_seconds`` (atomically) and from which a stopped build resumes.
    board_range:
        Only the canonical boards ``[start, stop)`` (for splitting the build across processes;
        classes of other boards stay NaN unless another board also covers them).
    """
    river = round_indexer(3, ranks)
    boards = HandIndexer((5,), ranks)
    start, stop = board_range if board_range is not None else (0, boards.size)
    hs: np.ndarray | None = None
    params = {"kind": "river-partial", "ranks": ranks, "start": start, "stop": stop}
    if resume_path is not None:
        saved = load_tables(resume_path, **params)
        if saved is not None:
            hs = saved["hs"]
            start = int(saved["next_board"][0])
    if hs is None:
        hs = np.full(river.size, np.nan, dtype=np.float32)
    deck = _deck(ranks)
    ev = _eval_args()
    tables = river.kernel_tables()
    last_save = time.perf_counter()
    first = start
    while start < stop:
        end = min(stop, start + chunk_boards)
        board_cards, _ = boards.unindex(np.arange(start, end))
        SK.river_strength_boards(board_cards, deck, ev, tables, hs)
        start = end
        if progress is not None:
            progress("river", start - first, stop - first)
        if resume_path is not None and (
            start == stop or time.perf_counter() - last_save > save_every_seconds
        ):
            save_tables(resume_path, {"hs": hs, "next_board": np.array([start])}, **params)
            last_save = time.perf_counter()
    return hs


def class_weights(rnd: int, ranks: int = 13) -> np.ndarray:
    """Number of (hole cards, board) hands in each class of round ``rnd`` (int32)."""
    return round_indexer(rnd, ranks).weights()


def _roll_back(
    rnd: int,
    ranks: int,
    value: np.ndarray,
    square: np.ndarray,
    labels: np.ndarray | None = None,
    num_labels: int = 0,
    progress: Progress | None = None,
    chunk: int = 1 << 16,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Averages over the next card of a round-``rnd`` class (rnd = 1 flop, 2 turn) of the next
    round's ``value`` / ``square``, and the histogram of the next round's ``labels``."""
    src = round_indexer(rnd, ranks)
    dst = round_indexer(rnd + 1, ranks)
    deck = _deck(ranks)
    mean = np.empty(src.size, dtype=np.float32)
    sq = np.empty(src.size, dtype=np.float32)
    hist = np.zeros((src.size if num_labels else 0, max(num_labels, 1)), dtype=np.uint16)
    lab = labels if labels is not None else np.zeros(1, np.int64)
    board = 3 if rnd == 1 else 4
    for a in range(0, src.size, chunk):
        b = min(src.size, a + chunk)
        h = hist[a:b] if num_labels else np.zeros((0, 1), np.uint16)
        SK.roll_back(
            np.arange(a, b, dtype=np.int64),
            deck,
            np.int64(board),
            src.kernel_tables(),
            dst.kernel_tables(),
            value,
            square,
            lab.astype(np.int64, copy=False),
            np.int64(num_labels),
            mean[a:b],
            sq[a:b],
            h,
        )
        if progress is not None:
            progress(ROUND_NAMES[rnd], b, src.size)
    return mean, sq, hist


def _preflop(
    ranks: int,
    value: np.ndarray,
    square: np.ndarray,
    labels: np.ndarray | None = None,
    num_labels: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    pre = round_indexer(0, ranks)
    flop = round_indexer(1, ranks)
    holes, _ = pre.unindex(np.arange(pre.size))
    deck = _deck(ranks)
    mean = np.empty(pre.size, np.float32)
    sq = np.empty(pre.size, np.float32)
    hist = np.zeros((pre.size if num_labels else 0, max(num_labels, 1)), np.uint32)
    for i, hole in enumerate(holes):
        rest = [c for c in deck if c not in hole]
        flops = np.array(list(itertools.combinations(rest, 3)), dtype=np.int64)
        rows = np.concatenate([np.broadcast_to(hole, (len(flops), 2)), flops], axis=1)
        idx = flop.index(rows)
        mean[i] = value[idx].mean()
        sq[i] = square[idx].mean()
        if num_labels:
            hist[i] = np.bincount(labels[idx], minlength=num_labels)
    return mean, sq, hist


def next_round_histograms(
    rnd: int,
    labels: np.ndarray,
    num_labels: int,
    ranks: int = 13,
    progress: Progress | None = None,
) -> np.ndarray:
    """Per class of round ``rnd`` (0..2), how many of the next round's deals land in each label
    (``labels``: one per class of round ``rnd + 1``, in 0..num_labels-1): the histograms that
    potential-aware clustering compares."""
    labels = np.ascontiguousarray(labels, dtype=np.int64)
    zeros = np.zeros(labels.size, np.float32)
    if rnd == 0:
        return _preflop(ranks, zeros, zeros, labels, num_labels)[2]
    return _roll_back(rnd, ranks, zeros, zeros, labels, num_labels, progress)[2]


@dataclass
class StrengthTables:
    """E[HS] and E[HS^2] (float32) of every class of each round (index 0 preflop .. 3 river);
    on the river both are HS and HS squared."""

    ranks: int
    ehs: list[np.ndarray]
    ehs2: list[np.ndarray]
    seconds: list[float]


def strength_tables(
    ranks: int = 13,
    *,
    cache: bool | str | os.PathLike[str] = True,
    progress: Progress | None = None,
    resume_path: str | os.PathLike[str] | None = None,
) -> StrengthTables:
    """E[HS] and E[HS^2] of every class of every round, computed exactly (cached on disk).

    ``cache``: True for the default folder (:func:`pokerlab.abstraction.store.cache_dir`), a
    folder, or False to neither read nor write. ``seconds`` holds each round's build time (0 when
    read from the cache).
    """
    path: Path | None = None
    if cache:
        folder = cache_dir() if cache is True else Path(cache)
        path = folder / f"strength-r{ranks}.npz"
        saved = load_tables(path, kind="strength", ranks=ranks)
        if saved is not None:
            return StrengthTables(
                ranks,
                [saved[f"ehs{r}"] for r in range(4)],
                [saved[f"ehs2_{r}"] for r in range(4)],
                [0.0] * 4,
            )
    seconds = [0.0] * 4
    t0 = time.perf_counter()
    hs = river_strength(ranks, progress=progress, resume_path=resume_path)
    seconds[3] = time.perf_counter() - t0
    ehs: list[np.ndarray] = [np.empty(0)] * 4
    ehs2: list[np.ndarray] = [np.empty(0)] * 4
    ehs[3] = hs
    ehs2[3] = hs * hs
    for rnd in (2, 1):
        t0 = time.perf_counter()
        ehs[rnd], ehs2[rnd], _ = _roll_back(
            rnd, ranks, ehs[rnd + 1], ehs2[rnd + 1], None, 0, progress
        )
        seconds[rnd] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ehs[0], ehs2[0], _ = _preflop(ranks, ehs[1], ehs2[1])
    seconds[0] = time.perf_counter() - t0
    if progress is not None:
        progress("preflop", 1, 1)
    if path is not None:
        arrays = {f"ehs{r}": ehs[r] for r in range(4)}
        arrays.update({f"ehs2_{r}": ehs2[r] for r in range(4)})
        save_tables(path, arrays, kind="strength", ranks=ranks)
    return StrengthTables(ranks, ehs, ehs2, seconds)


def estimate_seconds(ranks: int = 13, sample_boards: int = 64) -> dict[str, float]:
    """Estimated build seconds of :func:`strength_tables` per round on this machine (one
    core), from timing a sample of boards and classes (the kernels compiled first)."""
    river = round_indexer(3, ranks)
    boards = HandIndexer((5,), ranks)
    deck = _deck(ranks)
    ev = _eval_args()
    scratch = np.zeros(river.size, dtype=np.float32) if river.size < 1 << 24 else None
    n = min(sample_boards, boards.size)
    cards, _ = boards.unindex(np.arange(n))
    if scratch is None:
        scratch = np.zeros(river.size, dtype=np.float32)
    SK.river_strength_boards(cards[:1], deck, ev, river.kernel_tables(), scratch)
    t0 = time.perf_counter()
    SK.river_strength_boards(cards, deck, ev, river.kernel_tables(), scratch)
    per_board = (time.perf_counter() - t0) / n
    out = {"river": per_board * boards.size}
    for rnd in (2, 1):
        src, dst = round_indexer(rnd, ranks), round_indexer(rnd + 1, ranks)
        m = min(2048, src.size)
        args = (
            deck,
            np.int64(2 + rnd),
            src.kernel_tables(),
            dst.kernel_tables(),
            scratch[: dst.size] if dst.size <= scratch.size else np.zeros(dst.size, np.float32),
        )
        value = args[4]
        mean = np.empty(m, np.float32)
        sq = np.empty(m, np.float32)
        hist = np.zeros((0, 1), np.uint16)
        lab = np.zeros(1, np.int64)
        classes = np.arange(m, dtype=np.int64)
        SK.roll_back(classes[:1], *args[:4], value, value, lab, np.int64(0), mean, sq, hist)
        t0 = time.perf_counter()
        SK.roll_back(classes, *args[:4], value, value, lab, np.int64(0), mean, sq, hist)
        out[ROUND_NAMES[rnd]] = (time.perf_counter() - t0) / m * src.size
    flop = round_indexer(1, ranks)
    per_row = out["flop"] / max(1, flop.size * (4 * ranks - 5))
    out["preflop"] = per_row * round_indexer(0, ranks).size * _comb3(4 * ranks - 2)
    out["total"] = sum(out.values())
    return out


def _comb3(n: int) -> int:
    return n * (n - 1) * (n - 2) // 6
