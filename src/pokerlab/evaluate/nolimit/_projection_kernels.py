"""The compiled step of a blueprint's projection onto a spot (issue 25,
:func:`~pokerlab.solvers.search.safe.projected_blueprint`): one line of the action tree read on
all of its boards at once, normalised over the node's actions and written into the profile.

numpy did this in five passes over ``(actions, boards, hands)`` float64 arrays (the reading
summed per split action, the dead hands zeroed, the totals, the division, the copy into each
node's block); here each (board, hand) is read, normalised and written in one go, with the same
arithmetic in the same order, so the profile is the same bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["warm_projection", "write_line"]


@njit(cache=True, nogil=True)
def write_line(
    probs: np.ndarray,
    states: np.ndarray,
    ok: np.ndarray,
    entry_of: np.ndarray,
    base: np.ndarray,
    ns: np.ndarray,
    split_j: np.ndarray,
    split_w: np.ndarray,
    lost: np.ndarray,
    offsets: np.ndarray,
    out: np.ndarray,
) -> None:
    """Write the blueprint's normalised probabilities of a line's ``R`` actions for every hand
    on every board into ``out`` (float32, the spot's profile): board ``b``'s node block starts
    at ``offsets[b]``, action ``r`` of hand ``h`` at ``offsets[b] + r * H + h``.

    ``probs``: the blueprint's flat probability table (float64); ``states`` (B, H): each hand's
    private state on each board (-1: dead); ``ok`` (B, H): the hand meets no board card;
    ``entry_of`` (H,): which reading of the line each hand takes (the plan's entries); per
    entry ``e``: the tree node's offset ``base[e]`` and private-state count ``ns[e]``, and per
    action ``r`` the split over the node's actions, ``split_j[e, r, :]`` (-1 past the last)
    with weights ``split_w[e, r, :]``; a lost reading (``lost[e]``) is ``split_w[e, r, 0]``
    for every hand instead. A dead hand, or one whose reading sums to 0, gets 1 / R."""
    nb, nh = states.shape
    nr = split_j.shape[1]
    nj = split_j.shape[2]
    acc = np.zeros((nr, nh))
    total = np.zeros(nh)
    uniform = 1.0 / nr
    for b in range(nb):
        off = offsets[b]
        # the reading summed over each action's split, hand by hand along contiguous rows
        for r in range(nr):
            for h in range(nh):
                e = entry_of[h]
                value = 0.0
                if ok[b, h]:
                    if lost[e]:
                        value = split_w[e, r, 0]
                    else:
                        s = base[e] + states[b, h]
                        for k in range(nj):
                            j = split_j[e, r, k]
                            if j < 0:
                                break
                            value += split_w[e, r, k] * probs[s + j * ns[e]]
                acc[r, h] = value
        total[:] = 0.0
        for r in range(nr):
            for h in range(nh):
                total[h] += acc[r, h]
        for r in range(nr):
            row = off + r * nh
            for h in range(nh):
                t = total[h]
                out[row + h] = acc[r, h] / t if t > 0 else uniform


def warm_projection() -> None:
    """Compile (or load) :func:`write_line` for the argument types the projection passes, on
    one board of two hands (what a search agent's warm-up calls before the table)."""
    out = np.zeros(8, dtype=np.float32)
    write_line(
        np.full(4, 0.5), np.zeros((1, 2), dtype=np.int64), np.ones((1, 2), dtype=np.bool_),
        np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64),
        np.zeros((1, 2, 1), dtype=np.int64), np.ones((1, 2, 1)), np.zeros(1, dtype=np.bool_),
        np.zeros(1, dtype=np.int64), out,
    )  # fmt: skip
