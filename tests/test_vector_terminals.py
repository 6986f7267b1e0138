"""The vector tree's fold terminals: the blocker sums against a direct sum over hand pairs, and
the traverser's folds valued from their showdown sibling's sweep (``VectorArrays.twin``)."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from pokerlab.solvers.postflop import PostflopSolver
from pokerlab.tree._primitives import DECISION, FOLD, SHOWDOWN
from pokerlab.tree._showdown import (
    FM_C0,
    FM_C1,
    FM_SAME,
    any_reach,
    fold_from_sums,
    fold_values,
)
from pokerlab.tree.vector import _kernels as K


def _lists(rng: np.random.Generator, sizes: tuple[int, int], shuffle: bool):
    """Two hand lists of distinct two-card combos (with common combos), their fm rows."""
    combos = [(a, b) for a in range(52) for b in range(a)]
    rng.shuffle(combos)
    common = combos[:10]
    lists = [common + combos[10 : 10 + sizes[0]], common + combos[100 : 100 + sizes[1]]]
    if not shuffle:
        lists = [sorted(x, reverse=True) for x in lists]
    else:
        for x in lists:
            rng.shuffle(x)
    h = max(len(x) for x in lists)
    fm = np.zeros((2, h, 3), dtype=np.uint16)
    for p in (0, 1):
        other = {c: i for i, c in enumerate(lists[1 - p])}
        for i, c in enumerate(lists[p]):
            fm[p, i] = (c[0], c[1], other.get(c, h))
    return lists, fm, h


@pytest.mark.parametrize("shuffle", [False, True])
def test_fold_values_are_the_compatible_reach_times_the_payoff(shuffle: bool) -> None:
    rng = np.random.default_rng(7)
    lists, fm, h = _lists(rng, (40, 55), shuffle)
    ro = np.zeros(h + 1, dtype=np.float32)
    ro[: len(lists[1])] = rng.random(len(lists[1]))
    ro[3] = 0.0
    dst = np.zeros(h, dtype=np.float32)
    fold_values(-2.5, ro, len(lists[1]), len(lists[0]), fm[1], fm[0], np.zeros(52), dst)
    for i, c in enumerate(lists[0]):
        ok = [j for j, o in enumerate(lists[1]) if not set(c) & set(o)]
        want = -2.5 * float(np.sum(ro[ok], dtype=np.float64))
        assert dst[i] == pytest.approx(want, rel=1e-6)
    # the same values from the sums alone
    sums = np.zeros(52)
    for j, o in enumerate(lists[1]):
        sums[list(o)] += ro[j]
    again = np.zeros(h, dtype=np.float32)
    fold_from_sums(-2.5, float(ro.sum(dtype=np.float64)), ro, len(lists[0]), fm[0], sums, again)
    np.testing.assert_allclose(again, dst, rtol=1e-6)
    # nothing to win or lose against an empty reach
    fold_values(3.0, np.zeros(h + 1, np.float32), len(lists[1]), len(lists[0]), fm[1], fm[0],
                np.zeros(52), dst)  # fmt: skip
    assert not dst.any()
    assert FM_C0 == 0 and FM_C1 == 1 and FM_SAME == 2


def test_the_traverser_s_folds_pair_with_their_showdown_sibling() -> None:
    """Each twin is a decision's fold by its actor and that decision's showdown; every spot of
    the benchmark has some (facing a river bet)."""
    tree = pokerlab.load_game("postflop", spot="turn").expanded.tree
    a = tree.arrays
    pairs = 0
    for p in np.flatnonzero(a.kind == DECISION):
        kids = a.children[a.child_start[p] : a.child_start[p + 1]]
        for c in kids:
            if a.twin[c] < 0:
                continue
            other = int(a.twin[c])
            assert a.twin[other] == c and other in kids
            fold, show = (c, other) if a.kind[c] == FOLD else (other, c)
            assert a.kind[fold] == FOLD and a.kind[show] == SHOWDOWN
            assert a.player[fold] == a.player[p]
            pairs += 1
    assert pairs > 0
    folds = [c for c in np.flatnonzero(a.kind == FOLD)]
    assert pairs // 2 < len(folds)  # the opponent's folds and the turn's folds are not paired


@pytest.mark.parametrize("spot", ["river", "turn"])
def test_a_pass_without_the_pairing_gives_the_same_values(spot: str) -> None:
    """A pass that records a node values every fold on its own (the pairing is off); its root
    values equal the paired pass's to float64 rounding, for both traversers, in the expected
    value and best-response passes."""
    solver = PostflopSolver(pokerlab.load_game("postflop", spot=spot), "dcfr-ps")
    solver.step(12)
    t, p = solver.tree, solver.passes
    hd = t.hands
    store = K.Storage(solver.regrets, solver.strat_sum, p.no_prediction, p.no_scale, p.no_scale,
                      p.no_lock)  # fmt: skip
    disc = K.Discounts(1.0, 1.0, 1.0, False, 1.0, 1.0, True)
    items = K.Items(p.items_ro, p.items_rp, p.items_val)
    for trav in (0, 1):
        for mode in (K.MODE_EV, K.MODE_BR):
            outs = []
            for rec_node in (-1, 0):
                out = np.zeros(hd.cards.shape[1])
                K.traverse(
                    t.arrays, hd, t.sweep, 0, trav, mode, K.SPLIT_NONE, store, disc,
                    K.RootRows(hd.weight[1 - trav], hd.weight[trav], out), p.scratch_one,
                    items, rec_node, np.zeros((3, hd.cards.shape[1])),
                )  # fmt: skip
                outs.append(out)
            assert np.abs(outs[0]).max() > 0
            np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_any_reach_sees_every_non_zero_entry_of_the_row_and_nothing_after(dtype) -> None:
    row = np.zeros(9, dtype=dtype)
    assert not any_reach(row, 8)
    for i in range(8):
        row[:] = 0.0
        row[i] = np.finfo(dtype).smallest_subnormal  # the smallest reach still counts
        assert any_reach(row, 8)
        assert any_reach(row, i + 1) and not any_reach(row, i)
    row[:] = 0.0
    row[8] = 1.0  # the zero pad slot's place: beyond n, not read
    assert not any_reach(row, 8)
