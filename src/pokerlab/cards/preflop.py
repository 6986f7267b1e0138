"""Exact preflop all-in equities of every pair of starting hands.

The table is built by ``scripts/build_preflop_table.py``: every matchup of two disjoint combos is
reduced to a canonical representative under the 24 permutations of the suits, and for each
canonical matchup all C(48, 5) = 1,712,304 boards are evaluated. The file
``pokerlab/data/preflop_equity.npz`` stores, per canonical matchup, the two combo ids and the exact
integer counts of boards won by the first hand and of ties:

=========  ===========  ====================================================================
array      dtype        meaning
=========  ===========  ====================================================================
pairs      int16 (m,2)  canonical (first, second) combo ids, sorted by ``first * 1326 + second``
wins       int32 (m,)   boards on which ``first`` wins
ties       int32 (m,)   boards that split the pot
meta       str          JSON: format version, boards per matchup, build seconds, processes
=========  ===========  ====================================================================

Its SHA-256 is stored next to it in ``preflop_equity.sha256`` and checked on every load.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from pokerlab.cards.deck import (
    COMBO_CARDS,
    COMBO_CLASS,
    COMBO_INDEX,
    N_CLASSES,
    N_COMBOS,
    combos_conflict,
)
from pokerlab.errors import FileFormatError

__all__ = [
    "BOARDS_PER_MATCHUP",
    "FORMAT_VERSION",
    "data_path",
    "canonical_matchups",
    "canonicalize",
    "load_counts",
    "win_tie_matrices",
    "equity_matrix",
    "compatible_mask",
    "class_equity_matrix",
]

BOARDS_PER_MATCHUP = 1_712_304
"""C(48, 5): boards dealt to two disjoint hole-card pairs."""
FORMAT_VERSION = 1
DATA_NAME = "preflop_equity.npz"


def data_path() -> Path:
    """Path of the shipped preflop table (it may not exist in a fresh checkout before a build)."""
    return Path(str(resources.files("pokerlab") / "data" / DATA_NAME))


@lru_cache(maxsize=1)
def _perm_combos() -> np.ndarray:
    """(24, 1326) image of every combo under each permutation of the four suits."""
    out = np.empty((24, N_COMBOS), np.int64)
    hi, lo = COMBO_CARDS[:, 0].astype(np.int64), COMBO_CARDS[:, 1].astype(np.int64)
    for p, perm in enumerate(itertools.permutations(range(4))):
        pm = np.array(perm)
        card = 4 * (np.arange(52) >> 2) + pm[np.arange(52) & 3]
        out[p] = COMBO_INDEX[card[hi], card[lo]]
    return out


def canonicalize(first: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Canonical key of each matchup (first vs second) and whether the canonical form is swapped.

    The key is the smallest ``a * 1326 + b`` over the 24 suit permutations applied to the ordered
    pair and to its reverse. ``swapped`` is True where the minimum came from the reverse, i.e. the
    canonical first hand is the image of ``second``: then first's wins are the canonical losses.
    """
    pc = _perm_combos()
    first = np.asarray(first, np.int64)
    second = np.asarray(second, np.int64)
    best = np.full(first.shape, np.iinfo(np.int64).max)
    swapped = np.zeros(first.shape, bool)
    for p in range(24):
        a, b = pc[p][first], pc[p][second]
        k1, k2 = a * N_COMBOS + b, b * N_COMBOS + a
        take = k1 < best
        best = np.where(take, k1, best)
        swapped = np.where(take, False, swapped)
        take = k2 < best
        best = np.where(take, k2, best)
        swapped = np.where(take, True, swapped)
    return best, swapped


def canonical_matchups() -> np.ndarray:
    """(m, 2) int16 canonical matchups (first, second), sorted by key: all that must be computed."""
    i, j = np.triu_indices(N_COMBOS, 1)
    ok = ~combos_conflict()[i, j]
    keys, _ = canonicalize(i[ok], j[ok])
    keys = np.unique(keys)
    return np.stack([keys // N_COMBOS, keys % N_COMBOS], axis=1).astype(np.int16)


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def load_counts(path: Path | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """Read and verify the preflop table: (pairs, wins, ties, meta).

    Raises
    ------
    FileFormatError
        When the file is missing, its SHA-256 differs from the recorded one, or its content is not
        a version this code reads.
    """
    path = data_path() if path is None else Path(path)
    sha_path = path.with_suffix(".sha256")
    if not path.exists() or not sha_path.exists():
        raise FileFormatError(
            f"preflop table {path} (or its .sha256) is missing: run scripts/build_preflop_table.py"
        )
    want = sha_path.read_text().split()[0]
    got = file_sha256(path)
    if got != want:
        raise FileFormatError(f"preflop table {path} is altered: sha256 {got} != {want}")
    with np.load(path, allow_pickle=False) as z:
        pairs, wins, ties = z["pairs"], z["wins"], z["ties"]
        meta = json.loads(str(z["meta"]))
    if meta.get("format_version") != FORMAT_VERSION or meta.get("boards") != BOARDS_PER_MATCHUP:
        raise FileFormatError(f"preflop table {path}: unknown format {meta}")
    if not (len(pairs) == len(wins) == len(ties)):
        raise FileFormatError(f"preflop table {path}: arrays of different lengths")
    return pairs, wins, ties, meta


@lru_cache(maxsize=1)
def win_tie_matrices() -> tuple[np.ndarray, np.ndarray]:
    """Exact (1326, 1326) int32 counts of boards won by combo i against combo j, and of ties.

    Out of :data:`BOARDS_PER_MATCHUP` boards; entries of conflicting pairs are 0.
    """
    pairs, wins, ties, _ = load_counts()
    keys = pairs[:, 0].astype(np.int64) * N_COMBOS + pairs[:, 1]
    i, j = np.nonzero(compatible_mask())
    key, swapped = canonicalize(i, j)
    pos = np.searchsorted(keys, key)
    if np.any(pos >= len(keys)) or np.any(keys[np.minimum(pos, len(keys) - 1)] != key):
        raise FileFormatError("preflop table does not cover every matchup")
    w, t = wins[pos].astype(np.int32), ties[pos].astype(np.int32)
    lose = BOARDS_PER_MATCHUP - w - t
    win = np.zeros((N_COMBOS, N_COMBOS), np.int32)
    tie = np.zeros((N_COMBOS, N_COMBOS), np.int32)
    win[i, j] = np.where(swapped, lose, w)
    tie[i, j] = t
    for a in (win, tie):
        a.setflags(write=False)
    return win, tie


@lru_cache(maxsize=1)
def compatible_mask() -> np.ndarray:
    """(1326, 1326) bool: True where combos i and j share no card (a matchup can be dealt)."""
    m = ~combos_conflict()
    m.setflags(write=False)
    return m


@lru_cache(maxsize=1)
def equity_matrix() -> np.ndarray:
    """(1326, 1326) float64 preflop all-in equity of combo i against combo j (win + tie / 2).

    Exact: computed from integer board counts over all 1,712,304 boards. Entries of pairs that
    share a card are NaN; use :func:`compatible_mask` to select the valid ones.
    ``E[i, j] + E[j, i] == 1`` for every valid pair.
    """
    win, tie = win_tie_matrices()
    eq = (win + 0.5 * tie) / BOARDS_PER_MATCHUP
    eq[~compatible_mask()] = np.nan
    eq.setflags(write=False)
    return eq


@lru_cache(maxsize=1)
def class_equity_matrix() -> np.ndarray:
    """(169, 169) float64 equity of class a against class b, index = class id (13 * row + col).

    The mean of ``equity_matrix()[i, j]`` over every non-conflicting pair of combos i in a and
    j in b, each pair weighted equally (the deal is uniform given both classes).
    """
    eq = np.where(compatible_mask(), equity_matrix(), 0.0)
    onehot = np.zeros((N_COMBOS, N_CLASSES))
    onehot[np.arange(N_COMBOS), COMBO_CLASS] = 1.0
    sums = onehot.T @ eq @ onehot
    counts = onehot.T @ compatible_mask().astype(np.float64) @ onehot
    out = sums / counts
    out.setflags(write=False)
    return out
