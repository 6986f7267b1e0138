"""The showdown tables of a vector tree (``SweepArrays.sd``, ``SweepArrays.last``) from the
compiled kernel against a numpy construction by sorted searches, on spots with ties, card
removal and unequal ranges; and the packed showdown against a direct sum over hand pairs."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import pokerlab
from _postflop_spots import TINY_TURN
from pokerlab.tree._showdown import (
    SD_FIELDS,
    SD_HAND,
    SD_HI,
    SD_LO,
    SD_PREV0,
    SD_PREV1,
    SD_SALL0,
    SD_SALL1,
    SD_SAME,
    SD_SHI1,
    SD_SLO0,
    showdown_values,
    snapshot_card_sums,
)


def reference_sd(hands):
    """``SweepArrays.sd`` (as uint16 fields) and ``SweepArrays.last`` by numpy searches."""

    h = int(hands.cards.shape[1])
    nb = int(hands.order.shape[1])
    assert 2 * h < 1 << 16, "hand lists longer than the 16-bit sweep tables hold"
    sd = np.zeros((2, nb, h, SD_FIELDS), dtype=np.uint16)
    last = np.full((2, nb, 52), 2 * h, dtype=np.uint16)
    sd[:, :, :, SD_SLO0:] = 2 * h
    cards = {}
    for b in range(nb):
        for p in (0, 1):
            nv = int(hands.num_valid[p, b])
            order = hands.order[p, b, :nv]
            sd[p, b, :nv, SD_HAND] = order
            cards[p, b] = hands.cards[p, order]
            # each card's previous slot in the list, and its last
            for k in range(nv):
                for i, field in enumerate((SD_PREV0, SD_PREV1)):
                    c = cards[p, b][k, i]
                    sd[p, b, k, field] = last[p, b, c]
                for i in (0, 1):
                    last[p, b, cards[p, b][k, i]] = 2 * k + i
        for p in (0, 1):
            q = 1 - p
            mine = hands.strength[p, b, hands.order[p, b, : int(hands.num_valid[p, b])]]
            theirs = hands.strength[q, b, hands.order[q, b, : int(hands.num_valid[q, b])]]
            n = mine.shape[0]
            sd[p, b, :n, SD_LO] = np.searchsorted(theirs, mine, side="left")
            sd[p, b, :n, SD_HI] = np.searchsorted(theirs, mine, side="right")
    for b in range(nb):
        for p in (0, 1):
            q = 1 - p
            nv_t = int(hands.num_valid[p, b])
            nv_o = int(hands.num_valid[q, b])
            mine, theirs = sd[p, b, :nv_t], cards[q, b]
            lo, hi = mine[:, SD_LO], mine[:, SD_HI]
            sd[p, b, :nv_t, SD_SLO0 : SD_SHI1 + 1] = _snapshot_slots(
                theirs[:, 0], theirs[:, 1], cards[p, b][:, 0], cards[p, b][:, 1], lo, hi, h
            ).T
            every = np.full(nv_t, nv_o)
            sd[p, b, :nv_t, SD_SALL0 : SD_SALL1 + 1] = _snapshot_slots(
                theirs[:, 0], theirs[:, 1], cards[p, b][:, 0], cards[p, b][:, 1], every, every, h
            )[:2].T
    same1 = np.where(hands.same >= 0, hands.same, h)
    for b in range(nb):
        for p in (0, 1):
            nv = int(hands.num_valid[p, b])
            sd[p, b, :nv, SD_SAME] = same1[p, sd[p, b, :nv, SD_HAND]]
    return sd, last


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
    got = tree.sweep.sd.view(np.uint16)
    want, want_last = reference_sd(tree.hands)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(tree.sweep.last, want_last)
    # the spots exercise what the merges handle: ties in strength and shared cards
    hands = tree.hands
    assert any(
        np.unique(hands.strength[0, b, hands.order[0, b, : hands.num_valid[0, b]]]).size
        < hands.num_valid[0, b]
        for b in range(hands.order.shape[1])
    )
    assert (got[..., SD_SLO0] < 2 * hands.cards.shape[1]).any()


@njit(cache=True)
def _showdown(ro, nv_t, nv_o, sd_t, sd_o, nh_t, last_o, snap, dst, cards_sum):
    showdown_values(3.0, -2.0, 0.5, ro, nv_t, nv_o, sd_t, sd_o, nh_t, snap, dst)
    snapshot_card_sums(last_o, snap, sd_t.shape[0], cards_sum)


@pytest.mark.parametrize("spec", SPOTS[1:], ids=["turn", "tiny-turn", "paired-ranges"])
def test_packed_showdown_equals_pairwise_sums(spec: dict) -> None:
    """Win 3, lose -2, tie 0.5 against every compatible opponent hand, summed pair by pair;
    and the per-card reach the sweep leaves for the fold beside it."""
    tree = pokerlab.load_game("postflop", **spec).expanded.tree
    hands, sw = tree.hands, tree.sweep
    h = int(hands.cards.shape[1])
    rng = np.random.default_rng(7)
    for b in range(min(3, hands.order.shape[1])):
        for p in (0, 1):
            q = 1 - p
            nv_t, nv_o = int(hands.num_valid[p, b]), int(hands.num_valid[q, b])
            ro = rng.random(h + 1).astype(np.float32)
            ro[rng.random(h + 1) < 0.3] = 0.0
            ro[h] = 0.0  # the pad slot an absent identical combo points at
            mine, theirs = hands.order[p, b, :nv_t], hands.order[q, b, :nv_o]
            dst, snap, cards_sum = np.full(h, 9.0, np.float32), np.zeros(3 * h + 2), np.zeros(52)
            _showdown(ro, nv_t, nv_o, sw.sd[p, b], sw.sd[q, b], int(hands.num[p]), sw.last[q, b],
                      snap, dst, cards_sum)  # fmt: skip
            want = np.zeros(h)
            for x in mine:
                for g in theirs:
                    if set(hands.cards[p, x]) & set(hands.cards[q, g]):
                        continue
                    sx, sg = hands.strength[p, b, x], hands.strength[q, b, g]
                    want[x] += ro[g] * (3.0 if sx > sg else -2.0 if sx < sg else 0.5)
            np.testing.assert_allclose(dst[: int(hands.num[p])], want[: int(hands.num[p])],
                                       rtol=1e-5, atol=1e-4)  # fmt: skip
            per_card = np.zeros(52)
            for g in theirs:
                per_card[hands.cards[q, g]] += ro[g]
            np.testing.assert_allclose(cards_sum, per_card, rtol=1e-12, atol=1e-12)
