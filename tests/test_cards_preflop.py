"""The shipped preflop table: checksum, exact re-enumeration of sampled entries, matrices."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from pokerlab.cards import warmup
from pokerlab.cards.deck import CLASS_COMBOS, COMBO_CARDS, N_COMBOS, parse_class
from pokerlab.cards.equity import hand_vs_hand
from pokerlab.cards.evaluator import evaluate_batch
from pokerlab.cards.preflop import (
    BOARDS_PER_MATCHUP,
    canonical_matchups,
    canonicalize,
    class_equity_matrix,
    compatible_mask,
    data_path,
    equity_matrix,
    load_counts,
    win_tie_matrices,
)
from pokerlab.errors import FileFormatError

pytestmark = pytest.mark.skipif(not data_path().exists(), reason="preflop table not built")


@pytest.fixture(scope="session", autouse=True)
def _compiled() -> None:
    warmup()


def _all_boards(dead: list[int]) -> np.ndarray:
    from itertools import combinations

    deck = [c for c in range(52) if c not in dead]
    return np.array(list(combinations(deck, 5)), dtype=np.uint8)


def test_file_is_complete_and_canonical() -> None:
    pairs, wins, ties, meta = load_counts()
    assert meta["complete"] and meta["matchups"] == len(pairs) == 47_008
    assert np.array_equal(pairs, canonical_matchups())
    assert np.all(wins >= 0) and np.all(wins + ties <= BOARDS_PER_MATCHUP)


def test_random_entries_reenumerated_exactly() -> None:
    """Three random canonical matchups recomputed with the batch evaluator over all boards."""
    pairs, wins, ties, _ = load_counts()
    rng = np.random.default_rng(20240501)
    for k in rng.choice(len(pairs), size=3, replace=False):
        a = [int(c) for c in COMBO_CARDS[pairs[k, 0]]]
        b = [int(c) for c in COMBO_CARDS[pairs[k, 1]]]
        boards = _all_boards(a + b)
        assert len(boards) == BOARDS_PER_MATCHUP
        va = evaluate_batch(np.hstack([np.tile(np.array(a, np.uint8), (len(boards), 1)), boards]))
        vb = evaluate_batch(np.hstack([np.tile(np.array(b, np.uint8), (len(boards), 1)), boards]))
        assert int((va > vb).sum()) == wins[k]
        assert int((va == vb).sum()) == ties[k]


def test_checksum_is_verified(tmp_path: Path) -> None:
    src = data_path()
    copy = tmp_path / src.name
    shutil.copy(src, copy)
    shutil.copy(src.with_suffix(".sha256"), copy.with_suffix(".sha256"))
    load_counts(copy)  # intact copy loads
    raw = bytearray(copy.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    copy.write_bytes(bytes(raw))
    with pytest.raises(FileFormatError, match="altered"):
        load_counts(copy)
    copy.with_suffix(".sha256").unlink()
    with pytest.raises(FileFormatError, match="missing"):
        load_counts(copy)


def test_equity_matrix_properties() -> None:
    eq = equity_matrix()
    ok = compatible_mask()
    assert eq.shape == (N_COMBOS, N_COMBOS) and eq.dtype == np.float64
    assert ok.sum() == N_COMBOS * 1225
    assert np.all(np.isnan(eq[~ok])) and not np.any(np.isnan(eq[ok]))
    assert np.allclose((eq + eq.T)[ok], 1.0, atol=1e-15)
    win, tie = win_tie_matrices()
    assert np.array_equal(tie, tie.T)
    assert np.array_equal(win + win.T + tie, np.where(ok, BOARDS_PER_MATCHUP, 0))


def test_matrix_entries_match_direct_enumeration() -> None:
    eq = equity_matrix()
    win, tie = win_tie_matrices()
    ok = compatible_mask()
    rng = np.random.default_rng(5)
    i, j = np.nonzero(ok)
    for k in rng.choice(len(i), size=12, replace=False):
        a, b = i[k], j[k]
        h1 = "".join("23456789TJQKA"[c >> 2] + "cdhs"[c & 3] for c in COMBO_CARDS[a])
        h2 = "".join("23456789TJQKA"[c >> 2] + "cdhs"[c & 3] for c in COMBO_CARDS[b])
        r = hand_vs_hand(h1, h2)
        assert win[a, b] == round(r.win * BOARDS_PER_MATCHUP)
        assert tie[a, b] == round(r.tie * BOARDS_PER_MATCHUP)
        assert eq[a, b] == pytest.approx(r.equity, abs=1e-15)


def test_canonicalize_is_invariant_under_suit_permutation() -> None:
    i, j = np.nonzero(compatible_mask()[:40])
    key, _ = canonicalize(i, j)
    # swapping hearts and spades maps each pair to a pair with the same canonical key
    swap = np.array([4 * (c >> 2) + [0, 1, 3, 2][c & 3] for c in range(52)])
    from pokerlab.cards.deck import COMBO_INDEX

    pi = COMBO_INDEX[swap[COMBO_CARDS[i, 0]], swap[COMBO_CARDS[i, 1]]]
    pj = COMBO_INDEX[swap[COMBO_CARDS[j, 0]], swap[COMBO_CARDS[j, 1]]]
    key2, _ = canonicalize(pi, pj)
    assert np.array_equal(key, key2)


def test_class_matrix() -> None:
    cm = class_equity_matrix()
    assert cm.shape == (169, 169)
    aa, kk = parse_class("AA"), parse_class("KK")
    assert cm[aa, kk] == pytest.approx(0.81946, abs=5e-5)
    assert np.allclose(cm + cm.T, 1.0)
    # a class against itself is a fair fight
    assert np.allclose(np.diag(cm), 0.5)
    # class value = mean over combo pairs
    eq = equity_matrix()
    sub = eq[np.ix_(CLASS_COMBOS[parse_class("AKs")], CLASS_COMBOS[parse_class("QQ")])]
    assert cm[parse_class("AKs"), parse_class("QQ")] == pytest.approx(np.nanmean(sub))
