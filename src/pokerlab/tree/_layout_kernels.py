"""Numba kernels over the solver-array layout (normalising strategy sums)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def normalise_public(
    sums: np.ndarray,
    out: np.ndarray,
    decisions: np.ndarray,
    offset: np.ndarray,
    child_start: np.ndarray,
    num_h: int,
) -> None:
    """Per (decision node, private state): sums / total, uniform where the total is 0."""
    for idx in range(decisions.shape[0]):
        n = decisions[idx]
        off = offset[n]
        na = child_start[n + 1] - child_start[n]
        for h in range(num_h):
            total = 0.0
            for a in range(na):
                total += sums[off + a * num_h + h]
            for a in range(na):
                j = off + a * num_h + h
                out[j] = sums[j] / total if total > 0.0 else 1.0 / na


@njit(cache=True)
def normalise_history(sums: np.ndarray, out: np.ndarray, info_offset: np.ndarray) -> None:
    """Per information set (contiguous actions): sums / total, uniform where the total is 0."""
    for k in range(info_offset.shape[0] - 1):
        lo = info_offset[k]
        hi = info_offset[k + 1]
        total = 0.0
        for j in range(lo, hi):
            total += sums[j]
        for j in range(lo, hi):
            out[j] = sums[j] / total if total > 0.0 else 1.0 / (hi - lo)
