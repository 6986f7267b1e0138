"""The named bundles of the vector tree's kernel arguments (:mod:`pokerlab.tree.vector._kernels`
re-exports them, the import path of their users)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Storage(NamedTuple):
    """The arrays a pass reads and updates, as one kernel argument: regrets and strategy sums
    (float32; int16 and uint16 in the 16-bit mode), a predictive schedule's predicted regrets,
    the 16-bit mode's per-node scales of the regrets and of the sums, and locked probabilities
    (each an empty array when unused)."""

    regrets: np.ndarray
    strat: np.ndarray
    pred: np.ndarray
    rscale: np.ndarray
    sscale: np.ndarray
    lock_probs: np.ndarray


class Discounts(NamedTuple):
    """This iteration's discounts of positive regrets, negative regrets and strategy sums
    (``fa``, ``fb``, ``fg``), the CFR+ floor, the next iteration's regret discounts that a
    predictive schedule's prediction anticipates (``next_a``, ``next_b``), and ``weighted``:
    whether the traverser's strategy sums add its strategy times its own reach (the average
    of Zinkevich et al. 2007) or the strategy as it is (postflop-solver's average, whose CFR
    passes then need no reach of the traverser)."""

    fa: float
    fb: float
    fg: float
    floor: bool
    next_a: float
    next_b: float
    weighted: bool


class Items(NamedTuple):
    """The parallel work items (one subtree below a split chance node each): the opponent's and
    the traverser's reach entering it, and its value vector."""

    ro: np.ndarray
    rp: np.ndarray
    val: np.ndarray


class RootRows(NamedTuple):
    """A pass's root: the opponent's and the traverser's reach there, and where its value vector
    goes."""

    ro: np.ndarray
    rp: np.ndarray
    out: np.ndarray


class Roots(NamedTuple):
    """The roots of a run of walks (:func:`~pokerlab.tree.vector._kernels.walk`): each walk's
    root node and its row in the reach and value arrays (2-D, one row per walk or per work
    item)."""

    node: np.ndarray
    row: np.ndarray
    ro: np.ndarray
    rp: np.ndarray
    out: np.ndarray


class SharedRuns(NamedTuple):
    """A worker's place in a shared call (``_walk_batches.cfr_iterations_shared``): its number
    (0 walks the top part), the worker count, the work items' ``ids`` cut in runs at
    ``starts``, and the call's counters ``sync`` (int64 rows ``SYNC_READY``, ``SYNC_RUN``,
    ``SYNC_DONE``)."""

    worker: int
    workers: int
    ids: np.ndarray
    starts: np.ndarray
    sync: np.ndarray
