"""The one-sweep showdown (pokerlab.tree._showdown.one_list_showdown) against a brute-force sum,
and the public tree's sweep path against its dense tables."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import pokerlab
from pokerlab.games.leduc import LeducGame
from pokerlab.tree._showdown import one_list_showdown
from pokerlab.tree.public import tree as public_tree
from pokerlab.tree.public.tree import ranked_table


def _brute(hands: list[tuple[int, ...]], strength: np.ndarray, reach: np.ndarray) -> np.ndarray:
    """value(h) = sum over compatible h' of reach(h') * sign(strength h - strength h')."""
    out = np.zeros(len(hands))
    for a, ha in enumerate(hands):
        for b, hb in enumerate(hands):
            if set(ha) & set(hb):
                continue
            out[a] += reach[b] * np.sign(strength[a] - strength[b])
    return out


@pytest.mark.parametrize("cards_per_hand", [1, 2])
def test_one_list_showdown_equals_the_pairwise_sum(cards_per_hand: int) -> None:
    rng = np.random.default_rng(5 + cards_per_hand)
    num_cards = 9
    hands = list(itertools.combinations(range(num_cards), cards_per_hand))
    h = len(hands)
    strength = rng.integers(0, 6, size=h)  # many ties
    reach = rng.uniform(0.0, 1.0, size=h)
    reach[rng.random(h) < 0.2] = 0.0
    valid = rng.random(h) < 0.85  # some hands impossible on this board
    order_list = [i for i in np.argsort(strength, kind="stable") if valid[i]]
    order = np.full((1, h), -1, dtype=np.int32)
    order[0, : len(order_list)] = order_list
    private = np.full((h, 2), -1, dtype=np.int32)
    for i, hand in enumerate(hands):
        private[i, : len(hand)] = hand
    num_valid = np.array([len(order_list)], dtype=np.int32)
    ranked = ranked_table(order, num_valid, strength[None, :].astype(np.int32), private, num_cards)
    half = num_cards + h
    out = np.full(h, 7.0)  # entries off the order stay as they are
    amount = 2.5
    one_list_showdown(
        order[0], ranked[0], 0, len(order_list), reach, amount, np.zeros(2 * half), half, out
    )
    want = _brute([hands[i] for i in order_list], strength[order_list], reach[order_list])
    np.testing.assert_allclose(out[order_list], amount * want, rtol=1e-12, atol=1e-12)
    assert np.all(out[~valid] == 7.0)


def test_public_tree_sweep_equals_its_dense_tables(monkeypatch) -> None:
    """Leduc's six private states take the dense path; with the dense limit at 0 the same game
    takes the one-sweep showdown and the fold sums: CFR gives the same numbers."""
    dense = pokerlab.make_solver(LeducGame(), "cfr+")
    monkeypatch.setattr(public_tree, "DENSE_LIMIT", 0)
    sweep = pokerlab.make_solver(LeducGame(), "cfr+")
    assert dense.compiled.tree.arrays.dense_sign.shape[0] > 0
    assert sweep.compiled.tree.arrays.dense_sign.shape[0] == 0
    dense.step(40)
    sweep.step(40)
    np.testing.assert_allclose(sweep.regrets, dense.regrets, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(sweep.strategy_sum(), dense.strategy_sum(), rtol=1e-9, atol=1e-9)
    assert sweep.exploitability() == pytest.approx(dense.exploitability(), abs=1e-12)
