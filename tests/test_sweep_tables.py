"""The showdown tables of a vector tree (``SweepArrays.sd``) from the compiled kernel against a
numpy construction by sorted searches, on spots with ties, card removal and unequal ranges."""

from __future__ import annotations

import numpy as np
import pytest

import pokerlab
from _postflop_spots import TINY_TURN
from pokerlab.tree._showdown import (
    SD_C0,
    SD_C1,
    SD_FIELDS,
    SD_HAND,
    SD_HI,
    SD_LO,
    SD_SAME,
    SD_SLO0,
)


def reference_sd(hands):
    """``SweepArrays.sd`` by numpy searches (the code the compiled kernel replaced)."""

    h = int(hands.cards.shape[1])
    nb = int(hands.order.shape[1])
    assert 2 * h < 1 << 16, "hand lists longer than the 16-bit sweep tables hold"
    sd = np.zeros((2, nb, h, SD_FIELDS), dtype=np.uint16)
    for b in range(nb):
        for p in (0, 1):
            nv = int(hands.num_valid[p, b])
            order = hands.order[p, b, :nv]
            sd[p, b, :nv, SD_HAND] = order
            sd[p, b, :nv, SD_C0] = hands.cards[p, order, 0]
            sd[p, b, :nv, SD_C1] = hands.cards[p, order, 1]
        for p in (0, 1):
            q = 1 - p
            mine = hands.strength[p, b, hands.order[p, b, : int(hands.num_valid[p, b])]]
            theirs = hands.strength[q, b, hands.order[q, b, : int(hands.num_valid[q, b])]]
            n = mine.shape[0]
            sd[p, b, :n, SD_LO] = np.searchsorted(theirs, mine, side="left")
            sd[p, b, :n, SD_HI] = np.searchsorted(theirs, mine, side="right")
    sd[:, :, :, SD_SLO0:SD_SAME] = 2 * h
    for b in range(nb):
        for p in (0, 1):
            q = 1 - p
            nv_t = int(hands.num_valid[p, b])
            nv_o = int(hands.num_valid[q, b])
            mine, theirs = sd[p, b, :nv_t], sd[q, b, :nv_o]
            sd[p, b, :nv_t, SD_SLO0:SD_SAME] = _snapshot_slots(
                theirs[:, SD_C0], theirs[:, SD_C1], mine[:, SD_C0], mine[:, SD_C1],
                mine[:, SD_LO], mine[:, SD_HI], h,
            ).T  # fmt: skip
    same1 = np.where(hands.same >= 0, hands.same, h)
    for b in range(nb):
        for p in (0, 1):
            nv = int(hands.num_valid[p, b])
            sd[p, b, :nv, SD_SAME] = same1[p, sd[p, b, :nv, SD_HAND]]
    return sd


def _snapshot_slots(oc0, oc1, tc0, tc1, lo, hi, h):
    """(4, n) snapshot slots for one player and board: the last opponent position before each
    bound that holds each of the hand's cards (``2 H`` when none)."""
    nv_o = oc0.shape[0]
    pos = np.concatenate([np.arange(nv_o), np.arange(nv_o)])
    slot = np.concatenate([np.zeros(nv_o, np.int64), np.ones(nv_o, np.int64)])
    card = np.concatenate([oc0, oc1]).astype(np.int64)
    keys = card * (h + 1) + pos
    order = np.argsort(keys, kind="stable")
    keys, pos, slot, card = keys[order], pos[order], slot[order], card[order]

    def last_before(c, bound):
        if keys.shape[0] == 0:
            return np.full(c.shape[0], 2 * h)
        c = c.astype(np.int64)
        i = np.searchsorted(keys, c * (h + 1) + bound.astype(np.int64), side="left") - 1
        j = np.maximum(i, 0)
        return np.where((i >= 0) & (card[j] == c), 2 * pos[j] + slot[j], 2 * h)

    return np.stack(
        [last_before(tc0, lo), last_before(tc1, lo), last_before(tc0, hi), last_before(tc1, hi)]
    ).astype(np.int32)


SPOTS = [
    dict(spot="river"),
    dict(spot="turn"),
    TINY_TURN,
    dict(
        board="AsKsQs2d3c",
        ranges=("22+,A2s+,KTo+", "AA,KK,JTs,T9s,98s"),
        pot=100,
        stack=200,
        bets="a",
        raises="",
    ),
]


@pytest.mark.parametrize("spec", SPOTS, ids=["river", "turn", "tiny-turn", "paired-ranges"])
def test_compiled_rows_equal_numpy_searches(spec: dict) -> None:
    tree = pokerlab.load_game("postflop", **spec).expanded.tree
    got = tree.sweep.sd
    want = reference_sd(tree.hands)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    # the spots exercise what the merges handle: ties in strength and shared cards
    hands = tree.hands
    assert any(
        np.unique(hands.strength[0, b, hands.order[0, b, : hands.num_valid[0, b]]]).size
        < hands.num_valid[0, b]
        for b in range(hands.order.shape[1])
    )
    assert (got[..., SD_SLO0] < 2 * hands.cards.shape[1]).any()
