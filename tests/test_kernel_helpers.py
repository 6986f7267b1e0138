"""Two numba helpers of ``pokerlab.tree._primitives``: ``unowned`` (an array without its owner
record, so that the passes' views skip atomic reference counts) and ``first_non_finite_f32``
(the finiteness check before every exploitability measure)."""

from __future__ import annotations

import sys
from typing import NamedTuple

import numpy as np
import pytest
from numba import njit

from pokerlab.tree._primitives import first_non_finite_f32, unowned


@njit(cache=False)
def _bump_rows(a, b):  # type: ignore[no-untyped-def]
    u = unowned(a)
    total = 0.0
    for i in range(u.shape[0]):
        row = u[i]  # a view of the unowned array
        for j in range(row.shape[0]):
            row[j] += 1.0
            total += row[j]
    v = unowned(b)
    v[1:3] = 7
    return total


def test_unowned_writes_through_and_leaves_reference_counts_alone() -> None:
    a = np.zeros((3, 4))
    b = np.zeros(5, dtype=np.int16)
    before = (sys.getrefcount(a), sys.getrefcount(b))
    assert _bump_rows(a, b) == 12.0
    for _ in range(200):
        _bump_rows(a, b)
    np.testing.assert_array_equal(a, np.full((3, 4), 201.0))
    np.testing.assert_array_equal(b, [0, 7, 7, 0, 0])
    assert (sys.getrefcount(a), sys.getrefcount(b)) == before


class _Bundle(NamedTuple):
    values: np.ndarray
    inner: tuple
    count: int


@njit(cache=False)
def _bump_bundle(bundle):  # type: ignore[no-untyped-def]
    u = unowned(bundle)
    u.values[0] += 1.0
    u.inner[1][0] += 2
    return u.count + u.values.shape[0] + u.inner[0].shape[0]


def test_unowned_takes_tuples_and_named_tuples_nested() -> None:
    """Every array in a (named, nested) tuple is unowned, other members pass as they are."""
    values, small, codes = np.zeros(3), np.zeros(2, dtype=np.int8), np.zeros(4, dtype=np.int64)
    bundle = _Bundle(values, (small, codes), 5)
    before = [sys.getrefcount(a) for a in (values, small, codes)]
    for _ in range(100):
        assert _bump_bundle(bundle) == 10
    assert values[0] == 100.0 and codes[0] == 200
    assert [sys.getrefcount(a) for a in (values, small, codes)] == before


@pytest.mark.parametrize("n", [1, 7, 16383, 16384, 16385, 40000])
def test_first_non_finite_finds_the_first_bad_entry(n: int) -> None:
    rng = np.random.default_rng(n)
    values = (rng.standard_normal(n) * 1e30).astype(np.float32)
    values[0] = np.finfo(np.float32).max  # the largest finite float32 is finite
    values[-1] = -np.finfo(np.float32).max
    assert first_non_finite_f32(values) == -1
    assert first_non_finite_f32(values[:0]) == -1
    for bad in (np.nan, np.inf, -np.inf, -np.nan):
        for k in sorted({0, n // 2, n - 1, min(16384, n - 1)}):
            v = values.copy()
            v[k] = bad
            if k + 3 < n:
                v[k + 3] = np.nan  # a later one does not hide the first
            assert first_non_finite_f32(v) == k, (bad, k)
