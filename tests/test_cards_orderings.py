"""Hand-strength and Sklansky-Chubukov orderings computed from the preflop table."""

from __future__ import annotations

import numpy as np
import pytest

from pokerlab.cards import hand_strength_order, sklansky_chubukov
from pokerlab.cards.deck import CLASS_SIZE, class_name, parse_class
from pokerlab.cards.orderings import (
    class_equity_vs_random,
    combo_equity_vs_random,
    combo_strength_order,
    combo_strength_rank,
    sklansky_chubukov_order,
)
from pokerlab.cards.preflop import compatible_mask, data_path, equity_matrix

pytestmark = pytest.mark.skipif(not data_path().exists(), reason="preflop table not built")


def test_hand_strength_order() -> None:
    order = hand_strength_order()
    assert sorted(order.tolist()) == list(range(169))
    names = [class_name(int(c)) for c in order]
    assert names[:5] == ["AA", "KK", "QQ", "JJ", "TT"]
    assert "32o" in names[-3:]
    eq = class_equity_vs_random()
    # AA wins about 85.2% against a random hand (a widely quoted figure)
    assert eq[parse_class("AA")] == pytest.approx(0.852, abs=1e-3)
    assert np.all(np.diff(eq[order]) <= 0)
    # the average equity over all hands is one half
    assert np.average(eq, weights=CLASS_SIZE) == pytest.approx(0.5, abs=1e-12)


def test_combo_rank_follows_class_order() -> None:
    rank = combo_strength_rank()
    order = combo_strength_order()
    assert sorted(order.tolist()) == list(range(1326))
    assert np.all(np.diff(rank[order]) >= 0)
    assert rank[order[0]] == 0
    ce = combo_equity_vs_random()
    eq = np.where(compatible_mask(), equity_matrix(), 0.0)
    assert ce[17] == pytest.approx(eq[17].sum() / 1225)


def test_sklansky_chubukov() -> None:
    sc = sklansky_chubukov()
    aa, kk, o32 = parse_class("AA"), parse_class("KK"), parse_class("32o")
    assert np.isinf(sc[aa])
    assert np.all(np.isfinite(np.delete(sc, aa)))
    assert sklansky_chubukov_order()[0] == aa
    # Deep, only AA (6 combos, behind) and the one other live KK combo (exactly 0.5, so it calls
    # for free) call KK: 0 = (1218 folds + 0.5 * 1225) / 1225 + S * sum_AA (2 e - 1) / 1225
    from pokerlab.cards.deck import CLASS_COMBOS

    k0 = int(CLASS_COMBOS[kk][0])
    g = 2 * equity_matrix()[k0, CLASS_COMBOS[aa]] - 1
    assert sc[kk] == pytest.approx((1218 + 612.5) / -g.sum(), rel=1e-12)
    assert sc[kk] > 400
    # the next hands by SC: AKs above QQ, AKo above JJ (the big blind folds more against them)
    assert sc[parse_class("AKs")] > sc[parse_class("QQ")] > sc[parse_class("AKo")]
    # pairs are ordered by rank
    pairs = [parse_class(r * 2) for r in "AKQJT98765432"]
    assert np.all(np.diff(sc[pairs]) < 0)
    # 32o: at its SC stack the big blind calls with everything, so the shove's gain over folding
    # is 0.5 + S * (2 e - 1) with e = 32o's equity against a random hand
    e = class_equity_vs_random()[o32]
    assert sc[o32] == pytest.approx(0.5 / (1 - 2 * e), rel=1e-12)
    assert 1.3 < sc[o32] < 1.6
    assert np.argmin(sc) == o32 or sc[o32] <= np.sort(sc)[2]
